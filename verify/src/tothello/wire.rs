//! The `bestMove` line protocol, both ends in one place: the request line a
//! referee writes and a server reads, and the answer a server writes and a
//! referee reads.

use tabula_solver::tothello::{Board, Color, TothelloError, best_move, square_name};

use crate::protocol::{ProtocolError, Request};

/// Why a request line got no answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The line does not fit the method's arguments.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// A square, the board or the turn is wrong.
    #[error(transparent)]
    Rules(#[from] TothelloError),
    /// The method is not one of Tothello's.
    #[error("unknown method '{0}' (Tothello answers bestMove)")]
    UnknownMethod(String),
}

/// The request line of `bestMove` for a board and the player to move:
/// `bestMove <redPieces> <blackPieces> <whoseTurn>`, each list as its length
/// then its squares.
pub fn request_line(board: &Board, turn: Color) -> String {
    let list = |mask: u64| -> String {
        let mut text = mask.count_ones().to_string();
        for square in (0..64u8).filter(|&s| mask >> s & 1 == 1) {
            text.push(' ');
            text.push_str(&square_name(square));
        }
        text
    };
    format!(
        "bestMove {} {} {}",
        list(board.red),
        list(board.black),
        turn.name()
    )
}

/// Reads a request line back into the board and the player to move.
pub fn decode_request(line: &str) -> Result<(Board, Color), RequestError> {
    let mut req = Request::parse(line)?;
    match req.method {
        "bestMove" => {
            let red = req.strings("redPieces")?;
            let black = req.strings("blackPieces")?;
            let turn = req.string("whoseTurn")?;
            req.finish()?;
            let board = Board::from_squares(&red, &black).map_err(quoted_short)?;
            let turn: Color = turn.parse().map_err(quoted_short)?;
            Ok((board, turn))
        }
        other => Err(RequestError::UnknownMethod(crate::protocol::excerpt(other))),
    }
}

/// The error with the text it quotes cut to an excerpt with its control
/// characters escaped, as every protocol error quotes a request.
fn quoted_short(error: TothelloError) -> TothelloError {
    use crate::protocol::excerpt;
    match error {
        TothelloError::BadSquare(text) => TothelloError::BadSquare(excerpt(&text)),
        TothelloError::BadTurn(text) => TothelloError::BadTurn(excerpt(&text)),
        TothelloError::BadMove(text) => TothelloError::BadMove(excerpt(&text)),
        other => other,
    }
}

/// The answer line: the piece count.
pub fn encode_answer(pieces: u32) -> String {
    pieces.to_string()
}

/// Reads an answer line: a piece count (surrounding blanks allowed).
pub fn decode_answer(line: &str) -> Result<u32, String> {
    line.trim()
        .parse()
        .map_err(|_| format!("'{}' is not a piece count", crate::wire::short(line)))
}

/// Answers one request line: `bestMove <redPieces> <blackPieces> <whoseTurn>`.
///
/// Boards the statement calls invalid because a piece already lies between two
/// of the other colour are answered by the rule as written: such pieces change
/// colour with the mover's placement. More than 50 pieces of a colour are
/// accepted too (the game reaches such boards).
pub fn answer(line: &str) -> Result<String, String> {
    answer_request(line).map_err(|e| e.to_string())
}

/// [`answer`] with a typed error.
pub fn answer_request(line: &str) -> Result<String, RequestError> {
    let (board, turn) = decode_request(line)?;
    Ok(encode_answer(best_move(&board, turn)?.pieces))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::serve;

    #[test]
    fn serves_good_and_bad_lines() {
        let cases = [
            (
                "bestMove 11 C2 C3 C4 C5 D4 E4 F2 F3 F4 F5 G6 6 B1 E1 G1 C6 H7 G4 Black",
                "16",
            ),
            ("bestMove 5 A1 B8 C6 C8 D8 5 B2 C2 C3 C4 C5 Red", "11"),
            ("bestMove 0 0 Red", "1"),
            ("bestMove 1 A1 0 Red", "2"),
            ("bestMove 1 A1 0 Black", "1"),
            ("bestMoves 0 0 Red", "error: unknown method 'bestMoves'"),
            ("bestMove 1 I9 0 Red", "error: 'I9' is not a square"),
            ("bestMove 1 c4 0 Red", "error: 'c4' is not a square"),
            // What an error quotes is cut to an excerpt, its controls escaped.
            (
                &format!("bestMove 1 {} 0 Red", "Y".repeat(300)),
                &format!("error: '{}…' is not a square", "Y".repeat(40)),
            ),
            (
                "bestMove 0 0 R\u{1b}d",
                "error: 'R\\u{1b}d' is not a player",
            ),
            (
                "bestMove 5 A1 B2 0 Red",
                "error: argument redPieces: length 5, but 4 words follow",
            ),
            (
                "bestMove 3 A1 B2 0 Red",
                "error: argument blackPieces: bad array length 'Red'",
            ),
            (
                "bestMove 2 A1 B2 0 Red extra",
                "error: unexpected extra argument 'extra'",
            ),
            ("bestMove 1 A1 0", "error: missing argument whoseTurn"),
            (
                "bestMove 2 A1 A1 0 Red",
                "error: square A1 is listed twice among the Red pieces",
            ),
            (
                "bestMove 1 A1 1 A1 Red",
                "error: square A1 is listed as both Red and Black",
            ),
            ("bestMove 0 0 red", "error: 'red' is not a player"),
            (
                "bestMove x 0 Red",
                "error: argument redPieces: bad array length 'x'",
            ),
            ("bestMove 1 A1 0 Red", "2"),
        ];
        let mut input: String = cases.iter().map(|(line, _)| format!("{line}\n")).collect();
        // A full board: 32 pieces each.
        let squares = |from: u8| -> Vec<String> {
            (from..from + 32)
                .map(tabula_solver::tothello::square_name)
                .collect()
        };
        input.push_str(&format!(
            "bestMove 32 {} 32 {} Red\n",
            squares(0).join(" "),
            squares(32).join(" ")
        ));
        let mut output = Vec::new();
        serve(input.as_bytes(), &mut output, answer).unwrap();
        let text = String::from_utf8(output).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), cases.len() + 1, "{text}");
        for ((request, expected), got) in cases.iter().zip(&lines) {
            assert!(
                got.starts_with(expected),
                "{request}: got '{got}', want '{expected}'"
            );
            if !expected.starts_with("error:") {
                assert_eq!(got, expected, "{request}");
            }
        }
        assert_eq!(
            lines[cases.len()],
            "error: the board is full: there is no empty square to play"
        );
    }

    #[test]
    fn requests_and_answers_round_trip() {
        let board = Board::from_squares(&["A1", "H8", "C4"], &["B2"]).unwrap();
        for turn in [Color::Red, Color::Black] {
            let line = request_line(&board, turn);
            let (back, back_turn) = decode_request(&line).unwrap();
            assert_eq!((back, back_turn), (board, turn), "{line}");
            let pieces = best_move(&board, turn).unwrap().pieces;
            assert_eq!(answer(&line), Ok(encode_answer(pieces)));
            assert_eq!(decode_answer(&format!(" {pieces} ")), Ok(pieces));
        }
        assert!(decode_answer("sixteen").is_err());
        assert!(decode_answer("").is_err());
    }
}
