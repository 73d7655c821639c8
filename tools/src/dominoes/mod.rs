//! Dominoes (TCO 2009 Marathon final): its verbs and extras.

mod referee;
// The deals report, for its published schema.
pub(crate) use referee::DealsReport;
mod table;
mod train;
mod verify;

use std::path::PathBuf;

use clap::Args;
use tabula_tables::dominoes::DominoesTable;

use crate::registry::{GameEntry, Verb};

/// `--table FILE`: the N=5 table that `best` and `pimc` answer stock-empty N=5 positions from.
#[derive(Args)]
pub struct TableArgs {
    /// The N=5 stock-empty table (`tabula build dominoes`); `best` and `pimc`
    /// answer from it once the stock is empty at N=5 (without it, by exact search).
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
}

impl TableArgs {
    /// Opens the table, if one was given, checks every record against its
    /// children, and hands it to the players. The players cannot report a bad
    /// record in the middle of a game, so no record is used unchecked.
    pub fn install(&self) -> anyhow::Result<()> {
        if let Some(path) = &self.table {
            // The errors name the file.
            let table = DominoesTable::open(path)?;
            let spinner = crate::progress::spinner("checking the table's records");
            let checked = table.check_records();
            spinner.finish_and_clear();
            checked?;
            tabula_verify::dominoes::install_table(table);
        }
        Ok(())
    }
}

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "dominoes",
        "Dominoes (TCO 2009 final): hidden hands, a stock, 20 (N,H) cases",
    )
        .draws(tabula_verify::dominoes::draw::show)
        .analyzes(tabula_verify::dominoes::analysis::analyst)
    .agents(tabula_verify::dominoes::AGENTS)
    .verb(
        Verb::new(
            "verify",
            "Every built-in player against the ladder on paired deals",
            verify::verify,
        )
        .default("games", "1000"),
    )
    .verb(Verb::new("play", "Play one of the referee's deals against a built-in player (default the server) in the terminal", referee::play))
    .verb(Verb::new("serve", "A built-in player on the init/reset/play line protocol; one process serves a whole run", referee::serve))
    .verb(Verb::new("referee", "The tester: a player against a built-in opponent on the (N,H) cases, scored wins + ties/2; --games per case, --timeout for the player's whole case (only the time waiting for its answers counts)", referee::referee).default("games", "100").default("timeout", "100"))
    .extra(Verb::new("deals", "The referee's deals of each case as test data: both hands, the opening, the stock in the order the draws take it; the referee's game g plays deal g (deal g/2 with --paired), the tested player in seat 0 in even games and seat 1 in odd ones (seats counted from 0, as in the transcripts and logs)", referee::deals))
    .extra(Verb::new("train", "Learn the server's weights by self-play (the defaults reproduce the shipped weights); --games paired deals per candidate and opponent each generation", train::run_train).default("seed", train::DEFAULT_SEED).default("games", train::DEFAULT_DEALS))
    .tables(crate::registry::TableHooks { describe: table::describe_table, check: table::check_records, export: table::export_records })
    .verb(Verb::new("build", "Every stock-empty position of the N=5 set (both hands, ends, mover); --output FILE", table::build))
    .verb(Verb::new("query", "Exact result and optimal moves of a stock-empty N=5 position `hand0 / hand1 / left right / mover`", table::query))
    .verb(Verb::new("perft", "From one of the referee's deals (--case, --deal, --seed); a draw is two plies, DRAW and then the tile (every stock tile a branch)", referee::perft))
}
