//! What each move is worth: the exact value of a position and of each of its
//! legal moves, where a table or an exact search knows it within a time
//! budget (`tabula analyze`, `tabula explore`).
//!
//! A game says how to value one of its states ([`Valuer`], in its own
//! `analysis.rs`); marking a logged game's moves and listing a position's
//! moves are written once here, behind the game-erased [`Analyst`] that the
//! binary finds through the game's registration.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;
use tabula_solver::{Game, Seat, Turn};

use crate::agent::Agent;

use crate::record::{GameLine, Notation, ReplayError, replay};
use crate::replay::Draw;

/// Why an analysis could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The logged game does not replay.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A table file given is not one the game can use.
    #[error("{path}: {problem}")]
    Table {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A table file that could not be read (the error names the file).
    #[error("{0}")]
    TableRead(String),
    /// A position or a move sent is not one of the game's.
    #[error("{0}")]
    Position(String),
}

/// The parameters of the table file at `path`, checked to be one of `game`'s
/// and read by `params` (which says what is wrong with them).
pub fn table_params<T>(
    path: &Path,
    game: &str,
    params: impl FnOnce([u32; 4]) -> Result<T, String>,
) -> Result<T, AnalysisError> {
    let bad = |problem: String| AnalysisError::Table {
        path: path.to_path_buf(),
        problem,
    };
    let header = tabula_tables::Table::read_header(path)
        .map_err(|e| AnalysisError::TableRead(e.to_string()))?;
    if header.game != game {
        return Err(bad(format!("a table of {}, not of {game}", header.game)));
    }
    params(header.params).map_err(bad)
}

/// The exact value of a game's states, where one is known.
pub trait Valuer: Send + Sync {
    /// The game valued.
    type Game: Notation + Draw + DefaultStart;

    /// Seat 0's final score less seat 1's under optimal play from `state`
    /// (what is already scored included), or `None` when no exact value is
    /// known by `deadline`.
    fn value(&self, state: &Self::Game, deadline: Instant) -> Option<i32>;

    /// The game's built-in players by name, where they need nothing of the
    /// position or the tables (see [`Valuer::agent`]); none by default.
    const AGENTS: Option<AgentFn<Self::Game>> = None;

    /// The built-in player `name` for a game against it from `state`
    /// (`optimal` needs none: the values choose); [`Valuer::AGENTS`]'s by default.
    fn agent(
        &self,
        name: &str,
        _state: &Self::Game,
        rng: ChaCha8Rng,
    ) -> Option<Box<dyn Agent<Self::Game>>> {
        Self::AGENTS.and_then(|agents| agents(name, rng))
    }

    /// What the built-in players make of `state` where no exact value is
    /// known (their moves and evaluations), as JSON; none by default.
    fn hints(&self, _state: &Self::Game) -> Option<Value> {
        None
    }
}

/// A game's built-in player by its name, its random choices from the stream given.
pub type AgentFn<G> = fn(&str, ChaCha8Rng) -> Option<Box<dyn Agent<G>>>;

/// The game-erased analyses a game registers (see [`Exact`]).
pub trait Analyst: Send + Sync {
    /// Every move of a logged game that an exact value covers, marked.
    fn game(&self, line: &GameLine, deadline: Instant) -> Result<GameAnalysis, AnalysisError>;

    /// The position reached from `start` (the game's log start JSON; its
    /// usual start when `None`) by `moves` (in the game's notation): its
    /// board, value and each legal move's value, and the optimal line when asked.
    fn position(
        &self,
        start: Option<&Value>,
        moves: &[String],
        line: bool,
        deadline: Instant,
    ) -> Result<PositionAnalysis, AnalysisError>;

    /// The move the built-in player `player` (its name, and the seed of its
    /// random choices) plays in the position reached from `start` by `moves`: `optimal`
    /// plays the first move of the optimal line where every value is found by
    /// `deadline`; the game's own players take the time they take.
    fn reply(
        &self,
        start: Option<&Value>,
        moves: &[String],
        player: (&str, u64),
        deadline: Instant,
    ) -> Result<String, AnalysisError>;

    /// The fields that choose a variant of the game (none: it has one).
    fn variant_fields(&self) -> Vec<VariantField>;

    /// The start (as a log writes it) of the variant `params` names.
    fn variant(&self, params: &Value) -> Result<Value, AnalysisError>;

    /// The start (as a log writes it) of the board `text`, typed as
    /// `tabula query` reads the game's boards, in the variant `params` names
    /// (the usual one when `None`).
    fn setup(&self, text: &str, params: Option<&Value>) -> Result<Value, AnalysisError>;

    /// How a board is typed for [`Analyst::setup`] (an example), if the game's query reads boards.
    fn board_syntax(&self) -> Option<&'static str>;
}

/// A game's analyst for the table files `tables` (none: solved or searched
/// in memory), as its registration names it.
pub type MakeAnalyst = fn(&[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError>;

/// A game's outcome for a seat, as the sign of its exact margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Result3 {
    /// Lost under optimal play.
    Loss,
    /// Drawn.
    Draw,
    /// Won.
    Win,
}

impl Result3 {
    /// The outcome of margin `value`.
    pub fn of(value: i32) -> Result3 {
        match value.signum() {
            1 => Result3::Win,
            0 => Result3::Draw,
            _ => Result3::Loss,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Result3::Win => "win",
            Result3::Draw => "draw",
            Result3::Loss => "loss",
        }
    }
}

/// One logged move that an exact value covers, in its mover's terms.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveMark {
    /// The move's number in the game, from 0 (chance's moves count).
    pub ply: usize,
    /// The seat that played it.
    pub seat: Seat,
    /// The move in the game's notation.
    pub mv: String,
    /// The position's value before the move.
    pub before: i32,
    /// The value of the move played.
    pub after: i32,
    /// The best value of any legal move.
    pub best: i32,
    /// `best - after`: what the move gave away.
    pub loss: i32,
    /// The moves as good as the best, in the game's notation.
    pub optimal: Vec<String>,
    /// Set when the move changed the result: `[before, after]` (a win thrown into a draw).
    pub changed: Option<[Result3; 2]>,
}

/// A logged game's moves marked, with its totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameAnalysis {
    /// The game's name.
    pub game: String,
    /// The case as the report names it.
    pub case_label: String,
    /// The game within its case.
    pub game_index: usize,
    /// The players by seat.
    pub seats: Vec<String>,
    /// The seats' moves in the log (chance's not counted).
    pub moves: usize,
    /// The moves an exact value covers, marked.
    pub marks: Vec<MoveMark>,
    /// How many of them lost value.
    pub lost_value: usize,
    /// The ply of the first move that lost value.
    pub first_mistake: Option<usize>,
}

/// One legal move of a position and its value for the mover.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveValue {
    /// The move in the game's notation.
    pub mv: String,
    /// Its exact value for the mover, if known.
    pub value: Option<i32>,
    /// `win`, `draw` or `loss` for the mover, if known.
    pub result: Option<Result3>,
    /// The board's cell (row, column) a click plays it from, if one stands for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<[usize; 2]>,
}

/// A position, drawn, with the values of it and its moves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionAnalysis {
    /// The board, row by row, as the replay page draws it.
    pub board: Vec<Vec<String>>,
    /// What the board does not show.
    pub notes: Vec<String>,
    /// The scores so far.
    pub scores: Vec<f64>,
    /// The seat to move; `None` when the game is over or chance moves.
    pub mover: Option<Seat>,
    /// The position's exact value for the mover (for seat 0 when over), if known.
    pub value: Option<i32>,
    /// Seat 0's exact value after each move so far (the start's first), where known: the chart.
    pub history: Vec<Option<i32>>,
    /// Every legal move with its value.
    pub legal: Vec<MoveValue>,
    /// The optimal line from here, when asked for and every value on it was found.
    pub line: Option<Vec<String>>,
    /// Whether every value asked for was found in time (else the missing ones are `null`).
    pub complete: bool,
    /// What the built-in players make of the position, for a game without values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hints: Option<Value>,
}

/// The analyses of a game whose states `V` values.
pub struct Exact<V>(pub V);

/// `value` (seat 0's) for seat `seat`, and back: a two-seat value's sign by seat.
pub fn for_seat(value: i32, seat: Seat) -> i32 {
    if seat == 0 { value } else { -value }
}

impl<V: Valuer> Exact<V> {
    /// The mover's value of each legal move of `state` (seat `mover`), with the moves.
    fn move_values(
        &self,
        state: &V::Game,
        mover: Seat,
        deadline: Instant,
    ) -> Vec<(<V::Game as Game>::Move, Option<i32>)> {
        state
            .moves()
            .iter()
            .map(|&mv| {
                let mut child = state.clone();
                child.apply(mv);
                let value = self.0.value(&child, deadline);
                (mv, value.map(|v| for_seat(v, mover)))
            })
            .collect()
    }

    /// The mark of `mv` played by `mover` from `state`, when every value is known.
    fn mark(
        &self,
        state: &V::Game,
        (ply, mover, mv): (usize, Seat, <V::Game as Game>::Move),
        deadline: Instant,
    ) -> Option<MoveMark> {
        let before = for_seat(self.0.value(state, deadline)?, mover);
        let values = self.move_values(state, mover, deadline);
        let known: Option<Vec<i32>> = values.iter().map(|&(_, v)| v).collect();
        let known = known?;
        let best = *known.iter().max()?;
        let after = values.iter().find(|&&(m, _)| m == mv)?.1?;
        let optimal = values
            .iter()
            .filter(|&&(_, v)| v == Some(best))
            .map(|&(m, _)| state.move_text(m))
            .collect();
        let (was, is) = (Result3::of(best), Result3::of(after));
        Some(MoveMark {
            ply,
            seat: mover,
            mv: state.move_text(mv),
            before,
            after,
            best,
            loss: best - after,
            optimal,
            changed: (is < was).then_some([was, is]),
        })
    }

    /// The state after `moves` from `start`, with every state on the way.
    fn walk(&self, start: V::Game, moves: &[String]) -> Result<Vec<V::Game>, AnalysisError> {
        let mut states = vec![start];
        for (k, text) in moves.iter().enumerate() {
            let state = states.last().expect("the start");
            let bad = |why: String| {
                AnalysisError::Position(format!(
                    "move {} '{}': {why}",
                    k + 1,
                    crate::wire::short(text)
                ))
            };
            let mv = state.parse_move(text).map_err(bad)?;
            if state.turn() == Turn::Over {
                return Err(bad("the game is over".into()));
            }
            state.check_move(mv).map_err(|e| bad(e.0))?;
            let mut next = state.clone();
            next.apply(mv);
            states.push(next);
        }
        Ok(states)
    }

    /// The start `start` names (the game's usual one when `None`).
    fn start(start: Option<&Value>) -> Result<V::Game, AnalysisError> {
        match start {
            Some(json) => V::Game::from_start_json(json).map_err(AnalysisError::Position),
            None => V::Game::default_start().ok_or_else(|| {
                AnalysisError::Position(format!("{} needs a start position", V::Game::NAME))
            }),
        }
    }

    /// The first optimal move of `state` for `mover`, if every value is found by `deadline`.
    fn optimal(
        &self,
        state: &V::Game,
        mover: Seat,
        deadline: Instant,
    ) -> Option<<V::Game as Game>::Move> {
        let values = self.move_values(state, mover, deadline);
        let known = values.iter().map(|&(_, v)| v).collect::<Option<Vec<_>>>()?;
        let top = *known.iter().max()?;
        values
            .iter()
            .find(|&&(_, v)| v == Some(top))
            .map(|&(m, _)| m)
    }

    /// The optimal line from `state`: the first optimal move each turn, until
    /// the game is over or a value is missing (then `None`).
    fn line(&self, state: &V::Game, deadline: Instant) -> Option<Vec<String>> {
        let mut state = state.clone();
        let mut line = Vec::new();
        while let Turn::Seat(mover) = state.turn() {
            let mv = self.optimal(&state, mover, deadline)?;
            line.push(state.move_text(mv));
            state.apply(mv);
        }
        Some(line)
    }
}

impl<V: Valuer> Analyst for Exact<V> {
    fn game(&self, line: &GameLine, deadline: Instant) -> Result<GameAnalysis, AnalysisError> {
        let states = replay::<V::Game>(line)?;
        let mut marks = Vec::new();
        for (ply, (logged, state)) in line.moves.iter().zip(&states).enumerate() {
            let Some(seat) = logged.seat else { continue };
            let mv = state
                .parse_move(&logged.mv)
                .map_err(|e| AnalysisError::Position(e.to_string()))?;
            marks.extend(self.mark(state, (ply, seat, mv), deadline));
        }
        let lost: Vec<&MoveMark> = marks.iter().filter(|m| m.loss > 0).collect();
        Ok(GameAnalysis {
            game: line.game.clone(),
            case_label: line.case_label.clone(),
            game_index: line.game_index,
            seats: line.seats.clone(),
            moves: line.moves.iter().filter(|m| m.seat.is_some()).count(),
            lost_value: lost.len(),
            first_mistake: lost.first().map(|m| m.ply),
            marks,
        })
    }

    fn position(
        &self,
        start: Option<&Value>,
        moves: &[String],
        want_line: bool,
        deadline: Instant,
    ) -> Result<PositionAnalysis, AnalysisError> {
        let states = self.walk(Self::start(start)?, moves)?;
        let state = states.last().expect("the start");
        let history: Vec<Option<i32>> = states.iter().map(|s| self.0.value(s, deadline)).collect();
        let mover = match state.turn() {
            Turn::Seat(seat) => Some(seat),
            _ => None,
        };
        let seat = mover.unwrap_or(0);
        let value = history.last().copied().flatten().map(|v| for_seat(v, seat));
        let legal: Vec<MoveValue> = match mover {
            Some(mover) => self
                .move_values(state, mover, deadline)
                .into_iter()
                .map(|(mv, value)| MoveValue {
                    mv: state.move_text(mv),
                    value,
                    result: value.map(Result3::of),
                    cell: state.move_cell(mv),
                })
                .collect(),
            // Chance's outcomes are listed too, so that a board can go on past them.
            None => state
                .moves()
                .iter()
                .map(|&mv| MoveValue {
                    mv: state.move_text(mv),
                    value: None,
                    result: None,
                    cell: None,
                })
                .collect(),
        };
        let line = want_line.then(|| self.line(state, deadline)).flatten();
        let complete = value.is_some()
            && legal.iter().all(|m| m.value.is_some())
            && (!want_line || line.is_some());
        Ok(PositionAnalysis {
            board: state.board(),
            notes: state.notes(),
            scores: state.scores().to_vec(),
            mover,
            value,
            history,
            legal,
            line,
            complete,
            hints: self.0.hints(state),
        })
    }

    fn reply(
        &self,
        start: Option<&Value>,
        moves: &[String],
        player: (&str, u64),
        deadline: Instant,
    ) -> Result<String, AnalysisError> {
        self.play_reply(start, moves, player, deadline)
    }

    fn variant_fields(&self) -> Vec<VariantField> {
        V::Game::variant_fields()
    }

    fn variant(&self, params: &Value) -> Result<Value, AnalysisError> {
        let start = V::Game::variant_start(params).map_err(AnalysisError::Position)?;
        Ok(start.start_json())
    }

    fn setup(&self, text: &str, params: Option<&Value>) -> Result<Value, AnalysisError> {
        let state = V::Game::from_board(text, params).map_err(AnalysisError::Position)?;
        let start = state.start_json();
        // A board the log's start would refuse (a game already over) is refused now, not on the next request.
        V::Game::from_start_json(&start).map_err(AnalysisError::Position)?;
        Ok(start)
    }

    fn board_syntax(&self) -> Option<&'static str> {
        V::Game::board_syntax()
    }
}

impl<V: Valuer> Exact<V> {
    /// [`Analyst::reply`]: the position reached, then its mover's player.
    fn play_reply(
        &self,
        start: Option<&Value>,
        moves: &[String],
        (player, seed): (&str, u64),
        deadline: Instant,
    ) -> Result<String, AnalysisError> {
        let states = self.walk(Self::start(start)?, moves)?;
        let state = states.last().expect("the start");
        let Turn::Seat(seat) = state.turn() else {
            return Err(AnalysisError::Position(
                "no seat is to move in this position".into(),
            ));
        };
        let rng = ChaCha8Rng::seed_from_u64(seed);
        let mv = match self.0.agent(player, state, rng) {
            Some(agent) => self.agent_move(agent, &states, moves, seat)?,
            None if player == "optimal" => {
                self.optimal(state, seat, deadline).ok_or_else(|| {
                    AnalysisError::Position("the optimal move was not found in time".into())
                })?
            }
            None => {
                return Err(AnalysisError::Position(format!(
                    "no built-in player '{}' here",
                    crate::wire::short(player)
                )));
            }
        };
        Ok(state.move_text(mv))
    }

    /// The move `agent` chooses for `seat` at the end of `states`, after it
    /// saw the game from the start as a match would show it.
    fn agent_move(
        &self,
        mut agent: Box<dyn Agent<V::Game>>,
        states: &[V::Game],
        moves: &[String],
        seat: Seat,
    ) -> Result<<V::Game as Game>::Move, AnalysisError> {
        agent.start_game(seat, &states[0].view(seat));
        for (state, text) in states.iter().zip(moves) {
            let mv = state.parse_move(text).map_err(AnalysisError::Position)?;
            let turn = state.turn();
            if turn != Turn::Seat(seat) {
                agent.observe(turn, &state.observe(mv, seat));
            }
        }
        let state = states.last().expect("the start");
        let mv = agent.choose(&state.view(seat));
        state.check_move(mv).map_err(|e| {
            AnalysisError::Position(format!(
                "player {} chose an illegal move: {}",
                agent.name(),
                e.0
            ))
        })?;
        Ok(mv)
    }
}

/// The position a board opens on when no start is given, and the
/// variants it may open on instead.
pub trait DefaultStart: Game {
    /// The game's usual start (the IOI game's sample board, Kalah(4, 3)...),
    /// if it has one without parameters; none by default.
    fn default_start() -> Option<Self>
    where
        Self: Sized,
    {
        None
    }

    /// The fields that choose a variant (none by default: one game).
    fn variant_fields() -> Vec<VariantField> {
        Vec::new()
    }

    /// The start of the variant `params` names (an object of [`DefaultStart::variant_fields`]).
    fn variant_start(_params: &Value) -> Result<Self, String>
    where
        Self: Sized,
    {
        Err("the game has no variants".into())
    }

    /// An example of the board text [`DefaultStart::from_board`] reads (the
    /// line `tabula query GAME --batch` reads); none by default: the game's
    /// query reads no board.
    fn board_syntax() -> Option<&'static str> {
        None
    }

    /// The state of the board `text`, in the variant `params` names (the
    /// usual one when `None`), read by the parser `tabula query` reads it with.
    fn from_board(_text: &str, _params: Option<&Value>) -> Result<Self, String>
    where
        Self: Sized,
    {
        Err("the game has no board syntax: set it up by its start JSON".into())
    }

    /// The cell of [`Draw::board`] (row, column) that a click plays `mv`
    /// from, if a cell stands for it; none by default (moves are buttons only).
    fn move_cell(&self, _mv: Self::Move) -> Option<[usize; 2]> {
        None
    }
}

/// One field of a game's variant, as the page asks for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantField {
    /// Its name in the variant's parameters.
    pub name: &'static str,
    /// What it is, in a few words.
    pub about: &'static str,
    /// Its usual value.
    pub default: Value,
    /// The values it may take, when they are few (else any).
    pub choices: Vec<&'static str>,
}

/// An analyst that knows no exact value of a game: every move is uncovered,
/// and a position is drawn with its moves unvalued.
pub struct Unvalued<G>(std::marker::PhantomData<fn() -> G>);

impl<G> Default for Unvalued<G> {
    fn default() -> Self {
        Unvalued(std::marker::PhantomData)
    }
}

impl<G: Notation + Draw + DefaultStart> Valuer for Unvalued<G> {
    type Game = G;
    fn value(&self, _state: &G, _deadline: Instant) -> Option<i32> {
        None
    }
}

/// Search states (a solver and its table) lent to one valuation at a time,
/// so that concurrent requests neither wait for each other nor each
/// allocate a table: at most as many are made as run at once.
pub struct Pool<T> {
    idle: std::sync::Mutex<Vec<T>>,
    make: fn() -> T,
}

impl<T> Pool<T> {
    /// An empty pool whose states `make` makes.
    pub fn new(make: fn() -> T) -> Pool<T> {
        Pool {
            idle: std::sync::Mutex::new(Vec::new()),
            make,
        }
    }

    /// `work` done with an idle state (or a new one), given back after.
    pub fn with<R>(&self, work: impl FnOnce(&mut T) -> R) -> R {
        let idle = || self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let mut state = idle().pop().unwrap_or_else(self.make);
        let result = work(&mut state);
        idle().push(state);
        result
    }
}

/// The analyst of a game that reads no table files, its states valued by
/// `values`; a table file given is refused.
pub fn untabled<V: Valuer + 'static>(
    tables: &[PathBuf],
    values: V,
) -> Result<Box<dyn Analyst>, AnalysisError> {
    match tables.first() {
        Some(path) => Err(AnalysisError::Table {
            path: path.clone(),
            problem: format!("{} has no tables to analyze with", V::Game::NAME),
        }),
        None => Ok(Box::new(Exact(values))),
    }
}

/// The games' valuers are tested against this deliberately simple search.
#[cfg(test)]
pub(crate) mod reference {
    use std::collections::HashMap;
    use std::hash::Hash;

    use rand::RngExt;
    use rand_chacha::ChaCha8Rng;
    use tabula_solver::{Game, Turn};

    /// `state` played on at random while `go_on` holds, each move drawn from
    /// the first `choices(n)` of its `n` legal moves.
    pub(crate) fn play_at_random<G: Game>(
        mut state: G,
        rng: &mut ChaCha8Rng,
        go_on: impl Fn(&G) -> bool,
        choices: fn(usize) -> usize,
    ) -> G {
        while go_on(&state) {
            let moves = state.moves();
            state.apply(moves[rng.random_range(0..choices(moves.len()))]);
        }
        state
    }

    /// Seat 0's final margin (`margin` at the end, banks and stores included)
    /// by plain minimax over whole games, memoized in a `HashMap`.
    pub(crate) fn plain_minimax<G: Game + Copy + Eq + Hash>(
        state: &G,
        margin: fn(&G) -> i32,
        memo: &mut HashMap<G, i32>,
    ) -> i32 {
        if let Some(&value) = memo.get(state) {
            return value;
        }
        let moves = state.moves();
        let value = if moves.is_empty() {
            margin(state)
        } else {
            let children = moves.iter().map(|&mv| {
                let mut child = *state;
                child.apply(mv);
                plain_minimax(&child, margin, memo)
            });
            if matches!(state.turn(), Turn::Seat(0)) {
                children.max().expect("moves were listed")
            } else {
                children.min().expect("moves were listed")
            }
        };
        memo.insert(*state, value);
        value
    }
}
