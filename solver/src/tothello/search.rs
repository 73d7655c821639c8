//! The solving player: negamax alpha-beta with a transposition table.
//!
//! Values are for the player to move. The exact search ([`Solver::solve`])
//! runs to the end of the game and returns the final piece difference under
//! perfect play. The heuristic search ([`Solver::search`]) stops after a number
//! of plies and scores the leaves with [`evaluate`], in sixteenths of a piece
//! ([`SCALE`]); game ends it reaches are scored exactly, at the same scale.
//!
//! Passing is a move like any other in both searches, so the values are those
//! of the real game tree (as the plain negamax of [`crate::search`] computes
//! them). Two facts keep passes cheap: after a pass the mover can end the game
//! at once by passing too, so such a node is worth at least the current
//! difference; hence a pass is worth at most the current difference to the
//! player who passes, and it is searched last and only when that bound could
//! still raise alpha. At the root, the solver passes only when passing is
//! strictly better than every placement.

use arrayvec::ArrayVec;

use super::rules::{CORNERS, EDGES, Move, Position, Settled, Square, best_move_bits};

/// Heuristic values are in sixteenths of a piece.
pub const SCALE: i32 = 16;
const INF: i32 = 10_000;

/// What a search result in the window `(alpha, beta)` proves about the true value.
fn bounds(best: i32, alpha: i32, beta: i32) -> (i32, i32) {
    if best <= alpha {
        (-INF, best)
    } else if best >= beta {
        (best, INF)
    } else {
        (best, best)
    }
}
const PASS_SLOT: u8 = 64;
const NO_MOVE: u8 = 255;
/// Depth recorded for results of the exact search (it has no horizon).
const EXACT_DEPTH: u8 = u8::MAX;
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

#[derive(Clone, Copy, Default)]
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

/// A solving player with its own transposition table.
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
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
            table: vec![Entry::default(); len],
            mask: len - 1,
            nodes: 0,
        }
    }

    /// Forgets every stored position.
    pub fn clear(&mut self) {
        self.table.fill(Entry::default());
    }

    /// The exact value (final piece difference for the mover) and a best move.
    pub fn solve(&mut self, pos: &Position) -> SearchResult {
        self.root::<true>(pos, EXACT_DEPTH, -INF, INF)
    }

    /// Exact search with a window: the value if inside `(alpha, beta)`, else a bound.
    pub fn solve_window(&mut self, pos: &Position, alpha: i32, beta: i32) -> SearchResult {
        self.root::<true>(pos, EXACT_DEPTH, alpha, beta)
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

    /// The player's move: exact once at most `exact_empties` squares are empty,
    /// else the heuristic search `depth` plies deep.
    pub fn choose(&mut self, pos: &Position, depth: u8, exact_empties: u32) -> Option<Move> {
        if pos.empties() <= exact_empties {
            self.solve(pos).best
        } else {
            self.search(pos, depth).best
        }
    }

    fn root<const EXACT: bool>(
        &mut self,
        pos: &Position,
        depth: u8,
        mut alpha: i32,
        beta: i32,
    ) -> SearchResult {
        self.nodes = 0;
        let scale = if EXACT { 1 } else { SCALE };
        let diff = pos.difference() * scale;
        if pos.is_finished() {
            return SearchResult {
                value: diff,
                best: None,
                nodes: 0,
                exact: true,
            };
        }
        let (mover, opponent) = (pos.mover(), pos.opponent());
        let next = if EXACT { depth } else { depth - 1 };
        let window_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let children = self.children(mover, opponent, pos.passes, depth);
        for &(_, child_mover, child_opponent, square) in &children {
            let value = -self.negamax::<EXACT>(child_opponent, child_mover, 0, -beta, -alpha, next);
            if value > best {
                best = value;
                best_move = Some(Move::Place(square));
                alpha = alpha.max(value);
                if alpha >= beta {
                    break;
                }
            }
        }
        // A pass is taken only when strictly better than every placement.
        if best < beta && diff > best {
            let value = if pos.passes == 1 {
                diff
            } else {
                -self.negamax::<EXACT>(opponent, mover, 1, -beta, -alpha, next)
            };
            if value > best {
                best = value;
                best_move = Some(Move::Pass);
            }
        }
        // Stored so that the next iteration of deepening tries this move first.
        let flags = self.flags(pos.passes, EXACT);
        let index = self.index(mover, opponent, flags);
        let (lower, upper) = bounds(best, window_alpha, beta);
        let slot = match best_move {
            Some(Move::Place(square)) => square,
            Some(Move::Pass) => PASS_SLOT,
            None => NO_MOVE,
        };
        self.store(index, mover, opponent, flags, depth, lower, upper, slot);
        SearchResult {
            value: best,
            best: best_move,
            nodes: self.nodes + 1,
            exact: EXACT,
        }
    }

    /// The placements from a node, best first by the table move then by pieces won.
    fn children(
        &self,
        mover: u64,
        opponent: u64,
        passes: u8,
        depth: u8,
    ) -> ArrayVec<(i32, u64, u64, Square), 64> {
        let settled = Settled::new(mover, opponent);
        let mut empty = !(mover | opponent);
        let sort = empty.count_ones() >= SORT_EMPTIES;
        let deep = empty.count_ones() >= REPLY_EMPTIES;
        let tt_move = if sort {
            let flags = self.flags(passes, depth == EXACT_DEPTH);
            let entry = &self.table[self.index(mover, opponent, flags)];
            if entry.flags == flags && entry.mover == mover && entry.opponent == opponent {
                entry.best
            } else {
                NO_MOVE
            }
        } else {
            NO_MOVE
        };
        let mut children = ArrayVec::new();
        while empty != 0 {
            let square = empty.trailing_zeros() as Square;
            empty &= empty - 1;
            let (m, o) = settled.place(square);
            let key = if square == tt_move {
                INF
            } else if deep {
                // Fewest pieces for the opponent after its greediest reply.
                let reply = best_move_bits(o, m).map_or(o.count_ones(), |b| b.pieces);
                (m.count_ones() as i32 - reply as i32) * 4 + (CORNERS >> square & 1) as i32
            } else {
                m.count_ones() as i32 * 4 + (CORNERS >> square & 1) as i32
            };
            children.push((key, m, o, square));
        }
        if sort {
            children.sort_unstable_by_key(|c| std::cmp::Reverse(c.0));
        }
        children
    }

    fn flags(&self, passes: u8, exact: bool) -> u8 {
        FLAG_USED | if passes == 1 { FLAG_PASSED } else { 0 } | if exact { FLAG_EXACT } else { 0 }
    }

    fn index(&self, mover: u64, opponent: u64, flags: u8) -> usize {
        let mut h = mover.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ opponent.wrapping_mul(0xC2B2_AE3D_27D4_EB4F).rotate_left(31)
            ^ u64::from(flags);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        (h >> 32) as usize & self.mask
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        index: usize,
        mover: u64,
        opponent: u64,
        flags: u8,
        depth: u8,
        mut lower: i32,
        mut upper: i32,
        best: u8,
    ) {
        let entry = &mut self.table[index];
        if entry.flags == flags
            && entry.mover == mover
            && entry.opponent == opponent
            && entry.depth == depth
        {
            lower = lower.max(i32::from(entry.lower));
            upper = upper.min(i32::from(entry.upper));
        }
        *entry = Entry {
            mover,
            opponent,
            lower: lower as i16,
            upper: upper as i16,
            depth,
            flags,
            best,
        };
    }

    fn negamax<const EXACT: bool>(
        &mut self,
        mover: u64,
        opponent: u64,
        passes: u8,
        mut alpha: i32,
        mut beta: i32,
        depth: u8,
    ) -> i32 {
        self.nodes += 1;
        let scale = if EXACT { 1 } else { SCALE };
        let diff = (mover.count_ones() as i32 - opponent.count_ones() as i32) * scale;
        if mover | opponent == u64::MAX {
            return diff;
        }
        if !EXACT && depth == 0 {
            let estimate = evaluate(mover, opponent);
            // After a pass the mover can end the game: never worth less than that.
            return if passes == 1 {
                estimate.max(diff)
            } else {
                estimate
            };
        }
        let flags = self.flags(passes, EXACT);
        let index = self.index(mover, opponent, flags);
        let entry = self.table[index];
        if entry.flags == flags
            && entry.mover == mover
            && entry.opponent == opponent
            && entry.depth >= depth
        {
            let (lower, upper) = (i32::from(entry.lower), i32::from(entry.upper));
            if lower >= beta || lower == upper {
                return lower;
            }
            if upper <= alpha {
                return upper;
            }
            alpha = alpha.max(lower);
            beta = beta.min(upper);
        }
        let window_alpha = alpha;
        let next = if EXACT { depth } else { depth - 1 };
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        if passes == 1 {
            // Passing again ends the game at the current difference.
            best = diff;
            best_move = PASS_SLOT;
            if best >= beta {
                self.store(index, mover, opponent, flags, depth, best, INF, best_move);
                return best;
            }
            alpha = alpha.max(best);
        }
        let children = self.children(mover, opponent, passes, depth);
        for (i, &(_, child_mover, child_opponent, square)) in children.iter().enumerate() {
            // Principal variation search: later moves first get a null window.
            let mut value = if i == 0 || beta - alpha == 1 {
                -self.negamax::<EXACT>(child_opponent, child_mover, 0, -beta, -alpha, next)
            } else {
                -self.negamax::<EXACT>(child_opponent, child_mover, 0, -alpha - 1, -alpha, next)
            };
            if i > 0 && value > alpha && value < beta && beta - alpha > 1 {
                value = -self.negamax::<EXACT>(child_opponent, child_mover, 0, -beta, -value, next);
            }
            if value > best {
                best = value;
                best_move = square;
                if value > alpha {
                    alpha = value;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if passes == 0 && best < beta {
            if diff > alpha {
                let value = -self.negamax::<EXACT>(opponent, mover, 1, -beta, -alpha, next);
                if value > best {
                    best = value;
                    best_move = PASS_SLOT;
                }
            } else {
                // The pass is worth at most `diff <= alpha`: still a valid upper bound.
                best = best.max(diff);
            }
        }
        let (lower, upper) = bounds(best, window_alpha, beta);
        self.store(
            index, mover, opponent, flags, depth, lower, upper, best_move,
        );
        best
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

    /// Every strategy on the same positions: plain negamax is the reference.
    #[test]
    fn every_strategy_agrees_with_plain_negamax() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        // A 16-entry table forces collisions and overwrites.
        let mut tiny = Solver::new(4);
        let mut large = Solver::new(16);
        for i in 0..30 {
            let empties = 1 + i % 6;
            let pos = random_position(&mut rng, empties);
            let expected = negamax(&pos);
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
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut solver = Solver::new(12);
        for i in 0..40 {
            let pos = random_position(&mut rng, 1 + i % 6);
            let expected = negamax(&pos);
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
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut solver = Solver::new(14);
        for i in 0..20 {
            let empties = 1 + i % 5;
            let pos = random_position(&mut rng, empties);
            let expected = negamax(&pos);
            // Every game ends within 2 * empties + 1 plies.
            let got = solver.search(&pos, 2 * empties as u8 + 1);
            assert_eq!(got.value, expected * SCALE, "{pos}");
        }
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
