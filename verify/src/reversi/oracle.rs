//! `oracle`: the reference ceiling. It knows the opponents' true weights and
//! rule (only a tester can give them) and searches its own moves with the
//! opponents as the deterministic policies they are. No real player can know
//! this much: reports mark it as the ceiling, not as a contestant.

use tabula_solver::grid::Square;
use tabula_solver::reversi::Board;
use tabula_solver::reversi::lookahead::{Limits, Lookahead, Policies};

use super::Opponent;
use crate::agent::Agent;

/// Nodes per decision (an own move with the replies that follow).
pub const BUDGET: u64 = 6_000;

/// The reference ceiling: a lookahead against the opponents' true policies.
#[derive(Clone, Debug)]
pub struct Oracle {
    policies: Policies,
    limits: Limits,
}

impl Oracle {
    /// The oracle of a case whose opponents (seats 1.. in order) are `opponents`.
    pub fn new(opponents: &[Opponent]) -> Oracle {
        let weights: Vec<_> = opponents.iter().map(|o| o.weights).collect();
        let rule = opponents.first().map(|o| o.rule).unwrap_or_default();
        Oracle {
            policies: Policies::for_seat_zero(&weights, rule),
            limits: Limits {
                budget: BUDGET,
                ..Limits::default()
            },
        }
    }
}

impl Agent<Board> for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn choose(&mut self, view: &Board) -> Square {
        let me = view.mover().expect("asked only when it can move");
        Lookahead::new(me, &self.policies, self.limits)
            .decide(view)
            .mv
    }
}
