//! Kalah's built-in players.

use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use tabula_solver::ZeroSum;
use tabula_solver::alphabeta::{
    AlwaysReplace, EXACT, Estimate, Searchable, Searcher, TICK_NODES, Transition,
};
use tabula_solver::kalah::{
    Candidate, Endgame, ExactSolver, Kalah, Match, Pit, Probed, Rules, SearchOptions, check_endgame,
};
use tabula_tables::kalah::KalahTable;

use crate::agent::{Agent, RandomAgent, looked_up};

/// The built-in players.
pub const AGENTS: [&str; 3] = ["optimal", "greedy", "random"];

/// The built-in agent `name`, if there is one; the optimal player reads
/// the table of the game's rules among `tables`, or searches when there are
/// none (telling `progress`, if given, and taking about `think` a move, if
/// given, else searching to the end, probing `endgame` if given); `rng` is
/// the random player's stream.
pub fn agent(
    name: &str,
    tables: &[Arc<KalahTable>],
    rng: ChaCha8Rng,
    progress: Option<SearchProgress>,
    think: Option<Duration>,
    endgame: Option<Endgame>,
) -> Option<Box<dyn Agent<Match>>> {
    match name {
        "optimal" => Some(Box::new(match tables {
            [] => OptimalAgent::searching()
                .with_progress(progress)
                .thinking(think)
                .with_endgame(endgame),
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

/// The searching agent's transposition tables and the rules their entries
/// are of: positions of different rules share indices, so a position of
/// other rules starts a new table.
struct SearchTable {
    /// The table's size in bits; `None`: [`search_bits`] of each game's rules.
    bits: Option<u32>,
    /// The timed search's table, made at its first move of a game of these rules.
    made: Option<(Rules, Box<AlwaysReplace<Pit>>)>,
    /// The exact solver (its table, and the endgame table if it fits these
    /// rules), made at its first exact answer of a game of these rules.
    exact: Option<(Rules, ExactSolver)>,
}

impl SearchTable {
    /// No table yet, of `2^bits` slots when made (`None`: [`search_bits`]).
    fn new(bits: Option<u32>) -> SearchTable {
        SearchTable {
            bits,
            made: None,
            exact: None,
        }
    }
}

/// Plays a move of the best value, the lowest pit on ties.
///
/// A table must be of the game's rules and have passed
/// [`tabula_tables::TypedTable::check_moves`] (or be built in memory): its
/// values are then trusted.
pub struct OptimalAgent {
    oracle: Oracle,
    progress: Option<SearchProgress>,
    /// A searching agent's time for a move; `None`: search to the end, however long.
    think: Option<Duration>,
    /// What the last timed search found.
    last: Option<Searched>,
    /// The endgame table a searching agent probes, if any.
    endgame: Option<Endgame>,
    /// How a searching agent searches (the default but for measurements).
    options: SearchOptions,
    /// Positions searched so far, over every move.
    nodes: u64,
}

/// What a timed search ([`OptimalAgent::thinking`]) found for its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Searched {
    /// The move played.
    pub pit: Pit,
    /// Its value, searched `depth` plies deep.
    pub value: i32,
    /// The deepest search that finished in time (0: none did; the lowest legal pit was played).
    pub depth: u8,
    /// Whether that search reached the end of every line: the value is then proved.
    pub exact: bool,
}

/// Told, during a long search, how it goes (`Some`, every
/// [`alphabeta::TICK_NODES`](tabula_solver::alphabeta::TICK_NODES)
/// positions), then `None` when that search is over.
pub type SearchProgress = Arc<dyn Fn(Option<SearchTick>) + Send + Sync>;

/// Where a long search stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTick {
    /// Positions searched so far for the move.
    pub nodes: u64,
    /// For a timed search (iterative deepening), the depth being searched
    /// and what the deepest finished search found; `None`: an exact search.
    pub deepening: Option<Deepening>,
    /// Whether the search is over: a long timed search's last tick says what it found.
    pub done: bool,
}

/// Where a timed search's deepening stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Deepening {
    /// The depth being searched now, in plies.
    pub depth: u8,
    /// The best move's value at the deepest finished depth (`None`: none finished yet).
    pub best: Option<i32>,
    /// Whether the search at `depth` reached every end: `best` is then proved.
    pub proved: bool,
}

impl SearchTick {
    /// One line on the search: `exact search: 3.1 million positions`, or for
    /// a timed one `timed search at depth 14: 12.0 million positions, best
    /// so far +4 at depth 13`, or at its end `timed search proved +10 at depth 49: ...`.
    pub fn describe(&self) -> String {
        let nodes = format!("{:.1} million positions", self.nodes as f64 / 1e6);
        match self.deepening {
            None => format!("exact search: {nodes}"),
            Some(Deepening {
                depth,
                best: Some(value),
                proved: true,
            }) => format!("timed search proved {value:+} at depth {depth}: {nodes}"),
            Some(Deepening { depth, best, .. }) => {
                let best = match best {
                    Some(value) => format!(", best so far {value:+} at depth {}", depth - 1),
                    None => String::new(),
                };
                format!("timed search at depth {depth}: {nodes}{best}")
            }
        }
    }
}

/// The most positions a second the timed search is sized for: its
/// transposition table need hold no more than it can visit in its time.
const NODES_PER_SECOND: u64 = 1 << 24;

/// The transposition table's size in bits for a search of `rules` that
/// stops after `think`: [`search_bits`], or fewer when the time allows fewer
/// positions than that (2^24 positions a second, more than a fast machine
/// searches), at least 2^10 slots.
pub fn timed_search_bits(rules: &Rules, think: Duration) -> u32 {
    let reachable = (NODES_PER_SECOND as f64 * think.as_secs_f64()).min(u64::MAX as f64) as u64;
    let bits = reachable.max(1).next_power_of_two().trailing_zeros();
    bits.clamp(10, search_bits(rules))
}

impl OptimalAgent {
    /// An optimal agent reading `table`.
    pub fn from_table(table: Arc<KalahTable>) -> OptimalAgent {
        OptimalAgent::from_tables(vec![table])
    }

    /// An optimal agent for games of several rules, reading each game's own
    /// table among `tables` (a run over many variants builds its agents
    /// without knowing which variant they will play).
    pub fn from_tables(tables: Vec<Arc<KalahTable>>) -> OptimalAgent {
        OptimalAgent::with_oracle(Oracle::Tables(tables))
    }

    /// An agent of `oracle`, with no progress, time, endgame table or nodes yet.
    fn with_oracle(oracle: Oracle) -> OptimalAgent {
        OptimalAgent {
            oracle,
            progress: None,
            think: None,
            last: None,
            endgame: None,
            options: SearchOptions::default(),
            nodes: 0,
        }
    }

    /// An optimal agent searching each move exactly, with a table of `2^bits` slots.
    pub fn by_search(bits: u32) -> OptimalAgent {
        OptimalAgent::with_oracle(Oracle::Search(SearchTable::new(Some(bits))))
    }

    /// An optimal agent searching each move exactly, with a table sized for
    /// the rules of its first game ([`search_bits`]).
    pub fn searching() -> OptimalAgent {
        OptimalAgent::with_oracle(Oracle::Search(SearchTable::new(None)))
    }

    /// The same agent, telling `progress` how its long searches go.
    pub fn with_progress(mut self, progress: Option<SearchProgress>) -> OptimalAgent {
        self.progress = progress;
        self
    }

    /// The same agent, searching each move for at most about `think` (it
    /// deepens step by step and plays the best move of the deepest search
    /// finished in time, exact when one reached every end); `None`: to the end.
    /// A table-reading agent needs no time and ignores it.
    pub fn thinking(mut self, think: Option<Duration>) -> OptimalAgent {
        self.think = think;
        self
    }

    /// The same agent, taking the value of every position whose seeds fit
    /// `endgame` from it when it searches (the table must be of the pits and
    /// rules of every game it plays: see
    /// [`check_endgame`]). A
    /// table-reading agent ignores it.
    pub fn with_endgame(mut self, endgame: Option<Endgame>) -> OptimalAgent {
        self.endgame = endgame;
        self
    }

    /// The same agent, searching as `options` say (a measurement's switch:
    /// the default is the fastest): the exact answers with an
    /// [`ExactSolver`] of these options, and the timed search skipping the
    /// moves the seeds left cannot make better when `seed_bounds`.
    pub fn with_search_options(mut self, options: SearchOptions) -> OptimalAgent {
        self.options = options;
        self
    }

    /// What the last timed search found, if any.
    pub fn last_search(&self) -> Option<Searched> {
        self.last
    }

    /// Positions a searching agent searched so far, over every move.
    pub fn nodes(&self) -> u64 {
        self.nodes
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
                // Records are checked as they are read.
                child_values(position, |child| looked_up(table.value(child)))
            }
            Oracle::Search(table) => {
                let solver = exact_solver(table, &self.endgame, self.options, &position.rules());
                let (values, nodes) = exact_values(solver, &self.progress, position);
                self.nodes += nodes;
                values
            }
        }
    }

    /// A pit of the best value for the mover of `position`, the lowest on
    /// ties (by null windows when searching); with a time to think, the best of
    /// the deepest search finished in time ([`OptimalAgent::thinking`]).
    pub fn best_move(&mut self, position: &Kalah) -> Pit {
        let Oracle::Search(table) = &mut self.oracle else {
            return best_lowest(&self.move_values(position));
        };
        let Some(think) = self.think else {
            let solver = exact_solver(table, &self.endgame, self.options, &position.rules());
            let (pit, nodes) = exact_best(solver, &self.progress, position);
            self.nodes += nodes;
            return pit;
        };
        let probed = Bounded {
            probed: probed(position, &self.endgame),
            seed_bounds: self.options.seed_bounds,
        };
        let deadline = Instant::now() + think;
        let (searched, nodes) = search(
            table,
            &self.progress,
            Some(deadline),
            position,
            |searcher, status| deepening(searcher, &probed, status),
        );
        self.nodes += nodes;
        self.last = Some(searched);
        searched.pit
    }
}

/// The value of each legal pit for the mover of `position`, pit order, from
/// `value_of` each child (for the player then to move).
fn child_values(position: &Kalah, mut value_of: impl FnMut(&Kalah) -> i32) -> Vec<(Pit, i32)> {
    position
        .legal_moves()
        .iter()
        .map(|&pit| {
            let (child, sowing) = position.child(pit);
            let reward = sowing.mover as i32 - sowing.opponent as i32;
            (pit, position.move_value(pit, reward, value_of(&child)))
        })
        .collect()
}

/// The agent's exact solver for `rules`, made anew (with `endgame` if it is
/// of these pits and rules) when its entries are of other rules.
fn exact_solver<'t>(
    table: &'t mut SearchTable,
    endgame: &Option<Endgame>,
    options: SearchOptions,
    rules: &Rules,
) -> &'t mut ExactSolver {
    if table.exact.as_ref().is_none_or(|(r, _)| r != rules) {
        // A served agent learns the game only from its greeting.
        let fits = endgame
            .clone()
            .filter(|t| check_endgame(t.as_ref(), rules).is_ok());
        let bits = table.bits.unwrap_or_else(|| search_bits(rules));
        let solver = ExactSolver::with_options(bits, options).with_endgame(fits);
        table.exact = Some((*rules, solver));
    }
    &mut table.exact.as_mut().expect("made above").1
}

/// Every legal pit's exact value for the mover of `position` by `solver`,
/// one child after another (their searches share its table, as `query
/// kalah`'s do), and the positions searched.
fn exact_values(
    solver: &mut ExactSolver,
    progress: &Option<SearchProgress>,
    position: &Kalah,
) -> (Vec<(Pit, i32)>, u64) {
    let mut ticks = Ticks::new(solver, progress);
    let values = child_values(position, |child| {
        let value = ticks.solver.value(child);
        ticks.tell();
        value
    });
    (values, ticks.end())
}

/// A pit of the best exact value for the mover of `position` by `solver`,
/// the lowest on ties, and the positions searched: the first pit's value is
/// searched exactly; each later one is first tested against the best so far
/// (a null window) and valued only when better.
fn exact_best(
    solver: &mut ExactSolver,
    progress: &Option<SearchProgress>,
    position: &Kalah,
) -> (Pit, u64) {
    let mut ticks = Ticks::new(solver, progress);
    let mut best: Option<(Pit, i32)> = None;
    // Legal moves come in pit order, so the first best is the lowest.
    for &pit in position.legal_moves().iter() {
        let (child, sowing) = position.child(pit);
        let reward = sowing.mover as i32 - sowing.opponent as i32;
        // The child's value `v` for its mover makes the move worth `reward ± v`.
        let sign = if sowing.again { 1 } else { -1 };
        if let Some((_, b)) = best {
            // Whether `reward + sign * v > b`: `v` against `(b - reward) * sign`.
            let edge = (b - reward) * sign;
            let (alpha, beta) = if sign > 0 {
                (edge, edge + 1)
            } else {
                (edge - 1, edge)
            };
            let v = ticks.solver.value_within(&child, alpha, beta);
            ticks.tell();
            if reward + sign * v <= b {
                continue;
            }
        }
        let value = reward + sign * ticks.solver.value(&child);
        ticks.tell();
        best = Some((pit, value));
    }
    (best.expect("the game is not over").0, ticks.end())
}

/// The progress of one exact answer: `progress` hears of every [`TICK_NODES`]
/// positions once the search that reached them is over, and of the end.
struct Ticks<'s> {
    solver: &'s mut ExactSolver,
    progress: &'s Option<SearchProgress>,
    /// The solver's nodes when the answer began.
    start: u64,
    /// The nodes told so far.
    told: u64,
}

impl<'s> Ticks<'s> {
    fn new(solver: &'s mut ExactSolver, progress: &'s Option<SearchProgress>) -> Ticks<'s> {
        let start = solver.nodes;
        Ticks {
            solver,
            progress,
            start,
            told: 0,
        }
    }

    /// Tells every whole step of [`TICK_NODES`] the searches so far reached.
    fn tell(&mut self) {
        while self.told + TICK_NODES <= self.solver.nodes - self.start {
            self.told += TICK_NODES;
            let tick = SearchTick {
                nodes: self.told,
                deepening: None,
                done: false,
            };
            self.progress.iter().for_each(|tell| tell(Some(tick)));
        }
    }

    /// Tells the end (after any tick), and gives the positions searched.
    fn end(self) -> u64 {
        if self.told > 0 {
            self.progress.iter().for_each(|tell| tell(None));
        }
        self.solver.nodes - self.start
    }
}

/// `position` for the search, probing `endgame` if it is of the position's
/// pits and rules (a served agent learns the game only from its greeting).
fn probed<'e>(position: &Kalah, endgame: &'e Option<Endgame>) -> Probed<'e> {
    let fits = endgame
        .as_deref()
        .filter(|table| check_endgame(*table, &position.rules()).is_ok());
    Probed::with(*position, fits)
}

/// Iterative deepening of [`best_at`] until the deadline or an exact result:
/// the best move of the deepest search that finished.
fn deepening(
    searcher: &mut Searcher<'_, AlwaysReplace<Pit>>,
    position: &Bounded,
    status: &Cell<Option<Deepening>>,
) -> Searched {
    let lowest = position.probed.position.legal_moves()[0];
    let mut found = Searched {
        pit: lowest,
        value: 0,
        depth: 0,
        exact: false,
    };
    for depth in 1..EXACT {
        let best = (found.depth > 0).then_some(found.value);
        status.set(Some(Deepening {
            depth,
            best,
            proved: false,
        }));
        searcher.forget_horizon();
        let (pit, value) = best_at(searcher, position, depth);
        if searcher.aborted() {
            break;
        }
        let exact = !searcher.reached_horizon();
        found = Searched {
            pit,
            value,
            depth,
            exact,
        };
        if exact {
            status.set(Some(Deepening {
                depth,
                best: Some(value),
                proved: true,
            }));
            break;
        }
    }
    found
}

/// A pit of the best value for the mover of `position` searched `depth`
/// plies deep, the lowest on ties, and its value. Only the first pit's
/// value is searched with the full window; each later one is first tested
/// against the best so far (a null window) and searched only when better.
fn best_at(
    searcher: &mut Searcher<'_, AlwaysReplace<Pit>>,
    position: &Bounded,
    depth: u8,
) -> (Pit, i32) {
    let total = position.probed.position.seeds() as i32;
    let mut candidates = Default::default();
    position.generate(&mut candidates);
    let mut best: Option<(Pit, i32)> = None;
    // Candidates come in pit order, so the first best is the lowest.
    for c in candidates.iter() {
        let value = match best {
            None => searcher.value_of(position, c, -total - 1, total + 1, depth),
            Some((_, b)) => {
                if searcher.value_of(position, c, b, b + 1, depth) <= b {
                    continue;
                }
                searcher.value_of(position, c, b, total + 1, depth)
            }
        };
        best = Some((position.move_of(c), value));
    }
    best.expect("the game is not over")
}

/// Runs `body` with a searcher over the agent's table (made anew when
/// `position` is of other rules than its entries), telling `progress` as it
/// goes and giving up at `deadline`, if any; also the positions searched.
fn search<R>(
    table: &mut SearchTable,
    progress: &Option<SearchProgress>,
    deadline: Option<Instant>,
    position: &Kalah,
    body: impl FnOnce(&mut Searcher<'_, AlwaysReplace<Pit>>, &Cell<Option<Deepening>>) -> R,
) -> (R, u64) {
    let rules = position.rules();
    if table.made.as_ref().is_none_or(|(r, _)| *r != rules) {
        // A timed search's table holds what its time allows, at most what the game needs.
        let bits = table.bits.unwrap_or_else(|| match deadline {
            Some(deadline) => {
                timed_search_bits(&rules, deadline.saturating_duration_since(Instant::now()))
            }
            None => search_bits(&rules),
        });
        table.made = Some((rules, Box::new(AlwaysReplace::new(bits))));
    }
    let (_, table) = table.made.as_mut().expect("made above");
    let mut ticked = false;
    // A deepening search says here where it stands, for the ticks.
    let status = Cell::new(None);
    let mut tick = |nodes: u64| {
        ticked = true;
        let tick = SearchTick {
            nodes,
            deepening: status.get(),
            done: false,
        };
        progress.iter().for_each(|tell| tell(Some(tick)));
    };
    let mut searcher = Searcher::new(table.as_mut()).ticking(&mut tick);
    if let Some(deadline) = deadline {
        searcher = searcher.until(deadline);
    }
    let result = body(&mut searcher, &status);
    let nodes = searcher.nodes;
    if ticked && status.get().is_some() {
        // A long timed search ends with what it found: proved, or the best so far.
        let tick = SearchTick {
            nodes,
            deepening: status.get(),
            done: true,
        };
        progress.iter().for_each(|tell| tell(Some(tick)));
    }
    if ticked {
        progress.iter().for_each(|tell| tell(None));
    }
    (result, nodes)
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
pub(crate) fn best_lowest(values: &[(Pit, i32)]) -> Pit {
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

/// Where the optimal agent gets its values.
enum Oracle {
    /// Checked tables, one of which is of the game's rules.
    Tables(Vec<Arc<KalahTable>>),
    /// Alpha-beta, exact or timed, its transposition table kept from move to move.
    Search(SearchTable),
}

/// A position of the timed search: [`Probed`], and when `seed_bounds`, a
/// move is skipped when the seeds it leaves cannot raise the best so far (a
/// value, even one searched to a horizon, is at most the seeds on the board).
#[derive(Clone, Copy)]
struct Bounded<'e> {
    probed: Probed<'e>,
    seed_bounds: bool,
}

impl Searchable for Bounded<'_> {
    type Move = Pit;
    type Candidate = Candidate;
    type Candidates = <Probed<'static> as Searchable>::Candidates;
    type Key = u64;

    #[inline]
    fn terminal(&self) -> Option<i32> {
        self.probed.terminal()
    }

    fn evaluate(&self) -> i32 {
        self.probed.evaluate()
    }

    #[inline]
    fn key(&self) -> u64 {
        self.probed.key()
    }

    #[inline]
    fn generate(&self, out: &mut Self::Candidates) {
        self.probed.generate(out);
    }

    #[inline]
    fn move_of(&self, candidate: &Candidate) -> Pit {
        self.probed.move_of(candidate)
    }

    #[inline]
    fn play(&self, candidate: &Candidate) -> Self {
        Bounded {
            probed: self.probed.play(candidate),
            ..*self
        }
    }

    #[inline]
    fn order(&self, moves: &mut [Candidate], table_move: Option<Pit>) {
        self.probed.order(moves, table_move);
    }

    #[inline]
    fn transition(&self, candidate: &Candidate) -> Transition {
        self.probed.transition(candidate)
    }

    #[inline]
    fn estimate(&self, candidate: &Candidate) -> Estimate {
        if !self.seed_bounds {
            return Estimate::Search;
        }
        // Whoever moves next, the move gains at most its reward and the seeds left.
        let left = self.probed.play(candidate).position.seeds() as i32;
        Estimate::AtMost(self.probed.transition(candidate).reward + left)
    }
}
