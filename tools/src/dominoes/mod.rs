//! Dominoes (TCO 2009 Marathon final): its verbs and extras.

use crate::registry::GameEntry;

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "dominoes",
        "Dominoes (TCO 2009 final): hidden hands, a stock, 20 (N,H) cases",
    )
}
