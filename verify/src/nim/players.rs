//! Nim's built-in players.

use rand_chacha::ChaCha8Rng;
use tabula_solver::nim::{Nim, winning_take};

use crate::agent::{Agent, RandomAgent};

/// The built-in players.
pub const AGENTS: [&str; 2] = ["optimal", "random"];

/// Leaves a multiple of four when it can, else takes one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Optimal;

impl Agent<Nim> for Optimal {
    fn name(&self) -> String {
        "optimal".into()
    }

    fn choose(&mut self, view: &Nim) -> u8 {
        winning_take(view.heap).unwrap_or(1)
    }
}

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Nim>>> {
    match name {
        "optimal" => Some(Box::new(Optimal)),
        "random" => Some(Box::new(RandomAgent::new(rng))),
        _ => None,
    }
}
