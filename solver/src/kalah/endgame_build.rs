//! A fast solver of one seed layer of a Kalah endgame table (issue 49): the
//! same values as the generic layered solver ([`crate::retrograde`]) writes
//! into a values-only table, in one walk of the layer instead of scan after
//! scan.
//!
//! - The layer's boards are walked in index order by the colex successor of
//!   their pits, not unranked one by one.
//! - A move that puts no seed into a store keeps the board in its layer, and
//!   moves seeds forward on the mover's side: the potential `Σ (pit + 1) ×
//!   seeds` over both sides (each in its owner's sowing order) strictly
//!   grows. A board waiting on a child of its own layer solves that child
//!   first (a memoised recursion, as deep as the potential can grow), so the
//!   layer is done in one walk.
//! - Boards are taken a batch at a time, every child ranked and its record
//!   prefetched first, so that the misses on the mapped table overlap.
//! - Parallel chunks of the layer: two threads may both solve a board that
//!   neither had found solved, and store the same byte.

use std::ops::Range;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU8, AtomicU64};

use rayon::prelude::*;

use super::{Kalah, KalahSpace, MAX_PITS, binomials, unrank};
use crate::retrograde::{MARK, Progress, SolveError, StateSpace, prefetch, record_byte};

/// Boards of a layer's parallel chunk.
const CHUNK: u64 = 1 << 14;
/// Boards whose children are ranked and prefetched together.
const BATCH: usize = 8;

/// Solves every board of seed layer `layer` of `space` into `values`, one
/// byte a board (the value as an `i8`; 0 for a board play never reaches) by
/// index, as [`crate::retrograde::solve_records_layer`] does with no mask
/// bytes: the layers below must be solved. `progress` gets the layer's
/// boards walked so far.
pub fn solve_endgame_layer(
    space: &KalahSpace,
    values: &[AtomicU8],
    layer: usize,
    progress: Progress<'_>,
) -> Result<(), SolveError> {
    if values.len() as u64 != space.len() {
        return Err(SolveError::TooLarge("the values do not match the space"));
    }
    if layer >= space.num_layers() {
        return Err(SolveError::TooLarge("no such layer"));
    }
    let range = space.layer_range(layer).expect("Kalah layers are ranges");
    let chunks: Vec<Range<u64>> = (range.start..range.end)
        .step_by(CHUNK as usize)
        .map(|start| start..(start + CHUNK).min(range.end))
        .collect();
    // A board not yet solved reads MARK, as in the generic solver.
    chunks.par_iter().for_each(|chunk| {
        values[chunk.start as usize..chunk.end as usize]
            .iter()
            .for_each(|byte| byte.store(MARK as u8, Relaxed))
    });
    let solver = Layer { space, values };
    let done = AtomicU64::new(0);
    chunks.par_iter().try_for_each(|chunk| {
        solver.walk(chunk.clone())?;
        let walked = chunk.end - chunk.start;
        progress(done.fetch_add(walked, Relaxed) + walked);
        Ok(())
    })
}

/// A board's moves: each child's index, board, and the move's reward and turn.
#[derive(Clone, Copy)]
struct Moves {
    count: usize,
    child: [u64; MAX_PITS],
    board: [[u8; 2 * MAX_PITS]; MAX_PITS],
    reward: [i32; MAX_PITS],
    again: [bool; MAX_PITS],
}

/// The solve of one layer: the space and the values of the whole table.
struct Layer<'a> {
    space: &'a KalahSpace,
    values: &'a [AtomicU8],
}

impl Layer<'_> {
    /// Solves the boards of `indices` (within one layer) not yet solved.
    fn walk(&self, indices: Range<u64>) -> Result<(), SolveError> {
        let rules = self.space.rules();
        let k = 2 * usize::from(rules.pits);
        let mut board = Kalah {
            rules,
            pits: [0; 2 * MAX_PITS],
        };
        unrank(indices.start, k, binomials(), &mut board.pits);
        let mut batch = [(0u64, board); BATCH];
        let mut moves = [EMPTY; BATCH];
        let mut filled = 0;
        for index in indices {
            if !board.arises() {
                self.values[index as usize].store(0, Relaxed);
            } else if self.value(index) == MARK {
                batch[filled] = (index, board);
                self.moves(&board, &mut moves[filled]);
                filled += 1;
                if filled == BATCH {
                    self.finish(&batch, &moves)?;
                    filled = 0;
                }
            }
            next_board(&mut board.pits[..k]);
        }
        self.finish(&batch[..filled], &moves[..filled])
    }

    /// Solves a batch of boards whose moves are gathered (unless some
    /// recursion solved them meanwhile).
    fn finish(&self, batch: &[(u64, Kalah)], moves: &[Moves]) -> Result<(), SolveError> {
        for (&(index, board), moves) in batch.iter().zip(moves) {
            if self.value(index) == MARK {
                self.solve_with(index, &board, moves)?;
            }
        }
        Ok(())
    }

    /// The value byte of `index`.
    #[inline]
    fn value(&self, index: u64) -> i8 {
        self.values[index as usize].load(Relaxed) as i8
    }

    /// The moves of `board` into `moves`, each child's record prefetched.
    #[inline]
    fn moves(&self, board: &Kalah, moves: &mut Moves) {
        moves.count = 0;
        for pit in 0..board.rules.pits {
            if board.pits[usize::from(pit)] > 0 {
                let (child, sowing) = board.child(pit);
                let index = child.index();
                prefetch(self.values[index as usize].as_ptr());
                let n = moves.count;
                moves.child[n] = index;
                moves.board[n] = child.pits;
                moves.reward[n] = sowing.mover as i32 - sowing.opponent as i32;
                moves.again[n] = sowing.again;
                moves.count += 1;
            }
        }
    }

    /// Solves `board` of `index`, first solving any child of its own layer not yet solved.
    fn solve_with(&self, index: u64, board: &Kalah, moves: &Moves) -> Result<i8, SolveError> {
        let mut best = i32::MIN;
        for n in 0..moves.count {
            let mut child = self.value(moves.child[n]);
            if child == MARK {
                // A child of the same layer (its potential higher), waiting.
                let next = Kalah {
                    rules: board.rules,
                    pits: moves.board[n],
                };
                let mut grandchildren = EMPTY;
                self.moves(&next, &mut grandchildren);
                child = self.solve_with(moves.child[n], &next, &grandchildren)?;
            }
            let child = i32::from(child);
            let value = match moves.again[n] {
                true => moves.reward[n] + child,
                false => moves.reward[n] - child,
            };
            best = best.max(value);
        }
        if best == i32::MIN {
            best = crate::ZeroSum::final_value(board);
        }
        let byte = record_byte(index, best, 0, 0)?;
        self.values[index as usize].store(byte as u8, Relaxed);
        Ok(byte)
    }
}

/// No moves yet.
const EMPTY: Moves = Moves {
    count: 0,
    child: [0; MAX_PITS],
    board: [[0; 2 * MAX_PITS]; MAX_PITS],
    reward: [0; MAX_PITS],
    again: [false; MAX_PITS],
};

/// The next board of the same seeds in colex order (the next index): the
/// first pit `j` whose next pit holds seeds takes every seed of pits
/// `0..=j` and one more from pit `j + 1`; the last board wraps anywhere.
#[inline]
fn next_board(pits: &mut [u8]) {
    let mut below = 0u8;
    for j in 0..pits.len() - 1 {
        below += pits[j];
        if pits[j + 1] > 0 {
            pits[..j].iter_mut().for_each(|p| *p = 0);
            pits[j] = below + 1;
            pits[j + 1] -= 1;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kalah::endgame::tests::every_rule;
    use crate::retrograde;

    #[test]
    fn the_successor_walks_the_index_order() {
        let rules = crate::kalah::Rules::new(3, 1).unwrap();
        let space = KalahSpace::endgame(rules, 7);
        for layer in 0..space.num_layers() {
            let range = space.layer_range(layer).unwrap();
            let mut board = space.position(range.start);
            for index in range {
                assert_eq!(board.index(), index, "{board}");
                next_board(&mut board.pits[..6]);
            }
        }
    }

    /// Layer by layer, the fast solver writes the generic solver's bytes.
    #[test]
    fn the_fast_layers_are_the_generic_solvers_bytes() {
        for (rules, max_seeds) in every_rule(&[(2, 1), (3, 1), (4, 1)])
            .into_iter()
            .zip([14, 14, 14, 14, 11, 11, 11, 11, 8, 8, 8, 8])
        {
            let space = KalahSpace::endgame(rules, max_seeds);
            let len = space.len() as usize;
            let generic: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
            let fast: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
            for layer in 0..space.num_layers() {
                retrograde::solve_records_layer(&space, &generic, 0, layer, &|_| {}).unwrap();
                solve_endgame_layer(&space, &fast, layer, &|_| {}).unwrap();
            }
            let bytes = |v: &[AtomicU8]| v.iter().map(|b| b.load(Relaxed)).collect::<Vec<_>>();
            assert!(bytes(&generic) == bytes(&fast), "{rules:?} S={max_seeds}");
        }
    }
}
