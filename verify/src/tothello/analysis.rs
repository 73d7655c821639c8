//! Tothello's exact values ([`Valuer`]): the solver's exact endgame search,
//! from [`EXACT_EMPTIES`] empty squares down, giving up at the deadline (and
//! then saying nothing). Earlier positions are drawn and listed, unvalued.

use std::path::PathBuf;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use tabula_solver::tothello::{Color, Position, Solver};

use super::players::AgentKind;
use crate::agent::Agent;

use crate::analysis::{AnalysisError, Analyst, DefaultStart, Exact, Pool, Valuer, no_tables};

/// The most empty squares of a position valued: the exact search of 14
/// empties takes well under a second, one more empty square multiplies it.
pub const EXACT_EMPTIES: u32 = 14;

/// Slots of each solver's table (24 bytes each).
const SOLVER_BITS: u32 = 18;

/// Tothello's values, by the exact endgame search.
pub struct TothelloValues {
    solvers: Pool<Solver>,
}

impl Default for TothelloValues {
    fn default() -> Self {
        TothelloValues {
            solvers: Pool::new(|| Solver::new(SOLVER_BITS)),
        }
    }
}

impl Valuer for TothelloValues {
    type Game = Position;
    fn value(&self, state: &Position, deadline: Instant) -> Option<i32> {
        if state.empties() > EXACT_EMPTIES {
            return None;
        }
        let for_mover = self
            .solvers
            .with(|solver| solver.solve_until(state, deadline))?
            .value;
        // Black is seat 0.
        Some(match state.to_move {
            Color::Black => for_mover,
            Color::Red => -for_mover,
        })
    }

    /// `random`, `greedy` and `solver-dD-eE` (up to depth 8 and 14 exact empties).
    fn agent(
        &self,
        name: &str,
        _state: &Position,
        rng: ChaCha8Rng,
    ) -> Option<Box<dyn Agent<Position>>> {
        let kind = AgentKind::parse(name)?;
        // A deeper search would take the server past its time limit.
        if let AgentKind::Solver { depth, exact } = kind
            && (depth > 8 || exact > EXACT_EMPTIES)
        {
            return None;
        }
        Some(Box::new(kind.agent(rng, SOLVER_BITS)))
    }
}

impl DefaultStart for Position {
    fn default_start() -> Option<Position> {
        Some(Position::start())
    }
}

/// Tothello's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    no_tables("tothello", tables)?;
    Ok(Box::new(Exact(TothelloValues::default())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::reference::plain_minimax;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;
    use std::time::Duration;
    use tabula_solver::Game;

    /// Black's pieces less Red's.
    fn margin(state: &Position) -> i32 {
        let scores = state.scores();
        (scores[0] - scores[1]) as i32
    }

    /// A position with `empties` empty squares after random placements from the start.
    fn random_position(rng: &mut ChaCha8Rng, empties: u32) -> Position {
        let mut state = Position::start();
        while state.empties() > empties {
            let moves = state.moves();
            // Placements only (the pass is listed last): the board fills.
            let mv = moves[rng.random_range(0..moves.len() - 1)];
            state.apply(mv);
        }
        state
    }

    #[test]
    fn values_match_plain_minimax_on_small_endgames() {
        let far = Instant::now() + Duration::from_secs(60);
        let values = TothelloValues::default();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut memo = HashMap::new();
        for k in 0..12 {
            let mut state = random_position(&mut rng, 4 + k % 4);
            if k % 3 == 0 {
                // After a pass: passing again ends the game.
                state.apply(tabula_solver::tothello::Move::Pass);
            }
            let plain = plain_minimax(&state, margin, &mut memo);
            assert_eq!(values.value(&state, far), Some(plain), "{state}");
        }
    }

    #[test]
    fn positions_before_the_endgame_or_past_the_deadline_have_no_value() {
        let values = TothelloValues::default();
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(values.value(&Position::start(), far), None);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let state = random_position(&mut rng, EXACT_EMPTIES);
        assert_eq!(values.value(&state, Instant::now()), None);
    }
}
