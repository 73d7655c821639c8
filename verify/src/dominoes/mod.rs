//! Dominoes' contest pieces: the wire, the opponent ladder, the players and
//! the referee's cases.

pub mod analysis;
pub mod clairvoyant;
pub mod contest;
pub mod draw;
pub mod ladder;
pub mod model;
pub mod notation;
pub mod opponents;
pub mod players;
pub mod referee;
pub mod report;
pub mod terminal;
pub mod train;
pub mod wire;

pub use clairvoyant::Clairvoyant;
pub use contest::DominoesContest;
pub use ladder::LADDER;
pub use players::{DealSearcher, Ismcts};
pub use referee::{case_key, deal, parse_cases};
pub use wire::DominoesWire;

use std::sync::OnceLock;

use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::Match;
use tabula_tables::dominoes::DominoesTable;

use crate::agent::{Agent, RandomAgent};

/// The built-in players and opponents, weakest first; `clairvoyant` last
/// (it sees the other hand: a reference ceiling).
pub const AGENTS: &[&str] = &[
    "random",
    "heaviest",
    "doubles",
    "blocker",
    "server",
    "ismcts",
    "pimc",
    "best",
    "clairvoyant",
];

/// Players that see the other hand (never the stock's order): the referee
/// opens the other hand to their seat with `Match::with_open_hand`, and every
/// report marks them as a reference ceiling.
pub const OPEN_HAND_AGENTS: &[&str] = &["clairvoyant"];

/// Whether the agent named `name` plays with the other hand open to it.
pub fn sees_open_hand(name: &str) -> bool {
    OPEN_HAND_AGENTS.contains(&name)
}

/// The agent named `name`, if there is one.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Match>>> {
    match name {
        "random" => Some(Box::new(RandomAgent::new(rng))),
        "heaviest" => Some(Box::new(ladder::Heaviest)),
        "doubles" => Some(Box::new(ladder::Doubles)),
        "blocker" => Some(Box::new(ladder::Blocker::new())),
        "server" => Some(Box::new(opponents::Server::default())),
        "clairvoyant" => Some(Box::new(Clairvoyant::new())),
        "best" => Some(Box::new(Ismcts::best(rng))),
        "pimc" => Some(Box::new(DealSearcher::pimc(
            rng,
            players::DEALS,
            players::NODES,
        ))),
        "ismcts" => Some(Box::new(Ismcts::new(rng, players::ITERATIONS))),
        _ => None,
    }
}

/// The N=5 stock-empty table, once a tool has installed it. Agents are built
/// by name alone, so the one table of a process is kept here for `best` and
/// `pimc`.
static ENDGAME_TABLE: OnceLock<DominoesTable> = OnceLock::new();

/// Makes the N=5 table available to `best` and `pimc`; false if one was installed already.
pub fn install_table(table: DominoesTable) -> bool {
    ENDGAME_TABLE.set(table).is_ok()
}

/// The installed N=5 table, if any.
pub fn endgame_table() -> Option<&'static DominoesTable> {
    ENDGAME_TABLE.get()
}
