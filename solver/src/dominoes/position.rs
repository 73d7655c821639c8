//! A compact, perfect-information position for search: both hands and the
//! stock as tile sets, the two open ends and the side to move.
//!
//! The order of hands is dropped (it matters only to the protocol) and a
//! draw hands out a tile of the stock, each equally likely. With the stock
//! empty the game is a plain two-player game of perfect information.

use super::rules::{Match, Move, Side};
use super::tiles::{MAX_NUMBERS, Tile, Tiles};
use crate::game::MoveList;

/// The placements and draws open to the mover: at most one per tile of each end's suit.
pub type PositionMoves = MoveList<Move, { 2 * MAX_NUMBERS as usize }>;

/// A position with every tile's place known (the stock as a set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The hands of seat 0 and seat 1.
    pub hands: [Tiles; 2],
    /// The tiles in the stock.
    pub stock: Tiles,
    /// The number open at the left end.
    pub left: u8,
    /// The number open at the right end.
    pub right: u8,
    /// The seat to move.
    pub mover: u8,
}

impl Position {
    /// The position of a game in progress (the seat to move, or the drawer mid-draw).
    pub fn of(game: &Match) -> Position {
        let (left, right) = game.ends();
        Position {
            hands: [game.hand_set(0), game.hand_set(1)],
            stock: game.stock(),
            left,
            right,
            mover: game.mover() as u8,
        }
    }

    /// The mover's tiles that fit an end.
    pub fn fitting(&self) -> Tiles {
        self.hands[usize::from(self.mover)].and(Tiles::matching(self.left, self.right))
    }

    /// Whether the game is over: a hand is empty, or nobody can place or draw.
    pub fn is_over(&self) -> bool {
        let ends = Tiles::matching(self.left, self.right);
        self.hands[0].is_empty()
            || self.hands[1].is_empty()
            || (self.stock.is_empty() && self.hands[0].or(self.hands[1]).and(ends).is_empty())
    }

    /// Seat 0's score once over: 1 for a win, ½ for a tie, 0 for a loss.
    pub fn score(&self) -> f64 {
        debug_assert!(self.is_over());
        let (a, b) = (self.hands[0], self.hands[1]);
        if a.is_empty() {
            1.0
        } else if b.is_empty() {
            0.0
        } else {
            match a.pips().cmp(&b.pips()) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            }
        }
    }

    /// The mover's moves: each fitting tile at each end it fits (once when
    /// both ends show the same number), else a draw, else a pass.
    pub fn moves(&self) -> PositionMoves {
        let mut moves = PositionMoves::new();
        let hand = self.hands[usize::from(self.mover)];
        for t in hand.and(Tiles::suit(self.left)).iter() {
            moves.push(Move::Place(t, Side::Left));
        }
        if self.right != self.left {
            for t in hand.and(Tiles::suit(self.right)).iter() {
                moves.push(Move::Place(t, Side::Right));
            }
        }
        if moves.is_empty() {
            moves.push(if self.stock.is_empty() {
                Move::Pass
            } else {
                Move::Draw
            });
        }
        moves
    }

    /// Plays a placement or a pass of the mover, or hands the mover a drawn tile
    /// (`Move::Drawn`; `Move::Draw` itself changes nothing and is not played here).
    pub fn play(&mut self, mv: Move) {
        let seat = usize::from(self.mover);
        match mv {
            Move::Place(t, side) => {
                self.hands[seat].remove(t);
                match side {
                    Side::Left => self.left = t.other(self.left),
                    Side::Right => self.right = t.other(self.right),
                }
                self.mover ^= 1;
            }
            Move::Pass => self.mover ^= 1,
            Move::Drawn(t) => {
                self.stock.remove(t);
                self.hands[seat].insert(t);
            }
            Move::Draw => {}
        }
    }

    /// The position after `mv`.
    pub fn after(mut self, mv: Move) -> Position {
        self.play(mv);
        self
    }

    /// The tile set of every tile not yet on the line.
    pub fn unplayed(&self) -> Tiles {
        self.hands[0].or(self.hands[1]).or(self.stock)
    }
}

/// Whether `tile` fits either open end of `pos`.
pub fn fits(pos: &Position, tile: Tile) -> bool {
    tile.has(pos.left) || tile.has(pos.right)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dominoes::rules::{Deal, Rules};
    use crate::game::{Game, Turn};
    use rand::SeedableRng;
    use rand::seq::IndexedRandom;
    use rand_chacha::ChaCha8Rng;

    /// Random games played on the referee's state and on the compact position
    /// agree on every move list (as sets of effects) and on the result.
    #[test]
    fn the_position_follows_the_referee_state() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for rules in Rules::all() {
            for _ in 0..20 {
                let mut game = Match::new(&Deal::random(rules, &mut rng));
                let mut pos = Position::of(&game);
                loop {
                    assert_eq!(pos.is_over(), game.is_over());
                    if game.is_over() {
                        assert_eq!(pos.score(), game.scores()[0]);
                        break;
                    }
                    if game.turn() == Turn::Seat(usize::from(pos.mover)) {
                        let ours = pos.moves();
                        let theirs = game.moves();
                        for mv in theirs.iter() {
                            let twin = match *mv {
                                Move::Place(t, Side::Right) if pos.left == pos.right => {
                                    Move::Place(t, Side::Left)
                                }
                                other => other,
                            };
                            assert!(ours.contains(&twin), "{mv:?} missing from {ours:?}");
                        }
                    }
                    let mv = *game.moves().choose(&mut rng).unwrap();
                    game.apply(mv);
                    pos.play(mv);
                    assert_eq!(pos, Position::of(&game));
                }
            }
        }
    }
}
