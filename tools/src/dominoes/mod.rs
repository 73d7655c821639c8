//! Dominoes (TCO 2009 Marathon final): its verbs and extras.

use crate::registry::{GameEntry, Verb};

mod table;

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "dominoes",
        "Dominoes (TCO 2009 final): hidden hands, a stock, 20 (N,H) cases",
    )
    .table_check(table::check_records)
    .verb(Verb::new("build", "Every stock-empty position of the N=5 set (both hands, ends, mover); --output FILE", table::build))
    .verb(Verb::new("query", "Exact result and optimal moves of a stock-empty N=5 position `hand0 / hand1 / left right / mover`", table::query))
}
