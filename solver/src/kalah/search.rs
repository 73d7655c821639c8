//! The exact alpha-beta search of Kalah positions: the move candidates,
//! the [`Searchable`] view of a position, and [`ExactSolver`], which keeps one
//! transposition table from position to position and may probe an endgame table,
//! on one thread or several (lazy SMP: every thread searches the same window
//! of the same root over one shared table, and the first to finish gives the result).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use super::transposition::{Buckets, NONE, SharedBuckets, Table};
use super::{Endgame, EndgameValues, Kalah, MAX_PITS, Pit, Probed, Rules};
use crate::alphabeta::{AlwaysReplace, Bound, EXACT, Searchable, Searcher, TableKey, Transition};
use crate::{MoveList, ZeroSum};

/// A move candidate of the alpha-beta search: the pit, its result and the child.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub(super) pit: Pit,
    pub(super) reward: i32,
    pub(super) again: bool,
    pub(super) child: Kalah,
}

impl Searchable for Kalah {
    type Move = Pit;
    type Candidate = Candidate;
    type Candidates = MoveList<Candidate, MAX_PITS>;
    type Key = u64;

    fn terminal(&self) -> Option<i32> {
        self.is_finished().then(|| self.final_value())
    }

    /// The seeds still to sow are taken as shared evenly: the value of a
    /// depth-limited search is the store difference gained on the way.
    fn evaluate(&self) -> i32 {
        0
    }

    fn key(&self) -> u64 {
        self.index()
    }

    fn generate(&self, out: &mut Self::Candidates) {
        for pit in 0..self.rules.pits {
            if self.is_legal(pit) {
                let (child, sowing) = self.child(pit);
                out.push(Candidate {
                    pit,
                    reward: sowing.mover as i32 - sowing.opponent as i32,
                    again: sowing.again,
                    child,
                });
            }
        }
    }

    fn move_of(&self, candidate: &Candidate) -> Pit {
        candidate.pit
    }

    fn play(&self, candidate: &Candidate) -> Kalah {
        candidate.child
    }

    /// The table's move, then moves that keep the turn, then by reward.
    fn order(&self, moves: &mut [Candidate], table_move: Option<Pit>) {
        moves.sort_by_key(|c| {
            (
                Some(c.pit) != table_move,
                !c.again,
                -c.reward,
                std::cmp::Reverse(c.pit),
            )
        });
    }

    fn transition(&self, candidate: &Candidate) -> Transition {
        Transition {
            reward: candidate.reward,
            keeps_turn: candidate.again,
        }
    }
}

/// How the first position of a search is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// One search with a window wider than any value.
    Full,
    /// MTD(f): null-window searches from a first guess (the table's bound of
    /// the position if it holds one, else 0) until the bounds meet.
    Mtdf,
    /// Aspiration windows: a window of ±2 around the same first guess,
    /// widened fourfold on the side it fails until the value falls inside.
    Aspiration,
}

/// How [`ExactSolver`] searches: each switch is one measured change of the
/// search (docs/results/kalah.md); [`SearchOptions::default`] is the best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// The generic alpha-beta of [`crate::alphabeta`] with its always-replace
    /// table and a full window, the search before these changes; the other
    /// switches then play no part.
    pub generic: bool,
    /// Cut off where the seeds on the board decide: a value is at most them and at least minus them.
    pub seed_bounds: bool,
    /// Buckets of two slots (one kept for the most work) instead of one always replaced.
    pub two_tier: bool,
    /// Enhanced transposition cutoffs: the children's entries and known values
    /// are looked at before any child is searched.
    pub etc: bool,
    /// How the first position is searched.
    pub root: Root,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions {
            generic: false,
            seed_bounds: true,
            two_tier: true,
            // Fewer nodes, but more CPU: every child's index and table slot (measured).
            etc: false,
            root: Root::Mtdf,
        }
    }
}

impl SearchOptions {
    /// The search before the changes of issue 49 (the measurements' baseline).
    pub const GENERIC: SearchOptions = SearchOptions {
        generic: true,
        seed_bounds: false,
        two_tier: false,
        etc: false,
        root: Root::Full,
    };
}

/// What a search has proven of a position's value: `lower <= value <= upper`,
/// exact when they meet (a stopped search leaves them apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// Nodes this search took.
    pub nodes: u64,
}

impl Bounds {
    /// The value, when the bounds meet.
    pub fn exact(&self) -> Option<i32> {
        (self.lower == self.upper).then_some(self.lower)
    }
}

/// A search's state as its progress hook sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProgress {
    /// The proven lower bound of the position being searched.
    pub lower: i32,
    /// The proven upper bound of the position being searched.
    pub upper: i32,
    /// The null window being searched: whether the value is at least this
    /// (`None` for a full-window search).
    pub testing: Option<i32>,
    /// Nodes the solver has searched, over every position so far.
    pub nodes: u64,
}

/// How often, in nodes, a search looks at its clock and calls its hook.
pub const CHECK_EVERY: u64 = 1 << 20;

/// When a search stops before its end, and whom it tells how it goes. A
/// stopped search returns the bounds proven so far; the limits are looked
/// at every [`CHECK_EVERY`] nodes and before each MTD(f) step.
#[derive(Default)]
pub struct Limits<'a> {
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Stop once the solver's node count (over every position) reaches this.
    pub max_nodes: Option<u64>,
    /// Stop when this is set (another thread, a signal).
    pub stop: Option<&'a AtomicBool>,
    /// Called every [`CHECK_EVERY`] nodes and after each MTD(f) step.
    pub progress: Option<&'a mut dyn FnMut(&SearchProgress)>,
}

impl Limits<'_> {
    /// Whether a limit is reached with `nodes` searched.
    fn reached(&self, nodes: u64) -> bool {
        self.max_nodes.is_some_and(|max| nodes >= max)
            || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// The transposition table of a solver: the generic search's, the own one's
/// for one thread, or the own one's shared by several.
enum SolverTable {
    Generic(AlwaysReplace<Pit>),
    Own(Buckets),
    Shared(SharedBuckets),
}

/// How often, in nodes, each thread of a parallel search looks whether its
/// step is over: soon after one thread finishes, the others stop.
const POLL_EVERY: u64 = 1 << 13;

/// At the first plies of the root, a helper thread starts from another move
/// than the main thread (rotated by its number): the threads part ways there.
const PERTURBED_PLIES: u32 = 1;

/// Nodes of a crew less than this many plies from the root defer a move
/// another thread is searching.
const BUSY_PLIES: u32 = 12;

/// Slots of a crew's busy marks.
const BUSY_SLOTS: usize = 1 << 14;

/// The step number that ends a crew's run: its helpers return.
const CLOSED: u64 = u64::MAX;

/// The threads of a parallel search: each step (one search of the root)
/// runs on all of them, and its result is the first finished thread's. The
/// helpers live for one [`ExactSolver::bounds`]; the main thread posts each
/// step and goes on to the next as soon as one ends, the helpers following
/// at their next check.
struct Crew<'a> {
    table: &'a SharedBuckets,
    /// The step being searched, numbered from 1 ([`CLOSED`] once the run is over).
    step: AtomicU64,
    /// The last finished step and its value: `step << 32 | value as u32`.
    finished: AtomicU64,
    /// The helpers' nodes not yet counted by the main thread.
    nodes: AtomicU64,
    /// The positions a thread is searching near the root (key plus one, 0
    /// for none), by the key's slot: a mark may be lost or mistaken, which
    /// changes only the order of moves.
    busy: Box<[AtomicU64]>,
    /// The step, its root and window, for the helpers waiting on `wake`.
    posted: Mutex<(u64, Kalah, i32, i32)>,
    wake: Condvar,
}

impl<'a> Crew<'a> {
    fn new(table: &'a SharedBuckets, root: Kalah) -> Crew<'a> {
        Crew {
            table,
            step: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            busy: (0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect(),
            posted: Mutex::new((0, root, 0, 0)),
            wake: Condvar::new(),
        }
    }

    /// The busy mark of `key`'s slot.
    fn busy_slot(&self, key: u64) -> &AtomicU64 {
        &self.busy[key.slot() % BUSY_SLOTS]
    }

    /// Whether a thread is searching `key`'s position.
    fn busy(&self, key: u64) -> bool {
        self.busy_slot(key).load(Ordering::Relaxed) == key.wrapping_add(1)
    }

    /// Marks `key`'s position as being searched.
    fn mark(&self, key: u64) {
        self.busy_slot(key)
            .store(key.wrapping_add(1), Ordering::Relaxed);
    }

    /// Clears `key`'s mark, if still its.
    fn unmark(&self, key: u64) {
        let mark = key.wrapping_add(1);
        let _ = self
            .busy_slot(key)
            .compare_exchange(mark, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Starts `step`: a search of `root` in `(alpha, beta)` on every thread.
    fn post(&self, step: u64, root: Kalah, alpha: i32, beta: i32) {
        self.step.store(step, Ordering::Relaxed);
        *self.posted.lock().unwrap_or_else(PoisonError::into_inner) = (step, root, alpha, beta);
        self.wake.notify_all();
    }

    /// Ends `step` with `value` (if two threads end it, both values are proven bounds).
    fn finish(&self, step: u64, value: i32) {
        let packed = step << 32 | u64::from(value as u32);
        self.finished.fetch_max(packed, Ordering::Relaxed);
    }

    /// The value of `step`, if a thread finished it.
    fn found(&self, step: u64) -> Option<i32> {
        let finished = self.finished.load(Ordering::Relaxed);
        (finished >> 32 == step).then_some(finished as u32 as i32)
    }

    /// Whether a thread searching `step` stops: a thread finished it, or the main one went on.
    fn stops(&self, step: u64) -> bool {
        self.step.load(Ordering::Relaxed) != step || self.found(step).is_some()
    }

    /// Helper `number`'s life: each posted step searched until it is over, until [`CLOSED`].
    fn help(&self, number: usize, endgame: Option<&dyn EndgameValues>, options: SearchOptions) {
        let mut seen = 0;
        loop {
            let (step, root, alpha, beta) = {
                let posted = self.posted.lock().unwrap_or_else(PoisonError::into_inner);
                *self
                    .wake
                    .wait_while(posted, |p| p.0 == seen)
                    .unwrap_or_else(PoisonError::into_inner)
            };
            if step == CLOSED {
                return;
            }
            seen = step;
            let (mut limits, mut view) = (Limits::default(), self.table);
            let mut helper = Search::new(&mut view, endgame, options, 0, &mut limits);
            helper = helper.in_crew(self, number);
            helper.crew_step = step;
            let value = helper.node(&root, alpha, beta);
            self.nodes
                .fetch_add(helper.nodes - helper.published, Ordering::Relaxed);
            if !helper.stopped {
                self.finish(step, value);
            }
        }
    }
}

/// Ends a crew's run when dropped, also on a panic: its helpers return.
struct Closing<'c, 'a>(&'c Crew<'a>);

impl Drop for Closing<'_, '_> {
    fn drop(&mut self) {
        let root = self
            .0
            .posted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1;
        self.0.post(CLOSED, root, 0, 0);
    }
}

/// What a solver searches of a position: its bounds as [`SearchOptions::root`]
/// says, or one search in a window.
#[derive(Clone, Copy)]
enum Run {
    Bounds,
    Within(i32, i32),
}

/// Exact values by alpha-beta, one transposition table kept from position to
/// position: a board's children, searched after it, are mostly found there.
pub struct ExactSolver {
    table: SolverTable,
    /// The endgame table probed at the leaves, if any.
    endgame: Option<Endgame>,
    options: SearchOptions,
    /// Threads a search runs on.
    threads: usize,
    /// Nodes searched so far, over every position.
    pub nodes: u64,
}

impl ExactSolver {
    /// A solver whose table has `2^table_bits` slots of 16 bytes.
    pub fn new(table_bits: u32) -> ExactSolver {
        ExactSolver::with_options(table_bits, SearchOptions::default())
    }

    /// A solver searching as `options` say, with `2^table_bits` slots of 16 bytes.
    pub fn with_options(table_bits: u32, options: SearchOptions) -> ExactSolver {
        ExactSolver::with_threads(table_bits, options, 1)
    }

    /// A solver searching as `options` say on `threads` threads (at least
    /// one), with `2^table_bits` slots of 16 bytes, shared by the threads
    /// when more than one. Each search of the root (an MTD(f) step) runs on
    /// every thread, a helper starting from another move, and ends with the
    /// first to finish: the values are the same, the nodes and time not.
    /// The generic search ([`SearchOptions::generic`]) keeps to one thread.
    pub fn with_threads(table_bits: u32, options: SearchOptions, threads: usize) -> ExactSolver {
        let threads = threads.max(1);
        let ways = if options.two_tier { 2 } else { 1 };
        let table = match (options.generic, threads) {
            (true, _) => SolverTable::Generic(AlwaysReplace::new(table_bits)),
            (false, 1) => SolverTable::Own(Buckets::new(table_bits, ways)),
            (false, _) => SolverTable::Shared(SharedBuckets::new(table_bits, ways)),
        };
        ExactSolver {
            table,
            endgame: None,
            options,
            threads,
            nodes: 0,
        }
    }

    /// The same solver, taking the value of every position whose seeds fit
    /// `endgame` from it (a table of the pits and rules of every position
    /// asked: see [`check_endgame`](super::check_endgame)).
    pub fn with_endgame(mut self, endgame: Option<Endgame>) -> ExactSolver {
        self.endgame = endgame;
        self
    }

    /// The exact value of `position` for its mover.
    pub fn value(&mut self, position: &Kalah) -> i32 {
        let bounds = self.bounds(position, &mut Limits::default());
        bounds.exact().expect("a search without limits ends exact")
    }

    /// The bounds of `position`'s value for its mover that a search within
    /// `limits` proves: exact unless a limit stopped it. The generic search
    /// ([`SearchOptions::generic`]) knows no limits and always ends exact.
    pub fn bounds(&mut self, position: &Kalah, limits: &mut Limits<'_>) -> Bounds {
        let total = position.seeds() as i32;
        let (lower, upper, nodes) = match &mut self.table {
            SolverTable::Generic(table) => {
                let mut searcher = Searcher::new(table);
                let probed = Probed::with(*position, self.endgame.as_deref());
                let value = searcher.search(&probed, -total - 1, total + 1, EXACT);
                (value, value, searcher.nodes)
            }
            _ => self.run(position, Run::Bounds, limits),
        };
        self.nodes += nodes;
        Bounds {
            lower,
            upper,
            nodes,
        }
    }

    /// The value of `position` for its mover if inside `(alpha, beta)`, else
    /// a bound on the same side of the window: one search (with a null
    /// window, whether the value is more than `alpha`).
    pub fn value_within(&mut self, position: &Kalah, alpha: i32, beta: i32) -> i32 {
        let (value, nodes) = match &mut self.table {
            SolverTable::Generic(table) => {
                let mut searcher = Searcher::new(table);
                let probed = Probed::with(*position, self.endgame.as_deref());
                (searcher.search(&probed, alpha, beta, EXACT), searcher.nodes)
            }
            _ => {
                let run = Run::Within(alpha, beta);
                let (value, _, nodes) = self.run(position, run, &mut Limits::default());
                (value, nodes)
            }
        };
        self.nodes += nodes;
        value
    }

    /// Whether `position`'s value for its mover is at least `target`: one
    /// null-window search within `limits`; `None` when a limit stopped it.
    pub fn reaches(
        &mut self,
        position: &Kalah,
        target: i32,
        limits: &mut Limits<'_>,
    ) -> Option<bool> {
        if let SolverTable::Generic(_) = self.table {
            return Some(self.value_within(position, target - 1, target) >= target);
        }
        let (value, upper, nodes) = self.run(position, Run::Within(target - 1, target), limits);
        self.nodes += nodes;
        (value <= upper).then_some(value >= target)
    }

    /// `run` of `position` over the own table, on the solver's threads:
    /// the bounds proven and the nodes searched.
    fn run(&mut self, position: &Kalah, run: Run, limits: &mut Limits<'_>) -> (i32, i32, u64) {
        let endgame = self.endgame.as_deref();
        let (options, nodes) = (self.options, self.nodes);
        let (lower, upper, after) = match &mut self.table {
            SolverTable::Generic(_) => unreachable!("the generic search runs on its own"),
            SolverTable::Own(table) => {
                Search::new(table, endgame, options, nodes, limits).run(position, run)
            }
            SolverTable::Shared(table) => {
                let (crew, helpers) = (Crew::new(table, *position), self.threads - 1);
                let (lower, upper, after) = std::thread::scope(|scope| {
                    for number in 1..=helpers {
                        let crew = &crew;
                        scope.spawn(move || crew.help(number, endgame, options));
                    }
                    let _closing = Closing(&crew);
                    let mut view = &*table;
                    let search = Search::new(&mut view, endgame, options, nodes, limits);
                    search.in_crew(&crew, 0).run(position, run)
                });
                // The helpers' last nodes, counted once they have returned.
                (lower, upper, after + crew.nodes.load(Ordering::Relaxed))
            }
        };
        (lower, upper, after - nodes)
    }
}

/// One search over a solver's own table, on one thread of its crew if any.
struct Search<'a, 'l, T> {
    table: &'a mut T,
    endgame: Option<&'a dyn EndgameValues>,
    /// The endgame table's most seeds (0 without one: an empty board is over anyway).
    max_seeds: u32,
    options: SearchOptions,
    /// The solver's nodes, over every position.
    nodes: u64,
    limits: &'a mut Limits<'l>,
    /// The node count at which the limits are next looked at.
    check_at: u64,
    /// A limit was reached: every node returns at once and stores nothing.
    stopped: bool,
    /// What the progress hook is told besides the nodes.
    state: SearchProgress,
    /// The threads of a parallel search, and this one's number (0: the main thread).
    crew: Option<(&'a Crew<'a>, usize)>,
    /// The crew's step this thread searches (0: none yet).
    crew_step: u64,
    /// A helper's nodes already added to its crew's.
    published: u64,
    /// The main thread of a crew calls the hook once the nodes reach this.
    hook_at: u64,
    /// Plies from the root of the node being searched.
    ply: u32,
    /// The main thread of a crew is in a step.
    searching: bool,
}

impl<'a, 'l, T: Table> Search<'a, 'l, T> {
    fn new(
        table: &'a mut T,
        endgame: Option<&'a dyn EndgameValues>,
        options: SearchOptions,
        nodes: u64,
        limits: &'a mut Limits<'l>,
    ) -> Search<'a, 'l, T> {
        let mut search = Search {
            table,
            endgame,
            max_seeds: endgame.map_or(0, |e| e.max_seeds()),
            options,
            nodes,
            limits,
            check_at: 0,
            stopped: false,
            state: SearchProgress {
                lower: -NONE,
                upper: NONE,
                testing: None,
                nodes,
            },
            crew: None,
            crew_step: 0,
            published: 0,
            hook_at: 0,
            ply: 0,
            searching: false,
        };
        search.schedule();
        search
    }

    /// The same search as thread `number` of `crew` (0: the main thread).
    fn in_crew(mut self, crew: &'a Crew<'a>, number: usize) -> Search<'a, 'l, T> {
        self.crew = Some((crew, number));
        self.schedule();
        self
    }

    /// Searches `position` as `run` says: its bounds, and the nodes then.
    fn run(mut self, position: &Kalah, run: Run) -> (i32, i32, u64) {
        let (lower, upper) = match (run, self.options.root) {
            // A stopped step proves nothing: bounds that cross.
            (Run::Within(alpha, beta), _) => match self.step(position, alpha, beta) {
                Some(value) => (value, value),
                None => (NONE, -NONE),
            },
            (Run::Bounds, Root::Full) => self.full(position),
            (Run::Bounds, Root::Mtdf) => self.mtdf(position),
            (Run::Bounds, Root::Aspiration) => self.aspiration(position),
        };
        (lower, upper, self.nodes)
    }

    /// Sets the next check: the next multiple of [`CHECK_EVERY`] (of
    /// [`POLL_EVERY`] in a crew), or the node limit if sooner.
    fn schedule(&mut self) {
        let every = if self.crew.is_some() {
            POLL_EVERY
        } else {
            CHECK_EVERY
        };
        let next = (self.nodes / every + 1) * every;
        self.check_at = self.limits.max_nodes.map_or(next, |max| next.min(max));
    }

    /// Looks at the limits and tells the hook; true when the search must stop.
    /// In a crew, a helper adds its nodes to the crew's and looks only whether
    /// the step is over; the main thread counts the helpers' nodes too, and
    /// calls the hook only every [`CHECK_EVERY`] of them.
    #[cold]
    fn check(&mut self) -> bool {
        self.schedule();
        let mut total = self.nodes;
        if let Some((crew, number)) = self.crew {
            if number > 0 {
                crew.nodes
                    .fetch_add(self.nodes - self.published, Ordering::Relaxed);
                self.published = self.nodes;
                self.stopped = self.stopped || crew.stops(self.crew_step);
                return self.stopped;
            }
            total += crew.nodes.load(Ordering::Relaxed);
            // Between steps, the last one's end is no reason to stop.
            self.stopped = self.stopped || (self.searching && crew.stops(self.crew_step));
        }
        self.state.nodes = total;
        if total >= self.hook_at {
            if let Some(report) = self.limits.progress.as_mut() {
                report(&self.state);
            }
            if self.crew.is_some() {
                self.hook_at = (total / CHECK_EVERY + 1) * CHECK_EVERY;
            }
        }
        self.stopped = self.stopped || self.limits.reached(total);
        self.stopped
    }

    /// Looks at the limits and tells the hook before a step (the hook hears of every step).
    fn check_step(&mut self) -> bool {
        self.hook_at = 0;
        self.check()
    }

    /// One search of the root in `(alpha, beta)`: its value, `None` if a
    /// limit stopped it. In a crew, every thread searches it, and the value
    /// is the first finished thread's.
    fn step(&mut self, position: &Kalah, alpha: i32, beta: i32) -> Option<i32> {
        let Some((crew, _)) = self.crew else {
            let value = self.node(position, alpha, beta);
            return (!self.stopped).then_some(value);
        };
        self.crew_step += 1;
        crew.post(self.crew_step, *position, alpha, beta);
        self.searching = true;
        let value = self.node(position, alpha, beta);
        self.searching = false;
        if !self.stopped {
            crew.finish(self.crew_step, value);
        }
        self.nodes += crew.nodes.swap(0, Ordering::Relaxed);
        // A helper's finished search is as good as the main thread's; a limit
        // still reached stops the next step at its check.
        let found = crew.found(self.crew_step);
        self.stopped = found.is_none();
        found
    }

    /// One full-window search: exact, or the board's seed bounds if stopped.
    fn full(&mut self, position: &Kalah) -> (i32, i32) {
        let seeds = position.seeds() as i32;
        (self.state.lower, self.state.upper) = (-seeds, seeds);
        if self.check_step() {
            return (-seeds, seeds);
        }
        match self.step(position, -seeds - 1, seeds + 1) {
            None => (-seeds, seeds),
            Some(value) => (value, value),
        }
    }

    /// The value of `position` when known without search: the game is over,
    /// or the endgame table holds it.
    #[inline]
    fn known(&self, position: &Kalah) -> Option<i32> {
        if position.is_finished() {
            return Some(position.final_value());
        }
        match self.endgame {
            Some(endgame) if position.seeds() <= self.max_seeds => {
                Some(endgame.value(position.index()))
            }
            _ => None,
        }
    }

    /// MTD(f): null-window searches of `position` from a first guess until
    /// the proven bounds meet, or a limit stops it. A value has the parity of
    /// the seeds on the board (the two players' gains add up to them), which
    /// halves the steps.
    fn mtdf(&mut self, position: &Kalah) -> (i32, i32) {
        let seeds = position.seeds() as i32;
        let (mut lower, mut upper) = (-seeds, seeds);
        let mut guess = self.first_guess(position);
        while lower < upper {
            guess = guess.clamp(lower, upper);
            let beta = if guess == lower { guess + 1 } else { guess };
            self.state = SearchProgress {
                lower,
                upper,
                testing: Some(beta),
                nodes: self.nodes,
            };
            if self.check_step() {
                break;
            }
            // A step that did not end proves nothing.
            let Some(found) = self.step(position, beta - 1, beta) else {
                break;
            };
            if found < beta {
                // An upper bound: the value is at most it, and of the board's parity.
                upper = found - (found - seeds).rem_euclid(2);
                guess = upper;
            } else {
                lower = found + (found - seeds).rem_euclid(2);
                guess = lower;
            }
        }
        (lower, upper)
    }

    /// The first guess of `position`'s value: its table's bound, else 0.
    fn first_guess(&self, position: &Kalah) -> i32 {
        match self.table.probe(position.index()) {
            Some(k) if k.lower > -NONE => k.lower,
            Some(k) if k.upper < NONE => k.upper,
            _ => 0,
        }
    }

    /// Aspiration windows: a search in a window of ±2 around the first guess;
    /// a fail-soft result outside it is a proven bound, and the window is
    /// widened fourfold beyond it on that side, until the value falls inside
    /// or a limit stops it.
    fn aspiration(&mut self, position: &Kalah) -> (i32, i32) {
        let seeds = position.seeds() as i32;
        let (mut lower, mut upper) = (-seeds, seeds);
        let (guess, mut delta) = (self.first_guess(position), 2);
        let (mut alpha, mut beta) = (guess - delta, guess + delta);
        while lower < upper {
            (alpha, beta) = (alpha.max(lower - 1), beta.min(upper + 1));
            self.state = SearchProgress {
                lower,
                upper,
                testing: None,
                nodes: self.nodes,
            };
            if self.check_step() {
                break;
            }
            let Some(found) = self.step(position, alpha, beta) else {
                break;
            };
            delta *= 4;
            if found <= alpha {
                upper = found;
                (alpha, beta) = (found - delta, found + 1);
            } else if found >= beta {
                lower = found;
                (alpha, beta) = (found - 1, found + delta);
            } else {
                (lower, upper) = (found, found);
            }
        }
        (lower, upper)
    }

    /// The value for the mover of playing `c`, searched in `(alpha, beta)`.
    #[inline]
    fn value_of(&mut self, c: &Candidate, alpha: i32, beta: i32) -> i32 {
        self.ply += 1;
        let value = if c.again {
            c.reward + self.node(&c.child, alpha - c.reward, beta - c.reward)
        } else {
            c.reward - self.node(&c.child, c.reward - beta, c.reward - alpha)
        };
        self.ply -= 1;
        value
    }

    /// A value of some move at least `beta` known without searching, if any:
    /// the children's table entries and known values (enhanced transposition cutoffs).
    fn transposition_cutoff(&self, moves: &[Candidate], beta: i32) -> Option<i32> {
        moves.iter().find_map(|c| {
            let (lower, upper) = match self.known(&c.child) {
                Some(v) => (v, v),
                None => {
                    let k = self.table.probe(c.child.index())?;
                    (k.lower, k.upper)
                }
            };
            let at_least = match c.again {
                true => c.reward + lower,
                false => c.reward - upper,
            };
            (at_least >= beta).then_some(at_least)
        })
    }

    /// Fail-soft alpha-beta to the end of the game: the value of `position`
    /// if inside `(alpha, beta)`, else a bound on the same side of the window.
    /// After a stop it returns at once with a value no caller uses, and
    /// stores nothing: the table keeps only what finished searches proved.
    fn node(&mut self, position: &Kalah, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.check_at && self.check() {
            return 0;
        }
        if let Some(value) = self.known(position) {
            return value;
        }
        let seeds = position.seeds() as i32;
        if self.options.seed_bounds {
            if alpha >= seeds {
                return seeds;
            }
            if beta <= -seeds {
                return -seeds;
            }
        }
        let key = position.index();
        let mut table_move = None;
        if let Some(k) = self.table.probe(key) {
            if k.lower >= beta || k.lower == k.upper {
                return k.lower;
            }
            if k.upper <= alpha {
                return k.upper;
            }
            alpha = alpha.max(k.lower);
            beta = beta.min(k.upper);
            table_move = k.best;
        }
        let mut moves = MoveList::<Candidate, MAX_PITS>::default();
        position.generate(&mut moves);
        position.order(&mut moves, table_move);
        if let Some((_, number @ 1..)) = self.crew
            && self.ply < PERTURBED_PLIES
            && moves.len() > 1
        {
            let by = number % moves.len();
            moves.rotate_left(by);
        }
        if self.table.prefetches() {
            for c in moves.iter() {
                self.table.prefetch(c.child.index());
            }
        }
        if self.options.etc
            && let Some(value) = self.transposition_cutoff(&moves, beta)
        {
            return value;
        }
        let (window_alpha, before) = (alpha, self.nodes);
        let (mut best, mut best_move) = (i32::MIN, None);
        match self.crew {
            Some((crew, _)) if self.ply < BUSY_PLIES => {
                let Some(found) = self.crew_moves(crew, &moves, alpha, beta) else {
                    return 0;
                };
                (best, best_move) = found;
            }
            _ => {
                for c in moves.iter() {
                    let value = self.value_of(c, alpha, beta);
                    if self.stopped {
                        return 0;
                    }
                    if value > best {
                        (best, best_move) = (value, Some(c.pit));
                        alpha = alpha.max(value);
                        if alpha >= beta {
                            break;
                        }
                    }
                }
            }
        }
        let bound = Bound::of(best, window_alpha, beta);
        self.table
            .store(key, best, bound, best_move, self.nodes - before);
        best
    }
}

impl<T: Table> Search<'_, '_, T> {
    /// The best value and move of `moves` in `(alpha, beta)` at a node near
    /// the root in a crew (simplified ABDADA): a move whose child another
    /// thread is searching waits until the others are searched (the first
    /// move never waits), so the threads part ways; `None` once stopped.
    fn crew_moves(
        &mut self,
        crew: &Crew<'_>,
        moves: &[Candidate],
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, Option<Pit>)> {
        let (mut best, mut best_move) = (i32::MIN, None);
        let mut waits = [false; MAX_PITS];
        for pass in 0..2 {
            for (i, c) in moves.iter().enumerate() {
                let key = c.child.index();
                if pass == 0 && i > 0 && crew.busy(key) {
                    waits[i] = true;
                    continue;
                }
                if pass == 1 && !waits[i] {
                    continue;
                }
                crew.mark(key);
                let value = self.value_of(c, alpha, beta);
                crew.unmark(key);
                if self.stopped {
                    return None;
                }
                if value > best {
                    (best, best_move) = (value, Some(c.pit));
                    alpha = alpha.max(value);
                    if alpha >= beta {
                        return Some((best, best_move));
                    }
                }
            }
        }
        Some((best, best_move))
    }
}

/// Exact value of `position` for its mover by alpha-beta with a table of
/// `2^table_bits` slots; also returns the number of nodes searched.
pub fn solve_position(position: &Kalah, table_bits: u32) -> (i32, u64) {
    let mut solver = ExactSolver::new(table_bits);
    let value = solver.value(position);
    (value, solver.nodes)
}

/// The first player's final margin from the start of `rules` under optimal play.
pub fn start_value(rules: &Rules, table_bits: u32) -> i32 {
    solve_position(&rules.start(), table_bits).0
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::kalah::endgame::tests::every_rule;
    use crate::search::memo_negamax;

    /// The baseline and every combination of the own search's switches.
    fn every_option() -> Vec<SearchOptions> {
        let mut all = vec![SearchOptions::GENERIC];
        for bits in 0..16u32 {
            all.push(SearchOptions {
                generic: false,
                seed_bounds: bits & 1 != 0,
                two_tier: bits & 2 != 0,
                etc: bits & 4 != 0,
                root: if bits & 8 != 0 {
                    Root::Mtdf
                } else {
                    Root::Full
                },
            });
        }
        // Aspiration windows with and without ETC, the other switches on.
        for etc in [false, true] {
            all.push(SearchOptions {
                etc,
                root: Root::Aspiration,
                ..SearchOptions::default()
            });
        }
        all
    }

    /// Every switch of the search, with a roomy table and with one so small
    /// that most positions collide, on one, two and three threads, gives the
    /// plain HashMap-memoized recursion's value from the start and from
    /// positions it met, one solver asked one after another (as `query`
    /// asks its children).
    #[test]
    fn every_search_option_gives_the_plain_recursions_values() {
        for rules in every_rule(&[(1, 4), (2, 2), (2, 4), (3, 2), (3, 3)]) {
            let mut memo = HashMap::new();
            let expected = memo_negamax(&rules.start(), &mut memo);
            for options in every_option() {
                for (bits, threads) in [1, 5, 16]
                    .into_iter()
                    .flat_map(|b| [(b, 1), (b, 2), (b, 3)])
                {
                    let mut solver = ExactSolver::with_threads(bits, options, threads);
                    let got = solver.value(&rules.start());
                    let case = format!("{options:?} 2^{bits} {threads} threads");
                    assert_eq!(got, expected, "{rules:?} {case}");
                    // Fewer positions on several threads: each search starts its helpers.
                    let every = if threads == 1 { 7 } else { 37 };
                    for (position, &value) in memo.iter().step_by(every) {
                        let got = solver.value(position);
                        assert_eq!(got, value, "{position} {case}");
                    }
                }
            }
        }
    }

    /// `value_within` on several threads gives what one thread proves: the
    /// value inside the window, else a bound on its side.
    #[test]
    fn a_parallel_search_in_a_window_bounds_the_value_on_its_side() {
        for rules in every_rule(&[(2, 4), (3, 3)]) {
            let mut memo = HashMap::new();
            memo_negamax(&rules.start(), &mut memo);
            let mut solver = ExactSolver::with_threads(8, SearchOptions::default(), 2);
            for (position, &value) in memo.iter().step_by(5) {
                for (alpha, beta) in [(value - 1, value), (value, value + 1), (-3, 3)] {
                    let got = solver.value_within(position, alpha, beta);
                    let holds = match got {
                        v if v <= alpha => value <= v,
                        v if v >= beta => value >= v,
                        v => v == value,
                    };
                    assert!(holds, "{position} ({alpha}, {beta}): {got}, value {value}");
                }
            }
        }
    }

    /// `reaches` answers "is the value at least t?" as the plain recursion
    /// does, on one thread and two, and says nothing when a limit stops it.
    #[test]
    fn reaches_tells_whether_the_value_is_at_least_the_target() {
        for rules in every_rule(&[(2, 4), (3, 3)]) {
            let mut memo = HashMap::new();
            memo_negamax(&rules.start(), &mut memo);
            for threads in [1, 2] {
                let mut solver = ExactSolver::with_threads(8, SearchOptions::default(), threads);
                for (position, &value) in memo.iter().step_by(7) {
                    for target in [value - 1, value, value + 1] {
                        let got = solver.reaches(position, target, &mut Limits::default());
                        assert_eq!(got, Some(value >= target), "{position} {target}");
                    }
                }
            }
            // A limit leaves the answer out or right, never wrong; none at 0 nodes.
            let (start, value) = (rules.start(), memo[&rules.start()]);
            for k in [0, 1, 3, 10, 100] {
                let mut limits = Limits {
                    max_nodes: Some(k),
                    ..Limits::default()
                };
                let got = ExactSolver::new(8).reaches(&start, value, &mut limits);
                assert!(got.is_none_or(|yes| yes), "{start} k={k}");
                assert!(k > 0 || got.is_none(), "{start} k={k}");
            }
        }
    }

    /// A search stopped after k nodes, for many k, proves bounds that hold
    /// the true value (exact only when right), every option of the own
    /// search, from the start and from positions met, both capture rules.
    #[test]
    fn a_stopped_search_proves_bounds_that_hold_the_value() {
        stopped_searches_prove_bounds_that_hold_the_value(1);
    }

    /// The same on two threads (the helpers' nodes count towards the limit,
    /// which the main thread sees some nodes late: bounds only, no node count).
    #[test]
    fn a_stopped_parallel_search_proves_bounds_that_hold_the_value() {
        stopped_searches_prove_bounds_that_hold_the_value(2);
    }

    /// Stopped searches on `threads` threads prove bounds that hold the value.
    fn stopped_searches_prove_bounds_that_hold_the_value(threads: usize) {
        for rules in every_rule(&[(2, 2), (3, 2), (3, 3)]) {
            let mut memo = HashMap::new();
            let expected = memo_negamax(&rules.start(), &mut memo);
            let mut positions = vec![(rules.start(), expected)];
            let every = if threads == 1 { 11 } else { 53 };
            positions.extend(memo.iter().step_by(every).map(|(p, &v)| (*p, v)));
            for options in every_option().into_iter().skip(1) {
                for (position, value) in &positions {
                    for k in [0, 1, 2, 3, 5, 10, 30, 100, 1000] {
                        let mut solver = ExactSolver::with_threads(8, options, threads);
                        let mut limits = Limits {
                            max_nodes: Some(k),
                            ..Limits::default()
                        };
                        let b = solver.bounds(position, &mut limits);
                        let seeds = position.seeds() as i32;
                        assert!(
                            -seeds <= b.lower && b.lower <= *value && *value <= b.upper,
                            "{position} {options:?} k={k}: {b:?}, value {value}"
                        );
                        assert!(b.upper <= seeds, "{b:?} k={k}");
                        if threads == 1 {
                            assert!(b.nodes <= k.max(1), "{b:?} k={k}");
                        }
                        // The table the stopped search left gives exact values after.
                        assert_eq!(solver.value(position), *value, "{position} after k={k}");
                    }
                }
            }
        }
    }

    /// The hook sees bounds that narrow towards the value, and a stop flag
    /// set before the search ends it before any node.
    #[test]
    fn the_progress_hook_sees_narrowing_bounds_and_the_flag_stops() {
        let rules = Rules::new(3, 3).unwrap();
        let expected = memo_negamax(&rules.start(), &mut HashMap::new());
        let mut seen = Vec::new();
        let mut hook = |p: &SearchProgress| seen.push(*p);
        let mut limits = Limits {
            progress: Some(&mut hook),
            ..Limits::default()
        };
        let b = ExactSolver::new(10).bounds(&rules.start(), &mut limits);
        assert_eq!(b.exact(), Some(expected));
        assert!(!seen.is_empty());
        for pair in seen.windows(2) {
            assert!(pair[0].lower <= pair[1].lower && pair[1].upper <= pair[0].upper);
        }
        assert!(
            seen.iter()
                .all(|p| p.lower <= expected && expected <= p.upper)
        );
        let stop = AtomicBool::new(true);
        for threads in [1, 2] {
            let mut limits = Limits {
                stop: Some(&stop),
                ..Limits::default()
            };
            let mut solver = ExactSolver::with_threads(10, SearchOptions::default(), threads);
            let b = solver.bounds(&rules.start(), &mut limits);
            assert_eq!((b.lower, b.upper, b.nodes), (-18, 18, 0));
        }
    }

    /// MTD(f) and the seed bounds also see values far from the first guess:
    /// positions with a large margin either way.
    #[test]
    fn lopsided_positions_are_valued_exactly() {
        let rules = Rules::new(3, 4).unwrap();
        for (mover, opponent) in [
            ([9, 0, 1], [0, 1, 0]),
            ([0, 1, 0], [9, 8, 7]),
            ([1, 0, 0], [6, 0, 0]),
            ([0, 0, 12], [0, 0, 1]),
        ] {
            let position = Kalah::from_pits(rules, &mover, &opponent);
            let expected = memo_negamax(&position, &mut HashMap::new());
            for options in every_option() {
                let got = ExactSolver::with_options(8, options).value(&position);
                assert_eq!(got, expected, "{position} {options:?}");
            }
        }
    }
}
