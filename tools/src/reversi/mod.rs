//! MultiplayerReversi (TopCoder Marathon Match 31): its verbs and extras.

mod evolve;
mod referee;

use crate::registry::{GameEntry, Verb};

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "reversi",
        "MultiplayerReversi (TopCoder MM 31): 3-4 players, 7x7 to 12x12, evolved computer opponents",
    )
    .verb(Verb::new("serve", "A built-in player on the getNextMove line protocol (one game per process)", referee::serve))
    .verb(Verb::new("referee", "The tester: one game per case against opponents evolved afresh by the statement's genetic algorithm, scored owned x P / (N x N); --timeout for the player's whole case (only the time waiting for its answers counts), a fresh player process per case", referee::referee).default("timeout", "30"))
    .extra(Verb::new("evolve", "Evolve one population of opponents' strategies (the referee's case 0 of that size and seed)", evolve::run_evolve).default("games", "100"))
}
