//! MultiplayerReversi's contest pieces: the opponents' genetic algorithm, the
//! `getNextMove` wire, the built-in players and the tester's cases.

pub mod analysis;
pub mod baselines;
pub mod best;
pub mod contest;
pub mod draw;
pub mod evolve;
pub mod model;
pub mod notation;
pub mod oracle;
pub mod query;
pub mod referee;
pub mod report;
pub mod terminal;
pub mod wire;

pub use contest::ReversiContest;
pub use wire::ReversiWire;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rand_chacha::ChaCha8Rng;
use tabula_solver::grid::Square;
use tabula_solver::reversi::search::Kind;
use tabula_solver::reversi::{Board, Rule, Weights};

use crate::agent::{Agent, RandomAgent};

/// The built-in players, weakest first.
pub const AGENTS: &[&str] = &["random", "greedy", "weights", "paranoid", "brs", "best"];

/// The players that only [`case_agent`] builds (they read the case's opponents):
/// `oracle`, the reference ceiling.
pub const REFERENCE_AGENTS: &[&str] = &["oracle"];

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Board>>> {
    match name {
        "random" => Some(Box::new(RandomAgent::new(rng))),
        "greedy" => Some(Box::new(Greedy)),
        "weights" => Some(Box::new(baselines::WeightsPlayer::default())),
        "paranoid" => Some(Box::new(baselines::Searcher::new(
            Kind::Paranoid,
            baselines::SEARCH_LIMITS,
        ))),
        "brs" => Some(Box::new(baselines::Searcher::new(
            Kind::BestReply,
            baselines::SEARCH_LIMITS,
        ))),
        // Served alone: nobody reads its predictions.
        "best" => Some(Box::new(best::Best::new(rng, Arc::default()))),
        _ => None,
    }
}

/// The agent named `name` for one case whose computer opponents are
/// `opponents` (seats 1.. in order). Only reference players (the `oracle`)
/// read the opponents; a player that predicts the opponents' moves counts
/// its predictions in `predictions`. Falls back on [`agent`].
pub fn case_agent(
    name: &str,
    rng: ChaCha8Rng,
    opponents: &[Opponent],
    predictions: &Arc<Predictions>,
) -> Option<Box<dyn Agent<Board>>> {
    match name {
        "oracle" => Some(Box::new(oracle::Oracle::new(opponents))),
        "best" => Some(Box::new(best::Best::new(rng, Arc::clone(predictions)))),
        _ => agent(name, rng),
    }
}

/// How often a player's model named the opponents' next moves, shared
/// between the player and the report that reads it after the games.
#[derive(Debug, Default)]
pub struct Predictions {
    right: AtomicU64,
    asked: AtomicU64,
}

impl Predictions {
    /// Records one prediction of an opponent's move.
    pub fn record(&self, right: bool) {
        self.asked.fetch_add(1, Ordering::Relaxed);
        if right {
            self.right.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Right predictions and predictions made.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.right.load(Ordering::Relaxed),
            self.asked.load(Ordering::Relaxed),
        )
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
    fn predictions_count_and_rate() {
        use super::report::rate;
        let p = Predictions::default();
        assert_eq!(rate(p.counts()), None);
        p.record(true);
        p.record(false);
        p.record(true);
        assert_eq!(p.counts(), (2, 3));
        assert_eq!(rate(p.counts()), Some(2.0 / 3.0));
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
}
