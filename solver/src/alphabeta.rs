//! One alpha-beta search for the two-player games' exact solvers (Kalah,
//! Tothello, PseudoTonga's endgames, Dominoes' stock-empty endgames):
//! negamax with a transposition table. Reversi's searches (more than two
//! players) and Dominoes' chance search (draws from the stock) are their own.
//!
//! A game implements [`Searchable`] for the position it searches: it generates
//! its moves into a fixed-capacity buffer, orders them (knowing the table's
//! move), plays one by copy-make, and says when the game is over and what a
//! horizon position is worth. [`Searcher`] runs fail-soft negamax over it with
//! any [`TranspositionTable`]; [`AlwaysReplace`] is the default table, keyed by
//! `u64` (or `u32`).
//!
//! Values are for the player to move. A move may keep the turn and may carry
//! a reward (as in [`crate::ZeroSum`]): its value is then `reward + child` or
//! `reward - child`. A pass is a move like any other; a game may also say what
//! it knows of a move before searching it ([`Estimate`]), which lets a pass
//! that ends the game cost no search and a pass with a cheap upper bound be
//! skipped when it cannot raise alpha.

use bytemuck::Zeroable;
use std::ops::DerefMut;
use std::time::Instant;

/// Search depth meaning "to the end of the game": never decremented, never evaluated.
pub const EXACT: u8 = u8::MAX;

/// What a stored value proves about the true value of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The value itself.
    Exact,
    /// The true value is at least the stored one.
    Lower,
    /// The true value is at most the stored one.
    Upper,
}

impl Bound {
    /// What a fail-soft result `best` of a search in the window `(alpha, beta)` proves.
    #[inline]
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// What a table knows about a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<M> {
    /// A lower bound on the value (very negative when none is known).
    pub lower: i32,
    /// An upper bound on the value (very positive when none is known).
    pub upper: i32,
    /// The depth the bounds were searched to ([`EXACT`] for the end of the game).
    pub depth: u8,
    /// The best move found, tried first when the position is searched again.
    pub best: Option<M>,
}

/// The transposition table hook: positions by key `K`, moves of type `M`.
pub trait TranspositionTable<K, M> {
    /// What is stored for `key`, if anything (bounds of any depth, and the move).
    fn probe(&self, key: &K) -> Option<Hit<M>>;

    /// Records that the position `key`, searched `depth` plies deep, has `value`
    /// as a `bound`, with `best` its best move.
    fn store(&mut self, key: &K, depth: u8, value: i32, bound: Bound, best: Option<M>);

    /// Whether [`TranspositionTable::prefetch`] is worth calling: the table
    /// is too big for the cache. By default `false`.
    #[inline]
    fn prefetches(&self) -> bool {
        false
    }

    /// Starts loading the slot of `key` into the cache; by default nothing.
    #[inline]
    fn prefetch(&self, _key: &K) {}
}

/// Starts loading the cache line of `value` without waiting for it.
#[inline]
pub fn prefetch<V>(value: &V) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: SSE is part of x86_64, and a prefetch only hints the cache:
        // it reads nothing and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const V).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// What a game knows about a move before it is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimate {
    /// Nothing: search it.
    Search,
    /// Its value, known without search (a pass that ends the game).
    Exact(i32),
    /// An upper bound on its value: skipped when the bound cannot raise alpha,
    /// else searched with the full window.
    AtMost(i32),
}

/// How a move hands over the turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// What the mover gained by the move minus what the opponent gained.
    pub reward: i32,
    /// Whether the mover moves again.
    pub keeps_turn: bool,
}

impl Transition {
    /// A move that passes the turn and scores nothing (most games).
    pub const ALTERNATE: Transition = Transition {
        reward: 0,
        keeps_turn: false,
    };
}

/// A position the alpha-beta search can explore, seen from the player to move.
///
/// A position that is not [`terminal`](Searchable::terminal) must generate at
/// least one move. Moves are generated as candidates (a move with whatever the
/// game computed while generating it, such as the position it leads to or an
/// ordering key) and identified by a small [`Searchable::Move`], which is what
/// the table stores.
pub trait Searchable: Sized {
    /// A move as the table stores it and the search reports it.
    type Move: Copy + Eq;
    /// A generated move, with what the game precomputed for it.
    type Candidate: Copy;
    /// The candidate buffer, usually a [`crate::MoveList`] (it must not allocate).
    type Candidates: Default + DerefMut<Target = [Self::Candidate]>;
    /// The key the transposition table stores the position under.
    type Key;

    /// Whether later moves are first searched with a null window (principal variation search).
    const PVS: bool = false;
    /// Whether a table entry's bounds also narrow the window (not only cut off).
    const NARROW: bool = true;

    /// The value of a finished game, `None` while it goes on.
    fn terminal(&self) -> Option<i32>;

    /// The estimated value at the search horizon (depth 0). Games searched
    /// only to the end ([`EXACT`]) never have it called.
    fn evaluate(&self) -> i32 {
        unreachable!("a game searched to the end has no horizon")
    }

    /// The table key of the position.
    fn key(&self) -> Self::Key;

    /// Appends the legal moves to `out` (empty on entry).
    fn generate(&self, out: &mut Self::Candidates);

    /// The move a candidate plays.
    fn move_of(&self, candidate: &Self::Candidate) -> Self::Move;

    /// The position after a candidate move (copy-make).
    fn play(&self, candidate: &Self::Candidate) -> Self;

    /// Puts the moves in search order; `table_move` is the table's best move
    /// for this position. By default the table's move goes first, the others
    /// keep the generation order.
    fn order(&self, moves: &mut [Self::Candidate], table_move: Option<Self::Move>) {
        if let Some(tt) = table_move
            && let Some(i) = moves.iter().position(|c| self.move_of(c) == tt)
        {
            // Shifts the moves before it by one: they keep their order.
            let first = moves[i];
            for j in (1..=i).rev() {
                moves[j] = moves[j - 1];
            }
            moves[0] = first;
        }
    }

    /// How the move hands over the turn; by default it alternates and scores nothing.
    #[inline]
    fn transition(&self, _candidate: &Self::Candidate) -> Transition {
        Transition::ALTERNATE
    }

    /// What is known of the move before searching it; by default nothing.
    #[inline]
    fn estimate(&self, _candidate: &Self::Candidate) -> Estimate {
        Estimate::Search
    }
}

/// Nodes between two calls of a [`Searcher`]'s tick.
pub const TICK_NODES: u64 = 1 << 20;

/// Nodes between two looks at the clock of a search with a deadline.
pub const CLOCK_NODES: u64 = 1 << 12;

/// Fail-soft negamax alpha-beta over a [`Searchable`] position, with a table.
pub struct Searcher<'t, T> {
    /// The transposition table.
    pub table: &'t mut T,
    /// Positions visited so far (every call of the search counts one).
    pub nodes: u64,
    /// Told the nodes so far every [`TICK_NODES`] nodes (a progress display).
    tick: Option<&'t mut dyn FnMut(u64)>,
    /// The node count at which `tick` is next called (never without one).
    next_tick: u64,
    /// When the search gives up ([`Searcher::until`]).
    deadline: Option<Instant>,
    /// The node count at which the clock is next read (never without a deadline).
    next_clock: u64,
    /// Whether the deadline passed: every value since is meaningless.
    aborted: bool,
    /// Whether a value rested on a horizon (an evaluation or a depth-limited entry).
    horizon: bool,
}

impl<'t, T> Searcher<'t, T> {
    /// A searcher using `table`, with no node counted yet.
    pub fn new(table: &'t mut T) -> Searcher<'t, T> {
        Searcher {
            table,
            nodes: 0,
            tick: None,
            next_tick: u64::MAX,
            deadline: None,
            next_clock: u64::MAX,
            aborted: false,
            horizon: false,
        }
    }

    /// The same searcher, giving up at `deadline`: the clock is read every
    /// [`CLOCK_NODES`] nodes; once it has passed, [`Searcher::aborted`] is true,
    /// the search unwinds at once and stores nothing more in the table.
    pub fn until(mut self, deadline: Instant) -> Searcher<'t, T> {
        self.deadline = Some(deadline);
        self.next_clock = self.nodes + CLOCK_NODES;
        self
    }

    /// Whether the deadline passed: the values searched since are meaningless.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Whether a value since the last [`Searcher::forget_horizon`] rested on a
    /// horizon; when not, a depth-limited search's values are exact.
    pub fn reached_horizon(&self) -> bool {
        self.horizon
    }

    /// Starts watching anew for a value that rests on a horizon.
    pub fn forget_horizon(&mut self) {
        self.horizon = false;
    }

    #[cold]
    fn look_at_clock(&mut self) {
        self.next_clock = self.nodes + CLOCK_NODES;
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
    }

    /// The same searcher, calling `tick` with the nodes so far every
    /// [`TICK_NODES`] nodes, so that a long search can show that it works.
    pub fn ticking(mut self, tick: &'t mut dyn FnMut(u64)) -> Searcher<'t, T> {
        self.tick = Some(tick);
        self.next_tick = self.nodes + TICK_NODES;
        self
    }

    #[cold]
    fn ticked(&mut self) {
        self.next_tick = self.nodes + TICK_NODES;
        if let Some(tick) = self.tick.as_mut() {
            tick(self.nodes);
        }
    }

    /// The value of `pos` for its mover if inside `(alpha, beta)`, else a bound
    /// on the same side of the window; `depth` plies deep or [`EXACT`].
    pub fn search<P>(&mut self, pos: &P, alpha: i32, beta: i32, depth: u8) -> i32
    where
        P: Searchable,
        T: TranspositionTable<P::Key, P::Move>,
    {
        // Whether this subtree rests on a horizon is watched on its own.
        let outer = std::mem::take(&mut self.horizon);
        let value = self.search_node(pos, alpha, beta, depth);
        self.horizon |= outer;
        value
    }

    /// [`Searcher::search`] of one position; a result that rests on no
    /// horizon is stored as searched to the end, whatever `depth`.
    fn search_node<P>(&mut self, pos: &P, mut alpha: i32, mut beta: i32, depth: u8) -> i32
    where
        P: Searchable,
        T: TranspositionTable<P::Key, P::Move>,
    {
        if self.aborted {
            return 0;
        }
        self.nodes += 1;
        if self.nodes >= self.next_tick {
            self.ticked();
        }
        if self.nodes >= self.next_clock {
            self.look_at_clock();
        }
        if let Some(value) = pos.terminal() {
            return value;
        }
        if depth == 0 {
            self.horizon = true;
            return pos.evaluate();
        }
        let key = pos.key();
        let mut table_move = None;
        if let Some(hit) = self.table.probe(&key) {
            if hit.depth >= depth {
                // A depth-limited entry's bounds rest on its horizon.
                self.horizon |= hit.depth != EXACT;
                if hit.lower >= beta || hit.lower == hit.upper {
                    return hit.lower;
                }
                if hit.upper <= alpha {
                    return hit.upper;
                }
                if P::NARROW {
                    alpha = alpha.max(hit.lower);
                    beta = beta.min(hit.upper);
                }
            }
            table_move = hit.best;
        }
        let window_alpha = alpha;
        let mut moves = P::Candidates::default();
        pos.generate(&mut moves);
        debug_assert!(!moves.is_empty(), "a position that goes on has a move");
        pos.order(&mut moves, table_move);
        if self.table.prefetches() {
            // The children's table slots load while the first child is searched.
            for candidate in moves.iter() {
                self.table.prefetch(&pos.play(candidate).key());
            }
        }
        let mut best = i32::MIN;
        let mut best_move = None;
        let mut searched = 0u32;
        for candidate in moves.iter() {
            let value = match pos.estimate(candidate) {
                Estimate::Exact(value) => value,
                Estimate::AtMost(bound) if bound <= alpha => {
                    // Still a valid upper bound if every move fails low.
                    best = best.max(bound);
                    continue;
                }
                Estimate::AtMost(_) => self.value_of(pos, candidate, alpha, beta, depth),
                Estimate::Search => {
                    let value = if !P::PVS || searched == 0 || beta == alpha + 1 {
                        self.value_of(pos, candidate, alpha, beta, depth)
                    } else {
                        let scout = self.value_of(pos, candidate, alpha, alpha + 1, depth);
                        if scout > alpha && scout < beta {
                            self.value_of(pos, candidate, scout, beta, depth)
                        } else {
                            scout
                        }
                    };
                    searched += 1;
                    value
                }
            };
            if value > best {
                best = value;
                best_move = Some(pos.move_of(candidate));
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if self.aborted {
            // Some child's value is meaningless: nothing is stored.
            return 0;
        }
        let bound = Bound::of(best, window_alpha, beta);
        let proved = if self.horizon { depth } else { EXACT };
        self.table.store(&key, proved, best, bound, best_move);
        best
    }

    /// The value for the mover of `pos` of playing `candidate`, searched in the
    /// window `(alpha, beta)`; `depth` is that of `pos` (the move takes one ply).
    #[inline]
    pub fn value_of<P>(
        &mut self,
        pos: &P,
        candidate: &P::Candidate,
        alpha: i32,
        beta: i32,
        depth: u8,
    ) -> i32
    where
        P: Searchable,
        T: TranspositionTable<P::Key, P::Move>,
    {
        let next = if depth == EXACT { EXACT } else { depth - 1 };
        let Transition { reward, keeps_turn } = pos.transition(candidate);
        let child = pos.play(candidate);
        if keeps_turn {
            let value = self.search(
                &child,
                alpha.saturating_sub(reward),
                beta.saturating_sub(reward),
                next,
            );
            reward.saturating_add(value)
        } else if reward == 0 {
            // The common case. A window edge may have saturated to i32::MIN
            // after a move that kept the turn: negate saturating.
            self.search(&child, beta.saturating_neg(), alpha.saturating_neg(), next)
                .saturating_neg()
        } else {
            let value = self.search(
                &child,
                reward.saturating_sub(beta),
                reward.saturating_sub(alpha),
                next,
            );
            reward.saturating_sub(value)
        }
    }
}

/// A key of [`AlwaysReplace`]: checked whole on a probe, mixed into a slot index.
pub trait TableKey: Copy + Eq + Default + Zeroable {
    /// A well-mixed index; the table keeps its low bits.
    fn slot(self) -> usize;
}

impl TableKey for u64 {
    #[inline]
    fn slot(self) -> usize {
        // Fibonacci hashing: the high half of the product depends on every bit.
        (self.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize
    }
}

impl TableKey for u32 {
    #[inline]
    fn slot(self) -> usize {
        (self.wrapping_mul(0x9E37_79B1).rotate_left(16) ^ self) as usize
    }
}

#[derive(Clone, Copy, Debug, Zeroable)]
struct Slot<K, M> {
    key: K,
    value: i32,
    depth: u8,
    /// 0 for an empty slot, else a bound code, plus `HAS_BEST`.
    bound: u8,
    /// The best move if `bound` has `HAS_BEST`, else `M::default()`.
    best: M,
}

const EMPTY: u8 = 0;
const EXACT_BOUND: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;
const BOUND_BITS: u8 = 3;
/// Tables with more slots than this rarely hit the cache: their slots are prefetched.
pub const PREFETCH_SLOTS: usize = 1 << 17;
const HAS_BEST: u8 = 4;

/// The default transposition table: `2^bits` slots, each holding the last
/// position stored there (always replace), keyed by `u64` unless told
/// otherwise (a `u32` key keeps a slot at 12 bytes).
#[derive(Clone)]
pub struct AlwaysReplace<M, K = u64> {
    slots: Vec<Slot<K, M>>,
    mask: usize,
}

/// `len` zeroed slots for a search table: the system supplies a page only when
/// a slot on it is first stored. A failed allocation ends the process as a
/// `vec!` would, naming the size (`memory allocation of N bytes failed`).
pub fn zeroed_slots<T: Zeroable>(len: usize) -> Vec<T> {
    bytemuck::try_zeroed_vec(len).unwrap_or_else(|_| {
        let layout =
            std::alloc::Layout::array::<T>(len).unwrap_or_else(|_| std::alloc::Layout::new::<T>());
        std::alloc::handle_alloc_error(layout)
    })
}

impl<M: Copy + Default + Zeroable, K: TableKey> AlwaysReplace<M, K> {
    /// An empty table of `2^bits` slots. An empty slot is all zero bytes
    /// (`bound` is `EMPTY`), so the table is allocated zeroed and the system
    /// supplies a page only when a slot on it is first stored: a large table
    /// costs nothing for a small search.
    pub fn new(bits: u32) -> AlwaysReplace<M, K> {
        let len = 1usize << bits;
        AlwaysReplace {
            slots: zeroed_slots(len),
            mask: len - 1,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table has no slot (never: it has at least one).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.slots.fill(Slot::zeroed());
    }

    /// Number of slots holding a position.
    pub fn used(&self) -> usize {
        self.slots.iter().filter(|s| s.bound != EMPTY).count()
    }
}

impl<M, K> std::fmt::Debug for AlwaysReplace<M, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlwaysReplace")
            .field("slots", &self.slots.len())
            .finish()
    }
}

impl<M: Copy + Default + Zeroable, K: TableKey> TranspositionTable<K, M> for AlwaysReplace<M, K> {
    #[inline]
    fn probe(&self, key: &K) -> Option<Hit<M>> {
        let slot = &self.slots[key.slot() & self.mask];
        if slot.bound == EMPTY || slot.key != *key {
            return None;
        }
        let (lower, upper) = match slot.bound & BOUND_BITS {
            EXACT_BOUND => (slot.value, slot.value),
            LOWER => (slot.value, i32::MAX),
            _ => (i32::MIN, slot.value),
        };
        Some(Hit {
            lower,
            upper,
            depth: slot.depth,
            best: (slot.bound & HAS_BEST != 0).then_some(slot.best),
        })
    }

    #[inline]
    fn prefetches(&self) -> bool {
        self.slots.len() > PREFETCH_SLOTS
    }

    #[inline]
    fn prefetch(&self, key: &K) {
        prefetch(&self.slots[key.slot() & self.mask]);
    }

    #[inline]
    fn store(&mut self, key: &K, depth: u8, value: i32, bound: Bound, best: Option<M>) {
        let bound = match bound {
            Bound::Exact => EXACT_BOUND,
            Bound::Lower => LOWER,
            Bound::Upper => UPPER,
        };
        self.slots[key.slot() & self.mask] = Slot {
            key: *key,
            value,
            depth,
            bound: bound | if best.is_some() { HAS_BEST } else { 0 },
            best: best.unwrap_or_default(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::negamax;
    use crate::{MoveList, ZeroSum};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const CELLS: usize = 9;

    /// A toy game: players take numbered cells in turn and score their numbers.
    /// Taking a multiple of 3 keeps the turn; each player may pass once (while
    /// cells remain). At the end, an unused pass is worth 2 points.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Toy {
        values: [i8; CELLS],
        /// Cells still free.
        free: u16,
        /// Passes still available: bit 0 for the mover, bit 1 for the opponent.
        passes: u8,
    }

    /// A toy move: take a cell, or pass.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Zeroable)]
    #[repr(u8)]
    enum ToyMove {
        Take(u8),
        #[default]
        Pass,
    }

    impl Toy {
        fn random(rng: &mut ChaCha8Rng) -> Toy {
            let mut values = [0i8; CELLS];
            for v in &mut values {
                *v = rng.random_range(-4..10);
            }
            Toy {
                values,
                free: rng.random_range(0..1u16 << CELLS),
                passes: rng.random_range(0..4),
            }
        }

        fn swap_passes(passes: u8) -> u8 {
            (passes >> 1) | (passes & 1) << 1
        }
    }

    impl ZeroSum for Toy {
        type Move = ToyMove;
        type Moves = MoveList<ToyMove, 10>;

        fn legal_moves(&self) -> Self::Moves {
            let mut moves = MoveList::new();
            for i in 0..CELLS as u8 {
                if self.free >> i & 1 != 0 {
                    moves.push(ToyMove::Take(i));
                }
            }
            if self.free != 0 && self.passes & 1 != 0 {
                moves.push(ToyMove::Pass);
            }
            moves
        }

        fn play(&mut self, mv: ToyMove) -> i32 {
            match mv {
                ToyMove::Take(i) => {
                    let keeps = self.keeps_turn(mv);
                    self.free &= !(1 << i);
                    if !keeps {
                        self.passes = Toy::swap_passes(self.passes);
                    }
                    i32::from(self.values[usize::from(i)])
                }
                ToyMove::Pass => {
                    self.passes = Toy::swap_passes(self.passes & !1);
                    0
                }
            }
        }

        fn keeps_turn(&self, mv: ToyMove) -> bool {
            matches!(mv, ToyMove::Take(i) if self.values[usize::from(i)] % 3 == 0)
        }

        fn final_value(&self) -> i32 {
            2 * (i32::from(self.passes & 1) - i32::from(self.passes >> 1))
        }
    }

    impl Searchable for Toy {
        type Move = ToyMove;
        type Candidate = ToyMove;
        type Candidates = MoveList<ToyMove, 10>;
        type Key = u64;

        fn terminal(&self) -> Option<i32> {
            (self.free == 0).then(|| self.final_value())
        }

        fn key(&self) -> u64 {
            // Values (4 bits each), free cells and passes fit in 47 bits: no two toys share a key.
            let mut key = u64::from(self.free) | u64::from(self.passes) << CELLS;
            for (i, &v) in self.values.iter().enumerate() {
                key |= ((v + 4) as u64) << (11 + 4 * i);
            }
            key
        }

        fn generate(&self, out: &mut Self::Candidates) {
            out.extend(self.legal_moves().iter().copied());
        }

        fn move_of(&self, candidate: &ToyMove) -> ToyMove {
            *candidate
        }

        fn play(&self, candidate: &ToyMove) -> Toy {
            ZeroSum::after(self, *candidate).0
        }

        fn transition(&self, candidate: &ToyMove) -> Transition {
            Transition {
                reward: match *candidate {
                    ToyMove::Take(i) => i32::from(self.values[usize::from(i)]),
                    ToyMove::Pass => 0,
                },
                keeps_turn: self.keeps_turn(*candidate),
            }
        }
    }

    /// The toy with the other settings: principal variation search on, window
    /// narrowing off, and a bound in place of searching a pass.
    #[derive(Clone, Copy, Debug)]
    struct PlainToy(Toy);

    impl Searchable for PlainToy {
        type Move = ToyMove;
        type Candidate = ToyMove;
        type Candidates = MoveList<ToyMove, 10>;
        type Key = u64;
        const PVS: bool = true;
        const NARROW: bool = false;

        fn terminal(&self) -> Option<i32> {
            self.0.terminal()
        }
        fn key(&self) -> u64 {
            self.0.key()
        }
        fn generate(&self, out: &mut Self::Candidates) {
            self.0.generate(out);
        }
        fn move_of(&self, candidate: &ToyMove) -> ToyMove {
            *candidate
        }
        fn play(&self, candidate: &ToyMove) -> PlainToy {
            PlainToy(self.0.play(candidate))
        }
        fn transition(&self, candidate: &ToyMove) -> Transition {
            self.0.transition(candidate)
        }
        /// A pass is worth at most what every free cell and pass could bring.
        fn estimate(&self, candidate: &ToyMove) -> Estimate {
            match *candidate {
                ToyMove::Pass => Estimate::AtMost(self.bound_after_pass()),
                ToyMove::Take(_) => Estimate::Search,
            }
        }
    }

    impl PlainToy {
        /// An upper bound on the value of passing: every free cell counting
        /// for the mover, plus the most the passes can be worth.
        fn bound_after_pass(&self) -> i32 {
            let toy = self.0;
            let all: i32 = (0..CELLS)
                .filter(|&i| toy.free >> i & 1 != 0)
                .map(|i| i32::from(toy.values[i]).abs())
                .sum();
            all + 2
        }
    }

    /// The exact value of every move, by the generic search and by plain
    /// negamax, with a roomy table and with tables so small most positions collide.
    #[test]
    fn generic_search_matches_plain_negamax_on_every_move() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut extra_turns, mut passes) = (0, 0);
        for bits in [0, 1, 3, 16] {
            let mut table = AlwaysReplace::<ToyMove>::new(bits);
            let mut plain_table = AlwaysReplace::<ToyMove>::new(bits);
            for _ in 0..60 {
                let toy = Toy::random(&mut rng);
                let mut searcher = Searcher::new(&mut table);
                assert_eq!(
                    searcher.search(&toy, i32::MIN + 1, i32::MAX, EXACT),
                    negamax(&toy),
                    "{toy:?}"
                );
                let mut plain = Searcher::new(&mut plain_table);
                assert_eq!(
                    plain.search(&PlainToy(toy), -1000, 1000, EXACT),
                    negamax(&toy),
                    "{toy:?}"
                );
                for &mv in toy.legal_moves().iter() {
                    let (child, reward) = toy.after(mv);
                    let expected = toy.move_value(mv, reward, negamax(&child));
                    let got = searcher.value_of(&toy, &mv, i32::MIN + 1, i32::MAX, EXACT);
                    assert_eq!(got, expected, "{toy:?} {mv:?}");
                    let got = plain.value_of(&PlainToy(toy), &mv, -1000, 1000, EXACT);
                    assert_eq!(got, expected, "{toy:?} {mv:?}");
                    // A narrow window around the value proves it too.
                    let near =
                        plain.value_of(&PlainToy(toy), &mv, expected - 1, expected + 1, EXACT);
                    assert_eq!(near, expected, "{toy:?} {mv:?}");
                    extra_turns += usize::from(toy.keeps_turn(mv));
                    passes += usize::from(mv == ToyMove::Pass);
                }
            }
        }
        // The sample exercises both kinds of special moves, or it proves little.
        assert!(extra_turns > 50 && passes > 50, "{extra_turns} {passes}");
    }

    /// Fail-soft windows: a result outside the window bounds the true value on the same side.
    #[test]
    fn windowed_results_bound_the_value() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let mut table = AlwaysReplace::<ToyMove>::new(2);
        for _ in 0..100 {
            let toy = Toy::random(&mut rng);
            let exact = negamax(&toy);
            let alpha = exact + rng.random_range(-6..6);
            let beta = alpha + rng.random_range(1..6);
            let got = Searcher::new(&mut table).search(&toy, alpha, beta, EXACT);
            if got <= alpha {
                assert!(exact <= got, "{toy:?}");
            } else if got >= beta {
                assert!(exact >= got, "{toy:?}");
            } else {
                assert_eq!(got, exact, "{toy:?}");
            }
        }
    }

    #[test]
    fn always_replace_table_checks_the_whole_key() {
        let mut table = AlwaysReplace::<u8>::new(2);
        let (a, b) = (5u64, 5u64 + (1 << 40));
        assert_eq!(
            a.slot() & 3,
            b.slot() & 3,
            "the test needs two keys in one slot"
        );
        table.store(&a, EXACT, 7, Bound::Lower, Some(3));
        assert_eq!(table.used(), 1);
        assert_eq!(table.probe(&b), None);
        let hit = table.probe(&a).unwrap();
        assert_eq!((hit.lower, hit.upper, hit.best), (7, i32::MAX, Some(3)));
        table.store(&b, 2, -4, Bound::Upper, None);
        assert_eq!(table.probe(&a), None);
        let hit = table.probe(&b).unwrap();
        assert_eq!((hit.lower, hit.upper, hit.depth), (i32::MIN, -4, 2));
        table.clear();
        assert_eq!(table.used(), 0);
    }
}
