//! `tabula … tonga`: score, server-moves, solve, build, query, referee, serve and verify.

mod query;
mod referee;
mod rules;
mod table;
mod verify;

use std::io;

use anyhow::{Context, bail};
use clap::Args;
use tabula_solver::tonga::Board;

use crate::registry::{GameEntry, TableHooks, Verb};

/// Board sides (comma-separated) of the commands that play games.
#[derive(Args)]
pub struct SizesArgs {
    /// Board sides, comma-separated (even, 4 to 16).
    #[arg(long, value_delimiter = ',', default_value = "6,8,10,12,14,16")]
    sizes: Vec<usize>,
}

/// The game's registration: its verbs and extras.
pub fn entry() -> GameEntry {
    GameEntry::new("tonga", "PseudoTonga, TopCoder MM 6")
        .draws(tabula_verify::tonga::draw::show)
        .analyzes(tabula_verify::tonga::analysis::analyst)
        .alias("pseudotonga")
        .agents(&tabula_verify::tonga::AGENTS)
        .tables(TableHooks {
            describe: table::describe_table,
            check: table::check_records,
            export: table::export_records,
        })
        .verb(Verb::new("build", "Every 4x4 position reachable with Black first", table::build))
        .verb(Verb::new("query", "Exact value and optimal squares of a 4x4 board read on stdin", query::query))
        .verb(Verb::new("play", "Play the referee's game against the server (or --agent NAME) in the terminal", referee::play).default("seed", "6759"))
        .verb(Verb::new("serve", "A built-in player over the init/move/end line protocol", referee::serve).default("seed", "6759"))
        .verb(Verb::new("referee", "The server against a player, with the TopCoder scoring; --games per board side, --timeout for the player's whole game (only the time waiting for its answers counts)", referee::referee).default("seed", "6759").default("timeout", "20"))
        .verb(Verb::new("verify", "Mean case score per board side of each built-in player against the server; --games per board side and player", verify::verify).default("seed", "6759").default("games", "20"))
        .verb(Verb::new("perft", "From the empty board of a side (--size), a ply a stone", query::perft))
        .extra(Verb::new("score", "Read N and N rows on stdin; print `B <points> W <points>`", |_: rules::StdinArgs| rules::tonga(rules::TongaCommand::Score)))
        .extra(Verb::new("server-moves", "Read N, the server's colour (B or W) and N rows on stdin; print the server's maximal 3-ply score, then each tied-best square", |_: rules::StdinArgs| rules::tonga(rules::TongaCommand::ServerMoves)))
        .extra(Verb::new("solve", "Read a board with at most 16 empty squares on stdin; print its exact value, optimal squares and (up to 12 empties) the value against the server", |_: rules::StdinArgs| rules::tonga(rules::TongaCommand::Solve)))
}

/// Checks the board sides given to `flag`: even, 4 to 16, at least one, none twice.
fn check_sizes(flag: &str, sizes: &[usize]) -> anyhow::Result<()> {
    for &n in sizes {
        if !n.is_multiple_of(2) || !(4..=16).contains(&n) {
            bail!("{flag}: {n} is not an even board side from 4 to 16");
        }
    }
    if sizes.is_empty() {
        bail!("{flag}: no board side given");
    }
    crate::common::given_once(flag, sizes)
}

/// The board on stdin, at most a megabyte of UTF-8 text.
fn read_stdin() -> anyhow::Result<String> {
    // A 16x16 board is under 1 KiB: a megabyte is no board, and endless
    // input (`< /dev/zero`) must not fill the memory.
    const MAX_INPUT: u64 = 1 << 20;
    let Some(bytes) =
        crate::common::read_at_most(io::stdin(), MAX_INPUT).context("reading stdin")?
    else {
        bail!("stdin: more than {MAX_INPUT} bytes, too long for a board");
    };
    String::from_utf8(bytes).context("stdin: not UTF-8 text")
}

/// A board's rows as the JSON answers write them, `B.W.` (no spaces).
fn board_rows(board: &Board) -> Vec<String> {
    let shown = board.to_string();
    shown.lines().map(|row| row.replace(' ', "")).collect()
}
