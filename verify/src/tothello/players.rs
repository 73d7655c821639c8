//! The built-in players: `random`, `greedy` and `solver-dD-eE`.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::tothello::rules::best_move_bits;
use tabula_solver::tothello::{Move, Position, Solver};

use crate::agent::Agent;

/// The built-in players; in JSON, their names (`solver-d3-e10`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// A uniformly random empty square (never passes).
    Random,
    /// `bestMove`'s choice: the most pieces right away, ties broken at random.
    Greedy,
    /// The solver: `depth` plies of heuristic search, exact at `exact` empties or fewer.
    Solver {
        /// Plies searched before the exact endgame.
        depth: u8,
        /// Empty squares from which the rest of the game is solved exactly.
        exact: u32,
    },
}

impl Serialize for AgentKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name())
    }
}

impl AgentKind {
    /// Short name used in reports: `random`, `greedy`, `solver-d3-e10`.
    pub fn name(&self) -> String {
        match self {
            AgentKind::Random => "random".into(),
            AgentKind::Greedy => "greedy".into(),
            AgentKind::Solver { depth, exact } => format!("solver-d{depth}-e{exact}"),
        }
    }

    /// The player named `name` (as [`AgentKind::name`] writes it), if any.
    pub fn parse(name: &str) -> Option<AgentKind> {
        match name {
            "random" => Some(AgentKind::Random),
            "greedy" => Some(AgentKind::Greedy),
            _ => {
                let rest = name.strip_prefix("solver-d")?;
                let (depth, exact) = rest.split_once("-e")?;
                let depth: u8 = depth.parse().ok().filter(|&d| d > 0)?;
                Some(AgentKind::Solver {
                    depth,
                    exact: exact.parse().ok()?,
                })
            }
        }
    }

    /// The agent of this player, drawing its random choices from `rng`.
    pub fn agent(&self, rng: ChaCha8Rng, table_bits: u32) -> TothelloAgent {
        TothelloAgent {
            player: *self,
            rng,
            solver: match self {
                AgentKind::Solver { .. } => Some(Solver::new(table_bits)),
                _ => None,
            },
        }
    }
}

/// A built-in player ready to play.
pub struct TothelloAgent {
    player: AgentKind,
    rng: ChaCha8Rng,
    solver: Option<Solver>,
}

/// A random square of a non-empty mask.
pub fn random_square(mask: u64, rng: &mut ChaCha8Rng) -> u8 {
    let mut bits = mask;
    for _ in 0..rng.random_range(0..mask.count_ones()) {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as u8
}

impl Agent<Position> for TothelloAgent {
    fn name(&self) -> String {
        self.player.name()
    }

    fn choose(&mut self, pos: &Position) -> Move {
        match self.player {
            AgentKind::Random => Move::Place(random_square(pos.board.empty(), &mut self.rng)),
            AgentKind::Greedy => {
                let best =
                    best_move_bits(pos.mover(), pos.opponent()).expect("the game is not over");
                Move::Place(random_square(best.squares, &mut self.rng))
            }
            AgentKind::Solver { depth, exact } => self
                .solver
                .as_mut()
                .expect("solver agents own a solver")
                .choose(pos, depth, exact)
                .expect("the game is not over"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for player in [
            AgentKind::Random,
            AgentKind::Greedy,
            AgentKind::Solver {
                depth: 4,
                exact: 12,
            },
        ] {
            assert_eq!(AgentKind::parse(&player.name()), Some(player));
            // JSON names the player as the reports and --players do.
            assert_eq!(serde_json::to_value(player).unwrap(), player.name());
        }
        for bad in [
            "solver",
            "solver-d0-e3",
            "solver-d2",
            "solver-dx-e1",
            "Random",
        ] {
            assert_eq!(AgentKind::parse(bad), None, "{bad}");
        }
    }
}
