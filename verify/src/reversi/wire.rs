//! The `getNextMove` line protocol, both ends in one type.
//!
//! The referee writes `getNextMove <board>` whenever player 1 (seat 0) must
//! move, where `<board>` is a String[]: its length N, then the N rows, `.` for
//! an empty cell and `1`..`P` for the players. The answer is the statement's
//! int[] `{column, row}` written `col row`. Player 1 is asked only when it has
//! a legal move, and every test case is one game with a fresh process, so the
//! player side treats its first request as the start of its game.

use tabula_solver::grid::Square;
use tabula_solver::reversi::Board;

use crate::protocol::Request;
use crate::wire::{Incoming, Wire, short};

/// The Reversi wire; [`ReversiWire::default`] for either end.
#[derive(Clone, Debug, Default)]
pub struct ReversiWire {
    /// Player side: whether a request was answered already (the game has started).
    started: bool,
}

/// The request for player 1's move: `getNextMove N row...`.
pub fn move_request(board: &Board) -> String {
    let mut words = vec!["getNextMove".to_string(), board.n().to_string()];
    words.extend(board.rows());
    words.join(" ")
}

/// Reads an answer `col row` on `board` (whether the move is legal is the
/// match loop's check, with [`Board::check`]'s reasons).
pub fn parse_answer(board: &Board, line: &str) -> Result<Square, String> {
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let bad = || {
        format!(
            "invalid answer '{}': expected two integers 'col row'",
            short(line)
        )
    };
    let [col, row] = words[..] else {
        return Err(bad());
    };
    // An optional `-` then digits: one too large for i64 is still an integer
    // (off the board, quoted as written), anything else is no integer.
    let integer = |text: &str| -> Result<Option<i64>, String> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        Ok(text.parse::<i64>().ok())
    };
    let square = match (integer(col)?, integer(row)?) {
        (Some(c), Some(r)) => board.geometry().checked_square(r, c),
        _ => None,
    };
    let n = board.n();
    square.ok_or_else(|| {
        format!(
            "invalid answer '{}': column {} row {} is off the {n}x{n} board",
            short(line),
            short(col),
            short(row)
        )
    })
}

/// The answer for `square`: `col row`.
pub fn answer_text(board: &Board, square: Square) -> String {
    let (row, col) = board.geometry().row_col(square);
    format!("{col} {row}")
}

/// Reads the board of a request, strictly: N 7..12, rows of N cells of `.` or
/// `1`..`P`, and player 1 must have a legal move.
pub fn read_board(rows: &[&str]) -> Result<Board, String> {
    let board = Board::from_rows(rows, 0).map_err(|e| e.to_string())?;
    if board.mover() != Some(0) {
        return Err("player 1 has no legal move on this board".into());
    }
    Ok(board)
}

impl Wire<Board> for ReversiWire {
    fn move_request(&mut self, view: &Board) -> String {
        move_request(view)
    }

    fn decode_answer(&mut self, view: &Board, line: &str) -> Result<Square, String> {
        parse_answer(view, line)
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Board>, String> {
        let mut req = Request::parse(line)?;
        if req.method != "getNextMove" {
            return Err(format!("unknown method '{}'", short(req.method)));
        }
        let rows = req.strings("board")?;
        req.finish()?;
        let view = read_board(&rows)?;
        // One game per process: the first good request starts it, in seat 0.
        let start = (!self.started).then_some(0);
        self.started = true;
        Ok(Incoming::Move {
            start,
            observed: Vec::new(),
            view,
        })
    }

    fn encode_answer(&mut self, view: &Board, mv: Square) -> String {
        answer_text(view, mv)
    }
}

/// Every move of a game for logs: `seat:col,row` (seats from 1, as on the board).
pub fn moves_text(plies: &[crate::arena::Ply<Square>], n: usize) -> String {
    let g = Board::start(n).expect("a played side").geometry();
    plies
        .iter()
        .map(|ply| {
            let (row, col) = g.row_col(ply.mv);
            let who = match ply.turn {
                tabula_solver::Turn::Seat(s) => (s + 1).to_string(),
                _ => "*".into(),
            };
            format!("{who}:{col},{row}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use crate::protocol::Reply;
    use crate::tournament::{Purpose, stream};
    use crate::wire::Session;
    use rand::RngExt;
    use tabula_solver::Game;
    use tabula_solver::reversi::{MAX_N, MIN_N};

    fn move_of(incoming: Incoming<Board>) -> (Option<usize>, Board) {
        match incoming {
            Incoming::Move {
                start,
                observed,
                view,
            } => {
                assert!(observed.is_empty());
                (start, view)
            }
            other => panic!("expected a move request, got {other:?}"),
        }
    }

    #[test]
    fn boards_and_answers_round_trip_over_random_games_of_every_size() {
        let mut requests = 0;
        for n in MIN_N..=MAX_N {
            for game in 0..10 {
                let mut rng = stream(3, Purpose::Agent, n as u64, game, 0);
                let mut board = Board::start(n).unwrap();
                let (mut referee, mut player) = (ReversiWire::default(), ReversiWire::default());
                let mut first = true;
                while let Some(seat) = board.mover() {
                    let moves = board.moves();
                    let mv = moves[rng.random_range(0..moves.len())];
                    if seat == 0 {
                        let request = referee.move_request(&board);
                        assert!(request.starts_with(&format!("getNextMove {n} ")));
                        assert_eq!(request.split(' ').count(), n + 2);
                        let (start, seen) = move_of(player.decode_request(&request).unwrap());
                        assert_eq!(
                            start,
                            first.then_some(0),
                            "the first request starts the game"
                        );
                        first = false;
                        assert_eq!(seen, board, "{request}");
                        let answer = player.encode_answer(&seen, mv);
                        assert_eq!(referee.decode_answer(&board, &answer), Ok(mv), "{answer}");
                        requests += 1;
                    }
                    board.play(mv);
                }
            }
        }
        assert!(requests > 1000, "{requests}");
    }

    #[test]
    fn the_statements_example_reads_as_written() {
        let mut player = ReversiWire::default();
        let (start, board) = move_of(
            player
                .decode_request(
                    "getNextMove 7 ....... ....... ..123.. ..231.. ..312.. ....... .......",
                )
                .unwrap(),
        );
        assert_eq!((start, board), (Some(0), Board::start(7).unwrap()));
        // (column 1, row 2) is left of the 1 at (2, 2)... it closes nothing; (col 5, row 2) closes 2 3.
        assert_eq!(
            parse_answer(&board, "5 2"),
            Ok(board.geometry().square(2, 5))
        );
        assert_eq!(answer_text(&board, board.geometry().square(2, 5)), "5 2");
        assert_eq!(
            parse_answer(&board, " 0\t6 \r"),
            Ok(board.geometry().square(6, 0))
        );
    }

    #[test]
    fn malformed_answers_are_refused_with_a_reason() {
        let board = Board::start(8).unwrap();
        for (answer, reason) in [
            ("", "invalid answer '': expected two integers 'col row'"),
            ("3", "expected two integers"),
            ("3 4 5", "expected two integers"),
            ("a b", "expected two integers"),
            ("3,4", "expected two integers"),
            ("3 +4", "expected two integers"),
            ("3.0 4", "expected two integers"),
            ("8 0", "column 8 row 0 is off the 8x8 board"),
            ("0 -1", "column 0 row -1 is off the 8x8 board"),
            (
                "99999999999999999999999 1",
                "column 99999999999999999999999 row 1 is off the 8x8 board",
            ),
            (
                "-99999999999999999999999 1",
                "column -99999999999999999999999 row",
            ),
            ("--1 1", "invalid answer '--1 1': expected two integers"),
            ("1-2 3", "invalid answer '1-2 3': expected two integers"),
            ("3 4-", "expected two integers"),
            ("- 1", "expected two integers"),
            (
                "1\u{1b}[2J 3",
                "invalid answer '1\\u{1b}[2J 3': expected two integers",
            ),
        ] {
            let error = parse_answer(&board, answer).unwrap_err();
            assert!(error.contains(reason), "{answer:?}: {error}");
        }
        let long = format!("1 {}", "7".repeat(500));
        assert!(parse_answer(&board, &long).unwrap_err().len() < 200);
        // Legality is the match loop's: a taken square reads fine.
        let taken = parse_answer(&board, "2 2").unwrap();
        assert!(
            board
                .check(taken)
                .unwrap_err()
                .to_string()
                .contains("taken")
        );
    }

    #[test]
    fn malformed_requests_are_refused_with_a_reason() {
        let mut player = ReversiWire::default();
        let seven = ".......";
        let rows = |rows: &[&str]| format!("getNextMove {} {}", rows.len(), rows.join(" "));
        let start = [seven, seven, "..123..", "..231..", "..312..", seven, seven];
        for (request, reason) in [
            ("", "empty request"),
            ("getMove 7", "unknown method 'getMove'"),
            ("getNextMove", "missing argument board"),
            ("getNextMove x", "bad array length"),
            (
                "getNextMove 8 ....... .......",
                "argument board: length 8, but 2 words follow",
            ),
            (&rows(&start[..6]), "board side 6 is not 7 to 12"),
            (
                &format!("{} extra", rows(&start)),
                "unexpected extra argument 'extra'",
            ),
            (
                &rows(&[seven, seven, "..123..", "..231..", "..312...", seven, seven]),
                "row 4 has 8 cells, expected 7",
            ),
            (
                &rows(&[seven, seven, "..124..", "..231..", "..312..", seven, seven]),
                "row 2 column 4: '4' is not '.' or a player 1 to 3",
            ),
            (
                &rows(&[seven, seven, "..1x3..", "..231..", "..312..", seven, seven]),
                "'x' is not '.'",
            ),
            (
                &rows(&["21.....", "3......", seven, seven, seven, seven, seven]),
                "player 1 has no legal move",
            ),
            (&rows(&[seven; 7]), "player 1 has no legal move"),
        ] {
            let error = player.decode_request(request).unwrap_err();
            assert!(error.contains(reason), "{request:?}: {error}");
        }
        assert!(!player.started, "no bad request starts the game");
        assert!(player.decode_request(&rows(&start)).is_ok());
        assert!(player.started);
    }

    #[test]
    fn a_session_answers_and_keeps_going_after_errors() {
        let agent = RandomAgent::new(stream(1, Purpose::Agent, 0, 0, 0));
        let mut session = Session::new(ReversiWire::default(), agent);
        let mut line = |request: &str| match session.handle(request) {
            Ok(Reply::Line(answer)) => answer,
            Ok(other) => panic!("{request}: {other:?}"),
            Err(error) => format!("error: {error}"),
        };
        assert!(line("hello").starts_with("error: unknown method"));
        let board = Board::start(7).unwrap();
        let answer = line(&move_request(&board));
        let mv = parse_answer(&board, &answer).unwrap();
        assert!(board.check(mv).is_ok(), "{answer}");
        assert!(line("getNextMove 7 1").starts_with("error: "));
        // Only one move: 1 . 2 . on row 0 closes at column 2... row "12......" etc.
        let only = Board::from_rows(
            &[
                "12.....", ".......", ".......", ".......", ".......", ".......", "......3",
            ],
            0,
        )
        .unwrap();
        assert_eq!(line(&move_request(&only)), "2 0");
    }
}
