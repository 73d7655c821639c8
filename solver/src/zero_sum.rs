//! The two-player, zero-sum, perfect-information view of a game that the
//! exact searches work on (the retrograde builder works on
//! [`crate::retrograde::StateSpace`] instead).

use std::fmt::Debug;
use std::ops::Deref;

/// A two-player, zero-sum game with perfect information, seen from the player to move.
///
/// Scores are kept as differences: playing a move returns what the mover gained
/// minus what the opponent gained by it, and [`ZeroSum::final_value`] gives the
/// remaining difference of a finished game for the player who would move next.
/// Games scored only at the end (Othello-like) return 0 from `play`; games scored
/// move by move (Mancala-like) have a final value of 0. The exact value of a
/// position is therefore the negamax of `reward - value(child)`, or of
/// `reward + value(child)` after a move that keeps the turn ([`ZeroSum::keeps_turn`]).
pub trait ZeroSum: Clone {
    /// A move; small and `Copy` (a pass is a move too, where the rules allow it).
    type Move: Copy + Eq + Debug;
    /// The move list type, usually a [`crate::MoveList`] with the game's largest branching.
    type Moves: Default + Deref<Target = [Self::Move]>;

    /// The legal moves of the player to move; empty exactly when the game is over.
    fn legal_moves(&self) -> Self::Moves;

    /// Plays `mv` for the player to move and returns the mover's gain minus the opponent's.
    fn play(&mut self, mv: Self::Move) -> i32;

    /// Whether the player who plays `mv` moves again afterwards (Kalah's last seed
    /// in the store); most games alternate, so the default is `false`.
    fn keeps_turn(&self, _mv: Self::Move) -> bool {
        false
    }

    /// Difference still owed to the player who would move next once the game is over.
    fn final_value(&self) -> i32 {
        0
    }

    /// Whether the game is over.
    fn is_over(&self) -> bool {
        self.legal_moves().is_empty()
    }

    /// The position after `mv`, with the reward of the move.
    fn after(&self, mv: Self::Move) -> (Self, i32) {
        let mut next = self.clone();
        let reward = next.play(mv);
        (next, reward)
    }

    /// The value of `mv` for its mover given the value of the position it leads to.
    fn move_value(&self, mv: Self::Move, reward: i32, child_value: i32) -> i32 {
        if self.keeps_turn(mv) {
            reward + child_value
        } else {
            reward - child_value
        }
    }
}
