//! The `bestMove` checker behind `tabula referee tothello`: the statement's
//! examples and seeded random valid boards, sent one at a time to a program.

use std::time::{Duration, Instant};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::tothello::rules::{place, sandwiched};
use tabula_solver::tothello::{Board, Color, Square, best_move};

use super::wire::{decode_answer, request_line};
use crate::process::{Peer, PlayerError};
use crate::protocol::excerpt;
use crate::seat::FaultKind;
use crate::tournament::{self, Progress};

/// The check stops after this many wrong or unsolicited answers: a program
/// whose answers run away (`yes 16`) is not read to the end.
pub const MAX_WRONG: usize = 10;

/// One `bestMove` test: the request line and the right answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Case {
    /// The request line.
    pub request: String,
    /// The right answer.
    pub expected: u32,
}

/// A random board the statement calls valid: at most 50 pieces of a colour,
/// no piece between two of the other colour, at least one empty square.
///
/// Squares are filled at random, then every caught piece is emptied, so these
/// boards are rarely more than 40 pieces full: [`played_valid_board`] gives
/// the dense ones.
pub fn random_valid_board(rng: &mut ChaCha8Rng) -> Board {
    let fill = rng.random_range(0.0..0.95);
    let share = rng.random_range(0.2..0.8);
    let mut board = Board::default();
    for square in 0..64 {
        if rng.random_bool(fill) {
            if rng.random_bool(share) {
                board.red |= 1 << square;
            } else {
                board.black |= 1 << square;
            }
        }
    }
    // Emptying a caught piece can only free others, so this ends.
    loop {
        let caught = sandwiched(board.red, board.black) | sandwiched(board.black, board.red);
        if caught == 0 {
            break;
        }
        board.red &= !caught;
        board.black &= !caught;
    }
    for _ in 0..2 {
        while board.red.count_ones() > 50 {
            board.red &= board.red - 1;
        }
        while board.black.count_ones() > 50 {
            board.black &= board.black - 1;
        }
        // Removing pieces never catches one, but keep a square empty.
        if board.empty() == 0 {
            board.red &= board.red - 1;
        }
    }
    board
}

/// A valid board reached by play from the empty board: up to 0 to 63 pieces,
/// evenly, so that nearly full boards are tested as often as sparse ones.
///
/// Random placements by alternate colours, with their chain reactions; a
/// placement that would leave a piece caught (the new piece between two of
/// the other colour) or more than 50 of a colour is skipped, as a pass.
pub fn played_valid_board(rng: &mut ChaCha8Rng) -> Board {
    let target = rng.random_range(0..=63u32);
    let mut board = Board::default();
    let mut color = Color::Black;
    // Skipped placements make some targets unreachable: the tries are bounded.
    for _ in 0..4 * 64 {
        let empty = board.empty();
        if 64 - empty.count_ones() >= target {
            break;
        }
        let square = nth_square(empty, rng.random_range(0..empty.count_ones()));
        let (mover, opponent) = place(board.pieces(color), board.pieces(color.opponent()), square);
        let next = Board::from_sides(mover, opponent, color);
        let caught = sandwiched(next.red, next.black) | sandwiched(next.black, next.red);
        if caught == 0 && mover.count_ones() <= 50 {
            board = next;
        }
        color = color.opponent();
    }
    board
}

/// The `n`-th set square of `squares`, from the lowest.
fn nth_square(mut squares: u64, n: u32) -> Square {
    for _ in 0..n {
        squares &= squares - 1;
    }
    squares.trailing_zeros() as Square
}

/// The statement's two examples, then `random` seeded random valid boards.
///
/// Board `i` draws from ChaCha8 stream `i` of `seed`: an even `i` gives a
/// [`random_valid_board`] (the same cases as before the played boards came),
/// an odd one a [`played_valid_board`].
pub fn test_cases(random: usize, seed: u64) -> Vec<Case> {
    let examples = [
        (
            &[
                "C2", "C3", "C4", "C5", "D4", "E4", "F2", "F3", "F4", "F5", "G6",
            ][..],
            &["B1", "E1", "G1", "C6", "H7", "G4"][..],
            Color::Black,
        ),
        (
            &["A1", "B8", "C6", "C8", "D8"][..],
            &["B2", "C2", "C3", "C4", "C5"][..],
            Color::Red,
        ),
    ];
    let mut cases: Vec<Case> = examples
        .iter()
        .map(|(red, black, turn)| {
            let board = Board::from_squares(red, black).expect("valid example");
            case(&board, *turn)
        })
        .collect();
    for i in 0..random {
        let mut rng = tournament::numbered_stream(seed, i as u64);
        let board = if i % 2 == 0 {
            random_valid_board(&mut rng)
        } else {
            played_valid_board(&mut rng)
        };
        let turn = if rng.random_bool(0.5) {
            Color::Red
        } else {
            Color::Black
        };
        cases.push(case(&board, turn));
    }
    cases
}

fn case(board: &Board, turn: Color) -> Case {
    Case {
        request: request_line(board, turn),
        expected: best_move(board, turn).expect("a square is empty").pieces,
    }
}

/// A wrong or missing answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Failure {
    /// The request line.
    pub request: String,
    /// The right answer.
    pub expected: u32,
    /// What came back.
    pub got: String,
}

/// How a `bestMove` program fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// Cases sent (JSON: `requests`; `cases` is a list in every report).
    #[serde(rename = "requests")]
    pub cases: usize,
    /// Cases answered right.
    pub passed: usize,
    /// Cases answered wrong.
    pub failures: Vec<Failure>,
    /// Lines the program wrote that answered no request.
    pub unsolicited: Vec<String>,
    /// Why the dialogue stopped early, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts, as every referee's JSON names it
    /// (`malformed-answer` for too many wrong or unsolicited answers).
    pub fault_kind: Option<FaultKind>,
}

/// Who answers the checker's requests, which says what lines already waiting
/// after an answer mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answerer {
    /// A program: a line nobody asked for yet is unsolicited (it runs ahead).
    Program,
    /// A person, or a file piped in: lines typed ahead wait their turn.
    Person,
}

/// A peer's error, a time-out naming its limit and, waiting for an answer
/// (`silent`), what the peer left unfinished (`player timed out (answer
/// limit of 10 s); nothing came ...`).
fn with_limit(error: &PlayerError, timeout: Option<Duration>, silent: Option<&dyn Peer>) -> String {
    match (error, timeout) {
        (PlayerError::TimedOut, Some(limit)) => {
            let mut told = format!("{error} (answer limit of {} s)", limit.as_secs_f64());
            if let Some(silence) = silent.and_then(|peer| peer.silence()) {
                told.push_str(&format!("; {silence}"));
            }
            told
        }
        _ => error.to_string(),
    }
}

/// Sends every case to `peer` and compares its answers with ours.
///
/// Each answer must come within `timeout` of its request. Every line is passed
/// to `log` (`>` sent, `<` received), and `progress` hears how many cases are
/// done. A dead or silent peer stops the check, and so do [`MAX_WRONG`] wrong
/// or unsolicited answers (a program's lines already waiting when an answer
/// was read).
pub fn referee_best_move(
    cases: &[Case],
    peer: &mut dyn Peer,
    answerer: Answerer,
    timeout: Option<Duration>,
    log: &mut dyn FnMut(&str),
    progress: Progress<'_>,
) -> CheckReport {
    let mut report = CheckReport {
        cases: cases.len(),
        passed: 0,
        failures: Vec::new(),
        unsolicited: Vec::new(),
        fault: None,
        fault_kind: None,
    };
    for (done, case) in cases.iter().enumerate() {
        progress(done);
        log(&format!("> {}", case.request));
        // Taking the request counts in the answer's time.
        let deadline = timeout.map(|t| Instant::now() + t);
        if let Err(e) = peer.send_line_by(&case.request, deadline) {
            report.fault = Some(format!(
                "could not send '{}': {}",
                excerpt(&case.request),
                // It stopped reading: what it wrote is not the question.
                with_limit(&e, timeout, None)
            ));
            report.fault_kind = Some(FaultKind::of(&e));
            break;
        }
        let line = match peer.recv_line(deadline) {
            Ok(line) => line,
            Err(e) => {
                report.fault_kind = Some(FaultKind::of(&e));
                let e = with_limit(&e, timeout, Some(&*peer));
                report.fault = Some(format!("no answer to '{}': {e}", case.request));
                break;
            }
        };
        log(&format!("< {line}"));
        if decode_answer(&line) == Ok(case.expected) {
            report.passed += 1;
        } else {
            report.failures.push(Failure {
                request: case.request.clone(),
                expected: case.expected,
                got: line.trim().to_string(),
            });
        }
        // A line already waiting answers nothing: the program runs ahead.
        while answerer == Answerer::Program
            && report.failures.len() + report.unsolicited.len() < MAX_WRONG
        {
            // Nothing waiting (the end of output is left to the next request).
            let Some(extra) = peer.waiting_line() else {
                break;
            };
            log(&format!("< {extra}"));
            report.unsolicited.push(extra);
        }
        if report.failures.len() + report.unsolicited.len() >= MAX_WRONG {
            report.fault = Some(format!("{MAX_WRONG} wrong or unsolicited answers"));
            report.fault_kind = Some(FaultKind::MalformedAnswer);
            break;
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::PlayerError;
    use crate::tothello::wire::answer;

    /// A peer answering with `answer`, optionally wrong on one request, and
    /// optionally with `extra` unsolicited lines after each answer.
    struct InProcess {
        pending: Vec<String>,
        wrong_on: Option<usize>,
        extra: usize,
        seen: usize,
    }

    impl InProcess {
        fn new(wrong_on: Option<usize>, extra: usize) -> InProcess {
            InProcess {
                pending: Vec::new(),
                wrong_on,
                extra,
                seen: 0,
            }
        }
    }

    impl Peer for InProcess {
        fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
            let mut reply = answer(line).unwrap_or_else(|e| format!("error: {e}"));
            if self.wrong_on == Some(self.seen) {
                reply = "0".into();
            }
            self.seen += 1;
            self.pending.push(reply);
            for _ in 0..self.extra {
                self.pending.push("16".into());
            }
            Ok(())
        }

        fn recv_line(&mut self, _deadline: Option<Instant>) -> Result<String, PlayerError> {
            if self.pending.is_empty() {
                return Err(PlayerError::ClosedOutput);
            }
            Ok(self.pending.remove(0))
        }
    }

    /// `peer`'s answers to `cases`, checked with no time-out and no
    /// progress; every line of the dialogue goes to `log`.
    fn check(
        cases: &[Case],
        peer: &mut dyn Peer,
        answerer: Answerer,
        log: &mut dyn FnMut(&str),
    ) -> CheckReport {
        referee_best_move(cases, peer, answerer, None, log, &|_| {})
    }

    #[test]
    fn random_cases_are_valid_statement_boards() {
        let cases = test_cases(300, 3);
        assert_eq!(cases.len(), 302);
        assert_eq!(cases[0].expected, 16);
        assert_eq!(cases[1].expected, 11);
        let mut sizes = [0; 8];
        for i in 0..300 {
            let rng = &mut tournament::numbered_stream(3, i);
            for board in [random_valid_board(rng), played_valid_board(rng)] {
                assert_eq!(sandwiched(board.red, board.black), 0);
                assert_eq!(sandwiched(board.black, board.red), 0);
                assert!(board.red.count_ones() <= 50 && board.black.count_ones() <= 50);
                assert_ne!(board.empty(), 0);
                sizes[(board.red | board.black).count_ones() as usize / 8] += 1;
            }
        }
        // Sparse and dense boards alike, up to a single empty square.
        assert!(sizes.iter().all(|&count| count >= 20), "{sizes:?}");
        let fullest = cases[2..]
            .iter()
            .map(|case| case.request.split(' ').count())
            .max();
        // `bestMove R <red> B <black> colour`: 60 pieces are 64 words.
        assert!(fullest >= Some(64), "{fullest:?}");
        assert_eq!(test_cases(300, 3), cases);
    }

    #[test]
    fn referee_counts_right_and_wrong_answers() {
        let cases = test_cases(50, 1);
        let mut lines = 0;
        let mut good = InProcess::new(None, 0);
        let report = check(&cases, &mut good, Answerer::Program, &mut |_| lines += 1);
        assert_eq!((report.passed, report.failures.len()), (52, 0));
        assert_eq!(lines, 104);
        assert!(report.fault.is_none() && report.unsolicited.is_empty());
        let mut bad = InProcess::new(Some(7), 0);
        let report = check(&cases, &mut bad, Answerer::Program, &mut |_| {});
        assert_eq!(report.passed, 51);
        assert_eq!(report.failures[0].request, cases[7].request);
        assert_eq!(report.failures[0].got, "0");
    }

    #[test]
    fn a_persons_answers_piped_ahead_are_read_in_turn_and_the_end_is_seen() {
        use crate::process::StreamPeer;
        let cases = test_cases(3, 1);
        // The right answers to the first four of five cases, all at once.
        let answers: String = cases[..4]
            .iter()
            .map(|c| format!("{}\n", c.expected))
            .collect();
        let mut peer = StreamPeer::for_person(std::io::Cursor::new(answers), std::io::sink());
        let report = check(&cases, &mut peer, Answerer::Person, &mut |_| {});
        assert_eq!(report.passed, 4);
        assert!(report.unsolicited.is_empty() && report.failures.is_empty());
        let fault = report.fault.expect("the input ended");
        assert!(fault.contains("closed its output"), "{fault}");
    }

    #[test]
    fn a_runaway_answer_stream_stops_the_check() {
        let cases = test_cases(200, 1);
        // Three extra lines after every answer, like `yes 16`.
        let mut runaway = InProcess::new(None, 3);
        let mut lines = 0;
        let report = check(&cases, &mut runaway, Answerer::Program, &mut |_| lines += 1);
        assert_eq!(
            report.fault.as_deref(),
            Some("10 wrong or unsolicited answers")
        );
        assert_eq!(report.failures.len() + report.unsolicited.len(), MAX_WRONG);
        assert!(report.passed < 10, "{report:?}");
        assert!(lines < 30, "{lines}");
    }
}
