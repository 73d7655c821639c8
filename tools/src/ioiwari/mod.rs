//! `tabula … ioiwari`: build, query, play, referee, verify and sweep.

mod play;
mod query;
mod referee;
mod sweep;
mod table;
mod verify;

use std::path::Path;

use anyhow::{Context, bail};
use clap::Args;
use tabula_solver::ioiwari::Params;
use tabula_tables::Tabulated;

use crate::registry::{GameEntry, TableHooks, Verb};
use play::{perft, play, serve};
use query::query;
use referee::referee;
use sweep::sweep;
use table::{build, check_records, describe_table, export_records, header_variant};
use verify::verify;

/// The ring of an Ioiwari variant (the IOI game by default).
#[derive(Args, Clone, Debug)]
pub struct RingArgs {
    /// Pits around the ring (2..13; the IOI game has 7) [default: 7, or the --table's]
    #[arg(long)]
    pits: Option<u8>,
    /// Most beads a pit holds during play (2..9; the IOI game has 5) [default: 5, or the --table's]
    #[arg(long)]
    cap: Option<u8>,
}

impl RingArgs {
    /// The ring's pits and cap: as given, else the IOI game's.
    fn ring(&self) -> (u8, u8) {
        (self.pits.unwrap_or(7), self.cap.unwrap_or(5))
    }

    /// The ring's pits and cap: each as given, else as the `table` file's
    /// header names it (a table says which variant it holds), else the IOI
    /// game's. A given one that is not the table's is refused on opening it.
    fn ring_of(&self, table: Option<&Path>) -> anyhow::Result<(u8, u8)> {
        let (Some(path), false) = (table, self.pits.is_some() && self.cap.is_some()) else {
            return Ok(self.ring());
        };
        let header = crate::common::table_header(path, "ioiwari", |header| {
            let variant = header_variant(header.params).context(path.display().to_string())?;
            Ok(variant.spec())
        })?;
        let variant = header_variant(header.params)?;
        Ok((
            self.pits.unwrap_or(variant.params.pits),
            self.cap.unwrap_or(variant.params.cap),
        ))
    }

    /// The variant's parameters (the starting boards do not shape a table),
    /// the ring read from the `table` file when not given.
    fn params_for(&self, table: Option<&Path>) -> anyhow::Result<Params> {
        let (pits, cap) = self.ring_of(table)?;
        Ok(Params::new(pits, cap, 0, 0, cap)?)
    }
}

/// An Ioiwari variant with its starting boards (the IOI game by default), as
/// `verify` and `referee` play it.
#[derive(Args, Clone, Debug)]
pub struct VariantArgs {
    #[command(flatten)]
    ring: RingArgs,
    /// Beads on a starting board (the IOI game has 20).
    #[arg(long, default_value_t = 20)]
    beads: u32,
    /// Fewest beads in a starting pit (the IOI game has 2).
    #[arg(long, default_value_t = 2)]
    low: u8,
    /// Most beads in a starting pit (the IOI game has 4).
    #[arg(long, default_value_t = 4)]
    high: u8,
}

impl VariantArgs {
    /// The variant's checked parameters, the ring read from the `table`
    /// file when not given.
    fn params_for(&self, table: Option<&Path>) -> anyhow::Result<Params> {
        // A start of no beads is over before a move: it is no game to play.
        if self.beads == 0 {
            bail!("--beads 0: a starting board needs beads to be a game");
        }
        let (pits, cap) = self.ring.ring_of(table)?;
        Ok(Params::new(pits, cap, self.beads, self.low, self.high)?)
    }
}

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("ioiwari", "Ioiwari, IOI 2001")
        .draws(tabula_verify::ioiwari::draw::show)
        .analyzes(tabula_verify::ioiwari::analysis::analyst)
        .agents(&tabula_verify::ioiwari::AGENTS)
        .tables(TableHooks {
            describe: describe_table,
            check: check_records,
            export: export_records,
        })
        .verb(Verb::new(
            "build",
            "Every one of the 6^7 boards (or (cap+1)^pits of a variant)",
            build,
        ))
        .verb(Verb::new(
            "query",
            "Value and optimal moves of a board",
            query,
        ))
        .verb(Verb::new(
            "play",
            "Player 1 over the IOI dialogue on stdin/stdout",
            play,
        ))
        .verb(Verb::new(
            "serve",
            "A built-in player 1 (--agent, optimal by default) over the IOI dialogue on stdin/stdout",
            serve,
        ))
        .verb(
            Verb::new(
                "referee",
                "The optimal player 2 (ioiwari2) against player 1 (--timeout per game, 10 s by default, counting only the time waiting for its answers)",
                referee,
            )
            .default("timeout", "10"),
        )
        .verb(
            Verb::new(
                "verify",
                "The official results table: optimal, greedy and random play per instance; --games random games per instance",
                verify,
            )
            .default("games", "1000")
            .default("seed", "2001"),
        )
        .verb(
            Verb::new(
                "sweep",
                "The designer's sweep over variants: instances, optimal, greedy and random results, table cost; --games random games per instance",
                sweep,
            )
            .default("games", "100")
            .default("seed", "2001"),
        )
        .verb(Verb::new(
            "perft",
            "The IOI game from a board (--board), a ply a pit",
            perft,
        ))
}
