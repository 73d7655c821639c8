//! Game rules and exact solving algorithms for tabula.
//!
//! This crate does no I/O. Each game lives in its own module and plugs into the
//! shared mechanisms: the general [`Game`] model (seats, chance, views) that
//! referees and agents use; the narrower two-player [`ZeroSum`] trait with its
//! reference searches in [`search`]; the alpha-beta search of [`alphabeta`]
//! that the two-player solvers plug into; and the
//! [`retrograde::StateSpace`] trait with its layered builder.

pub mod alphabeta;
pub mod distributed;
pub mod dominoes;
pub mod game;
pub mod grid;
pub mod ioiwari;
pub mod kalah;
pub mod nim;
pub mod perft;
pub mod retrograde;
pub mod reversi;
pub mod search;
pub mod tonga;
pub mod tothello;
pub mod zero_sum;

pub use game::{Game, IllegalMove, MoveList, Scores, Seat, Turn, weighted_pick};
pub use zero_sum::ZeroSum;
