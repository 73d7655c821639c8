//! What sits in a seat: an in-process [`Agent`] or an external program reached
//! through a [`Wire`]; their faults and their clocks.

use std::marker::PhantomData;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tabula_solver::{Game, IllegalMove, Seat, Turn};

use crate::agent::Agent;
use crate::process::{Peer, PlayerError};
use crate::protocol::excerpt;
use crate::wire::Wire;

/// The kinds of fault that lose a game.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A well-formed move that the rules forbid.
    IllegalMove,
    /// An answer that is not a move at all.
    MalformedAnswer,
    /// No answer within the time allowed.
    TimeOut,
    /// The program could not start, exited or was killed.
    Crash,
    /// A pipe to the program closed or failed.
    ClosedPipe,
}

impl FaultKind {
    /// The kind of fault a pipe dialogue's `error` is.
    pub fn of(error: &PlayerError) -> FaultKind {
        match error {
            PlayerError::TimedOut => FaultKind::TimeOut,
            PlayerError::NotText | PlayerError::LineTooLong | PlayerError::Flooding => {
                FaultKind::MalformedAnswer
            }
            PlayerError::Spawn { .. } | PlayerError::Exited { .. } => FaultKind::Crash,
            _ => FaultKind::ClosedPipe,
        }
    }
}

impl std::fmt::Display for FaultKind {
    /// The name the JSON gives it (`time-out`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FaultKind::IllegalMove => "illegal-move",
            FaultKind::MalformedAnswer => "malformed-answer",
            FaultKind::TimeOut => "time-out",
            FaultKind::Crash => "crash",
            FaultKind::ClosedPipe => "closed-pipe",
        })
    }
}

/// Why a seat lost its game (or the rest of its case).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The seat at fault.
    pub seat: Seat,
    /// What kind of fault.
    pub kind: FaultKind,
    /// The reason in words, as shown to the user.
    pub reason: String,
    /// Whether the player cannot go on (dead, or its case budget spent):
    /// the rest of its case is lost too.
    pub ends_case: bool,
}

/// A seat's failure before the match loop knows which seat it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What kind of fault.
    pub kind: FaultKind,
    /// The reason in words.
    pub reason: String,
    /// Whether the player cannot go on.
    pub ends_case: bool,
}

impl Failure {
    /// A failure of `kind` for `reason` that loses this game only.
    pub fn new(kind: FaultKind, reason: impl Into<String>) -> Failure {
        Failure {
            kind,
            reason: reason.into(),
            ends_case: false,
        }
    }

    /// The failure of a pipe dialogue, classified; `context` says what was being done.
    pub fn from_player(error: &PlayerError, clock: &Clock, context: &str) -> Failure {
        let reason = format!("{context}: {error}");
        let kind = FaultKind::of(error);
        match error {
            // A late answer would be read as the next one: the dialogue is lost.
            PlayerError::TimedOut => Failure {
                kind,
                reason: format!("{reason} ({})", clock.binding_limit()),
                ends_case: true,
            },
            // One line that is not text: the next answer can still be read.
            PlayerError::NotText => Failure::new(kind, reason),
            // Otherwise the player is gone, or (a line too long, a flood) the
            // rest of its output cannot be told apart: the case is lost.
            _ => Failure {
                kind,
                reason,
                ends_case: true,
            },
        }
    }

    /// The fault of `seat`.
    pub fn at(self, seat: Seat) -> Fault {
        Fault {
            seat,
            kind: self.kind,
            reason: self.reason,
            ends_case: self.ends_case,
        }
    }
}

/// Time limits of a seat; `None` is no limit. Only the time spent waiting for
/// the seat's answers counts, never the referee's own thinking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Limits {
    /// For each answer.
    pub per_answer: Option<Duration>,
    /// For a whole game.
    pub per_game: Option<Duration>,
    /// For a whole test case (Dominoes: 100 s for 100 games).
    pub per_case: Option<Duration>,
}

/// A seat's clock: its limits and the time it has used.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clock {
    /// The limits.
    pub limits: Limits,
    /// Time used in the current game.
    pub game_used: Duration,
    /// Time used in the current case.
    pub case_used: Duration,
}

impl Clock {
    /// A fresh clock with these limits.
    pub fn new(limits: Limits) -> Clock {
        Clock {
            limits,
            ..Clock::default()
        }
    }

    /// Resets the case's (and the game's) time.
    pub fn start_case(&mut self) {
        self.case_used = Duration::ZERO;
        self.game_used = Duration::ZERO;
    }

    /// Resets the game's time.
    pub fn start_game(&mut self) {
        self.game_used = Duration::ZERO;
    }

    /// The time left under each limit: per answer, per game, per case.
    fn left(&self) -> [Option<Duration>; 3] {
        let game = self
            .limits
            .per_game
            .map(|l| l.saturating_sub(self.game_used));
        let case = self
            .limits
            .per_case
            .map(|l| l.saturating_sub(self.case_used));
        [self.limits.per_answer, game, case]
    }

    /// The time left before some limit is reached, if any limit is set.
    pub fn remaining(&self) -> Option<Duration> {
        self.left().into_iter().flatten().min()
    }

    /// The latest moment an answer asked for at `now` may arrive.
    pub fn deadline(&self, now: Instant) -> Option<Instant> {
        self.remaining().map(|left| now + left)
    }

    /// Charges time spent waiting for an answer.
    pub fn charge(&mut self, spent: Duration) {
        self.game_used += spent;
        self.case_used += spent;
    }

    /// The limit that binds now, for messages: `case limit of 100 s`,
    /// `game limit of 10 s` or `answer limit of 0.5 s`.
    pub fn binding_limit(&self) -> String {
        let [_, game, case] = self.left();
        let left = self.remaining();
        let (name, limit) = if left.is_some() && left == case {
            ("case", self.limits.per_case)
        } else if left.is_some() && left == game {
            ("game", self.limits.per_game)
        } else {
            ("answer", self.limits.per_answer)
        };
        match limit {
            Some(limit) => format!("{name} limit of {} s", limit.as_secs_f64()),
            None => format!("{name} limit"),
        }
    }
}

/// What the match loop asks of a seat. Methods fail with the reason the seat
/// loses; legality is checked by the loop, not here.
pub trait Player<G: Game> {
    /// The name shown in reports: an agent's name or the command line.
    fn name(&self) -> String;

    /// A new test case starts (nothing to do for a player that keeps nothing
    /// from case to case).
    fn start_case(&mut self, params: &G::Params, clock: &mut Clock) -> Result<(), Failure> {
        let _ = (params, clock);
        Ok(())
    }

    /// A new game starts with this player in `seat`.
    fn start_game(&mut self, seat: Seat, view: &G::View, clock: &mut Clock) -> Result<(), Failure>;

    /// A move by another seat or by chance, as this seat sees it.
    fn observe(&mut self, mover: Turn, observation: &G::Observation) -> Result<(), Failure>;

    /// This seat's move (not yet checked for legality).
    fn choose(&mut self, view: &G::View, clock: &mut Clock) -> Result<G::Move, Failure>;

    /// The answer its last move was read from and the request it answered,
    /// quoted (`'R2' to 'play ...'`), for an illegal move's reason; `None`
    /// for an agent.
    fn last_answer(&self) -> Option<String> {
        None
    }

    /// This seat has just lost its game to a fault of its own (before `end_game`).
    fn faulted(&mut self) {}

    /// The game is over (also after a fault); nothing can fail any more.
    fn end_game(&mut self, view: &G::View);

    /// The run is over for this player: a program's input is closed and it
    /// gets up to `grace` to read its last lines and exit by itself before
    /// it is killed. Nothing to do for an agent.
    fn finish(&mut self, grace: std::time::Duration) {
        let _ = grace;
    }
}

/// An in-process agent in a seat; it never fails.
pub struct Local<A>(pub A);

impl<G: Game, A: Agent<G>> Player<G> for Local<A> {
    fn name(&self) -> String {
        self.0.name()
    }

    fn start_case(&mut self, params: &G::Params, _clock: &mut Clock) -> Result<(), Failure> {
        self.0.start_case(params);
        Ok(())
    }

    fn start_game(
        &mut self,
        seat: Seat,
        view: &G::View,
        _clock: &mut Clock,
    ) -> Result<(), Failure> {
        self.0.start_game(seat, view);
        Ok(())
    }

    fn observe(&mut self, mover: Turn, observation: &G::Observation) -> Result<(), Failure> {
        self.0.observe(mover, observation);
        Ok(())
    }

    fn choose(&mut self, view: &G::View, _clock: &mut Clock) -> Result<G::Move, Failure> {
        Ok(self.0.choose(view))
    }

    fn end_game(&mut self, _view: &G::View) {}
}

/// How long the lines that close a game may take to write.
const END_LINES_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a tested program has, after its last game, to read its last
/// lines and exit by itself before it is killed ([`Player::finish`]).
pub const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// The fault of a program that sent more than [`MAX_BLANK_LINES`] blank lines.
fn too_many_blank_lines() -> Failure {
    Failure::new(
        FaultKind::MalformedAnswer,
        format!("wrote more than {MAX_BLANK_LINES} blank lines"),
    )
}

/// Blank lines a wire that passes over them takes around one answer: a
/// player writing them as fast as they are read would never time out.
const MAX_BLANK_LINES: usize = 64;

/// Where a remote seat's dialogue is written: `>` lines to it, `<` lines from it.
pub type Transcript = Box<dyn FnMut(&str) + Send>;

/// Checks a seat's move against what it sees, with the reason in words.
pub type Check<G> = fn(&<G as Game>::View, <G as Game>::Move) -> Result<(), IllegalMove>;

/// Starts a seat's program afresh.
pub type Respawn = Box<dyn FnMut() -> Result<Box<dyn Peer + Send>, PlayerError> + Send>;

/// An external program in a seat, spoken to through the game's [`Wire`].
pub struct Remote<G: Game, W: Wire<G>> {
    name: String,
    peer: Box<dyn Peer + Send>,
    wire: W,
    transcript: Option<Transcript>,
    /// A patient seat's check: bad answers are told `error: ...` and asked again.
    patience: Option<Check<G>>,
    /// How to start the program again after a fault, if it can be.
    respawn: Option<Respawn>,
    /// The case it was last told of, to tell a restarted program again.
    case: Option<G::Params>,
    /// Whether it faulted since it was started: its late or surplus lines
    /// would be read as the answers to the next requests.
    stale: bool,
    /// Its last move's answer and request, quoted ([`Player::last_answer`]).
    last_answer: Option<String>,
    game: PhantomData<fn() -> G>,
}

impl<G: Game, W: Wire<G>> Remote<G, W> {
    /// A seat named `name` (usually the command line) talking over `peer`.
    pub fn new(name: impl Into<String>, peer: Box<dyn Peer + Send>, wire: W) -> Remote<G, W> {
        Remote {
            name: name.into(),
            peer,
            wire,
            transcript: None,
            patience: None,
            respawn: None,
            case: None,
            stale: false,
            last_answer: None,
            game: PhantomData,
        }
    }

    /// A seat whose program, once it has lost a game to a fault, is started
    /// afresh with `respawn` for its next game and told its case again, as a
    /// new instance would be: one stray line then costs one game, not every
    /// later answer of the run (read one behind).
    pub fn restarting(mut self, respawn: Respawn) -> Remote<G, W> {
        self.respawn = Some(respawn);
        self
    }

    /// Starts a stale program afresh (a seat that cannot be restarted goes on as it is).
    fn restart_if_stale(&mut self, clock: &mut Clock) -> Result<(), Failure> {
        if !std::mem::take(&mut self.stale) {
            return Ok(());
        }
        if self.respawn.is_none() {
            return Ok(());
        }
        self.log(
            '#',
            "restarted after its fault: a new process for the next game",
        );
        let respawn = self.respawn.as_mut().expect("checked above");
        self.peer = respawn().map_err(|e| Failure::from_player(&e, clock, "restarting"))?;
        match self.case.clone() {
            Some(params) => {
                let line = self.wire.case_request(&params);
                self.acknowledge(line, clock)
            }
            None => Ok(()),
        }
    }

    /// A seat for a person at a terminal: a malformed answer, or a move that
    /// `check` refuses, gets one line `error: <reason>` and the seat answers
    /// again instead of losing the game. Only a closed or failed input, or a
    /// time limit, still ends the game.
    pub fn patient(mut self, check: Check<G>) -> Remote<G, W> {
        self.patience = Some(check);
        self
    }

    /// Writes every line of the dialogue to `transcript`.
    pub fn with_transcript(mut self, transcript: Transcript) -> Remote<G, W> {
        self.transcript = Some(transcript);
        self
    }

    fn log(&mut self, direction: char, line: &str) {
        if let Some(t) = self.transcript.as_mut() {
            // A request may be several lines (notes, then the question).
            for part in line.split('\n') {
                t(&format!("{direction} {part}"));
            }
        }
    }

    /// Sends `line` and waits for the answer, charging both to `clock`: a
    /// player that stops reading its input times out rather than hanging us.
    fn ask(&mut self, line: &str, clock: &mut Clock) -> Result<String, Failure> {
        self.ask_about(line, line, clock)
    }

    /// [`Remote::ask`], a failure naming `request` (the request `line`
    /// answers again, when `line` is an `error:` line to a person).
    fn ask_about(
        &mut self,
        line: &str,
        request: &str,
        clock: &mut Clock,
    ) -> Result<String, Failure> {
        // A request of several lines is named by its last, the question.
        let request = request.rsplit('\n').next().unwrap_or(request);
        // Lines already there were sent unasked, after the last answer was read.
        let mut blanks = 0;
        self.refuse_waiting(&mut blanks, request, None)?;
        self.log('>', line);
        let started = Instant::now();
        let deadline = clock.deadline(started);
        if let Err(e) = self.peer.send_line_by(line, deadline) {
            clock.charge(started.elapsed());
            let context = format!("sending '{}'", excerpt(request));
            return Err(Failure::from_player(&e, clock, &context));
        }
        let answer = loop {
            let answer = self.peer.recv_line(deadline);
            if let Ok(blank) = &answer
                && blank.trim().is_empty()
                && self.wire.skips_blank_lines()
            {
                self.log('<', blank);
                blanks += 1;
                if blanks > MAX_BLANK_LINES && !self.peer.types_ahead() {
                    // Blank lines as fast as they are read would never time out.
                    clock.charge(started.elapsed());
                    return Err(too_many_blank_lines());
                }
                continue;
            }
            break answer;
        };
        clock.charge(started.elapsed());
        let answer = answer.map_err(|e| {
            // The request is named: a player silent on `reset` is not one slow on `play`.
            let context = format!("waiting for an answer to '{}'", excerpt(request));
            let mut failure = Failure::from_player(&e, clock, &context);
            if matches!(e, PlayerError::TimedOut)
                && let Some(silence) = self.peer.silence()
            {
                failure.reason = format!("{}; {silence}", failure.reason);
            }
            failure
        })?;
        self.log('<', &answer);
        // A line sent with the answer answers nothing: left waiting, it would
        // be read as the answer to the next request, and lose that game for
        // the wrong reason (a debugging line on stdout, say).
        self.refuse_waiting(&mut blanks, request, Some(&answer))?;
        Ok(answer)
    }

    /// Fails on a line the player sent unasked and that is already waiting:
    /// with `answer` (the answer just read to `request`), or before `request`
    /// was sent. Blank lines are passed over where the wire skips them, up to
    /// [`MAX_BLANK_LINES`] in all with `blanks`.
    fn refuse_waiting(
        &mut self,
        blanks: &mut usize,
        request: &str,
        answer: Option<&str>,
    ) -> Result<(), Failure> {
        while let Some(extra) = self.peer.waiting_line() {
            self.log('<', &extra);
            let blank = extra.trim().is_empty() && self.wire.skips_blank_lines();
            *blanks += 1;
            let reason = match answer {
                _ if blank && *blanks <= MAX_BLANK_LINES => continue,
                _ if blank => return Err(too_many_blank_lines()),
                Some(answer) => format!(
                    "wrote '{}' with its answer '{}' to '{}': one line answers a request",
                    excerpt(&extra),
                    excerpt(answer),
                    excerpt(request)
                ),
                None => format!(
                    "wrote '{}' before it was asked '{}': one line answers a request",
                    excerpt(&extra),
                    excerpt(request)
                ),
            };
            return Err(Failure::new(FaultKind::MalformedAnswer, reason));
        }
        Ok(())
    }

    fn acknowledge(&mut self, line: Option<String>, clock: &mut Clock) -> Result<(), Failure> {
        let Some(line) = line else { return Ok(()) };
        let answer = self.ask(&line, clock)?;
        self.wire.check_ack(&answer).map_err(|e| {
            let request = line.split_whitespace().next().unwrap_or_default();
            Failure::new(
                FaultKind::MalformedAnswer,
                format!("answer to '{request}': {e}"),
            )
        })
    }
}

impl<G: Game, W: Wire<G>> Player<G> for Remote<G, W> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn start_case(&mut self, params: &G::Params, clock: &mut Clock) -> Result<(), Failure> {
        // Told of the new case by the fresh program itself, not twice.
        self.case = None;
        self.restart_if_stale(clock)?;
        self.case = Some(params.clone());
        let line = self.wire.case_request(params);
        self.acknowledge(line, clock)
    }

    fn start_game(&mut self, seat: Seat, view: &G::View, clock: &mut Clock) -> Result<(), Failure> {
        self.restart_if_stale(clock)?;
        let line = self.wire.game_request(seat, view);
        self.acknowledge(line, clock)?;
        let Some(notice) = self.wire.game_notice(seat, view) else {
            return Ok(());
        };
        self.log('>', &notice);
        let started = Instant::now();
        let sent = self.peer.send_line_by(&notice, clock.deadline(started));
        clock.charge(started.elapsed());
        sent.map_err(|e| {
            Failure::from_player(&e, clock, &format!("sending '{}'", excerpt(&notice)))
        })
    }

    fn observe(&mut self, mover: Turn, observation: &G::Observation) -> Result<(), Failure> {
        self.wire.observe(mover, observation);
        Ok(())
    }

    fn choose(&mut self, view: &G::View, clock: &mut Clock) -> Result<G::Move, Failure> {
        let request = self.wire.move_request(view);
        self.last_answer = None;
        let mut answer = self.ask(&request, clock)?;
        let Some(check) = self.patience else {
            // A request of several lines is named by its last, the question.
            let question = request.rsplit('\n').next().unwrap_or(&request);
            let quoted = format!("'{}' to '{}'", excerpt(&answer), excerpt(question));
            let mv = self.wire.decode_answer(view, &answer).map_err(|e| {
                Failure::new(
                    FaultKind::MalformedAnswer,
                    format!("{e} (to '{}')", excerpt(question)),
                )
            })?;
            self.last_answer = Some(quoted);
            return Ok(mv);
        };
        loop {
            let problem = match self.wire.decode_answer(view, &answer) {
                Ok(mv) => match check(view, mv) {
                    Ok(()) => return Ok(mv),
                    Err(IllegalMove(reason)) => reason,
                },
                Err(reason) => reason,
            };
            let again = format!("error: {}", problem.replace('\n', " "));
            answer = self.ask_about(&again, &request, clock)?;
        }
    }

    fn last_answer(&self) -> Option<String> {
        self.last_answer.clone()
    }

    fn faulted(&mut self) {
        self.stale = true;
    }

    fn finish(&mut self, grace: std::time::Duration) {
        // A program that has just faulted may be stalled: it gets no grace.
        let grace = if self.stale { Duration::ZERO } else { grace };
        self.peer.close(grace);
    }

    fn end_game(&mut self, view: &G::View) {
        // The player may be gone, or not reading: the game is scored anyway.
        let deadline = Some(Instant::now() + END_LINES_GRACE);
        for line in self.wire.end_lines(view) {
            self.log('>', &line);
            if self.peer.send_line_by(&line, deadline).is_err() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FaultKind;

    #[test]
    fn a_fault_kind_is_shown_by_the_name_its_json_gives_it() {
        use FaultKind::*;
        for kind in [IllegalMove, MalformedAnswer, TimeOut, Crash, ClosedPipe] {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json.as_str(), Some(kind.to_string().as_str()));
        }
    }
}
