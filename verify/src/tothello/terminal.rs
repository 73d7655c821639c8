//! A person at the terminal in a seat, against the solver, through the core's
//! match loop (`tabula play tothello`).
//!
//! The person's seat is a [`TerminalSeat`]: its requests are the board drawn
//! with coordinates and a prompt, its answers a square like `C4` or `pass`
//! ([`TerminalWire`]). A refused answer gets `illegal move: ...` and the prompt
//! again instead of losing the game, which is why the seat is its own
//! [`Player`] rather than a [`crate::seat::Remote`].

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

use tabula_solver::tothello::search::SCALE;
use tabula_solver::tothello::{Color, Move, Position, Solver, color_of, seat_of};
use tabula_solver::{Seat, Turn};

use crate::agent::Agent;
use crate::arena::play_game;
use crate::protocol::{LineRead, MAX_REQUEST, error_text, read_line_at_most};
use crate::seat::{Clock, Failure, FaultKind, Local, Player};
use crate::tournament::{Purpose, stream};
use crate::wire::{Incoming, Wire};

/// How the terminal dialogue looks: the board (only when it changed) and a prompt.
#[derive(Clone, Debug, Default)]
pub struct TerminalWire {
    shown: Option<Position>,
}

impl TerminalWire {
    /// The position drawn, after a blank line, if it is not the one last drawn.
    pub fn board_if_changed(&mut self, pos: &Position) -> Option<String> {
        if self.shown == Some(*pos) {
            return None;
        }
        self.shown = Some(*pos);
        Some(format!("\n{pos}\n"))
    }
}

impl Wire<Position> for TerminalWire {
    fn move_request(&mut self, view: &Position) -> String {
        let board = self.board_if_changed(view).unwrap_or_default();
        format!("{board}Your move ({}): ", view.to_move)
    }

    /// A square (either case) or `pass`, legal on `view`.
    fn decode_answer(&mut self, view: &Position, line: &str) -> Result<Move, String> {
        line.parse::<Move>()
            .and_then(|mv| view.check(mv).map(|()| mv))
            .map_err(|e| e.to_string())
    }

    fn decode_request(&mut self, _line: &str) -> Result<Incoming<Position>, String> {
        Err("the terminal dialogue is answered by a person, not a program".into())
    }

    fn encode_answer(&mut self, _view: &Position, mv: Move) -> String {
        mv.to_string()
    }
}

/// How the person's part of the game ended.
#[derive(Debug)]
enum Stop {
    Quit,
    InputEnded,
    Io(io::Error),
}

/// The person's seat: reads answers from `input`, writes to `output`, and says
/// what the computer played (with the solver's verdict from `verdict`).
pub struct TerminalSeat<R: BufRead, W: Write> {
    input: R,
    output: W,
    wire: TerminalWire,
    pos: Position,
    verdict: Verdict,
    stop: Option<Stop>,
}

/// The solver's last verdict, shared between its agent and the person's seat.
pub type Verdict = Arc<Mutex<Option<String>>>;

impl<R: BufRead, W: Write> TerminalSeat<R, W> {
    /// A seat reading `input` and writing `output`.
    pub fn new(input: R, output: W, verdict: Verdict) -> TerminalSeat<R, W> {
        TerminalSeat {
            input,
            output,
            wire: TerminalWire::default(),
            pos: Position::start(),
            verdict,
            stop: None,
        }
    }

    fn fail(&mut self, stop: Stop) -> Failure {
        let reason = match &stop {
            Stop::Quit => "quit".to_string(),
            Stop::InputEnded => "input ended before the game did".to_string(),
            Stop::Io(e) => format!("terminal: {e}"),
        };
        self.stop = Some(stop);
        Failure {
            kind: FaultKind::ClosedPipe,
            reason,
            ends_case: true,
        }
    }

    fn write(&mut self, text: &str) -> Result<(), Failure> {
        match self
            .output
            .write_all(text.as_bytes())
            .and_then(|()| self.output.flush())
        {
            Ok(()) => Ok(()),
            Err(e) => Err(self.fail(Stop::Io(e))),
        }
    }
}

impl<R: BufRead, W: Write> Player<Position> for TerminalSeat<R, W> {
    fn name(&self) -> String {
        "you".into()
    }

    fn start_case(&mut self, _params: &Position, _clock: &mut Clock) -> Result<(), Failure> {
        Ok(())
    }

    fn start_game(
        &mut self,
        _seat: Seat,
        view: &Position,
        _clock: &mut Clock,
    ) -> Result<(), Failure> {
        self.pos = *view;
        Ok(())
    }

    fn observe(&mut self, mover: Turn, mv: &Move) -> Result<(), Failure> {
        let pos = self.pos;
        if let Some(board) = self.wire.board_if_changed(&pos) {
            self.write(&board)?;
        }
        if let Turn::Seat(seat) = mover {
            let color = color_of(seat);
            let verdict = self
                .verdict
                .lock()
                .ok()
                .and_then(|mut v| v.take())
                .unwrap_or_default();
            let line = match mv {
                Move::Pass => format!("{color} passes ({verdict})\n"),
                Move::Place(_) => format!("{color} plays {mv} ({verdict})\n"),
            };
            self.write(&line)?;
        }
        self.pos.apply(*mv);
        Ok(())
    }

    fn choose(&mut self, view: &Position, _clock: &mut Clock) -> Result<Move, Failure> {
        loop {
            let prompt = self.wire.move_request(view);
            self.write(&prompt)?;
            // At most a request's length: a line without end (`< /dev/zero`)
            // must not fill the memory.
            let mut line = Vec::new();
            match read_line_at_most(&mut self.input, MAX_REQUEST, &mut line) {
                Ok(LineRead::Line) => {}
                Ok(LineRead::End) => return Err(self.fail(Stop::InputEnded)),
                Ok(LineRead::TooLong) => {
                    if let Err(e) = self.input.skip_until(b'\n') {
                        return Err(self.fail(Stop::Io(e)));
                    }
                    self.write(&format!(
                        "illegal move: line longer than {MAX_REQUEST} bytes\n"
                    ))?;
                    continue;
                }
                Err(e) => return Err(self.fail(Stop::Io(e))),
            }
            let line = String::from_utf8_lossy(&line);
            let text = line.trim();
            if text.eq_ignore_ascii_case("quit") {
                return Err(self.fail(Stop::Quit));
            }
            match self.wire.decode_answer(view, text) {
                Ok(mv) => {
                    self.pos = *view;
                    self.pos.apply(mv);
                    return Ok(mv);
                }
                Err(e) => self.write(&format!("illegal move: {}\n", error_text(&e)))?,
            }
        }
    }

    fn end_game(&mut self, view: &Position) {
        if self.stop.is_some() {
            return;
        }
        let (red, black) = (view.board.red.count_ones(), view.board.black.count_ones());
        let verdict = match red.cmp(&black) {
            std::cmp::Ordering::Greater => "Red wins",
            std::cmp::Ordering::Less => "Black wins",
            std::cmp::Ordering::Equal => "draw",
        };
        let text = format!(
            "\n{}\nGame over: Red {red}, Black {black}: {verdict}\n",
            view.board
        );
        // The game is over: a closed terminal changes nothing.
        let _ = self.write(&text);
    }
}

/// The solver as the person's opponent: it also says what it thinks of its move.
pub struct CommentingSolver {
    solver: Solver,
    depth: u8,
    exact: u32,
    verdict: Verdict,
}

impl CommentingSolver {
    /// A solver searching `depth` plies, exact from `exact` empties, telling `verdict`.
    pub fn new(depth: u8, exact: u32, verdict: Verdict) -> CommentingSolver {
        CommentingSolver {
            solver: Solver::new(22),
            depth,
            exact,
            verdict,
        }
    }
}

impl Agent<Position> for CommentingSolver {
    fn name(&self) -> String {
        format!("solver-d{}-e{}", self.depth, self.exact)
    }

    fn choose(&mut self, pos: &Position) -> Move {
        let result = if pos.empties() <= self.exact {
            self.solver.solve(pos)
        } else {
            self.solver.search(pos, self.depth)
        };
        let verdict = if result.exact {
            format!("perfect play ends {:+} for {}", result.value, pos.to_move)
        } else {
            format!(
                "estimate {:+.1} for {}",
                f64::from(result.value) / f64::from(SCALE),
                pos.to_move
            )
        };
        if let Ok(mut v) = self.verdict.lock() {
            *v = Some(verdict);
        }
        result.best.expect("the game is not over")
    }
}

/// How a terminal game ended.
#[derive(Debug, PartialEq, Eq)]
pub enum TerminalEnd {
    /// Played to the end.
    Finished(Position),
    /// The person typed `quit`.
    Quit,
    /// The input ended before the game did.
    InputEnded,
}

/// Plays a game between a person (reading `input`, writing `output`) playing
/// `human` and the solver, from `start`.
pub fn play_terminal(
    input: impl BufRead,
    mut output: impl Write,
    start: Position,
    human: Color,
    depth: u8,
    exact: u32,
) -> io::Result<TerminalEnd> {
    writeln!(
        output,
        "You play {human}. Type a square like C4, or pass; quit to stop."
    )?;
    let verdict = Verdict::default();
    let mut person = TerminalSeat::new(input, output, verdict.clone());
    let mut computer = Local(CommentingSolver::new(depth, exact, verdict));
    let mut players: Vec<&mut dyn Player<Position>> = vec![&mut person, &mut computer];
    // Player 0 is the person, in the seat of their colour.
    let seating = if seat_of(human) == 0 { [0, 1] } else { [1, 0] };
    let mut clocks = vec![Clock::default(); 2];
    // Tothello has no chance; the stream is never drawn from.
    let mut chance = stream(0, Purpose::Chance, 0, 0, 0);
    let record = play_game(start, &mut players, &seating, &mut clocks, &mut chance);
    match person.stop.take() {
        None => Ok(TerminalEnd::Finished(record.end)),
        Some(Stop::Quit) => Ok(TerminalEnd::Quit),
        Some(Stop::InputEnded) => Ok(TerminalEnd::InputEnded),
        Some(Stop::Io(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn an_endless_line_is_refused_without_being_kept_or_echoed() {
        let long = io::repeat(b'a').take(10 * MAX_REQUEST as u64);
        let input = io::BufReader::new(long.chain(&b"\nZ9\nquit\n"[..]));
        let mut output = Vec::new();
        let start = Position::start();
        let end = play_terminal(input, &mut output, start, Color::Black, 1, 0).unwrap();
        assert!(matches!(end, TerminalEnd::Quit));
        let text = String::from_utf8(output).unwrap();
        assert!(
            text.contains("illegal move: line longer than 65536 bytes\n"),
            "{text}"
        );
        assert!(text.contains("illegal move: 'Z9' is not a move"), "{text}");
        assert!(text.len() < 4096, "{} bytes", text.len());
    }

    #[test]
    fn the_terminal_wire_shows_the_board_once_and_checks_answers() {
        let mut wire = TerminalWire::default();
        let pos = Position::start();
        let first = wire.move_request(&pos);
        assert!(first.contains("  A B C D E F G H"), "{first}");
        assert!(first.ends_with("Your move (Black): "), "{first}");
        assert_eq!(wire.move_request(&pos), "Your move (Black): ");
        assert_eq!(wire.decode_answer(&pos, "c4"), Ok("C4".parse().unwrap()));
        assert_eq!(wire.decode_answer(&pos, "pass"), Ok(Move::Pass));
        assert_eq!(
            wire.decode_answer(&pos, "D4"),
            Err("square D4 is not empty".into())
        );
        assert_eq!(
            wire.decode_answer(&pos, "Z9"),
            Err("'Z9' is not a move (a square like C4, or pass)".into())
        );
    }
}
