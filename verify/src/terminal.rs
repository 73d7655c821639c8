//! A person at the terminal in one seat, against built-in players, through the
//! core's match loop (`tabula play <game>`).
//!
//! A game plugs in by implementing [`Terminal`]: how its position is drawn for
//! a seat, how a move is typed and what the person is told of the other seats'
//! moves. The person's seat is a [`PersonSeat`]: a refused answer gets
//! `illegal move: ...` and the prompt again instead of losing the game, which
//! is why it is its own [`Player`] rather than a [`crate::seat::Remote`].

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha8Rng;
use tabula_solver::{Game, Seat, Turn};

use crate::agent::Agent;
use crate::arena::play_game;
use crate::protocol::{LineRead, MAX_REQUEST, error_text, read_line_at_most};
use crate::seat::{Clock, Failure, FaultKind, Local, Player};

/// What a game shows a person at the terminal, and how the person types a move.
pub trait Terminal: Game {
    /// How a move is typed, as told once at the start ("a square like C4, or pass").
    fn move_hint(view: &Self::View) -> String;

    /// The seat's name as the person is told it ("Black", "player 2").
    fn seat_name(seat: Seat) -> String;

    /// The game as `view`'s seat sees it, on one or more lines ending in a newline.
    fn draw(view: &Self::View) -> String;

    /// The person's answer read as a move of `view` (legality is checked by [`Terminal::read_move`]).
    fn parse_move(view: &Self::View, text: &str) -> Result<Self::Move, String>;

    /// `mv` as the person would type it on `view`.
    fn move_text(view: &Self::View, mv: Self::Move) -> String;

    /// What the person is told of another seat's move or a chance move
    /// (`None`: nothing). `seen` is the last view the person was shown, for
    /// the board's layout: it may be some moves old.
    fn told(seen: &Self::View, mover: Turn, observation: &Self::Observation) -> Option<String>;

    /// How the game ended, told from its final state: the scores and who won.
    fn result(end: &Self) -> String;

    /// The person's answer as a legal move of `view`, or why it is not one.
    fn read_move(view: &Self::View, text: &str) -> Result<Self::Move, String> {
        let mv = Self::parse_move(view, text)?;
        if Self::view_moves(view).contains(&mv) {
            Ok(mv)
        } else {
            Err(format!(
                "'{}' is not legal here ('?' lists the legal moves)",
                Self::move_text(view, mv)
            ))
        }
    }

    /// The legal moves of `view`, as typed.
    fn legal_text(view: &Self::View) -> String {
        let moves = Self::view_moves(view);
        let texts: Vec<String> = moves.iter().map(|&mv| Self::move_text(view, mv)).collect();
        texts.join(", ")
    }
}

/// A remark an opponent leaves for the person about its last move (the
/// Tothello solver's verdict), shared between that opponent and the person's seat.
pub type Remark = Arc<Mutex<Option<String>>>;

/// How the person's part of the game ended early.
#[derive(Debug)]
enum Stop {
    Quit,
    InputEnded,
    Io(io::Error),
}

/// The person's seat: reads answers from `input`, writes to `output`.
pub struct PersonSeat<G: Game, R: BufRead, W: Write> {
    input: R,
    output: W,
    remark: Remark,
    seat: Seat,
    seen: Option<G::View>,
    shown: Option<String>,
    stop: Option<Stop>,
}

impl<G: Terminal, R: BufRead, W: Write> PersonSeat<G, R, W> {
    /// A seat reading `input` and writing `output`; `remark` is appended to
    /// the other seats' moves when one of them leaves one.
    pub fn new(input: R, output: W, remark: Remark) -> PersonSeat<G, R, W> {
        PersonSeat {
            input,
            output,
            remark,
            seat: 0,
            seen: None,
            shown: None,
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

    /// The drawing of `view`, after a blank line, unless it is the one last shown.
    fn drawing_if_changed(&mut self, view: &G::View) -> String {
        let drawing = G::draw(view);
        if self.shown.as_ref() == Some(&drawing) {
            return String::new();
        }
        self.shown = Some(drawing.clone());
        format!("\n{drawing}")
    }

    /// One line typed, without its end; `None` for a line too long (already told).
    fn read_answer(&mut self) -> Result<Option<String>, Failure> {
        // At most a request's length: a line without end (`< /dev/zero`)
        // must not fill the memory.
        let mut line = Vec::new();
        match read_line_at_most(&mut self.input, MAX_REQUEST, &mut line) {
            Ok(LineRead::Line) => Ok(Some(String::from_utf8_lossy(&line).trim().to_string())),
            Ok(LineRead::End) => Err(self.fail(Stop::InputEnded)),
            Ok(LineRead::TooLong) => {
                if let Err(e) = self.input.skip_until(b'\n') {
                    return Err(self.fail(Stop::Io(e)));
                }
                self.write(&format!(
                    "illegal move: line longer than {MAX_REQUEST} bytes\n"
                ))?;
                Ok(None)
            }
            Err(e) => Err(self.fail(Stop::Io(e))),
        }
    }
}

impl<G: Terminal, R: BufRead, W: Write> Player<G> for PersonSeat<G, R, W> {
    fn name(&self) -> String {
        "you".into()
    }

    fn start_game(
        &mut self,
        seat: Seat,
        view: &G::View,
        _clock: &mut Clock,
    ) -> Result<(), Failure> {
        self.seat = seat;
        self.seen = Some(view.clone());
        let hint = G::move_hint(view);
        let drawing = self.drawing_if_changed(view);
        self.write(&format!(
            "You play {}. Type {hint}; ? lists the legal moves, quit stops.\n{drawing}",
            G::seat_name(seat)
        ))
    }

    fn observe(&mut self, mover: Turn, observation: &G::Observation) -> Result<(), Failure> {
        let Some(seen) = &self.seen else {
            return Ok(());
        };
        let Some(told) = G::told(seen, mover, observation) else {
            return Ok(());
        };
        let remark = match mover {
            Turn::Seat(_) => self.remark.lock().ok().and_then(|mut r| r.take()),
            _ => None,
        };
        match remark {
            Some(remark) => self.write(&format!("{told} ({remark})\n")),
            None => self.write(&format!("{told}\n")),
        }
    }

    fn choose(&mut self, view: &G::View, _clock: &mut Clock) -> Result<G::Move, Failure> {
        loop {
            self.seen = Some(view.clone());
            let drawing = self.drawing_if_changed(view);
            let name = G::seat_name(self.seat);
            self.write(&format!("{drawing}Your move ({name}): "))?;
            let Some(text) = self.read_answer()? else {
                continue;
            };
            if text.eq_ignore_ascii_case("quit") {
                return Err(self.fail(Stop::Quit));
            }
            if text == "?" {
                self.write(&format!("legal moves: {}\n", G::legal_text(view)))?;
                continue;
            }
            match G::read_move(view, &text) {
                Ok(mv) => return Ok(mv),
                Err(e) => self.write(&format!("illegal move: {}\n", error_text(&e)))?,
            }
        }
    }

    fn end_game(&mut self, _view: &G::View) {}
}

/// How a person's game ended.
#[derive(Debug, PartialEq, Eq)]
pub enum PersonEnd<G> {
    /// Played to the end: the final state.
    Finished(G),
    /// The person typed `quit`.
    Quit,
    /// The input ended before the game did.
    InputEnded,
}

/// Plays one game from `start` between a person in seat `person` (reading
/// `input`, writing `output`) and `others` in the other seats, in seat order;
/// chance moves draw from `chance`. The final position and the result are
/// written once the game is over.
pub fn play_person<G: Terminal>(
    input: impl BufRead,
    output: impl Write,
    start: G,
    person: Seat,
    others: &mut [&mut dyn Player<G>],
    remark: Remark,
    chance: &mut ChaCha8Rng,
) -> io::Result<PersonEnd<G>> {
    let seats = start.seats();
    assert!(
        person < seats && others.len() == seats - 1,
        "one player per seat"
    );
    let mut seat = PersonSeat::new(input, output, remark);
    let mut players: Vec<&mut dyn Player<G>> = vec![&mut seat];
    players.extend(others.iter_mut().map(|p| &mut **p as &mut dyn Player<G>));
    // Player 0 (the person) sits in `person`; the others fill the other seats in order.
    let seating: Vec<usize> = (0..seats)
        .map(|s| match s.cmp(&person) {
            std::cmp::Ordering::Less => s + 1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => s,
        })
        .collect();
    let mut clocks = vec![Clock::default(); players.len()];
    let record = play_game(start, &mut players, &seating, &mut clocks, chance);
    drop(players);
    match seat.stop.take() {
        None => {}
        Some(Stop::Quit) => return Ok(PersonEnd::Quit),
        Some(Stop::InputEnded) => return Ok(PersonEnd::InputEnded),
        Some(Stop::Io(e)) => return Err(e),
    }
    let end = record.end;
    write!(
        seat.output,
        "\n{}Game over: {}\n",
        G::draw(&end.view(person)),
        G::result(&end)
    )?;
    seat.output.flush()?;
    Ok(PersonEnd::Finished(end))
}

/// Plays one game from `start` between a person in seat `person` and one
/// built-in `opponent` in the other seat (the two-seat games without a
/// remark); chance moves draw from `chance`, which only this game uses.
pub fn play_against<G: Terminal>(
    input: impl BufRead,
    output: impl Write,
    start: G,
    person: Seat,
    opponent: Box<dyn Agent<G>>,
    mut chance: ChaCha8Rng,
) -> io::Result<PersonEnd<G>> {
    let mut opponent = Local(opponent);
    let mut others: [&mut dyn Player<G>; 1] = [&mut opponent];
    play_person(
        input,
        output,
        start,
        person,
        &mut others,
        Remark::default(),
        &mut chance,
    )
}

/// An N×N board drawn with its column numbers above and its row numbers on
/// the left, both from 0, as the protocols number them; `cell(row, col)` is
/// the character shown for a cell.
pub fn numbered_grid(n: usize, cell: impl Fn(usize, usize) -> char) -> String {
    let width = (n.saturating_sub(1)).to_string().len();
    let mut text = format!("{:width$} ", "");
    for col in 0..n {
        text += &format!(" {col:>width$}");
    }
    text.push('\n');
    for row in 0..n {
        text += &format!("{row:>width$} ");
        for col in 0..n {
            text += &format!(" {:>width$}", cell(row, col));
        }
        text.push('\n');
    }
    text
}

/// Every square of an n×n board as typed by `square(row, col)`, a line
/// each, rows in order: answers for a test person who tries them all.
#[cfg(test)]
pub(crate) fn every_square(n: usize, square: impl Fn(usize, usize) -> String) -> String {
    let mut typed = String::new();
    for row in 0..n {
        for col in 0..n {
            typed += &square(row, col);
            typed.push('\n');
        }
    }
    typed
}

/// The final state of a test game the person played to the end, and what
/// they were shown, after checking that the game is over and the text opens
/// with `opening`, shows each of `shown` and closes with the result; a game
/// that stopped early panics, showing its text.
#[cfg(test)]
pub(crate) fn assert_finished<G: Terminal>(
    end: io::Result<PersonEnd<G>>,
    output: Vec<u8>,
    opening: &str,
    shown: &[&str],
) -> (G, String) {
    let text = String::from_utf8(output).unwrap();
    let PersonEnd::Finished(end) = end.unwrap() else {
        panic!("{text}")
    };
    assert!(end.is_over(), "{text}");
    assert!(text.starts_with(opening), "{text}");
    for shown in shown {
        assert!(text.contains(shown), "{text}");
    }
    assert!(
        text.ends_with(&format!("Game over: {}\n", G::result(&end))),
        "{text}"
    );
    (end, text)
}
