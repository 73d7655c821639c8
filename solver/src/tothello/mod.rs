//! Tothello (TopCoder Invitational 2001): Othello on 8x8 with chain reactions.
//!
//! A player places a piece on any empty square (no capture is needed) or
//! passes. After a placement, every opponent piece that lies between two of the
//! mover's pieces changes colour, and this repeats until no opponent piece lies
//! between two of the mover's. "Between" means: following a row, column or
//! diagonal out from the piece in both directions, over the opponent's own
//! pieces, the first other square on each side holds a mover's piece (not an
//! empty square, not the edge).
//!
//! [`board`] holds squares, boards and their notation; [`rules`] the chain
//! reaction and `bestMove` on bitboards; [`position`] the whole game (both
//! game traits); [`search`] the solving player (alpha-beta negamax with a
//! transposition table, exact at the end).

pub mod board;
pub mod position;
pub mod rules;
pub mod search;

#[cfg(test)]
pub(crate) mod reference;

pub use board::{Board, Color, Square, TothelloError, parse_square, square_name};
pub use position::{Move, Position, color_of, seat_of};
pub use rules::{BestMove, Settled, best_move};
pub use search::{SearchResult, Solver};
