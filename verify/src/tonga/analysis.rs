//! PseudoTonga's exact values ([`Valuer`]): the endgame solver's perfect
//! play by both seats, from [`MAX_EMPTIES`] empty squares down, giving up at
//! the deadline (and then saying nothing). Earlier positions are drawn and
//! listed, unvalued.

use std::path::PathBuf;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use tabula_solver::tonga::endgame::{Endgame, MAX_EMPTIES};
use tabula_solver::tonga::{Colour, Position};

use crate::agent::Agent;
use crate::analysis::{AnalysisError, Analyst, DefaultStart, Exact, Valuer, no_tables};

/// PseudoTonga's values, by the exact endgame search.
pub struct TongaValues;

impl Valuer for TongaValues {
    type Game = Position;
    fn value(&self, state: &Position, deadline: Instant) -> Option<i32> {
        let black = |for_mover: i32| match state.to_move {
            Colour::Black => for_mover,
            Colour::White => -for_mover,
        };
        if state.board.is_full() {
            return Some(black(state.difference()));
        }
        if state.board.empties() > MAX_EMPTIES {
            return None;
        }
        // The reduced board is the search's own; it is made anew each time.
        let mut endgame = Endgame::new(&state.board).ok()?;
        endgame.solve_until(state.to_move, deadline).map(black)
    }

    fn agent(
        &self,
        name: &str,
        _state: &Position,
        rng: ChaCha8Rng,
    ) -> Option<Box<dyn Agent<Position>>> {
        crate::tonga::players::agent(name, rng)
    }
}

impl DefaultStart for Position {}

/// PseudoTonga's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    no_tables("tonga", tables)?;
    Ok(Box::new(Exact(TongaValues)))
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

    /// Black's points less White's.
    fn margin(state: &Position) -> i32 {
        let scores = state.scores();
        (scores[0] - scores[1]) as i32
    }

    /// A game of side `n` played at random down to `empties` empty squares.
    fn random_position(rng: &mut ChaCha8Rng, n: usize, empties: usize) -> Position {
        let mut state = Position::start(n).expect("a side of the game");
        while state.board.empties() > empties {
            let moves = state.moves();
            state.apply(moves[rng.random_range(0..moves.len())]);
        }
        state
    }

    #[test]
    fn values_match_plain_minimax_on_small_endgames() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for k in 0..12 {
            let (n, empties) = if k % 2 == 0 {
                (4, 7 + k % 3)
            } else {
                (6, 6 + k % 3)
            };
            let state = random_position(&mut rng, n, empties);
            let plain = plain_minimax(&state, margin, &mut HashMap::new());
            assert_eq!(TongaValues.value(&state, far), Some(plain), "{state:?}");
        }
        let over = random_position(&mut rng, 4, 0);
        assert_eq!(TongaValues.value(&over, far), Some(margin(&over)));
    }

    #[test]
    fn positions_before_the_endgame_or_past_the_deadline_have_no_value() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let early = random_position(&mut rng, 8, MAX_EMPTIES + 1);
        assert_eq!(TongaValues.value(&early, far), None);
        let late = random_position(&mut rng, 8, MAX_EMPTIES);
        assert_eq!(TongaValues.value(&late, Instant::now()), None);
    }
}
