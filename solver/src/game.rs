//! The two-player game trait shared by every perfect-information game.

use std::fmt::Debug;
use std::ops::Deref;

/// A fixed-capacity list of moves that never allocates.
pub type MoveList<M, const N: usize> = arrayvec::ArrayVec<M, N>;

/// A two-player, zero-sum game with perfect information, seen from the player to move.
///
/// Scores are kept as differences: playing a move returns what the mover gained
/// minus what the opponent gained by it, and [`Game::final_value`] gives the
/// remaining difference of a finished game for the player who would move next.
/// Games scored only at the end (Othello-like) return 0 from `play`; games scored
/// move by move (Mancala-like) have a final value of 0. The exact value of a
/// position is therefore the negamax of `reward - value(child)`.
pub trait Game: Clone {
    /// A move; small and `Copy` (a pass is a move too, where the rules allow it).
    type Move: Copy + Eq + Debug;
    /// The move list type, usually a [`MoveList`] with the game's largest branching.
    type Moves: Default + Deref<Target = [Self::Move]>;

    /// The legal moves of the player to move; empty exactly when the game is over.
    fn legal_moves(&self) -> Self::Moves;

    /// Plays `mv` for the player to move and returns the mover's gain minus the opponent's.
    fn play(&mut self, mv: Self::Move) -> i32;

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
}
