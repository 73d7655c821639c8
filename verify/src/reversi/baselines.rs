//! The model-free players: `weights` (one ply on the fixed positional table),
//! `paranoid` and `brs` (searches with the generic evaluation of
//! [`tabula_solver::reversi::search`]). None of them reads the opponents'
//! weights; all are deterministic (no random draws at all).

use tabula_solver::grid::Square;
use tabula_solver::reversi::Board;
use tabula_solver::reversi::search::{Evaluation, Kind, Limits, decide};

use crate::agent::Agent;

/// The searches' default limits: about 2.5 µs a node, so about 30 ms a
/// decision and 0.4 s of CPU for a whole 12×12 game of player 1 (measured).
pub const SEARCH_LIMITS: Limits = Limits {
    depth: 16,
    nodes: 12_000,
};

/// The evaluation of the side of `board`, rebuilt only when the side changes.
fn evaluation<'a>(
    cache: &'a mut Option<Evaluation>,
    board: &Board,
    n: &mut usize,
) -> &'a Evaluation {
    if cache.is_none() || *n != board.n() {
        *n = board.n();
        *cache = Some(Evaluation::new(board.n()));
    }
    cache.as_ref().expect("just built")
}

/// Plays the move after which `table(own) − table(others)/(P−1)` is highest on
/// the fixed positional table; ties go to the first in row-major order.
#[derive(Clone, Debug, Default)]
pub struct WeightsPlayer {
    eval: Option<Evaluation>,
    n: usize,
}

impl Agent<Board> for WeightsPlayer {
    fn name(&self) -> String {
        "weights".into()
    }

    fn choose(&mut self, view: &Board) -> Square {
        let seat = view.mover().expect("asked only when it can move");
        let eval = evaluation(&mut self.eval, view, &mut self.n);
        let others = view.players() as i32 - 1;
        let mut best: Option<(i32, Square)> = None;
        for square in view.moves_of(seat).iter() {
            let mut next = *view;
            next.play(square as Square);
            let own = next.pieces(seat);
            // Scaled by P−1 so that no division rounds.
            let value =
                others * eval.positional(own) - eval.positional(next.occupied().and_not(own));
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, square as Square));
            }
        }
        best.expect("the mover has a move").1
    }
}

/// A searcher: paranoid alpha-beta or Best-Reply Search within [`Limits`].
#[derive(Clone, Debug)]
pub struct Searcher {
    kind: Kind,
    limits: Limits,
    eval: Option<Evaluation>,
    n: usize,
}

impl Searcher {
    /// A searcher of `kind` within `limits`.
    pub fn new(kind: Kind, limits: Limits) -> Searcher {
        Searcher {
            kind,
            limits,
            eval: None,
            n: 0,
        }
    }
}

impl Agent<Board> for Searcher {
    fn name(&self) -> String {
        match self.kind {
            Kind::Paranoid => "paranoid".into(),
            Kind::BestReply => "brs".into(),
        }
    }

    fn choose(&mut self, view: &Board) -> Square {
        let seat = view.mover().expect("asked only when it can move");
        let eval = evaluation(&mut self.eval, view, &mut self.n);
        decide(self.kind, view, seat, eval, self.limits)
            .expect("the mover has a move")
            .square
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_solver::reversi::search::positional_table;

    #[test]
    fn weights_takes_a_corner_when_it_can() {
        // Player 1 can take the corner (0,0) over a run of 2, or other cells.
        let rows = [
            ".......", ".2.....", "..1....", "...2...", "...21..", "...3...", ".......",
        ];
        let board = Board::from_rows(&rows, 0).unwrap();
        assert!(board.moves_of(0).has(0));
        assert_eq!(WeightsPlayer::default().choose(&board), 0);
        assert_eq!(
            positional_table(7)[0],
            tabula_solver::reversi::search::CORNER
        );
    }

    #[test]
    fn searchers_play_the_solvers_decision() {
        let board = Board::start(9).unwrap();
        let eval = Evaluation::new(9);
        for kind in [Kind::Paranoid, Kind::BestReply] {
            let mut player = Searcher::new(kind, SEARCH_LIMITS);
            let expect = decide(kind, &board, 0, &eval, SEARCH_LIMITS)
                .unwrap()
                .square;
            assert_eq!(player.choose(&board), expect);
        }
    }
}
