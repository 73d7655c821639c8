//! Dominoes (TCO 2009 Marathon final): its verbs and extras.

mod verify;

use crate::registry::{GameEntry, Verb};

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "dominoes",
        "Dominoes (TCO 2009 final): hidden hands, a stock, 20 (N,H) cases",
    )
    .verb(
        Verb::new(
            "verify",
            "Every built-in player against the ladder on paired deals",
            verify::verify,
        )
        .default("games", "1000"),
    )
}
