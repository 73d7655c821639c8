//! MultiplayerReversi (TopCoder Marathon Match 31): Reversi for 3 players on
//! odd boards and 4 on even ones, 7×7 to 12×12.
//!
//! - [`board`]: the bitboard position, legal moves, flips, skipped turns and
//!   the per-seat case score, and the general [`crate::Game`] for referees;
//! - [`opponents`]: the computer opponents' weighted-ratio rule and its corner cases;
//! - [`search`]: the positional table, a generic evaluation, paranoid and Best-Reply Search;
//! - [`lookahead`]: a search over one player's own moves against deterministic policies;
//! - the model inferring the opponents' weights from their observed choices is
//!   a player's concern, in `tabula_verify::reversi::model`;
//! - [`plain`]: the rules on a plain grid, the reference for tests and benchmarks.

pub mod board;
pub mod lookahead;
pub mod opponents;
pub mod plain;
pub mod search;

pub use board::{Board, MAX_N, MIN_N};
pub use opponents::{Rule, Weights};
