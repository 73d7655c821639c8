//! Game records as JSON Lines: one object per game, written by every referee
//! and verify run (`--log FILE`), read back and replayed through the rules.
//!
//! A game only says how its moves and its start are written ([`Notation`]);
//! the record ([`GameLine`]), the writer ([`GameLog`]) and the replay
//! ([`replay`]) are the same for every game.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tabula_solver::{Game, Seat, Turn};

use crate::arena::{self, GameRecord, Outcome};
use crate::protocol::escape_controls;
use crate::seat::Fault;
use crate::tournament::{Job, Purpose, Schedule, Seatings, stream_name};
use crate::wire::short;

/// How a game writes its parameters, its start and its moves in a log, and reads them back.
pub trait Notation: Game {
    /// The game's name in logs, as on the command line (`ioiwari`).
    const NAME: &'static str;

    /// Whether the game has chance moves; the logs of a game without them
    /// name no stream (`none`).
    const CHANCE: bool = false;

    /// A case's parameters as JSON.
    fn params_json(params: &Self::Params) -> Value;

    /// The state a game starts from, as JSON that [`Notation::from_start_json`] reads back.
    fn start_json(&self) -> Value;

    /// The start state written by [`Notation::start_json`].
    fn from_start_json(value: &Value) -> Result<Self, String>;

    /// `mv` in the game's notation, written from this state (the one before the move).
    fn move_text(&self, mv: Self::Move) -> String;

    /// Reads a move written by [`Notation::move_text`] from this state.
    fn parse_move(&self, text: &str) -> Result<Self::Move, String>;

    /// Checks a start read back against its case's logged parameters (see
    /// [`Notation::params_json`]); games whose start says nothing of them check nothing.
    fn check_params(&self, params: &Value) -> Result<(), String> {
        let _ = params;
        Ok(())
    }
}

/// One move of a logged game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoggedMove {
    /// The seat that moved; `null` for chance.
    pub seat: Option<Seat>,
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Milliseconds the seat took to answer (0 for chance).
    pub ms: f64,
}

/// Where a game sits in its run: the seed, the case and game numbers, the chance stream.
#[derive(Clone, Debug, PartialEq)]
pub struct At {
    /// The seed of the run.
    pub seed: u64,
    /// The case, from 0.
    pub case: usize,
    /// The case as the report names it (`heap 5`, `N=6`, `(5,7)`).
    pub label: String,
    /// The game within the case, from 0.
    pub game: usize,
    /// The name of the stream chance drew from.
    pub stream: String,
}

impl At {
    /// Game `game` of case `case`, with chance from stream `chance/<case>/<game>/0`.
    pub fn new(seed: u64, case: usize, label: impl Into<String>, game: usize) -> At {
        At {
            seed,
            case,
            label: label.into(),
            game,
            stream: stream_name(Purpose::Chance, case as u64, game as u64, 0),
        }
    }

    /// Job `job` of `schedule`: its game number counts every seating (game ×
    /// rotations + rotation), and chance draws from the job's chance stream
    /// (`chance/<key>/<game>/0`, the case's key, shared by the seatings).
    pub fn of_job(seed: u64, schedule: &Schedule, job: &Job, label: impl Into<String>) -> At {
        let rotations = match schedule.seatings {
            Seatings::Fixed => 1,
            Seatings::Rotated => schedule.seats,
        };
        At {
            game: job.game * rotations + job.rotation,
            stream: stream_name(Purpose::Chance, job.key, job.game as u64, 0),
            ..At::new(seed, job.case, label, job.game)
        }
    }

    /// The same place with chance from the stream named `stream`.
    pub fn with_stream(self, stream: impl Into<String>) -> At {
        At {
            stream: stream.into(),
            ..self
        }
    }
}

/// One game as a line of a log (the JSON Lines format of `--log`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    /// The game's name (`ioiwari`, `tonga`...).
    pub game: String,
    /// The case, from 0.
    pub case: usize,
    /// The case as the report names it.
    pub case_label: String,
    /// The case's parameters.
    pub params: Value,
    /// The game within the case, from 0.
    pub game_index: usize,
    /// The seed of the run.
    pub seed: u64,
    /// The name of the stream chance drew from (see `tournament::stream`);
    /// `none` for a game without chance moves.
    pub stream: String,
    /// The player in each seat: a built-in agent's name or an external command.
    pub seats: Vec<String>,
    /// The start state, in the game's own JSON.
    pub start: Value,
    /// Every move in order, chance's included.
    pub moves: Vec<LoggedMove>,
    /// The fault that ended the game, if one did.
    pub fault: Option<Fault>,
    /// Final per-seat scores (after the forfeit rule when there was a fault).
    pub scores: Vec<f64>,
    /// Each seat's result as the reports count it: a faulting seat's game is
    /// lost whatever the scores say. `None` in logs written before it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<Vec<Outcome>>,
    /// Milliseconds each seat spent answering.
    pub time_ms: Vec<f64>,
}

fn millis(time: Duration) -> f64 {
    // Microsecond resolution keeps the lines short.
    (time.as_secs_f64() * 1e6).round() / 1e3
}

impl GameLine {
    /// The line of `record`, a game of the case with `params`, at `at`.
    pub fn new<G: Notation>(record: &GameRecord<G>, params: &G::Params, at: &At) -> GameLine {
        let mut state = record.start.clone();
        let moves = record
            .plies
            .iter()
            .map(|ply| {
                let mv = state.move_text(ply.mv);
                state.apply(ply.mv);
                LoggedMove {
                    seat: match ply.turn {
                        Turn::Seat(s) => Some(s),
                        _ => None,
                    },
                    mv,
                    ms: millis(ply.time),
                }
            })
            .collect();
        GameLine {
            game: G::NAME.to_string(),
            case: at.case,
            case_label: at.label.clone(),
            params: G::params_json(params),
            game_index: at.game,
            seed: at.seed,
            stream: if G::CHANCE {
                at.stream.clone()
            } else {
                "none".to_string()
            },
            seats: record.players.clone(),
            start: record.start.start_json(),
            moves,
            fault: record.fault.clone(),
            scores: record.scores.to_vec(),
            outcomes: Some(
                (0..record.scores.len())
                    .map(|seat| record.outcome(seat))
                    .collect(),
            ),
            time_ms: record.time_used.iter().map(|&t| millis(t)).collect(),
        }
    }
}

/// Why a logged game could not be replayed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// The line is of another game.
    #[error("a game of {found}, not {expected}")]
    OtherGame {
        /// The game asked for.
        expected: String,
        /// The game of the line (escaped and cut short: it is the log's text).
        found: String,
    },
    /// The start does not read back (the reason escaped: it may quote the log).
    #[error("bad start: {0}")]
    Start(String),
    /// A move does not read back, is out of turn or illegal.
    #[error("move {index} '{text}': {reason}")]
    Move {
        /// The move's position in the game, from 0.
        index: usize,
        /// The move as logged, escaped and cut short.
        text: String,
        /// What is wrong with it (escaped: it may quote the move).
        reason: String,
    },
    /// The seats listed are not the game's.
    #[error("{logged} seats are listed, but the game has {seats}")]
    Seats {
        /// Seats in the log's list.
        logged: usize,
        /// Seats of the game.
        seats: usize,
    },
    /// The fault names a seat the game does not have.
    #[error("the fault is seat {seat}'s, but the game has {seats} seats")]
    FaultSeat {
        /// The seat named.
        seat: usize,
        /// Seats of the game.
        seats: usize,
    },
    /// The game is not over after its last move, and no fault ended it.
    #[error("the game is not over after its last move and no fault ended it")]
    Unfinished,
    /// A fault is logged, but the game ended by the rules before it.
    #[error("a fault is logged, but the game is over after its last move")]
    FaultAfterEnd,
    /// The replay's scores differ from the logged ones.
    #[error("the replay scores {replayed:?}, the log says {logged:?}")]
    Scores {
        /// The scores of the replay.
        replayed: Vec<f64>,
        /// The scores in the log.
        logged: Vec<f64>,
    },
    /// The outcomes the replay's scores and fault give differ from the logged ones.
    #[error(
        "the replay's outcomes are {}, the log says {}",
        words(replayed),
        words(logged)
    )]
    Outcomes {
        /// The outcomes of the replay.
        replayed: Vec<Outcome>,
        /// The outcomes in the log.
        logged: Vec<Outcome>,
    },
}

/// Outcomes as the log spells them: `[win, loss]`.
fn words(outcomes: &[Outcome]) -> String {
    let words: Vec<String> = outcomes.iter().map(Outcome::to_string).collect();
    format!("[{}]", words.join(", "))
}

/// Replays a logged game through the rules and checks its final scores and outcomes;
/// returns every state, the start first and the end last.
pub fn replay<G: Notation>(line: &GameLine) -> Result<Vec<G>, ReplayError> {
    if line.game != G::NAME {
        return Err(ReplayError::OtherGame {
            expected: G::NAME.into(),
            found: short(&line.game),
        });
    }
    // A log is untrusted text: what an error quotes of it is escaped, to stay one line.
    let bad_start = |reason: String| ReplayError::Start(escape_controls(&reason));
    let mut state = G::from_start_json(&line.start).map_err(bad_start)?;
    state.check_params(&line.params).map_err(bad_start)?;
    let seats = state.seats();
    if line.seats.len() != seats {
        return Err(ReplayError::Seats {
            logged: line.seats.len(),
            seats,
        });
    }
    if let Some(fault) = line.fault.as_ref().filter(|f| f.seat >= seats) {
        return Err(ReplayError::FaultSeat {
            seat: fault.seat,
            seats,
        });
    }
    let mut states = vec![state.clone()];
    for (index, logged) in line.moves.iter().enumerate() {
        let bad = |reason: String| ReplayError::Move {
            index,
            text: short(&logged.mv),
            reason: escape_controls(&reason),
        };
        let turn = state.turn();
        let expected = match logged.seat {
            Some(s) => Turn::Seat(s),
            None => Turn::Chance,
        };
        if turn != expected {
            return Err(bad(format!(
                "logged for {expected}, but the move is due from {turn}"
            )));
        }
        let mv = state.parse_move(&logged.mv).map_err(bad)?;
        if turn == Turn::Chance {
            if !state.moves().contains(&mv) {
                return Err(bad("not an outcome of chance here".into()));
            }
        } else {
            state.check_move(mv).map_err(|e| bad(e.to_string()))?;
        }
        state.apply(mv);
        states.push(state.clone());
    }
    match &line.fault {
        // A fault stops a game before its end: none is possible after it.
        Some(_) if state.is_over() => return Err(ReplayError::FaultAfterEnd),
        Some(fault) => {
            state.forfeit(fault.seat);
            states.push(state.clone());
        }
        None if !state.is_over() => return Err(ReplayError::Unfinished),
        None => {}
    }
    let replayed = state.scores().to_vec();
    if replayed != line.scores {
        return Err(ReplayError::Scores {
            replayed,
            logged: line.scores.clone(),
        });
    }
    let faulted = line.fault.as_ref().map(|f| f.seat);
    let outcomes: Vec<Outcome> = (0..seats)
        .map(|seat| arena::outcome(&replayed, faulted, seat))
        .collect();
    if let Some(logged) = line.outcomes.as_ref().filter(|&logged| *logged != outcomes) {
        return Err(ReplayError::Outcomes {
            replayed: outcomes,
            logged: logged.clone(),
        });
    }
    Ok(states)
}

/// A line of a log that is not a game.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct LogLineError {
    /// The line's number in the text, from 1.
    pub line: usize,
    /// What is wrong with it (its column counts within the line).
    pub error: serde_json::Error,
}

/// Reads a log: one [`GameLine`] per non-blank line.
pub fn read_log(text: &str) -> Result<Vec<GameLine>, LogLineError> {
    log_lines(text).collect()
}

/// A log's games one at a time, as [`read_log`] reads them, each line parsed
/// only when its turn comes.
pub fn log_lines(text: &str) -> impl Iterator<Item = Result<GameLine, LogLineError>> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|error| LogLineError { line: i + 1, error }))
}

/// A JSON Lines game log shared by threads; writes nothing when off.
#[derive(Clone, Default)]
pub struct GameLog(Option<Arc<Mutex<LineSink>>>);

/// Lines written to an output whose first failure is kept for the end: a full
/// disk must not stop the games, but must not go unsaid either.
pub struct LineSink {
    out: Box<dyn Write + Send>,
    failed: Option<std::io::Error>,
}

impl LineSink {
    /// Lines to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> LineSink {
        LineSink { out, failed: None }
    }

    /// Writes `line` and a newline, and flushes them so that a reader
    /// following the output sees whole lines as they come, unless a write
    /// has failed already.
    pub fn line(&mut self, line: &str) {
        // Line and newline in one write: a run stopped by a signal cuts its
        // log back to whole lines while other threads may still be writing.
        let mut whole = String::with_capacity(line.len() + 1);
        whole.push_str(line);
        whole.push('\n');
        if self.failed.is_none()
            && let Err(e) = self
                .out
                .write_all(whole.as_bytes())
                .and_then(|()| self.out.flush())
        {
            self.failed = Some(e);
        }
    }

    /// Flushes; the error of the first failed write if one failed.
    pub fn flush(&mut self) -> std::io::Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

impl GameLog {
    /// A log that writes nothing.
    pub fn off() -> GameLog {
        GameLog(None)
    }

    /// A log writing to `out`.
    pub fn to_writer(out: Box<dyn Write + Send>) -> GameLog {
        GameLog(Some(Arc::new(Mutex::new(LineSink::new(out)))))
    }

    /// Whether lines are written anywhere.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Writes one line. A full disk must not stop the games: the first
    /// failure is kept, later lines are dropped, and [`GameLog::flush`] returns it.
    pub fn write(&self, line: &GameLine) {
        if self.is_on()
            && let Ok(text) = serde_json::to_string(line)
        {
            self.write_text(&text);
        }
    }

    /// Writes `text`, one line made by [`GameLog::line`], as [`GameLog::write`] does.
    pub fn write_text(&self, text: &str) {
        if let Some(sink) = &self.0
            && let Ok(mut sink) = sink.lock()
        {
            sink.line(text);
        }
    }

    /// Writes the line of `record`, a game of the case with `params`, at `at`.
    pub fn record<G: Notation>(&self, record: &GameRecord<G>, params: &G::Params, at: &At) {
        if let Some(text) = self.line(record, params, at) {
            self.write_text(&text);
        }
    }

    /// The line [`GameLog::record`] would write, to be written later with
    /// [`GameLog::write_text`]; `None` when the log is off.
    pub fn line<G: Notation>(
        &self,
        record: &GameRecord<G>,
        params: &G::Params,
        at: &At,
    ) -> Option<String> {
        match self.is_on() {
            true => serde_json::to_string(&GameLine::new(record, params, at)).ok(),
            false => None,
        }
    }

    /// Flushes the output; the error of the first failed write if one failed.
    pub fn flush(&self) -> std::io::Result<()> {
        match &self.0 {
            Some(sink) => sink.lock().map_or(Ok(()), |mut sink| sink.flush()),
            None => Ok(()),
        }
    }
}

/// A game log's lines kept in memory, for tests.
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct MemoryLog(Arc<Mutex<Vec<u8>>>);

#[cfg(test)]
impl MemoryLog {
    /// A game log writing here.
    pub(crate) fn log(&self) -> GameLog {
        GameLog::to_writer(Box::new(self.clone()))
    }

    /// What was written.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[cfg(test)]
impl Write for MemoryLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nim::{self, Optimal};
    use crate::seat::{Clock, Local, Player};
    use crate::tournament::stream;
    use tabula_solver::nim::Nim;

    /// A writer that fails after `room` bytes, as a full disk does.
    struct Full(usize);

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                return Err(std::io::Error::from_raw_os_error(28));
            }
            let n = buf.len().min(self.0);
            self.0 -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Game `game` of Nim from `heap`: the optimal player in seat 0, `second` in seat 1.
    fn nim_game(heap: u32, game: usize, second: &str) -> GameRecord<Nim> {
        let mut a = Local(Optimal);
        let mut b = Local(nim::agent(second, stream(1, Purpose::Agent, 0, 0, 1)).unwrap());
        let mut players: Vec<&mut dyn Player<Nim>> = vec![&mut a, &mut b];
        let mut clocks = vec![Clock::default(); 2];
        let mut chance = stream(1, Purpose::Chance, 0, game as u64, 0);
        crate::arena::play_game(
            Nim::new(heap),
            &mut players,
            &[0, 1],
            &mut clocks,
            &mut chance,
        )
    }

    /// An illegal move of `seat` that no game made.
    fn made_up_fault(seat: usize) -> crate::seat::Fault {
        crate::seat::Fault {
            seat,
            kind: crate::seat::FaultKind::IllegalMove,
            reason: "made up".into(),
            ends_case: false,
        }
    }

    #[test]
    fn a_failed_write_is_reported_by_flush() {
        let log = GameLog::to_writer(Box::new(Full(10)));
        let record = nim_game(5, 0, "optimal");
        log.record(&record, &5, &At::new(1, 0, "heap 5", 0));
        log.record(&record, &5, &At::new(1, 0, "heap 5", 1));
        let error = log.flush().unwrap_err();
        assert_eq!(error.raw_os_error(), Some(28));
    }

    #[test]
    fn a_logged_game_reads_back_and_replays_and_a_tampered_one_does_not() {
        let buffer = MemoryLog::default();
        let log = buffer.log();
        for (game, heap) in [5u32, 9].into_iter().enumerate() {
            let record = nim_game(heap, game, "random");
            log.record(&record, &heap, &At::new(1, 0, "heaps", game));
        }
        let text = buffer.text();
        let lines = read_log(&text).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].game, "nim");
        assert_eq!(lines[1].params, serde_json::json!({"heap": 9}));
        // Nim has no chance moves, so no stream is named.
        assert_eq!(lines[1].stream, "none");
        assert_eq!(lines[0].seats, vec!["optimal", "random"]);
        for line in &lines {
            let states = replay::<Nim>(line).unwrap();
            assert_eq!(states.len(), line.moves.len() + 1);
            assert!(states.last().unwrap().is_over());
        }
        let mut wrong = lines[0].clone();
        wrong.scores.reverse();
        assert!(matches!(
            replay::<Nim>(&wrong),
            Err(ReplayError::Scores { .. })
        ));
        let mut wrong = lines[0].clone();
        wrong.moves[0].mv = "4".into();
        assert!(matches!(
            replay::<Nim>(&wrong),
            Err(ReplayError::Move { .. })
        ));
        // A move's text is quoted escaped, on one line.
        let mut wrong = lines[0].clone();
        wrong.moves[0].mv = "x\nfake\u{1b}[2J".into();
        let error = replay::<Nim>(&wrong).unwrap_err().to_string();
        assert_eq!(
            error,
            "move 0 'x\\nfake\\u{1b}[2J': 'x\\nfake\\u{1b}[2J' is not a count"
        );
        let mut wrong = lines[0].clone();
        wrong.game = "go\nfake".into();
        assert_eq!(
            replay::<Nim>(&wrong).unwrap_err().to_string(),
            "a game of go\\nfake, not nim"
        );
        let mut wrong = lines[0].clone();
        wrong.moves.pop();
        assert!(matches!(
            replay::<Nim>(&wrong),
            Err(ReplayError::Unfinished)
        ));
        assert!(matches!(
            replay::<tabula_solver::ioiwari::Match>(&lines[0]),
            Err(ReplayError::OtherGame { .. })
        ));
        let mut wrong = lines[0].clone();
        wrong.seats.push("third".into());
        assert!(matches!(
            replay::<Nim>(&wrong),
            Err(ReplayError::Seats {
                logged: 3,
                seats: 2
            })
        ));
        let mut wrong = lines[0].clone();
        wrong.fault = Some(made_up_fault(9));
        assert!(matches!(
            replay::<Nim>(&wrong),
            Err(ReplayError::FaultSeat { seat: 9, seats: 2 })
        ));
        // A fault after the game ended by the rules.
        let mut wrong = lines[0].clone();
        wrong.fault = Some(made_up_fault(0));
        assert_eq!(replay::<Nim>(&wrong), Err(ReplayError::FaultAfterEnd));
    }

    #[test]
    fn outcomes_say_what_the_reports_count_and_are_checked_by_the_replay() {
        let buffer = MemoryLog::default();
        let log = buffer.log();
        let record = nim_game(5, 0, "random");
        log.record(&record, &5, &At::new(1, 0, "heap 5", 0));
        let text = buffer.text();
        let line = read_log(&text).unwrap().remove(0);
        let expected: Vec<Outcome> = (0..2).map(|seat| record.outcome(seat)).collect();
        assert_eq!(line.outcomes.as_ref(), Some(&expected));
        assert!(expected.contains(&Outcome::Win));
        // Seat 1 faults after the first move: the unfinished game scores 0 to
        // 0, which reads as a draw, but the outcomes say who lost.
        let mut faulted = line.clone();
        faulted.moves.truncate(1);
        faulted.scores = vec![0.0, 0.0];
        faulted.fault = Some(made_up_fault(1));
        faulted.outcomes = Some(vec![Outcome::Win, Outcome::Loss]);
        replay::<Nim>(&faulted).unwrap();
        faulted.outcomes = Some(vec![Outcome::Draw, Outcome::Draw]);
        assert_eq!(
            replay::<Nim>(&faulted).unwrap_err().to_string(),
            "the replay's outcomes are [win, loss], the log says [draw, draw]"
        );
        // An empty list is checked like any other.
        faulted.outcomes = Some(Vec::new());
        assert!(matches!(
            replay::<Nim>(&faulted),
            Err(ReplayError::Outcomes { .. })
        ));
        // A log written before the field existed still replays.
        faulted.outcomes = None;
        replay::<Nim>(&faulted).unwrap();
        let old = text.replace(r#","outcomes":["#, r#","before":["#);
        assert!(read_log(&old).unwrap()[0].outcomes.is_none());
    }
}
