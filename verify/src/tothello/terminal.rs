//! Tothello at the terminal: a person against the solver, through the core's
//! person seat (`tabula play tothello`, [`crate::terminal`]).
//!
//! The person types a square like `C4` or `pass`; the solver says what it
//! thinks of each of its moves.

use std::io::{self, BufRead, Write};

use tabula_solver::tothello::search::SCALE;
use tabula_solver::tothello::{Color, Move, Position, Solver, color_of, seat_of};
use tabula_solver::{Seat, Turn};

use crate::agent::Agent;
use crate::seat::{Local, Player};
use crate::terminal::{PersonEnd, Remark, Terminal, play_person};
use crate::tournament::{Purpose, stream};

impl Terminal for Position {
    fn move_hint(_view: &Position) -> String {
        "a square like C4, or pass".into()
    }

    fn seat_name(seat: Seat) -> String {
        color_of(seat).to_string()
    }

    fn draw(view: &Position) -> String {
        format!("{view}\n")
    }

    /// A square (either case) or `pass`, legal on `view`.
    fn parse_move(view: &Position, text: &str) -> Result<Move, String> {
        text.parse::<Move>()
            .and_then(|mv| view.check(mv).map(|()| mv))
            .map_err(|e| e.to_string())
    }

    fn move_text(_view: &Position, mv: Move) -> String {
        mv.to_string()
    }

    fn told(_seen: &Position, mover: Turn, mv: &Move) -> Option<String> {
        let Turn::Seat(seat) = mover else {
            return None;
        };
        let color = color_of(seat);
        Some(match mv {
            Move::Pass => format!("{color} passes"),
            Move::Place(_) => format!("{color} plays {mv}"),
        })
    }

    fn result(end: &Position) -> String {
        let (red, black) = (end.board.red.count_ones(), end.board.black.count_ones());
        let verdict = match red.cmp(&black) {
            std::cmp::Ordering::Greater => "Red wins",
            std::cmp::Ordering::Less => "Black wins",
            std::cmp::Ordering::Equal => "draw",
        };
        format!("Red {red}, Black {black}: {verdict}")
    }
}

/// The solver as the person's opponent: it also says what it thinks of its move.
pub struct CommentingSolver {
    solver: Solver,
    depth: u8,
    exact: u32,
    remark: Remark,
}

impl CommentingSolver {
    /// A solver searching `depth` plies, exact from `exact` empties, telling `remark`.
    pub fn new(depth: u8, exact: u32, remark: Remark) -> CommentingSolver {
        CommentingSolver {
            solver: Solver::new(22),
            depth,
            exact,
            remark,
        }
    }
}

impl Agent<Position> for CommentingSolver {
    fn name(&self) -> String {
        format!("solver-d{}-e{}", self.depth, self.exact)
    }

    fn choose(&mut self, pos: &Position) -> Move {
        let result = self.solver.decide(pos, self.depth, self.exact);
        let remark = if result.exact {
            format!("perfect play ends {:+} for {}", result.value, pos.to_move)
        } else {
            format!(
                "estimate {:+.1} for {}",
                f64::from(result.value) / f64::from(SCALE),
                pos.to_move
            )
        };
        if let Ok(mut r) = self.remark.lock() {
            *r = Some(remark);
        }
        result.best.expect("the game is not over")
    }
}

/// Plays a game between a person (reading `input`, writing `output`) playing
/// `human` and the solver, from `start`.
pub fn play_terminal(
    input: impl BufRead,
    output: impl Write,
    start: Position,
    human: Color,
    depth: u8,
    exact: u32,
) -> io::Result<PersonEnd<Position>> {
    let remark = Remark::default();
    let mut computer = Local(CommentingSolver::new(depth, exact, remark.clone()));
    let mut others: [&mut dyn Player<Position>; 1] = [&mut computer];
    // Tothello has no chance; the stream is never drawn from.
    let mut chance = stream(0, Purpose::Chance, 0, 0, 0);
    play_person(
        input,
        output,
        start,
        seat_of(human),
        &mut others,
        remark,
        &mut chance,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::MAX_REQUEST;
    use std::io::Read;

    #[test]
    fn an_endless_line_is_refused_without_being_kept_or_echoed() {
        let long = io::repeat(b'a').take(10 * MAX_REQUEST as u64);
        let input = io::BufReader::new(long.chain(&b"\nZ9\nquit\n"[..]));
        let mut output = Vec::new();
        let start = Position::start();
        let end = play_terminal(input, &mut output, start, Color::Black, 1, 0).unwrap();
        assert!(matches!(end, PersonEnd::Quit));
        let text = String::from_utf8(output).unwrap();
        assert!(
            text.contains("illegal move: line longer than 65536 bytes\n"),
            "{text}"
        );
        assert!(text.contains("illegal move: 'Z9' is not a move"), "{text}");
        assert!(text.len() < 4096, "{} bytes", text.len());
    }

    #[test]
    fn the_board_is_drawn_once_per_change_and_answers_are_checked() {
        // The computer's move is said with its verdict, and the board is
        // drawn before each of the person's moves, not again when unchanged.
        let input = io::BufReader::new(&b"D4\nc4\nquit\n"[..]);
        let mut output = Vec::new();
        let end = play_terminal(input, &mut output, Position::start(), Color::Black, 1, 0);
        assert!(matches!(end.unwrap(), PersonEnd::Quit));
        let text = String::from_utf8(output).unwrap();
        assert!(
            text.starts_with("You play Black. Type a square like C4, or pass"),
            "{text}"
        );
        assert_eq!(text.matches("  A B C D E F G H").count(), 2, "{text}");
        assert!(
            text.contains("illegal move: square D4 is not empty\nYour move (Black): "),
            "{text}"
        );
        assert!(text.contains("Red plays "), "{text}");
        assert!(text.contains(" (estimate "), "{text}");
        let pos = Position::start();
        assert_eq!(Position::read_move(&pos, "c4"), Ok("C4".parse().unwrap()));
        assert_eq!(
            Position::read_move(&pos, "Z9"),
            Err("'Z9' is not a move (a square like C4, or pass)".into())
        );
        // Tothello lets a stone go on any empty square, and a pass is always allowed.
        let legal = Position::legal_text(&pos);
        assert_eq!(legal.split(", ").count(), 61, "{legal}");
        assert!(
            legal.starts_with("A1, B1, ") && legal.ends_with(", H8, pass"),
            "{legal}"
        );
    }
}
