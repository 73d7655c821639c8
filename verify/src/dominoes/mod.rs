//! Dominoes' contest pieces: the wire, the opponent ladder, the players and
//! the referee's cases.

use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::Match;

use crate::agent::{Agent, RandomAgent};

/// The built-in players and opponents, weakest first.
pub const AGENTS: &[&str] = &["random"];

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Match>>> {
    match name {
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}
