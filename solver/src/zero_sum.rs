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

/// One move of a [`Line`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineMove<M> {
    /// The move.
    pub mv: M,
    /// Whether the line's first mover plays it (else the other player does).
    pub by_first: bool,
    /// Its mover's gain less the opponent's.
    pub reward: i32,
}

/// A line of play from a position to the end of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<M> {
    /// The moves, in order.
    pub moves: Vec<LineMove<M>>,
    /// What the finished game still owes the first mover ([`ZeroSum::final_value`], signed for her).
    pub final_for_first: i32,
}

impl<M> Line<M> {
    /// The first mover's difference over the whole line: on an optimal line, the position's value.
    pub fn difference(&self) -> i32 {
        let rewards: i32 = self
            .moves
            .iter()
            .map(|m| if m.by_first { m.reward } else { -m.reward })
            .sum();
        rewards + self.final_for_first
    }
}

/// No legal move of a position on the line reaches the position's value: the values given are not the game's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "after {ply} moves of the optimal line no move reaches the position's value {value}: \
     the values are inconsistent"
)]
pub struct Unreached {
    /// Moves of the line before the position.
    pub ply: usize,
    /// The value `value_of` gave the position.
    pub value: i32,
}

/// The principal line from `start`: at each position the first legal move (in
/// the game's order) whose value, from `value_of` on its child, equals the
/// position's, until the game is over.
///
/// It ends because the games' moves never repeat a position (the retrograde
/// builder refuses a cycle), whatever the values say.
pub fn principal_line<G: ZeroSum, E: From<Unreached>>(
    start: &G,
    mut value_of: impl FnMut(&G) -> Result<i32, E>,
) -> Result<Line<G::Move>, E> {
    let value = match start.is_over() {
        true => start.final_value(),
        false => value_of(start)?,
    };
    principal_line_from(start, value, |position, mv, child, reward, here| {
        let child_value = value_of(child)?;
        Ok((position.move_value(mv, reward, child_value) == here).then_some(child_value))
    })
}

/// [`principal_line`] from `start`, whose value is `value`, with each move
/// tested by `optimal(position, mv, child, reward, value_here)`: the child's
/// value when `mv` reaches the position's value, else `None`. A search can
/// answer that with one null-window test, without the child's exact value.
pub fn principal_line_from<G: ZeroSum, E: From<Unreached>>(
    start: &G,
    value: i32,
    mut optimal: impl FnMut(&G, G::Move, &G, i32, i32) -> Result<Option<i32>, E>,
) -> Result<Line<G::Move>, E> {
    let mut position = start.clone();
    let mut first_to_move = true;
    let mut moves = Vec::new();
    let mut value_here = value;
    loop {
        let legal = position.legal_moves();
        if legal.is_empty() {
            let owed = position.final_value();
            let final_for_first = if first_to_move { owed } else { -owed };
            return Ok(Line {
                moves,
                final_for_first,
            });
        }
        let mut chosen = None;
        for &mv in legal.iter() {
            let (child, reward) = position.after(mv);
            if let Some(child_value) = optimal(&position, mv, &child, reward, value_here)? {
                chosen = Some((mv, child, reward, child_value));
                break;
            }
        }
        let Some((mv, child, reward, child_value)) = chosen else {
            return Err(Unreached {
                ply: moves.len(),
                value: value_here,
            }
            .into());
        };
        value_here = child_value;
        moves.push(LineMove {
            mv,
            by_first: first_to_move,
            reward,
        });
        if !position.keeps_turn(mv) {
            first_to_move = !first_to_move;
        }
        position = child;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::ioiwari::Board;
    use crate::kalah::{Kalah, Rules};
    use crate::nim::Nim;
    use crate::search::{memo_negamax, negamax};

    /// Checks that `line` is optimal from `start` move by move against the
    /// memoized negamax, and that its difference is the start's value.
    fn check_line<G: ZeroSum + Eq + std::hash::Hash>(
        start: &G,
        memo: &mut HashMap<G, i32>,
    ) -> Line<G::Move> {
        let line =
            principal_line(start, |g: &G| Ok::<_, Unreached>(memo_negamax(g, memo))).unwrap();
        assert_eq!(line.difference(), memo_negamax(start, memo));
        let mut position = start.clone();
        for step in &line.moves {
            let value = memo_negamax(&position, memo);
            let (child, reward) = position.after(step.mv);
            assert_eq!(reward, step.reward);
            assert_eq!(
                position.move_value(step.mv, reward, memo_negamax(&child, memo)),
                value
            );
            // No earlier move is optimal: the line takes the first.
            for &mv in position
                .legal_moves()
                .iter()
                .take_while(|&&mv| mv != step.mv)
            {
                let (other, reward) = position.after(mv);
                assert!(position.move_value(mv, reward, memo_negamax(&other, memo)) < value);
            }
            position = child;
        }
        assert!(
            position.legal_moves().is_empty(),
            "the line ends with the game"
        );
        line
    }

    #[test]
    fn ioiwari_lines_are_optimal_and_worth_the_value() {
        let mut memo = HashMap::new();
        // Boards of at most 12 beads, every 97th index: small enough for the
        // memoized negamax, and both players' moves appear.
        let mut checked = 0;
        for index in (0..6usize.pow(7)).step_by(97) {
            let board = Board::from_index(index);
            if board.beads() > 12 {
                continue;
            }
            let line = check_line(&board, &mut memo);
            if line.moves.len() > 1 {
                assert!(!line.moves[1].by_first, "the players alternate");
            }
            checked += 1;
        }
        assert!(checked > 100, "{checked} boards");
    }

    #[test]
    fn kalah_lines_follow_a_kept_turn() {
        let mut memo = HashMap::new();
        let mut kept = 0;
        for (pits, seeds) in [(2, 2), (3, 2), (2, 3)] {
            let start = Rules::new(pits, seeds).unwrap().start();
            let line: Line<u8> = check_line::<Kalah>(&start, &mut memo);
            assert_eq!(line.difference(), negamax(&start));
            kept += line
                .moves
                .windows(2)
                .filter(|pair| pair[0].by_first == pair[1].by_first)
                .count();
        }
        assert!(kept > 0, "some line moves again");
    }

    #[test]
    fn the_final_value_is_signed_for_the_first_mover() {
        // Nim scores only at the end: -1 for the player left without a move.
        for heap in 1..12 {
            let line =
                principal_line(&Nim::new(heap), |g: &Nim| Ok::<_, Unreached>(negamax(g))).unwrap();
            assert_eq!(line.difference(), negamax(&Nim::new(heap)), "heap {heap}");
            assert_eq!(line.difference(), if heap % 4 == 0 { -1 } else { 1 });
        }
    }

    #[test]
    fn values_no_move_reaches_are_refused() {
        // A constant value: every move is worth its negation, so none reaches it.
        let err = principal_line(&Nim::new(5), |_: &Nim| Ok::<_, Unreached>(1)).unwrap_err();
        assert_eq!(err, Unreached { ply: 0, value: 1 });
        // Right for heaps 4 to 6 only: the line from 6 takes 2, then finds
        // every child of 4 wrong.
        let right = |g: &Nim| (4..=6).contains(&g.heap);
        let err = principal_line(&Nim::new(6), |g: &Nim| {
            Ok::<_, Unreached>(if right(g) { negamax(g) } else { 7 })
        })
        .unwrap_err();
        assert_eq!(err, Unreached { ply: 1, value: -1 });
    }
}
