//! Nim's exact values ([`Valuer`]): the mover wins unless the heap is a
//! multiple of 4 (a win is a margin of 1).

use std::path::PathBuf;
use std::time::Instant;

use tabula_solver::nim::{MAX_TAKE, Nim};

use crate::analysis::{AgentFn, AnalysisError, Analyst, DefaultStart, Valuer, for_seat, untabled};

/// Nim's values, by the heap's remainder.
pub struct NimValues;

impl Valuer for NimValues {
    type Game = Nim;
    const AGENTS: Option<AgentFn<Nim>> = Some(crate::nim::agent);
    fn value(&self, state: &Nim, _deadline: Instant) -> Option<i32> {
        let wins = !state.heap.is_multiple_of(u32::from(MAX_TAKE) + 1);
        let for_mover = if wins { 1 } else { -1 };
        Some(for_seat(for_mover, state.mover))
    }
}

impl DefaultStart for Nim {
    fn default_start() -> Option<Nim> {
        Some(Nim::new(10))
    }
}

/// Nim's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    untabled(tables, NimValues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::Game;

    /// Seat 0's margin by plain minimax: whoever takes the last stone wins.
    fn plain(state: &Nim) -> i32 {
        if state.heap == 0 {
            return if state.mover == 0 { -1 } else { 1 };
        }
        let moves = state.moves();
        let children = moves.iter().map(|&k| {
            let mut child = *state;
            child.apply(k);
            plain(&child)
        });
        if state.mover == 0 {
            children.max().unwrap()
        } else {
            children.min().unwrap()
        }
    }

    #[test]
    fn values_match_plain_minimax() {
        for heap in 0..14 {
            for mover in 0..2 {
                let state = Nim { heap, mover };
                assert_eq!(
                    NimValues.value(&state, Instant::now()),
                    Some(plain(&state)),
                    "{state:?}"
                );
            }
        }
    }
}
