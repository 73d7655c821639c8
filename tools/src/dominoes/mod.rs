//! Dominoes (TCO 2009 Marathon final): its verbs and extras.

mod train;

use crate::registry::{GameEntry, Verb};

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "dominoes",
        "Dominoes (TCO 2009 final): hidden hands, a stock, 20 (N,H) cases",
    )
    .extra(Verb::new("train", "Learn the server's weights by self-play (the defaults reproduce the shipped weights); --games paired deals per candidate and opponent each generation", train::run_train).default("seed", train::DEFAULT_SEED).default("games", train::DEFAULT_DEALS))
    .extra(Verb::new("ladder", "Every pair of built-in players over the same paired deals; --games deals per pair", train::run_ladder).default("games", "500"))
}
