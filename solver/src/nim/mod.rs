//! A toy game for the tests of the shared core: one heap, each player takes
//! one to three stones, and whoever takes the last stone wins.
//!
//! It is registered like every other game, so the tests prove that a game
//! gets `serve`, `referee` and `verify` from its own module alone.

use crate::game::{Determinize, Game, MoveList, Scores, Seat, Turn};
use crate::zero_sum::ZeroSum;

/// The most stones one move may take.
pub const MAX_TAKE: u8 = 3;

/// A game of Nim in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Nim {
    /// Stones left on the heap.
    pub heap: u32,
    /// The seat to move.
    pub mover: Seat,
}

impl Nim {
    /// A heap of `heap` stones, seat 0 to move.
    pub fn new(heap: u32) -> Nim {
        Nim { heap, mover: 0 }
    }

    fn takes(heap: u32) -> MoveList<u8, 3> {
        (1..=MAX_TAKE).filter(|&k| u32::from(k) <= heap).collect()
    }
}

impl Game for Nim {
    type Move = u8;
    type Moves = MoveList<u8, 3>;
    type View = Nim;
    type Observation = u8;
    type Params = u32;

    fn seats(&self) -> usize {
        2
    }

    fn turn(&self) -> Turn {
        if self.heap == 0 {
            Turn::Over
        } else {
            Turn::Seat(self.mover)
        }
    }

    fn moves(&self) -> Self::Moves {
        Nim::takes(self.heap)
    }

    fn apply(&mut self, mv: u8) {
        self.heap -= u32::from(mv);
        self.mover = 1 - self.mover;
    }

    fn scores(&self) -> Scores {
        let mut scores: Scores = [0.0, 0.0].into_iter().collect();
        if self.heap == 0 {
            // The seat that would move next did not take the last stone.
            scores[1 - self.mover] = 1.0;
        }
        scores
    }

    fn view(&self, _seat: Seat) -> Nim {
        *self
    }

    fn observe(&self, mv: u8, _seat: Seat) -> u8 {
        mv
    }

    fn view_moves(view: &Nim) -> Self::Moves {
        view.moves()
    }

    fn check_move(&self, mv: u8) -> Result<(), crate::IllegalMove> {
        if (1..=MAX_TAKE).contains(&mv) && u32::from(mv) <= self.heap {
            Ok(())
        } else {
            Err(crate::IllegalMove(format!(
                "cannot take {mv} from a heap of {}",
                self.heap
            )))
        }
    }
}

impl ZeroSum for Nim {
    type Move = u8;
    type Moves = MoveList<u8, 3>;

    fn legal_moves(&self) -> Self::Moves {
        Nim::takes(self.heap)
    }

    fn play(&mut self, mv: u8) -> i32 {
        Game::apply(self, mv);
        0
    }

    fn final_value(&self) -> i32 {
        // The player to move at an empty heap has lost.
        -1
    }
}

/// The winning take: leave a multiple of four, if possible.
pub fn winning_take(heap: u32) -> Option<u8> {
    match heap % 4 {
        0 => None,
        k => Some(k as u8),
    }
}

/// Perfect information: the view is the whole state.
impl Determinize for Nim {
    fn sample(view: &Nim, _seat: Seat, _rng: &mut impl rand::Rng) -> Nim {
        *view
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::negamax;

    #[test]
    fn multiples_of_four_lose_and_the_winning_take_wins() {
        for heap in 1..=14 {
            let nim = Nim::new(heap);
            let value = negamax(&nim);
            assert_eq!(value == -1, heap % 4 == 0, "heap {heap}");
            if let Some(k) = winning_take(heap) {
                let (child, _) = nim.after(k);
                assert_eq!(negamax(&child), -1, "heap {heap} take {k}");
            }
        }
    }

    #[test]
    fn the_last_taker_scores() {
        let mut nim = Nim::new(5);
        for k in [1, 3, 1] {
            nim.check_move(k).unwrap();
            Game::apply(&mut nim, k);
        }
        assert_eq!(nim.turn(), Turn::Over);
        assert_eq!(nim.scores().as_slice(), &[1.0, 0.0]);
        assert!(Nim::new(2).check_move(3).is_err());
        assert!(Nim::new(9).check_move(0).is_err());
    }
}
