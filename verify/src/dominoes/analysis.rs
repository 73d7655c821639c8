//! Dominoes's exact values ([`Valuer`]): once the stock is empty the game is
//! one of perfect information, solved by the endgame search (a win is a
//! margin of 1, a tie 0), giving up at the deadline (and then saying
//! nothing). Earlier positions are drawn and listed, unvalued.

use std::path::PathBuf;
use std::time::Instant;

use tabula_solver::dominoes::search::Endgame;
use tabula_solver::dominoes::{Match, Position};
use tabula_solver::{Game, Turn};

use crate::analysis::{
    AgentFn, AnalysisError, Analyst, DefaultStart, Pool, Valuer, for_seat, untabled,
};

/// Slots of each endgame solver's table (24 bytes each).
const ENDGAME_BITS: u32 = 18;

/// Dominoes's values, by the endgame search once the stock is empty.
pub struct DominoesValues(Pool<Endgame>);

impl Default for DominoesValues {
    fn default() -> Self {
        DominoesValues(Pool::new(|| Endgame::new(ENDGAME_BITS)))
    }
}

impl Valuer for DominoesValues {
    type Game = Match;
    const AGENTS: Option<AgentFn<Match>> = Some(crate::dominoes::agent);
    fn value(&self, state: &Match, deadline: Instant) -> Option<i32> {
        match state.turn() {
            Turn::Over => {
                let scores = state.scores();
                Some((scores[0] - scores[1]) as i32)
            }
            Turn::Seat(mover) if state.stock().is_empty() => {
                let position = Position::of(state);
                let outcome = self
                    .0
                    .with(|solver| solver.solve_until(&position, deadline))?;
                Some(for_seat(outcome.value(), mover))
            }
            _ => None,
        }
    }
}

impl DefaultStart for Match {}

/// Dominoes's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    untabled(tables, DominoesValues::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::reference::play_at_random;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;
    use std::time::Duration;
    use tabula_solver::dominoes::{Deal, Rules};

    /// Seat 0's margin (1, 0 or -1) by plain minimax over the game's own
    /// moves, memoized by what decides the rest (hands, ends, mover).
    fn plain(state: &Match, memo: &mut HashMap<Position, i32>) -> i32 {
        let Turn::Seat(seat) = state.turn() else {
            let scores = state.scores();
            return (scores[0] - scores[1]) as i32;
        };
        if let Some(&value) = memo.get(&Position::of(state)) {
            return value;
        }
        let children = state.moves().into_iter().map(|mv| {
            let mut child = state.clone();
            child.apply(mv);
            plain(&child, memo)
        });
        let children: Vec<i32> = children.collect();
        let value = if seat == 0 {
            children.into_iter().max()
        } else {
            children.into_iter().min()
        };
        let value = value.expect("a seat has a move");
        memo.insert(Position::of(state), value);
        value
    }

    /// A random game of `rules` played until its stock is empty (or it is over).
    fn random_endgame(rng: &mut ChaCha8Rng, rules: Rules) -> Match {
        let start = Match::new(&Deal::random(rules, rng));
        let go_on = |s: &Match| !s.stock().is_empty() && s.turn() != Turn::Over;
        play_at_random(start, rng, go_on, |n| n)
    }

    #[test]
    fn values_match_plain_minimax_once_the_stock_is_empty() {
        let far = Instant::now() + Duration::from_secs(60);
        let values = DominoesValues::default();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut seen = 0;
        for k in 0..120 {
            let rules = Rules::new(5 + k % 2, 4).unwrap();
            let state = random_endgame(&mut rng, rules);
            if state.turn() == Turn::Chance {
                continue;
            }
            seen += usize::from(state.turn() != Turn::Over);
            let plain = plain(&state, &mut HashMap::new());
            assert_eq!(values.value(&state, far), Some(plain), "{state:?}");
        }
        assert!(seen >= 15, "{seen} endgames");
    }

    #[test]
    fn positions_with_a_stock_have_no_value() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let state = Match::new(&Deal::random(Rules::new(7, 5).unwrap(), &mut rng));
        assert_eq!(DominoesValues::default().value(&state, far), None);
    }
}
