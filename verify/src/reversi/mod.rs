//! MultiplayerReversi's contest pieces: the opponents' genetic algorithm, the
//! `getNextMove` wire, the built-in players and the tester's cases.

pub mod evolve;
pub mod referee;
pub mod wire;

pub use wire::ReversiWire;

use rand_chacha::ChaCha8Rng;
use tabula_solver::grid::Square;
use tabula_solver::reversi::{Board, Rule, Weights};

use crate::agent::{Agent, RandomAgent};

/// The built-in players, weakest first.
pub const AGENTS: &[&str] = &["random", "greedy"];

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Board>>> {
    match name {
        "random" => Some(Box::new(RandomAgent::new(rng))),
        "greedy" => Some(Box::new(Greedy)),
        _ => None,
    }
}

/// Takes the most pieces now (the most flips); ties go to the first move in row-major order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Agent<Board> for Greedy {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, view: &Board) -> Square {
        let seat = view.mover().expect("asked only when it can move");
        let mut best: Option<(u32, Square)> = None;
        // Squares come in row-major order: a later move must be strictly better.
        for square in view.moves_of(seat).iter() {
            let flips = view.flips(seat, square as Square).count();
            if best.is_none_or(|(most, _)| flips > most) {
                best = Some((flips, square as Square));
            }
        }
        best.expect("the mover has a move").1
    }
}

/// A computer opponent: the statement's weighted-ratio rule with its weights.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opponent {
    /// The strategy: one weight per cell.
    pub weights: Weights,
    /// The rule's corner cases.
    pub rule: Rule,
}

impl Agent<Board> for Opponent {
    fn name(&self) -> String {
        "opponent".into()
    }

    fn choose(&mut self, view: &Board) -> Square {
        self.weights
            .choose(view, self.rule)
            .expect("asked only when it can move")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{Purpose, stream};
    use rand::RngExt;
    use tabula_solver::Game;
    use tabula_solver::reversi::board::MAX_CELLS;
    use tabula_solver::reversi::{MAX_N, MIN_N};

    #[test]
    fn every_listed_agent_is_built_and_plays_legal_moves() {
        for &name in AGENTS {
            for n in MIN_N..=MAX_N {
                let mut a = agent(name, stream(1, Purpose::Agent, 0, 0, 0)).unwrap();
                assert_eq!(a.name(), name);
                let mut board = Board::start(n).unwrap();
                while board.mover().is_some() {
                    let mv = a.choose(&board);
                    assert!(board.check(mv).is_ok(), "{name} n {n}");
                    board.play(mv);
                }
            }
        }
        assert!(agent("nobody", stream(1, Purpose::Agent, 0, 0, 0)).is_none());
    }

    #[test]
    fn greedy_takes_the_most_pieces_first_in_row_major_order() {
        let mut rng = stream(2, Purpose::Agent, 0, 0, 0);
        for n in MIN_N..=MAX_N {
            let mut board = Board::start(n).unwrap();
            while let Some(seat) = board.mover() {
                let moves = board.moves();
                // The plain reading: count each move's pieces after playing it.
                let after = |m: Square| {
                    let mut next = board;
                    next.play(m);
                    next.pieces(seat).count()
                };
                let most = moves.iter().map(|&m| after(m)).max().unwrap();
                let first = *moves.iter().find(|&&m| after(m) == most).unwrap();
                assert_eq!(Greedy.choose(&board), first, "n {n}");
                board.play(moves[rng.random_range(0..moves.len())]);
            }
        }
    }

    #[test]
    fn the_opponent_plays_its_weights_choice() {
        let mut weights = Weights([0.0; MAX_CELLS]);
        let mut rng = stream(3, Purpose::Setup, 0, 0, 0);
        for w in weights.0.iter_mut() {
            *w = rng.random_range(-50.0..50.0);
        }
        let mut opponent = Opponent {
            weights,
            rule: Rule::default(),
        };
        let mut board = Board::start(9).unwrap();
        while board.mover().is_some() {
            let mv = opponent.choose(&board);
            assert_eq!(Some(mv), weights.choose(&board, Rule::default()));
            board.play(mv);
        }
    }
}
