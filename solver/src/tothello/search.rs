//! The solving player: negamax alpha-beta with a transposition table.
//!
//! Values are for the player to move. The exact search ([`Solver::solve`])
//! runs to the end of the game and returns the final piece difference under
//! perfect play. The heuristic search ([`Solver::search`]) stops after a number
//! of plies and scores the leaves with [`evaluate`], in sixteenths of a piece
//! ([`SCALE`]); game ends it reaches are scored exactly, at the same scale. A
//! leaf right after a pass is worth at least the current difference: the
//! mover may pass too and end the game.
//!
//! Passing is a move like any other in both searches, so the values are those
//! of the real game tree (as the plain negamax of [`crate::search`] computes
//! them). Two facts keep passes cheap: after a pass the mover can end the game
//! at once by passing too, so such a node is worth at least the current
//! difference; hence a pass is worth at most the current difference to the
//! player who passes, and it is searched last and only when that bound could
//! still raise alpha. At the root, the solver passes only when passing is
//! strictly better than every placement.

use std::time::Instant;

use arrayvec::ArrayVec;
use bytemuck::Zeroable;

use super::rules::{CORNERS, EDGES, Move, Position, Settled, Square, best_move_bits};
use crate::alphabeta::{
    Bound, EXACT, Estimate, Hit, PREFETCH_SLOTS, Searchable, Searcher, TranspositionTable, prefetch,
};

/// Heuristic values are in sixteenths of a piece.
pub const SCALE: i32 = 16;
const INF: i32 = 10_000;

const PASS_SLOT: u8 = 64;
const NO_MOVE: u8 = 255;
const FLAG_PASSED: u8 = 1;
const FLAG_EXACT: u8 = 2;
const FLAG_USED: u8 = 4;
/// Below this many empty squares children are searched unsorted.
const SORT_EMPTIES: u32 = 5;
/// From this many empty squares children are sorted by the opponent's best reply.
const REPLY_EMPTIES: u32 = 9;

/// What a search found at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Value for the player to move (pieces, or sixteenths of a piece if not exact).
    pub value: i32,
    /// A move reaching that value; `None` when the game is over.
    pub best: Option<Move>,
    /// Nodes visited by this search.
    pub nodes: u64,
    /// Whether the value is the exact result of perfect play.
    pub exact: bool,
}

/// One slot of the table (all zero bytes when empty).
#[derive(Clone, Copy, Zeroable)]
struct Entry {
    mover: u64,
    opponent: u64,
    lower: i16,
    upper: i16,
    depth: u8,
    flags: u8,
    best: u8,
}

/// Heuristic score of a position for the mover, in sixteenths of a piece.
///
/// Pieces count, and pieces that are hard to take back count more: a corner
/// can never lie between two pieces, an edge piece only along its edge.
pub fn evaluate(mover: u64, opponent: u64) -> i32 {
    let count = |bits: u64| bits.count_ones() as i32;
    let pieces = count(mover) - count(opponent);
    let corners = count(mover & CORNERS) - count(opponent & CORNERS);
    let edges = count(mover & EDGES & !CORNERS) - count(opponent & EDGES & !CORNERS);
    SCALE * pieces + 3 * SCALE * corners + SCALE / 2 * edges
}

/// A searched position: exact (piece differences) or heuristic (sixteenths).
#[derive(Clone, Copy)]
struct Node<const EXACT_SEARCH: bool> {
    mover: u64,
    opponent: u64,
    /// 1 right after a pass, else 0.
    passes: u8,
}

/// A placement or the pass, with the pieces after it and its ordering key.
#[derive(Clone, Copy)]
struct Child {
    key: i32,
    /// The player's pieces after the move.
    mover: u64,
    /// The opponent's pieces after the move.
    opponent: u64,
    /// The square placed on, or `PASS_SLOT`.
    square: Square,
}

/// The table key: both boards and the flags, with their hash.
struct Key {
    mover: u64,
    opponent: u64,
    flags: u8,
    hash: u64,
}

impl<const EXACT_SEARCH: bool> Node<EXACT_SEARCH> {
    const SCALE: i32 = if EXACT_SEARCH { 1 } else { SCALE };

    fn difference(&self) -> i32 {
        (self.mover.count_ones() as i32 - self.opponent.count_ones() as i32) * Self::SCALE
    }

    /// The index into the candidates of the placements (the pass is first or last).
    fn placements(&self, len: usize) -> std::ops::Range<usize> {
        if self.passes == 1 { 1..len } else { 0..len - 1 }
    }
}

impl<const EXACT_SEARCH: bool> Searchable for Node<EXACT_SEARCH> {
    type Move = u8;
    type Candidate = Child;
    type Candidates = ArrayVec<Child, 65>;
    type Key = Key;
    const PVS: bool = true;

    #[inline]
    fn terminal(&self) -> Option<i32> {
        (self.mover | self.opponent == u64::MAX).then(|| self.difference())
    }

    fn evaluate(&self) -> i32 {
        let estimate = evaluate(self.mover, self.opponent);
        // After a pass the mover can end the game: never worth less than that.
        if self.passes == 1 {
            estimate.max(self.difference())
        } else {
            estimate
        }
    }

    #[inline]
    fn key(&self) -> Key {
        let flags = flags(self.passes, EXACT_SEARCH);
        let mut h = self.mover.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ self
                .opponent
                .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                .rotate_left(31)
            ^ u64::from(flags);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        Key {
            mover: self.mover,
            opponent: self.opponent,
            flags,
            hash: h,
        }
    }

    /// The placements in square order, and the pass: first right after a pass
    /// (passing again ends the game, a value known at once), else last.
    #[inline]
    fn generate(&self, out: &mut ArrayVec<Child, 65>) {
        let pass = Child {
            key: 0,
            mover: self.mover,
            opponent: self.opponent,
            square: PASS_SLOT,
        };
        if self.passes == 1 {
            out.push(pass);
        }
        let settled = Settled::new(self.mover, self.opponent);
        let mut empty = !(self.mover | self.opponent);
        while empty != 0 {
            let square = empty.trailing_zeros() as Square;
            empty &= empty - 1;
            let (mover, opponent) = settled.place(square);
            out.push(Child {
                key: 0,
                mover,
                opponent,
                square,
            });
        }
        if self.passes == 0 {
            out.push(pass);
        }
    }

    #[inline]
    fn move_of(&self, child: &Child) -> u8 {
        child.square
    }

    #[inline]
    fn play(&self, child: &Child) -> Self {
        Node {
            mover: child.opponent,
            opponent: child.mover,
            passes: u8::from(child.square == PASS_SLOT),
        }
    }

    /// With enough empty squares, the placements best first: the table move,
    /// then by pieces won (deep down, by the opponent's greediest reply).
    #[inline]
    fn order(&self, children: &mut [Child], table_move: Option<u8>) {
        let empties = (!(self.mover | self.opponent)).count_ones();
        if empties < SORT_EMPTIES {
            return;
        }
        let deep = empties >= REPLY_EMPTIES;
        let tt_move = table_move.unwrap_or(NO_MOVE);
        let range = self.placements(children.len());
        let placements = &mut children[range];
        for child in placements.iter_mut() {
            let (m, o, square) = (child.mover, child.opponent, child.square);
            child.key = if square == tt_move {
                INF
            } else if deep {
                // Fewest pieces for the opponent after its greediest reply.
                let reply = best_move_bits(o, m).map_or(o.count_ones(), |b| b.pieces);
                (m.count_ones() as i32 - reply as i32) * 4 + (CORNERS >> square & 1) as i32
            } else {
                m.count_ones() as i32 * 4 + (CORNERS >> square & 1) as i32
            };
        }
        placements.sort_unstable_by_key(|c| std::cmp::Reverse(c.key));
    }

    /// Two facts keep passes cheap. Right after a pass, passing again ends the
    /// game at the current difference. Otherwise the opponent could end the
    /// game right after the pass, so a pass is worth at most the difference.
    #[inline]
    fn estimate(&self, child: &Child) -> Estimate {
        if child.square != PASS_SLOT {
            Estimate::Search
        } else if self.passes == 1 {
            Estimate::Exact(self.difference())
        } else {
            Estimate::AtMost(self.difference())
        }
    }
}

fn flags(passes: u8, exact: bool) -> u8 {
    FLAG_USED | if passes == 1 { FLAG_PASSED } else { 0 } | if exact { FLAG_EXACT } else { 0 }
}

/// The solver's table: one entry per slot, always replaced, except that the
/// bounds of the same position at the same depth are merged.
struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

impl Table {
    fn index(&self, key: &Key) -> usize {
        (key.hash >> 32) as usize & self.mask
    }
}

impl TranspositionTable<Key, u8> for Table {
    #[inline]
    fn probe(&self, key: &Key) -> Option<Hit<u8>> {
        let entry = &self.entries[self.index(key)];
        if entry.flags == key.flags && entry.mover == key.mover && entry.opponent == key.opponent {
            Some(Hit {
                lower: i32::from(entry.lower),
                upper: i32::from(entry.upper),
                depth: entry.depth,
                best: (entry.best != NO_MOVE).then_some(entry.best),
            })
        } else {
            None
        }
    }

    #[inline]
    fn prefetches(&self) -> bool {
        self.entries.len() > PREFETCH_SLOTS
    }

    #[inline]
    fn prefetch(&self, key: &Key) {
        prefetch(&self.entries[self.index(key)]);
    }

    #[inline]
    fn store(&mut self, key: &Key, depth: u8, value: i32, bound: Bound, best: Option<u8>) {
        let (mut lower, mut upper) = match bound {
            Bound::Exact => (value, value),
            Bound::Lower => (value, INF),
            Bound::Upper => (-INF, value),
        };
        let index = self.index(key);
        let entry = &mut self.entries[index];
        if entry.flags == key.flags
            && entry.mover == key.mover
            && entry.opponent == key.opponent
            && entry.depth == depth
        {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        *entry = Entry {
            mover: key.mover,
            opponent: key.opponent,
            lower: lower as i16,
            upper: upper as i16,
            depth,
            flags: key.flags,
            best: best.unwrap_or(NO_MOVE),
        };
    }
}

/// A solving player with its own transposition table.
pub struct Solver {
    table: Table,
}

impl Default for Solver {
    /// A solver with 2^20 table entries (24 MiB).
    fn default() -> Solver {
        Solver::new(20)
    }
}

impl Solver {
    /// A solver whose transposition table has `2^bits` entries of 24 bytes.
    pub fn new(bits: u32) -> Solver {
        let len = 1usize << bits;
        Solver {
            table: Table {
                entries: crate::alphabeta::zeroed_slots(len),
                mask: len - 1,
            },
        }
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.table.entries.fill(Entry::zeroed());
    }

    /// The exact value (final piece difference for the mover) and a best move.
    pub fn solve(&mut self, pos: &Position) -> SearchResult {
        self.root::<true>(pos, EXACT, -INF, INF)
    }

    /// Exact search with a window: the value if inside `(alpha, beta)`, else a bound.
    pub fn solve_window(&mut self, pos: &Position, alpha: i32, beta: i32) -> SearchResult {
        self.root::<true>(pos, EXACT, alpha, beta)
    }

    /// [`Solver::solve`], giving up at `deadline` (then `None`).
    pub fn solve_until(&mut self, pos: &Position, deadline: Instant) -> Option<SearchResult> {
        self.root_until::<true>(pos, EXACT, (-INF, INF), Some(deadline))
    }

    /// Heuristic search `depth` plies deep (a pass is a ply), iteratively deepened.
    pub fn search(&mut self, pos: &Position, depth: u8) -> SearchResult {
        let mut result = self.root::<false>(pos, 1, -INF, INF);
        let mut nodes = result.nodes;
        for d in 2..=depth.max(1) {
            result = self.root::<false>(pos, d, -INF, INF);
            nodes += result.nodes;
        }
        result.nodes = nodes;
        result
    }

    /// The player's search: exact once at most `exact_empties` squares are
    /// empty, else the heuristic search `depth` plies deep.
    pub fn decide(&mut self, pos: &Position, depth: u8, exact_empties: u32) -> SearchResult {
        if pos.empties() <= exact_empties {
            self.solve(pos)
        } else {
            self.search(pos, depth)
        }
    }

    /// The player's move ([`Solver::decide`]'s).
    pub fn choose(&mut self, pos: &Position, depth: u8, exact_empties: u32) -> Option<Move> {
        self.decide(pos, depth, exact_empties).best
    }

    /// The root: every placement with the full window, then the pass, taken
    /// only when strictly better than every placement.
    fn root<const EXACT_SEARCH: bool>(
        &mut self,
        pos: &Position,
        depth: u8,
        alpha: i32,
        beta: i32,
    ) -> SearchResult {
        self.root_until::<EXACT_SEARCH>(pos, depth, (alpha, beta), None)
            .expect("a search without a deadline finishes")
    }

    /// [`Solver::root`], giving up at `deadline` if one is given (then `None`).
    fn root_until<const EXACT_SEARCH: bool>(
        &mut self,
        pos: &Position,
        depth: u8,
        (mut alpha, beta): (i32, i32),
        deadline: Option<Instant>,
    ) -> Option<SearchResult> {
        let node = Node::<EXACT_SEARCH> {
            mover: pos.mover(),
            opponent: pos.opponent(),
            passes: pos.passes,
        };
        let diff = node.difference();
        if pos.is_finished() {
            return Some(SearchResult {
                value: diff,
                best: None,
                nodes: 0,
                exact: true,
            });
        }
        let key = node.key();
        let table_move = self.table.probe(&key).and_then(|hit| hit.best);
        let mut children = ArrayVec::new();
        node.generate(&mut children);
        node.order(&mut children, table_move);
        let mut searcher = Searcher::new(&mut self.table);
        if let Some(deadline) = deadline {
            searcher = searcher.until(deadline);
        }
        let window_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for child in &children[node.placements(children.len())] {
            let value = searcher.value_of(&node, child, alpha, beta, depth);
            if value > best {
                best = value;
                best_move = Some(Move::Place(child.square));
                alpha = alpha.max(value);
                if alpha >= beta {
                    break;
                }
            }
        }
        if best < beta && diff > best {
            let value = if pos.passes == 1 {
                diff
            } else {
                let pass = children.last().expect("the pass is generated last");
                searcher.value_of(&node, pass, alpha, beta, depth)
            };
            if value > best {
                best = value;
                best_move = Some(Move::Pass);
            }
        }
        if searcher.aborted() {
            // Some value is meaningless: nothing is stored or answered.
            return None;
        }
        let nodes = searcher.nodes + 1;
        // Stored so that the next iteration of deepening tries this move first.
        let slot = best_move.map(|mv| match mv {
            Move::Place(square) => square,
            Move::Pass => PASS_SLOT,
        });
        let bound = Bound::of(best, window_alpha, beta);
        self.table.store(&key, depth, best, bound, slot);
        Some(SearchResult {
            value: best,
            best: best_move,
            nodes,
            exact: EXACT_SEARCH,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ZeroSum;
    use crate::search::{memo_negamax, negamax};
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    /// A position with `empties` empty squares reached by random placements
    /// from the start, with the occasional pass.
    fn random_position(rng: &mut ChaCha8Rng, empties: u32) -> Position {
        let mut pos = Position::start();
        while pos.empties() > empties {
            let moves = pos.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            pos.apply(mv);
            if pos.is_finished() {
                pos = Position::start();
            }
        }
        pos.passes = rng.random_range(0..2);
        pos
    }

    /// `count` positions of the random stream `seed`, of 1 to `most` empty
    /// squares in turn, each with its empties and its plain negamax value.
    fn negamax_cases(
        seed: u64,
        count: u32,
        most: u32,
    ) -> impl Iterator<Item = (u32, Position, i32)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count).map(move |i| {
            let empties = 1 + i % most;
            let pos = random_position(&mut rng, empties);
            let expected = negamax(&pos);
            (empties, pos, expected)
        })
    }

    /// Every strategy on the same positions: plain negamax is the reference.
    #[test]
    fn every_strategy_agrees_with_plain_negamax() {
        // A 16-entry table forces collisions and overwrites.
        let mut tiny = Solver::new(4);
        let mut large = Solver::new(16);
        for (empties, pos, expected) in negamax_cases(10, 30, 6) {
            let strategies = [
                ("memo_negamax", memo_negamax(&pos, &mut HashMap::new())),
                ("solve, tiny table", tiny.solve(&pos).value),
                ("solve, shared table", large.solve(&pos).value),
                (
                    "full-depth search / SCALE",
                    large.search(&pos, 2 * empties as u8 + 1).value / SCALE,
                ),
            ];
            for (name, value) in strategies {
                assert_eq!(value, expected, "{name} on\n{pos}");
            }
        }
    }

    #[test]
    fn exact_solver_matches_plain_negamax() {
        let mut solver = Solver::new(12);
        for (_, pos, expected) in negamax_cases(11, 40, 6) {
            let got = solver.solve(&pos);
            assert_eq!(got.value, expected, "{pos}");
            // The move reported reaches that value.
            let (child, _) = pos.after(got.best.unwrap());
            assert_eq!(-negamax(&child), expected, "{pos} move {:?}", got.best);
        }
    }

    #[test]
    fn exact_solver_matches_memoized_negamax_with_more_empties() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut solver = Solver::new(16);
        for _ in 0..6 {
            let pos = random_position(&mut rng, 9);
            let expected = memo_negamax(&pos, &mut HashMap::new());
            assert_eq!(solver.solve(&pos).value, expected, "{pos}");
            // A fresh table, and windows around the value, agree too.
            let mut fresh = Solver::new(10);
            assert_eq!(fresh.solve(&pos).value, expected);
            let low = fresh.solve_window(&pos, expected - 1, expected + 1).value;
            assert_eq!(low, expected);
            assert!(fresh.solve_window(&pos, expected, expected + 2).value <= expected);
            assert!(fresh.solve_window(&pos, expected - 2, expected).value >= expected);
        }
    }

    #[test]
    fn deep_heuristic_search_is_exact_at_scale() {
        let mut solver = Solver::new(14);
        for (empties, pos, expected) in negamax_cases(13, 20, 5) {
            // Every game ends within 2 * empties + 1 plies.
            let got = solver.search(&pos, 2 * empties as u8 + 1);
            assert_eq!(got.value, expected * SCALE, "{pos}");
        }
    }

    /// What [`plain_search`] met: game ends, positions at the horizon (and those
    /// the pass rule raised), and positions where passing beat every placement.
    #[derive(Default)]
    struct Counts {
        ends: u64,
        horizon: u64,
        raised: u64,
        pass_best: u64,
    }

    /// Depth-limited negamax as defined, for the mover, in sixteenths: no
    /// pruning, no table, every legal move (the pass too) is a ply. A finished
    /// game (full board or two passes) is worth its difference, a position at
    /// the horizon its [`evaluate`], but right after a pass at least the
    /// difference, which passing again would give.
    fn plain_search(pos: &Position, depth: u8, counts: &mut Counts) -> i32 {
        let difference = SCALE * pos.difference();
        if pos.is_finished() {
            counts.ends += 1;
            return difference;
        }
        if depth == 0 {
            counts.horizon += 1;
            let estimate = evaluate(pos.mover(), pos.opponent());
            if pos.passes == 1 && difference > estimate {
                counts.raised += 1;
                return difference;
            }
            return estimate;
        }
        let (mut place, mut pass) = (i32::MIN, i32::MIN);
        for &mv in pos.legal_moves().iter() {
            let value = -plain_search(&pos.after(mv).0, depth - 1, counts);
            match mv {
                Move::Place(_) => place = place.max(value),
                Move::Pass => pass = value,
            }
        }
        counts.pass_best += u64::from(pass > place);
        place.max(pass)
    }

    #[test]
    fn depth_limited_search_matches_plain_depth_limited_negamax() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        // A 16-entry table forces collisions and overwrites.
        let mut solvers = [Solver::new(4), Solver::new(16)];
        let mut counts = Counts::default();
        let mut root_passes = 0;
        // Midgame positions, and late ones where some lines reach the end.
        let midgame = (0..24).map(|i| 10 + 4 * (i % 6));
        for empties in midgame.chain((0..1000).map(|i| 2 + i % 7)) {
            let pos = random_position(&mut rng, empties);
            // Entries of a deeper search stand in for shallower ones (by design):
            // each position starts afresh, then every depth reuses the shallower ones.
            for solver in &mut solvers {
                solver.clear();
            }
            for depth in 1..=4u8 {
                let expected = plain_search(&pos, depth, &mut counts);
                for solver in &mut solvers {
                    let got = solver.search(&pos, depth);
                    assert_eq!(got.value, expected, "depth {depth} on\n{pos}");
                    root_passes += usize::from(got.best == Some(Move::Pass));
                    // The move reported reaches that value.
                    let (child, _) = pos.after(got.best.unwrap());
                    let reached = -plain_search(&child, depth - 1, &mut Counts::default());
                    assert_eq!(reached, expected, "depth {depth}, {:?} on\n{pos}", got.best);
                }
            }
        }
        // Every kind of leaf was met, and passing was best at times, at the
        // root and inside the trees.
        assert!(
            counts.ends > 0 && counts.horizon > 0 && counts.raised > 0,
            "{} game ends, {} horizon leaves ({} raised)",
            counts.ends,
            counts.horizon,
            counts.raised
        );
        assert!(
            root_passes > 0 && counts.pass_best > 0,
            "{root_passes} root passes, {} positions best passed",
            counts.pass_best
        );
    }

    #[test]
    fn solver_passes_only_when_strictly_better_than_every_placement() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let mut solver = Solver::new(12);
        let (mut passes, mut tied) = (0, 0);
        for i in 0..300 {
            let pos = random_position(&mut rng, 1 + i % 5);
            let got = solver.solve(&pos);
            let mut best_place = None;
            let mut pass_value = None;
            for &mv in pos.legal_moves().iter() {
                let (child, _) = pos.after(mv);
                let value = -negamax(&child);
                match mv {
                    Move::Pass => pass_value = Some(value),
                    Move::Place(_) => best_place = best_place.max(Some(value)),
                }
            }
            let (best_place, pass_value) = (best_place.unwrap(), pass_value.unwrap());
            assert_eq!(got.value, best_place.max(pass_value), "{pos}");
            if pass_value > best_place {
                passes += 1;
                assert_eq!(got.best, Some(Move::Pass), "{pos}");
            } else {
                tied += usize::from(pass_value == best_place);
                let (child, _) = pos.after(got.best.unwrap());
                assert!(matches!(got.best, Some(Move::Place(_))), "{pos}");
                assert_eq!(-negamax(&child), best_place, "{pos}");
            }
        }
        // The sample holds both kinds of positions, or the test proves nothing.
        assert!(passes > 0 && tied > 0, "passes {passes}, ties {tied}");
    }
}
