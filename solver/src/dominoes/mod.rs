//! Dominoes (TCO 2009 Marathon final): block-and-draw dominoes for two
//! players with hidden hands and a stock.
//!
//! - [`tiles`]: tiles and tile sets as bit masks;
//! - [`rules`]: the referee's game ([`Match`]), deals, the opening rule, legal
//!   moves with their reasons, and what each seat sees;
//! - [`inference`]: what a seat infers of the other hand from its views, and an exact sampler of it;
//! - [`position`]: the compact perfect-information position that searches use;
//! - [`search`]: the exact endgame solver and the expectimax over draws;
//! - [`space`]: every stock-empty position of a small set as a dense state
//!   space for the retrograde builder (the N = 5 table).

pub mod inference;
pub mod position;
pub mod rules;
pub mod search;
pub mod space;
pub mod tiles;

pub use position::Position;
pub use rules::{Deal, Match, Move, Observation, Rules, Side, View};
pub use tiles::{Tile, Tiles};
