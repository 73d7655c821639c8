//! Layered retrograde analysis over an indexable state space.
//!
//! A game plugs in by implementing [`StateSpace`]: states are dense indices,
//! each state lies in a layer, and every move leads to a state of a strictly
//! lower layer (fewer beads, fewer empty squares, fewer tiles...). [`solve`]
//! then computes the exact negamax value and the set of optimal moves of every
//! state, layer by layer, with each layer split across rayon's threads.

use rayon::prelude::*;

/// One move out of a state: its slot (below 64), its reward and the child state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Move slot, used as the bit number in the optimal-move mask.
    pub slot: u8,
    /// The mover's gain minus the opponent's by this move.
    pub reward: i32,
    /// Index of the state reached, in a lower layer.
    pub child: usize,
}

/// A finite game state space with dense indices, solvable by [`solve`].
pub trait StateSpace: Sync {
    /// Number of states; the states are the indices `0..len()`.
    fn len(&self) -> usize;

    /// Whether the space has no state.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of layers; layers are `0..num_layers()`.
    fn num_layers(&self) -> usize;

    /// The layer of a state; every child of a state lies in a lower layer.
    fn layer(&self, index: usize) -> usize;

    /// Whether the index names a real state (dense spaces answer `true` always).
    fn is_state(&self, _index: usize) -> bool {
        true
    }

    /// Whether this state is the one solved for its symmetry class (default: all are).
    ///
    /// Spaces with symmetries solve one state per class and copy its result to
    /// the others through [`StateSpace::for_each_image`].
    fn is_canonical(&self, _index: usize) -> bool {
        true
    }

    /// Calls `visit(image, image_best)` for every other state symmetric to the
    /// canonical state `index`, with its optimal-move mask `best` carried over.
    fn for_each_image(&self, _index: usize, _best: u64, _visit: impl FnMut(usize, u64)) {}

    /// Calls `visit` for every legal move of the state, in slot order.
    fn for_each_edge(&self, index: usize, visit: impl FnMut(Edge));

    /// Value for the player to move of a state without moves.
    fn terminal_value(&self, index: usize) -> i32;
}

/// Exact values and optimal moves of every state of a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Negamax value of each state for the player to move.
    pub values: Vec<i16>,
    /// Bit `slot` is set for every move that attains the value.
    pub best: Vec<u64>,
}

/// How [`solve`] reports progress: called with the number of states finished so far.
pub type Progress<'a> = &'a (dyn Fn(usize) + Sync);

/// Solves every state of the space; `parallel` spreads each layer over rayon's pool.
pub fn solve<S: StateSpace>(space: &S, parallel: bool, progress: Progress<'_>) -> Solution {
    let len = space.len();
    let layers = layer_order(space);
    let mut values = vec![0i16; len];
    let mut best = vec![0u64; len];
    let mut done = 0;
    for layer in &layers {
        let solve_one = |&index: &u32| solve_state(space, index as usize, &values);
        let results: Vec<(i16, u64)> = if parallel {
            layer.par_iter().map(solve_one).collect()
        } else {
            layer.iter().map(solve_one).collect()
        };
        for (&index, (value, mask)) in layer.iter().zip(results) {
            values[index as usize] = value;
            best[index as usize] = mask;
            done += 1;
            space.for_each_image(index as usize, mask, |image, image_mask| {
                values[image] = value;
                best[image] = image_mask;
                done += 1;
            });
        }
        progress(done);
    }
    Solution { values, best }
}

/// The canonical states of the space grouped by layer, each layer in index order.
pub fn layer_order<S: StateSpace>(space: &S) -> Vec<Vec<u32>> {
    assert!(
        space.len() <= u32::MAX as usize,
        "state space too large for u32 indices"
    );
    let mut layers = vec![Vec::new(); space.num_layers()];
    for index in 0..space.len() {
        if space.is_state(index) && space.is_canonical(index) {
            layers[space.layer(index)].push(index as u32);
        }
    }
    layers
}

fn solve_state<S: StateSpace>(space: &S, index: usize, values: &[i16]) -> (i16, u64) {
    let mut best_value = i32::MIN;
    let mut mask = 0u64;
    space.for_each_edge(index, |edge| {
        debug_assert!(space.layer(edge.child) < space.layer(index));
        let value = edge.reward - i32::from(values[edge.child]);
        if value > best_value {
            best_value = value;
            mask = 1 << edge.slot;
        } else if value == best_value {
            mask |= 1 << edge.slot;
        }
    });
    if best_value == i32::MIN {
        best_value = space.terminal_value(index);
    }
    let value = i16::try_from(best_value).expect("state value fits in i16");
    (value, mask)
}

/// A record that breaks the negamax equation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("entry {index}: {problem}")]
pub struct Inconsistency {
    /// The state index.
    pub index: usize,
    /// What is wrong with it.
    pub problem: String,
}

/// Checks stored values and optimal-move masks of every state against their children.
///
/// Every state is checked on its own, symmetric images included, so a wrong
/// symmetry shows up here.
///
/// Each state's value must be the best `reward - value(child)`, and its mask must
/// hold exactly the moves attaining it (a terminal state: its terminal value and no
/// moves). Returns the number of states checked, or the first bad one found.
pub fn check<S: StateSpace>(
    space: &S,
    value: impl Fn(usize) -> i32 + Sync,
    best: impl Fn(usize) -> u64 + Sync,
) -> Result<usize, Inconsistency> {
    let check_one = |index: usize| -> Result<(), Inconsistency> {
        let mut computed = i32::MIN;
        let mut mask = 0u64;
        space.for_each_edge(index, |edge| {
            let v = edge.reward - value(edge.child);
            if v > computed {
                (computed, mask) = (v, 1 << edge.slot);
            } else if v == computed {
                mask |= 1 << edge.slot;
            }
        });
        if computed == i32::MIN {
            computed = space.terminal_value(index);
        }
        let stored = (value(index), best(index));
        if stored != (computed, mask) {
            return Err(Inconsistency {
                index,
                problem: format!(
                    "stored value {} with moves {:#b}, its children give {computed} with {mask:#b}",
                    stored.0, stored.1
                ),
            });
        }
        Ok(())
    };
    (0..space.len())
        .into_par_iter()
        .filter(|&index| space.is_state(index))
        .try_for_each(check_one)?;
    Ok((0..space.len()).filter(|&i| space.is_state(i)).count())
}
