//! Kalah's contest pieces on the shared core: agents (optimal from a table or
//! by search, greedy, random), the line dialogue of `tabula play kalah` as a
//! wire, and the check a patient seat uses.
//!
//! The dialogue, from the referee (tabula) to the seat (a person or program):
//! - `kalah <m> <n> you are player <k>: ...` once, before anything else;
//! - `tabula plays <pit>` or `tabula plays <pit> and moves again` for each
//!   move of the other seat;
//! - `your move: <your pits> / <tabula's pits> stores <yours> <tabula's>` (or
//!   `your move again: ...` after a move that ended in the seat's own store),
//!   answered by one pit label `1..m`; each side's pits are in its sowing
//!   order, so the board reads like `tabula query kalah`'s;
//! - `result <your store> <tabula's store> <win|draw|loss>` when the game is over.
//!
//! [`verify`] plays every pair of the built-in players on Kalah(m, n)
//! variants, each variant solved in memory first ([`Variant`]).

pub mod draw;
pub mod notation;
pub mod sweep;

use std::sync::Arc;

use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::alphabeta::{AlwaysReplace, EXACT, Searchable, Searcher};
use tabula_solver::kalah::{Kalah, Match, Pit, Rules, parse_label};
use tabula_solver::{Game, IllegalMove, Seat, Turn, ZeroSum};
use tabula_tables::kalah::KalahTable;

use crate::agent::{Agent, RandomAgent, looked_up};
use crate::arena::{GameRecord, Outcome};
use crate::record::GameLog;
use crate::report::{RefereeReport, RefereedCase};
use crate::round_robin::{Case, RoundRobin};
use crate::scoreboard::Scoreboard;
use crate::seat::FaultKind;
use crate::tournament::{Job, Progress};
use crate::wire::{Incoming, Wire, short};

/// The built-in players.
pub const AGENTS: [&str; 3] = ["optimal", "greedy", "random"];

/// The built-in agent `name`, if there is one; the optimal player reads
/// the table of the game's rules among `tables`, or searches when there are
/// none (telling `progress`, if given); `rng` is the random player's stream.
pub fn agent(
    name: &str,
    tables: &[Arc<KalahTable>],
    rng: ChaCha8Rng,
    progress: Option<SearchProgress>,
) -> Option<Box<dyn Agent<Match>>> {
    match name {
        "optimal" => Some(Box::new(match tables {
            [] => OptimalAgent::searching().with_progress(progress),
            _ => OptimalAgent::from_tables(tables.to_vec()),
        })),
        "greedy" => Some(Box::new(Greedy)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}

/// The size of the searching optimal player's transposition table for
/// `rules`, in bits: twice the game's boards in slots (16 bytes each), at
/// least 2^10 and at most 2^24 (256 MiB). Kalah(6, 4) searched from the start
/// with 2^20 slots still ran after 100 s; its table is 2^24.
pub fn search_bits(rules: &Rules) -> u32 {
    use tabula_solver::retrograde::StateSpace;
    let boards = tabula_solver::kalah::KalahSpace::new(*rules).len();
    (2 * boards)
        .next_power_of_two()
        .trailing_zeros()
        .clamp(10, 24)
}

/// Where the optimal agent gets its values.
enum Oracle {
    /// Checked tables, one of which is of the game's rules.
    Tables(Vec<Arc<KalahTable>>),
    /// Exact alpha-beta, its transposition table kept from move to move.
    Search(SearchTable),
}

/// The searching agent's transposition table and the rules its entries are
/// of: positions of different rules share indices, so a position of other
/// rules starts a new table.
struct SearchTable {
    /// The table's size in bits; `None`: [`search_bits`] of each game's rules.
    bits: Option<u32>,
    /// The table, made at the first move of a game of these rules.
    made: Option<(Rules, Box<AlwaysReplace<Pit>>)>,
}

/// Plays a move of the best value, the lowest pit on ties.
///
/// A table must be of the game's rules and have passed
/// [`tabula_tables::TypedTable::check_moves`] (or be built in memory): its
/// values are then trusted.
pub struct OptimalAgent {
    oracle: Oracle,
    progress: Option<SearchProgress>,
}

/// Told, during a long search, the positions searched so far for the move
/// (`Some`, every [`alphabeta::TICK_NODES`](tabula_solver::alphabeta::TICK_NODES)),
/// then `None` when that search is over.
pub type SearchProgress = Arc<dyn Fn(Option<u64>) + Send + Sync>;

impl OptimalAgent {
    /// An optimal agent reading `table`.
    pub fn from_table(table: Arc<KalahTable>) -> OptimalAgent {
        OptimalAgent::from_tables(vec![table])
    }

    /// An optimal agent for games of several rules, reading each game's own
    /// table among `tables` (a run over many variants builds its agents
    /// without knowing which variant they will play).
    pub fn from_tables(tables: Vec<Arc<KalahTable>>) -> OptimalAgent {
        OptimalAgent {
            oracle: Oracle::Tables(tables),
            progress: None,
        }
    }

    /// An optimal agent searching each move exactly, with a table of `2^bits` slots.
    pub fn by_search(bits: u32) -> OptimalAgent {
        OptimalAgent {
            oracle: Oracle::Search(SearchTable {
                bits: Some(bits),
                made: None,
            }),
            progress: None,
        }
    }

    /// An optimal agent searching each move exactly, with a table sized for
    /// the rules of its first game ([`search_bits`]).
    pub fn searching() -> OptimalAgent {
        OptimalAgent {
            oracle: Oracle::Search(SearchTable {
                bits: None,
                made: None,
            }),
            progress: None,
        }
    }

    /// The same agent, telling `progress` how its long searches go.
    pub fn with_progress(mut self, progress: Option<SearchProgress>) -> OptimalAgent {
        self.progress = progress;
        self
    }

    /// The value of each legal pit for the mover of `position`, pit order.
    pub fn move_values(&mut self, position: &Kalah) -> Vec<(Pit, i32)> {
        match &mut self.oracle {
            Oracle::Tables(tables) => {
                let rules = position.rules();
                let table = tables
                    .iter()
                    .find(|t| t.game().rules == rules)
                    .unwrap_or_else(|| panic!("no table of the game's rules {rules:?}"));
                position
                    .legal_moves()
                    .iter()
                    .map(|&pit| {
                        let (child, sowing) = position.child(pit);
                        let reward = sowing.mover as i32 - sowing.opponent as i32;
                        // Records are checked as they are read.
                        let value = looked_up(table.value(&child));
                        (pit, position.move_value(pit, reward, value))
                    })
                    .collect()
            }
            Oracle::Search(table) => search(table, &self.progress, position, |searcher| {
                let total = position.seeds() as i32;
                let mut candidates = Default::default();
                position.generate(&mut candidates);
                candidates
                    .iter()
                    .map(|c| {
                        let value = searcher.value_of(position, c, -total - 1, total + 1, EXACT);
                        (position.move_of(c), value)
                    })
                    .collect()
            }),
        }
    }

    /// A pit of the best value for the mover of `position`, the lowest on
    /// ties. Searching, only the first pit's value is searched exactly; each
    /// later one is first tested against the best so far (a null window) and
    /// searched exactly only when it is better.
    pub fn best_move(&mut self, position: &Kalah) -> Pit {
        let Oracle::Search(table) = &mut self.oracle else {
            return best_lowest(&self.move_values(position));
        };
        search(table, &self.progress, position, |searcher| {
            let total = position.seeds() as i32;
            let mut candidates = Default::default();
            position.generate(&mut candidates);
            let mut best: Option<(Pit, i32)> = None;
            // Candidates come in pit order, so the first best is the lowest.
            for c in candidates.iter() {
                let value = match best {
                    None => searcher.value_of(position, c, -total - 1, total + 1, EXACT),
                    Some((_, b)) => {
                        if searcher.value_of(position, c, b, b + 1, EXACT) <= b {
                            continue;
                        }
                        searcher.value_of(position, c, b, total + 1, EXACT)
                    }
                };
                best = Some((position.move_of(c), value));
            }
            best.expect("the game is not over").0
        })
    }
}

/// Runs `body` with a searcher over the agent's table (made anew when
/// `position` is of other rules than its entries), telling `progress` as it goes.
fn search<R>(
    table: &mut SearchTable,
    progress: &Option<SearchProgress>,
    position: &Kalah,
    body: impl FnOnce(&mut Searcher<'_, AlwaysReplace<Pit>>) -> R,
) -> R {
    let rules = position.rules();
    if table.made.as_ref().is_none_or(|(r, _)| *r != rules) {
        let bits = table.bits.unwrap_or_else(|| search_bits(&rules));
        table.made = Some((rules, Box::new(AlwaysReplace::new(bits))));
    }
    let (_, table) = table.made.as_mut().expect("made above");
    let mut ticked = false;
    let mut tick = |nodes: u64| {
        ticked = true;
        progress.iter().for_each(|tell| tell(Some(nodes)));
    };
    let mut searcher = Searcher::new(table.as_mut()).ticking(&mut tick);
    let result = body(&mut searcher);
    if ticked {
        progress.iter().for_each(|tell| tell(None));
    }
    result
}

impl Agent<Match> for OptimalAgent {
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, view: &Match) -> Pit {
        self.best_move(&view.position)
    }
}

/// The pit of the highest value, the lowest pit on ties.
fn best_lowest(values: &[(Pit, i32)]) -> Pit {
    let mut best: Option<(Pit, i32)> = None;
    for &(pit, value) in values {
        if best.is_none_or(|(_, b)| value > b) {
            best = Some((pit, value));
        }
    }
    best.expect("the game is not over").0
}

/// One-step greedy: the largest immediate store difference (the end-of-game
/// sweep included), the lowest pit on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Agent<Match> for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, view: &Match) -> Pit {
        let position = &view.position;
        let values: Vec<(Pit, i32)> = position
            .legal_moves()
            .iter()
            .map(|&pit| {
                let sowing = position.child(pit).1;
                (pit, sowing.mover as i32 - sowing.opponent as i32)
            })
            .collect();
        best_lowest(&values)
    }
}

/// The check of a patient seat: the rules' reason when a pit cannot be played.
pub fn check(view: &Match, pit: Pit) -> Result<(), IllegalMove> {
    view.check_move(pit)
}

/// The seat's side of the board: `<its pits> / <the other's> stores <its> <other's>`.
fn board_line(view: &Match, seat: Seat) -> String {
    // The position is seen from the mover; turn it to the seat's side.
    let position = if view.mover == seat {
        view.position
    } else {
        view.position.flipped()
    };
    format!(
        "{position} stores {} {}",
        view.stores[seat],
        view.stores[1 - seat]
    )
}

/// The dialogue of `tabula play kalah` (see the module's documentation).
///
/// The referee side collects the lines about the other seat's moves and sends
/// them before the next question or the result; the player side reads them as
/// notes and answers only the questions.
#[derive(Clone, Debug)]
pub struct KalahWire {
    rules: Rules,
    /// The seat spoken to (both sides).
    seat: Seat,
    /// Referee side: lines still to send before the next question or the end.
    pending: Vec<String>,
    /// Referee side: the seat answered last and nobody moved since (so it moves again).
    answered: bool,
    /// Referee side: tabula moved last (a next move of tabula means it moved again).
    tabula_moved: bool,
    /// Player side: whether the game has started (first question), and is over.
    started: bool,
    over: bool,
    /// Player side: the greeting's pits and seeds replace the rules' (the
    /// capture and end rules, which it does not name, are kept).
    open_size: bool,
}

impl KalahWire {
    /// The dialogue of a game of `rules`.
    pub fn new(rules: Rules) -> KalahWire {
        KalahWire {
            rules,
            seat: 0,
            pending: Vec::new(),
            answered: false,
            tabula_moved: false,
            started: false,
            over: false,
            open_size: false,
        }
    }

    /// The player side of a dialogue that plays whatever pits and seeds its
    /// greeting names, under `rules`' capture and end rules.
    pub fn sized_by_greeting(rules: Rules) -> KalahWire {
        KalahWire {
            open_size: true,
            ..KalahWire::new(rules)
        }
    }

    /// Takes the greeting's `pits` and `seeds` (the words after `kalah`):
    /// they must be the rules', unless the size is open.
    fn greeted(&mut self, pits: Option<&str>, seeds: Option<&str>) -> Result<(), String> {
        let (Some(Ok(m)), Some(Ok(n))) = (pits.map(str::parse), seeds.map(str::parse)) else {
            return Err("no pits and seeds after 'kalah'".into());
        };
        let (have_m, have_n) = (self.rules.pits, self.rules.seeds);
        if (m, n) == (have_m, have_n) {
            return Ok(());
        }
        if !self.open_size {
            return Err(format!(
                "the greeting is of Kalah({m}, {n}), this player plays Kalah({have_m}, {have_n})"
            ));
        }
        let sized = Rules::new(m, n).map_err(|e| format!("greeting: {e}"))?;
        self.rules = sized
            .with_capture(self.rules.capture)
            .with_ending(self.rules.ending);
        Ok(())
    }

    /// The opening line for the seat `seat`.
    pub fn greeting(&self, seat: Seat) -> String {
        let m = self.rules.pits;
        format!(
            "kalah {m} {} you are player {}: answer a pit 1..{m} of your side ({m} is next to \
             your store); boards read your pits / tabula's pits, each in sowing order, then the \
             stores, yours first",
            self.rules.seeds,
            seat + 1
        )
    }

    /// The pit of a label `1..m`; the error quotes the label shortened and
    /// escaped, since it comes from the other side.
    fn label(&self, text: &str) -> Result<Pit, String> {
        parse_label(text, &self.rules).map_err(|_| {
            format!(
                "'{}' is not a pit label 1..{}",
                short(text),
                self.rules.pits
            )
        })
    }

    /// The board of a question: `<pits> / <pits> stores a b`, as the seat sees it.
    fn parse_board(&self, text: &str) -> Result<Match, String> {
        let m = usize::from(self.rules.pits);
        let words: Vec<&str> = text.split_whitespace().collect();
        // No count is above the game's seeds, so the sum below cannot wrap
        // and every pit fits its byte.
        let most = self.rules.total_seeds();
        let numbers = |ws: &[&str]| -> Result<Vec<u32>, String> {
            ws.iter()
                .map(|w| match w.parse::<u32>() {
                    Ok(n) if n <= most => Ok(n),
                    _ => Err(format!(
                        "'{}' is not a seed count of a game of {most} seeds",
                        short(w)
                    )),
                })
                .collect()
        };
        if words.len() != 2 * m + 4 || words[m] != "/" || words[2 * m + 1] != "stores" {
            return Err(format!(
                "expected '<{m} pits> / <{m} pits> stores <a> <b>', got '{}'",
                short(text)
            ));
        }
        let mine = numbers(&words[..m])?;
        let theirs = numbers(&words[m + 1..2 * m + 1])?;
        let stores = numbers(&words[2 * m + 2..])?;
        let total: u32 = mine.iter().chain(&theirs).chain(&stores).sum();
        if total != self.rules.total_seeds() {
            return Err(format!(
                "{total} seeds on '{}', the game has {}",
                short(text),
                self.rules.total_seeds()
            ));
        }
        let small = |v: &[u32]| v.iter().map(|&s| s as u8).collect::<Vec<u8>>();
        let mut view = Match::new(self.rules);
        view.position = Kalah::from_pits(self.rules, &small(&mine), &small(&theirs));
        view.mover = self.seat;
        view.stores[self.seat] = stores[0];
        view.stores[1 - self.seat] = stores[1];
        Ok(view)
    }
}

impl Wire<Match> for KalahWire {
    fn game_request(&mut self, seat: Seat, _view: &Match) -> Option<String> {
        self.seat = seat;
        self.pending = Vec::new();
        self.answered = false;
        self.tabula_moved = false;
        None
    }

    fn game_notice(&mut self, seat: Seat, _view: &Match) -> Option<String> {
        Some(self.greeting(seat))
    }

    fn observe(&mut self, _mover: Turn, pit: &Pit) {
        // Two moves of tabula in a row: the first kept the turn.
        if self.tabula_moved
            && let Some(last) = self.pending.last_mut()
        {
            last.push_str(" and moves again");
        }
        self.tabula_moved = true;
        self.answered = false;
        self.pending.push(format!("tabula plays {}", pit + 1));
    }

    fn move_request(&mut self, view: &Match) -> String {
        let again = if self.answered { " again" } else { "" };
        self.answered = true;
        self.tabula_moved = false;
        let mut lines = std::mem::take(&mut self.pending);
        lines.push(format!("your move{again}: {}", board_line(view, self.seat)));
        lines.join("\n")
    }

    fn decode_answer(&mut self, _view: &Match, line: &str) -> Result<Pit, String> {
        self.label(line)
    }

    fn end_lines(&mut self, view: &Match) -> Vec<String> {
        let mut lines = std::mem::take(&mut self.pending);
        if !view.is_over() {
            // Stopped by a fault (the seat's input closed): no result to tell.
            return lines;
        }
        let (mine, theirs) = (view.stores[self.seat], view.stores[1 - self.seat]);
        let outcome = match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => "win",
            std::cmp::Ordering::Equal => "draw",
            std::cmp::Ordering::Less => "loss",
        };
        lines.push(format!("result {mine} {theirs} {outcome}"));
        lines
    }

    fn decode_request(&mut self, line: &str) -> Result<Incoming<Match>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            Some("kalah") => {
                let seat = words
                    .get(6)
                    .and_then(|w| w.trim_end_matches(':').parse().ok());
                match seat {
                    Some(k @ 1..=2) if words.get(3..6) == Some(&["you", "are", "player"]) => {
                        self.greeted(words.get(1).copied(), words.get(2).copied())
                            .map_err(|e| format!("{e}, in '{}'", short(line)))?;
                        self.seat = k - 1;
                        Ok(Incoming::Note {
                            observed: Vec::new(),
                        })
                    }
                    _ => {
                        let size = if self.open_size {
                            "<m> <n>".to_string()
                        } else {
                            format!("{} {}", self.rules.pits, self.rules.seeds)
                        };
                        Err(format!(
                            "expected 'kalah {size} you are player <1|2>: ...', got '{}'",
                            short(line)
                        ))
                    }
                }
            }
            Some("tabula") if words.get(1) == Some(&"plays") => {
                let pit = self.label(words.get(2).unwrap_or(&""))?;
                Ok(Incoming::Note {
                    observed: vec![(Turn::Seat(1 - self.seat), pit)],
                })
            }
            Some("your") if words.get(1).is_some_and(|w| w.starts_with("move")) => {
                let (_, board) = line
                    .split_once(':')
                    .ok_or_else(|| format!("no board in '{}'", short(line)))?;
                let view = self.parse_board(board)?;
                if view.is_over() {
                    return Err(format!("no move to make on '{}'", short(board)));
                }
                // Under the default end rule the game ends as a side empties.
                if !view.position.arises() {
                    return Err(format!(
                        "no move to make on '{}': a side is empty, so the game is over",
                        short(board)
                    ));
                }
                let start = (!self.started).then_some(self.seat);
                self.started = true;
                Ok(Incoming::Move {
                    start,
                    observed: Vec::new(),
                    view,
                })
            }
            Some("result") => {
                self.over = true;
                Ok(Incoming::End { reply: None })
            }
            _ => Err(format!("unknown line '{}'", short(line))),
        }
    }

    fn encode_answer(&mut self, _view: &Match, pit: Pit) -> String {
        (pit + 1).to_string()
    }

    fn finished(&self) -> bool {
        self.over
    }
}

/// One game of `tabula referee kalah`, from the tested player's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefereedGame {
    /// The tested player's number: 1 moves first, 2 second.
    pub player: u8,
    /// The tested player's store, then the opponent's, when the game stopped.
    pub stores: [u32; 2],
    /// `win`, `draw` or `loss`, for the tested player.
    pub outcome: Outcome,
    /// Why the tested player lost the game early, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
}

impl RefereedGame {
    /// The result of `record` for the player in `seat`.
    pub fn new(record: &GameRecord<Match>, seat: Seat) -> RefereedGame {
        RefereedGame {
            player: seat as u8 + 1,
            stores: [record.end.stores[seat], record.end.stores[1 - seat]],
            outcome: record.outcome(seat),
            fault: record.fault.as_ref().map(|f| f.reason.clone()),
            fault_kind: record.fault.as_ref().map(|f| f.kind),
        }
    }

    /// `player K: result MINE THEIRS win|draw|loss [reason]`.
    pub fn line(&self) -> String {
        let [mine, theirs] = self.stores;
        let mut line = format!(
            "player {}: result {mine} {theirs} {}",
            self.player, self.outcome
        );
        if let Some(reason) = &self.fault {
            line.push(' ');
            line.push_str(reason);
        }
        line
    }
}

impl RefereedCase for RefereedGame {
    fn score(&self) -> f64 {
        self.outcome.points()
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }
}

impl RefereeReport<RefereedGame> {
    /// `total T of G games (W win, D draw, L loss), stores S to O`.
    pub fn total_line(&self) -> String {
        let count = |outcome| self.cases.iter().filter(|c| c.outcome == outcome).count();
        let stores = |k: usize| self.cases.iter().map(|c| c.stores[k]).sum::<u32>();
        format!(
            "total {} of {} games ({} win, {} draw, {} loss), stores {} to {}",
            self.total,
            self.cases.len(),
            count(Outcome::Win),
            count(Outcome::Draw),
            count(Outcome::Loss),
            stores(0),
            stores(1)
        )
    }
}

/// The name of a case of `rules` in reports and logs: `Kalah(3, 4)`.
pub fn case_name(rules: &Rules) -> String {
    format!("Kalah({}, {})", rules.pits, rules.seeds)
}

/// A variant of a `verify kalah` run: its rules and its table, solved
/// before any game: the optimal player reads it, and the report's exact value
/// comes from it.
pub struct Variant {
    /// The rules.
    pub rules: Rules,
    /// Every board's value and optimal pits.
    pub table: Arc<KalahTable>,
}

/// One variant as the report's JSON gives it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantLine {
    /// The variant's name in the scoreboard's lines (`Kalah(3, 4)`).
    pub case: String,
    /// Pits a side (m).
    pub pits: u8,
    /// Seeds a pit at the start (n).
    pub seeds: u8,
    /// Boards in the variant's table.
    pub boards: u64,
    /// The first player's final margin under optimal play from the start.
    pub value: i32,
}

impl Variant {
    /// The variant of `rules`, its table solved in memory; `progress` counts boards.
    pub fn solved(rules: Rules, progress: tabula_solver::retrograde::Progress<'_>) -> Variant {
        Variant {
            rules,
            table: Arc::new(tabula_tables::kalah::in_memory(&rules, progress)),
        }
    }

    /// The variant's name in the report: `Kalah(3, 4)`.
    pub fn name(&self) -> String {
        case_name(&self.rules)
    }

    /// The key of the variant's random streams: its own m and n, so that a
    /// variant plays the same games alone as beside others (the variants of a
    /// run share their capture and end rules).
    pub fn key(&self) -> u64 {
        100 * u64::from(self.rules.pits) + u64::from(self.rules.seeds)
    }

    /// The first player's final margin under optimal play from the start.
    pub fn value(&self) -> i32 {
        self.table
            .value(&self.rules.start())
            .unwrap_or_else(|e| panic!("the table is the variant's own: {e}"))
    }

    /// The variant as the report's JSON gives it.
    pub fn line(&self) -> VariantLine {
        VariantLine {
            case: self.name(),
            pits: self.rules.pits,
            seeds: self.rules.seeds,
            boards: self.table.table().header().entries,
            value: self.value(),
        }
    }
}

/// Every pair of `agents` (both seatings) on every variant, `games` times per
/// seating; `progress` counts the games of the whole run.
pub fn verify(
    agents: &[String],
    variants: &[Variant],
    games: usize,
    seed: u64,
    progress: Progress<'_>,
    log: &GameLog,
) -> Scoreboard {
    let tables: Vec<Arc<KalahTable>> = variants.iter().map(|v| v.table.clone()).collect();
    let make = |name: &str, rng| agent(name, &tables, rng, None).expect("known agent");
    RoundRobin {
        agents,
        cases: variants
            .iter()
            .map(|v| Case {
                key: v.key(),
                name: v.name(),
                params: v.rules,
            })
            .collect(),
        start: &|_: &Job, &rules: &Rules| (rules, Match::new(rules)),
        make: &make,
        games,
        seed,
    }
    .play(progress, log)
}

/// The win rate of each pairing's first-named player per variant, as a plot.
pub fn plot(board: &Scoreboard, games: usize, seed: u64) -> crate::plot::Plot {
    crate::round_robin::win_rate_plot(
        board,
        "Kalah",
        "variant",
        "variant Kalah(m, n): m pits a side, n seeds a pit",
        games,
        seed,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::protocol::Reply;
    use crate::wire::Session;
    use tabula_solver::search::memo_negamax;
    use tabula_tables::kalah::KalahGame;

    fn rules(m: u8, n: u8) -> Rules {
        Rules::new(m, n).unwrap()
    }

    /// Plain negamax over the move values: what an optimal pit is worth.
    fn plain_values(position: &Kalah) -> Vec<(Pit, i32)> {
        let mut memo = HashMap::new();
        position
            .legal_moves()
            .iter()
            .map(|&pit| {
                let mut child = *position;
                let reward = ZeroSum::play(&mut child, pit);
                let value = memo_negamax(&child, &mut memo);
                let keeps = position.keeps_turn(pit);
                (
                    pit,
                    if keeps {
                        reward + value
                    } else {
                        reward - value
                    },
                )
            })
            .collect()
    }

    #[test]
    fn table_and_search_agents_give_the_plain_negamax_values() {
        let r = rules(2, 3);
        let table = Arc::new(KalahTable::in_memory_for(KalahGame { rules: r }));
        let mut by_table = OptimalAgent::from_table(table);
        let mut by_search = OptimalAgent::by_search(12);
        // Sized at its first move, telling how its searches go.
        let told = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = Arc::clone(&told);
        let progress: SearchProgress = Arc::new(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        let mut sized = OptimalAgent::searching().with_progress(Some(progress));
        // Every position of a few games of greedy against random.
        let mut game = Match::new(r);
        let mut random = RandomAgent::new(crate::tournament::stream(
            1,
            crate::tournament::Purpose::Agent,
            0,
            0,
            0,
        ));
        let mut seen = 0;
        for _ in 0..5 {
            game = Match::new(r);
            while !game.is_over() {
                let expected = plain_values(&game.position);
                assert_eq!(by_table.move_values(&game.position), expected, "{game:?}");
                assert_eq!(by_search.move_values(&game.position), expected, "{game:?}");
                assert_eq!(sized.move_values(&game.position), expected, "{game:?}");
                let best = best_lowest(&expected);
                assert_eq!(by_search.best_move(&game.position), best, "{game:?}");
                assert_eq!(by_table.best_move(&game.position), best, "{game:?}");
                let pit = if game.mover == 0 {
                    Greedy.choose(&game)
                } else {
                    Agent::<Match>::choose(&mut random, &game)
                };
                Game::apply(&mut game, pit);
                seen += 1;
            }
        }
        assert!(seen > 10 && game.is_over());
        // Kalah(2, 3)'s searches are far shorter than a tick.
        assert_eq!(told.load(std::sync::atomic::Ordering::Relaxed), 0);
    }

    #[test]
    fn a_searching_agent_keeps_no_values_across_rules() {
        // Positions of different rules share indices, so a table kept from a
        // game of other rules would hand out that game's values.
        let mut agent = OptimalAgent::searching();
        let mut fixed = OptimalAgent::by_search(12);
        for (m, n) in [(2, 3), (3, 2), (2, 3), (3, 3), (2, 2)] {
            let mut game = Match::new(rules(m, n));
            while !game.is_over() {
                let expected = plain_values(&game.position);
                assert_eq!(agent.move_values(&game.position), expected, "{game:?}");
                assert_eq!(fixed.move_values(&game.position), expected, "{game:?}");
                let pit = Greedy.choose(&game);
                Game::apply(&mut game, pit);
            }
        }
    }

    #[test]
    fn the_null_window_choice_is_the_lowest_pit_of_every_pit_s_value() {
        // Larger variants than the plain negamax reaches: every pit's exact
        // value (another agent) against the choice that tests most pits only.
        for (m, n) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
            let r = rules(m, n);
            let mut every = OptimalAgent::by_search(16);
            let mut chooser = OptimalAgent::searching();
            let mut random = RandomAgent::new(crate::tournament::stream(
                u64::from(m * 10 + n),
                crate::tournament::Purpose::Agent,
                0,
                0,
                0,
            ));
            let mut checked = 0;
            for _ in 0..4 {
                let mut game = Match::new(r);
                while !game.is_over() {
                    let values = every.move_values(&game.position);
                    let best = best_lowest(&values);
                    assert_eq!(
                        chooser.best_move(&game.position),
                        best,
                        "{game:?} {values:?}"
                    );
                    checked += 1;
                    let pit = Agent::<Match>::choose(&mut random, &game);
                    Game::apply(&mut game, pit);
                }
            }
            assert!(checked > 20, "Kalah({m}, {n}): {checked}");
        }
    }

    #[test]
    fn a_long_search_tells_its_progress_then_its_end_and_finds_the_same_value() {
        // Kalah(4, 5) from the start: about 4 million positions.
        let r = rules(4, 5);
        let plain = OptimalAgent::by_search(16).move_values(&r.start());
        let told = Arc::new(std::sync::Mutex::new(Vec::new()));
        let list = Arc::clone(&told);
        let progress: SearchProgress = Arc::new(move |nodes| list.lock().unwrap().push(nodes));
        let mut agent = OptimalAgent::by_search(16).with_progress(Some(progress));
        assert_eq!(agent.move_values(&r.start()), plain);
        let mut told = told.lock().unwrap().clone();
        assert_eq!(told.pop(), Some(None), "the end is told last");
        assert!(!told.is_empty(), "no progress told");
        // One search for the whole decision: every tick a whole step on.
        let told: Vec<u64> = told
            .into_iter()
            .map(|n| n.expect("only the end is None"))
            .collect();
        for pair in told.windows(2) {
            assert_eq!(
                pair[1],
                pair[0] + tabula_solver::alphabeta::TICK_NODES,
                "{pair:?}"
            );
        }
    }

    #[test]
    fn the_greeting_reaches_the_player_as_the_game_starts() {
        use crate::process::StreamPeer;
        use crate::seat::{Clock, Player, Remote};
        // A person playing second sees the greeting before tabula's first
        // move is searched (minutes on a large variant), not with it.
        let r = rules(3, 3);
        let out = crate::record::MemoryLog::default();
        let peer = StreamPeer::for_person(std::io::empty(), out.clone());
        let mut person = Remote::new("person", Box::new(peer), KalahWire::new(r));
        let game = Match::new(r);
        person
            .start_game(1, &game.view(1), &mut Clock::default())
            .unwrap();
        let text = out.text();
        assert!(
            text.starts_with("kalah 3 3 you are player 2:") && text.ends_with('\n'),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn the_wire_round_trips_through_both_ends() {
        let r = rules(2, 2);
        let mut referee = KalahWire::new(r);
        let mut player = Session::new(KalahWire::new(r), OptimalAgent::by_search(10));
        let mut game = Match::new(r);
        // The player is seat 1: tabula (seat 0) moves first, pit 1 ends in its store.
        // The greeting is sent as the game starts, before tabula's first move.
        assert_eq!(referee.game_request(1, &game.view(1)), None);
        let greeting = referee.game_notice(1, &game.view(1)).expect("a greeting");
        assert!(greeting.starts_with("kalah 2 2 you are player 2:"));
        for pit in [0, 1] {
            referee.observe(Turn::Seat(0), &pit);
            Game::apply(&mut game, pit);
        }
        let lines =
            |request: String| -> Vec<String> { request.lines().map(|l| l.to_string()).collect() };
        // Seat 0 sowed pit 1 (pit 2 and its store), then pit 2's 3 seeds: its side
        // is empty, so the game is over before seat 1 moves.
        assert!(game.is_over());
        let mut end = vec![greeting];
        end.extend(referee.end_lines(&game.view(1)));
        assert_eq!(end.len(), 4, "{end:?}");
        assert_eq!(
            &end[1..],
            &[
                "tabula plays 1 and moves again",
                "tabula plays 2",
                "result 6 2 win"
            ]
        );
        for line in &end[..3] {
            assert_eq!(player.handle(line).unwrap(), Reply::Silent, "{line}");
        }
        assert_eq!(player.handle(&end[3]).unwrap(), Reply::Last(None));

        // Again, tabula playing pit 2 (one seed to its store, one to seat 1's pit 1).
        let mut referee = KalahWire::new(r);
        let mut player = Session::new(KalahWire::new(r), OptimalAgent::by_search(10));
        let mut game = Match::new(r);
        referee.game_request(1, &game.view(1));
        let greeting = referee.game_notice(1, &game.view(1)).expect("a greeting");
        referee.observe(Turn::Seat(0), &1);
        Game::apply(&mut game, 1);
        let mut request = vec![greeting];
        request.extend(lines(referee.move_request(&game.view(1))));
        assert_eq!(
            request[1..],
            ["tabula plays 2", "your move: 3 2 / 2 0 stores 0 1"]
        );
        let mut answer = None;
        for line in &request {
            match player.handle(line).unwrap() {
                Reply::Silent => {}
                Reply::Line(a) => answer = Some(a),
                other => panic!("{other:?}"),
            }
        }
        let pit = referee.decode_answer(&game, &answer.unwrap()).unwrap();
        let mut optimal = OptimalAgent::by_search(10);
        assert_eq!(pit, optimal.choose(&game));
        assert!(referee.decode_answer(&game, "3").is_err());
        assert!(referee.decode_answer(&game, "").is_err());
        assert_eq!(referee.decode_answer(&game, " 2 "), Ok(1));
        // Asked again without a move of tabula in between: the seat moves again.
        assert!(
            referee
                .move_request(&game.view(1))
                .starts_with("your move again: ")
        );
        assert!(player.handle("your move: 1 1 / 1 stores 0 0").is_err());
        assert!(player.handle("your move: 9 9 / 9 9 stores 0 0").is_err());
        assert!(player.handle("kalah 3 3 you are player 1:").is_err());
        assert!(check(&game, 3).is_err());
        // A side empty ends the game (the default rule): no move is asked of it.
        let over = player
            .handle("your move: 2 2 / 0 0 stores 2 2")
            .unwrap_err();
        assert!(
            over.contains("a side is empty, so the game is over"),
            "{over}"
        );
        assert!(player.handle("your move: 0 0 / 2 2 stores 2 2").is_err());
        assert!(player.handle("your move: 2 2 / 2 2 stores 0 0").is_ok());
    }

    fn variants(sizes: &[(u8, u8)]) -> Vec<Variant> {
        sizes
            .iter()
            .map(|&(m, n)| Variant::solved(rules(m, n), &|_| {}))
            .collect()
    }

    fn names(agents: &[&str]) -> Vec<String> {
        agents.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn optimal_never_loses_from_the_side_the_exact_value_says_wins() {
        // Kalah(2, 2) is a second-player win, (3, 3) and (1, 3) first-player wins.
        let variants = variants(&[(2, 2), (3, 3), (1, 3)]);
        let kept = crate::record::MemoryLog::default();
        let log = kept.log();
        let most = std::sync::atomic::AtomicUsize::new(0);
        let progress = |done: usize| {
            most.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
        };
        let agents = names(&AGENTS);
        let board = verify(&agents, &variants, 8, 11, &progress, &log);
        log.flush().unwrap();
        // 3 pairs × 3 variants × 8 games × 2 seatings, counted across the pairs.
        assert_eq!(most.into_inner(), 144);
        let text = kept.text();
        let lines = crate::record::read_log(&text).unwrap();
        assert_eq!(lines.len(), 144);
        let mut checked = 0;
        for variant in &variants {
            // The exact value by alpha-beta, independent of the retrograde table.
            let exact = tabula_solver::kalah::start_value(&variant.rules, 16);
            assert_eq!(variant.value(), exact, "{}", variant.name());
            assert_ne!(exact, 0, "{}", variant.name());
            for line in lines.iter().filter(|l| l.case_label == variant.name()) {
                crate::record::replay::<Match>(line).unwrap();
                let Some(seat) = line.seats.iter().position(|s| s == "optimal") else {
                    continue;
                };
                let margin = line.scores[seat] - line.scores[1 - seat];
                let owed = if seat == 0 { exact } else { -exact };
                // Optimal play keeps at least the value against anyone.
                assert!(margin >= f64::from(owed), "{line:?}");
                if owed > 0 {
                    assert_eq!(
                        line.outcomes.as_ref().unwrap()[seat],
                        crate::arena::Outcome::Win
                    );
                    checked += 1;
                }
            }
            for opponent in ["greedy", "random"] {
                let tally = board
                    .tally(&format!("optimal vs {opponent}"), &variant.name())
                    .unwrap();
                assert_eq!(tally.wdl.games(), 16);
                // At least the 8 games it plays from the winning side.
                assert!(tally.wdl.wins >= 8, "{opponent}: {:?}", tally.wdl);
            }
        }
        // Per variant, 8 games from the winning side against each of 2 opponents.
        assert_eq!(checked, 3 * 2 * 8);
    }

    #[test]
    fn the_report_is_reproducible_and_follows_its_seed() {
        use crate::scoreboard::wins_and_half_draws;
        let variants = variants(&[(3, 3)]);
        let agents = names(&["greedy", "random"]);
        let lines = |seed| {
            verify(&agents, &variants, 20, seed, &|_| {}, &GameLog::off())
                .lines(&wins_and_half_draws)
        };
        let first = lines(3);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].entrant, "greedy vs random");
        assert_eq!(first[0].games, 40);
        assert_eq!(lines(3), first);
        assert_ne!(lines(4), first);
    }

    #[test]
    fn a_variant_plays_the_same_games_alone_as_beside_others() {
        use crate::scoreboard::wins_and_half_draws;
        let agents = names(&["greedy", "random"]);
        let alone = verify(
            &agents,
            &variants(&[(2, 3)]),
            10,
            5,
            &|_| {},
            &GameLog::off(),
        );
        let beside = verify(
            &agents,
            &variants(&[(1, 2), (2, 3)]),
            10,
            5,
            &|_| {},
            &GameLog::off(),
        );
        let of = |board: &Scoreboard| {
            board
                .lines(&wins_and_half_draws)
                .into_iter()
                .filter(|l| l.case == "Kalah(2, 3)")
                .collect::<Vec<_>>()
        };
        assert_eq!(of(&alone), of(&beside));
    }

    #[test]
    fn a_logged_start_reads_back_whoever_moves() {
        use crate::record::Notation;
        let r = rules(3, 2).with_capture(tabula_solver::kalah::Capture::NonEmpty);
        let mut game = Match::new(r);
        // Pit 2 (two seeds) ends in the store, pit 1 does not: seat 1 to move.
        for pit in [1, 0] {
            Game::apply(&mut game, pit);
        }
        assert_eq!(game.mover, 1);
        let start = game.start_json();
        assert_eq!(start["rules"]["capture"], "non-empty");
        assert_eq!(Match::from_start_json(&start), Ok(game));
        assert_eq!(game.check_params(&Match::params_json(&r)), Ok(()));
        assert!(
            game.check_params(&Match::params_json(&rules(3, 2)))
                .is_err()
        );
        let mut tampered = start.clone();
        tampered["stores"][0] = serde_json::json!(5);
        assert!(Match::from_start_json(&tampered).is_err());
        assert_eq!(game.parse_move(&game.move_text(2)), Ok(2));
        assert!(game.parse_move("4").is_err());
    }
}
