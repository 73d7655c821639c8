//! One wire adapter per game: how its requests and answers look on the pipe.
//!
//! The same [`Wire`] value type serves both ends, so they cannot drift apart:
//! the referee side ([`crate::seat::Remote`]) encodes requests and decodes
//! answers, the player side ([`Session`], behind `tabula serve` and `tabula
//! play`) decodes requests and encodes answers. A wire keeps whatever state its
//! dialogue needs (the IOI dialogue sends only the opponent's last move, so each
//! side keeps the board).

use std::io::{BufRead, Write};

use tabula_solver::{Game, Seat, Turn};

use crate::agent::Agent;
use crate::protocol::{self, DialogueError, Reply};

/// A request as the player side reads it.
#[derive(Debug)]
pub enum Incoming<G: Game> {
    /// A test case starts (answered with [`Wire::ack`]).
    Case(G::Params),
    /// A game starts with the player in `seat` (answered with [`Wire::ack`]).
    Game {
        /// The player's seat.
        seat: Seat,
        /// What it sees.
        view: G::View,
    },
    /// The player's move is wanted.
    Move {
        /// A game that starts with this request, and the player's seat in it.
        start: Option<Seat>,
        /// Moves played since the last request, as the player sees them.
        observed: Vec<(Turn, G::Observation)>,
        /// What the player sees now.
        view: G::View,
    },
    /// Moves to note without answering (the opponent's last move of a game).
    Note {
        /// The moves.
        observed: Vec<(Turn, G::Observation)>,
    },
    /// The game is over; the player answers `reply` if there is one.
    End {
        /// The answer, if the protocol wants one.
        reply: Option<String>,
    },
}

/// How a game's requests and answers are written.
pub trait Wire<G: Game>: Send {
    // The referee side.

    /// The request that opens a case, answered by an acknowledgement (Dominoes' `init`).
    fn case_request(&mut self, _params: &G::Params) -> Option<String> {
        None
    }

    /// The request that opens a game, answered by an acknowledgement (Dominoes' `reset`).
    fn game_request(&mut self, _seat: Seat, _view: &G::View) -> Option<String> {
        None
    }

    /// A line sent as the game starts, after its request, and not answered
    /// (Kalah's greeting): a person sees it before the other side's first
    /// move, however long that takes to find.
    fn game_notice(&mut self, _seat: Seat, _view: &G::View) -> Option<String> {
        None
    }

    /// Checks an acknowledgement line: any integer. The statement's `init` and
    /// `reset` return an `int` that it asks to be 0, and its tester read
    /// nothing in it; a line that is no integer is malformed (a stray line
    /// would otherwise be taken for the answer).
    fn check_ack(&self, line: &str) -> Result<(), String> {
        match line.trim().parse::<i32>() {
            Ok(_) => Ok(()),
            Err(_) => Err(format!(
                "expected an integer ('{}'), got '{}'",
                self.ack(),
                short(line)
            )),
        }
    }

    /// Notes a move by another seat or by chance, to tell the player in its next request.
    fn observe(&mut self, _mover: Turn, _observation: &G::Observation) {}

    /// The request for the player's move.
    fn move_request(&mut self, view: &G::View) -> String;

    /// Reads the player's answer; an error is a malformed answer (legality is checked elsewhere).
    fn decode_answer(&mut self, view: &G::View, line: &str) -> Result<G::Move, String>;

    /// Whether blank lines are passed over, as a C `scanf("%d")` reading the
    /// IOI dialogue does: before an answer a referee reads, and between the
    /// requests a served player reads.
    fn skips_blank_lines(&self) -> bool {
        false
    }

    /// Lines sent once the game is over, not answered.
    fn end_lines(&mut self, _view: &G::View) -> Vec<String> {
        Vec::new()
    }

    // The player side.

    /// Reads one request line.
    fn decode_request(&mut self, line: &str) -> Result<Incoming<G>, String>;

    /// Writes the player's move, `view` being what the player saw when choosing it.
    fn encode_answer(&mut self, view: &G::View, mv: G::Move) -> String;

    /// The acknowledgement of case and game requests.
    fn ack(&self) -> &'static str {
        "0"
    }

    /// Whether a bad request ends the dialogue (the IOI dialogue) rather than
    /// being answered `error: ...` (the line protocol).
    fn errors_are_fatal(&self) -> bool {
        false
    }

    /// Whether the player side is done after its last answer (one-game dialogues).
    fn finished(&self) -> bool {
        false
    }

    /// Why it is an error that the input ended now, if it is (a one-game
    /// dialogue cut short); `None` when the input may end here.
    fn unfinished(&self) -> Option<String> {
        None
    }
}

/// At most 40 characters of untrusted text, for error messages; control
/// characters are escaped, so that a message stays one printable line.
pub fn short(text: &str) -> String {
    crate::protocol::excerpt(text.trim())
}

/// The player side of a dialogue: an agent behind a wire.
pub struct Session<G: Game, W: Wire<G>, A: Agent<G>> {
    wire: W,
    agent: A,
    game: std::marker::PhantomData<fn() -> G>,
}

impl<G: Game, W: Wire<G>, A: Agent<G>> Session<G, W, A> {
    /// `agent` answering through `wire`.
    pub fn new(wire: W, agent: A) -> Session<G, W, A> {
        Session {
            wire,
            agent,
            game: std::marker::PhantomData,
        }
    }

    /// Answers one request line.
    pub fn handle(&mut self, line: &str) -> Result<Reply, String> {
        let reply = match self.wire.decode_request(line)? {
            Incoming::Case(params) => {
                self.agent.start_case(&params);
                Reply::Line(self.wire.ack().to_string())
            }
            Incoming::Game { seat, view } => {
                self.agent.start_game(seat, &view);
                Reply::Line(self.wire.ack().to_string())
            }
            Incoming::Move {
                start,
                observed,
                view,
            } => {
                if let Some(seat) = start {
                    self.agent.start_game(seat, &view);
                }
                for (mover, observation) in &observed {
                    self.agent.observe(*mover, observation);
                }
                if G::view_moves(&view).is_empty() {
                    return Err("no legal move to choose from".into());
                }
                let mv = self.agent.choose(&view);
                if !G::view_moves(&view).contains(&mv) {
                    return Err(format!(
                        "agent {} chose an illegal move {mv:?}",
                        self.agent.name()
                    ));
                }
                Reply::Line(self.wire.encode_answer(&view, mv))
            }
            Incoming::Note { observed } => {
                for (mover, observation) in &observed {
                    self.agent.observe(*mover, observation);
                }
                Reply::Silent
            }
            Incoming::End { reply } => reply.map_or(Reply::Silent, Reply::Line),
        };
        Ok(if self.wire.finished() {
            Reply::Last(match reply {
                Reply::Line(line) | Reply::Last(Some(line)) => Some(line),
                _ => None,
            })
        } else {
            reply
        })
    }

    /// Serves requests from `input` until it ends (or the dialogue is finished).
    pub fn serve<R: BufRead, O: Write>(
        &mut self,
        input: R,
        output: O,
    ) -> Result<(), DialogueError> {
        let fatal = self.wire.errors_are_fatal();
        let skip_blank = self.wire.skips_blank_lines();
        protocol::serve_dialogue(input, output, fatal, skip_blank, |line| self.handle(line))?;
        match self.wire.unfinished() {
            Some(why) => Err(DialogueError::Refused(why)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn short_text_is_one_printable_line_of_at_most_40_characters() {
        assert_eq!(short("  7 3 \n"), "7 3");
        assert_eq!(short("a\u{0}b\u{1b}[2Jc\rd"), "a\\u{0}b\\u{1b}[2Jc\\rd");
        let long = "é".repeat(50);
        assert_eq!(short(&long), format!("{}…", "é".repeat(40)));
    }
}
