//! The general game model every game of tabula implements: seats, chance,
//! hidden information and per-seat scores.
//!
//! A [`Game`] value is the whole true state of one game, as a referee holds it.
//! Players never see it: each seat gets a [`Game::view`] of it (the state itself
//! for perfect-information games) and an [`Game::observe`]d version of every
//! move. The exact searches work on the narrower [`crate::ZeroSum`] trait
//! instead, and the retrograde builder on [`crate::retrograde::StateSpace`].

use std::fmt::Debug;
use std::ops::Deref;

use rand::{Rng, RngExt};

/// A fixed-capacity list of moves that never allocates.
pub type MoveList<M, const N: usize> = arrayvec::ArrayVec<M, N>;

/// A player's place at the table, `0..seats`; seat 0 moves first unless the game says otherwise.
pub type Seat = usize;

/// The most seats a game may have.
pub const MAX_SEATS: usize = 4;

/// Per-seat scores, seat 0 first.
pub type Scores = arrayvec::ArrayVec<f64, MAX_SEATS>;

/// Who acts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// This seat chooses a move.
    Seat(Seat),
    /// Chance picks one of the legal moves, in proportion to [`Game::chance_weight`].
    Chance,
    /// The game is over.
    Over,
}

/// In words: "seat 1", "chance", "nobody (the game is over)".
impl std::fmt::Display for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Turn::Seat(seat) => write!(f, "seat {seat}"),
            Turn::Chance => write!(f, "chance"),
            Turn::Over => write!(f, "nobody (the game is over)"),
        }
    }
}

/// Why a move was refused, in words for the user (`pit 3 is empty`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move: {0}")]
pub struct IllegalMove(pub String);

/// A game as a referee holds it: the whole state, seats, chance and scores.
pub trait Game: Clone + Debug + Send + Sync {
    /// A move of a seat or an outcome of chance; small and `Copy`.
    type Move: Copy + Eq + Debug + Send + Sync;
    /// The move list type, usually a [`MoveList`].
    type Moves: Default + Deref<Target = [Self::Move]>;
    /// What one seat may see of the state; the state itself with perfect information.
    type View: Clone + Debug + Send;
    /// What one seat learns of a move; the move itself with perfect information.
    type Observation: Clone + Debug + Send;
    /// The parameters of a test case (board size, starting board, deal sizes...).
    type Params: Clone + Debug + Send + Sync;

    /// The number of seats.
    fn seats(&self) -> usize;

    /// Who acts next.
    fn turn(&self) -> Turn;

    /// The legal moves of the seat to move, or the outcomes of chance; empty when over.
    fn moves(&self) -> Self::Moves;

    /// Plays a move already known to be legal (see [`Game::check_move`]).
    fn apply(&mut self, mv: Self::Move);

    /// Per-seat scores so far; the final scores once the game is over.
    fn scores(&self) -> Scores;

    /// What `seat` may see of the state.
    fn view(&self, seat: Seat) -> Self::View;

    /// What `seat` learns of `mv`, which is about to be played from this state.
    fn observe(&self, mv: Self::Move, seat: Seat) -> Self::Observation;

    /// The legal moves of the seat that sees `view`, when it is that seat's turn.
    fn view_moves(view: &Self::View) -> Self::Moves;

    /// The contest's rule for a seat that broke the rules or failed to answer:
    /// the game stops here by default (the seat loses); PseudoTonga's server
    /// instead fills the board.
    fn forfeit(&mut self, _seat: Seat) {}

    /// Whether `mv` is legal now, with the reason when it is not.
    fn check_move(&self, mv: Self::Move) -> Result<(), IllegalMove> {
        if self.moves().contains(&mv) {
            Ok(())
        } else {
            Err(IllegalMove(format!("{mv:?} is not a legal move")))
        }
    }

    /// The relative weight of a chance outcome (all equal by default).
    fn chance_weight(&self, _mv: Self::Move) -> f64 {
        1.0
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.turn() == Turn::Over
    }

    /// Picks a chance outcome from `rng`, in proportion to the weights.
    ///
    /// Panics if it is not chance's turn or there is no outcome.
    fn sample_chance(&self, rng: &mut impl Rng) -> Self::Move {
        let outcomes = self.moves();
        assert!(
            self.turn() == Turn::Chance && !outcomes.is_empty(),
            "sample_chance needs a chance turn with outcomes"
        );
        let weights: Vec<f64> = outcomes.iter().map(|&m| self.chance_weight(m)).collect();
        weighted_pick(&outcomes, &weights, rng)
    }
}

/// One of `outcomes` (not empty) drawn from `rng` in proportion to `weights`:
/// the draw of every chance turn, so that a tool that replays a game's chance
/// (a deal's stock order) draws exactly as the match loop does.
pub fn weighted_pick<M: Copy>(outcomes: &[M], weights: &[f64], rng: &mut impl Rng) -> M {
    let total: f64 = weights.iter().sum();
    let mut pick = rng.random::<f64>() * total;
    for (&mv, &w) in outcomes.iter().zip(weights) {
        if pick < w {
            return mv;
        }
        pick -= w;
    }
    *outcomes.last().expect("outcomes are not empty")
}

/// A game with hidden information whose full states can be sampled from a view,
/// for determinized search.
pub trait Determinize: Game {
    /// A full state consistent with everything `seat` has seen (`view`).
    fn sample(view: &Self::View, seat: Seat, rng: &mut impl Rng) -> Self;
}
