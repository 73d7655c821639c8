//! `tabula … kalah`: build, query, play, verify and sweep Kalah(m, n).

pub mod endgame;
mod play;
mod query;
mod referee;
mod sweep;
mod table;
mod verify;

use std::path::Path;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use tabula_solver::kalah::{Capture, Ending, Rules};
use tabula_verify::kalah as kv;

use crate::registry::{GameEntry, TableHooks, Verb};
use play::{perft, play, serve};
use query::query;
// `endgame` writes its boards as the table verbs do.
use query::sides;
use referee::referee;
use sweep::sweep;
use table::{ExportedBoard, build, check_records, describe_table, export_records, header_rules};
use verify::verify;

/// The end-of-game rule on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum EndingArg {
    /// As soon as one side's pits are empty after a move; each side's seeds go to its owner.
    AfterAnyMove,
    /// When the player to move has no seeds; the opponent takes the seeds on her side.
    MoverStuck,
}

/// The rule options every Kalah verb shares.
#[derive(Args, Clone, Debug)]
pub struct RuleArgs {
    /// Capture only when the opposite pit holds seeds (Irving et al. capture even from an empty one).
    #[arg(long)]
    no_empty_capture: bool,
    /// The end-of-game rule [default: after-any-move]
    #[arg(long, value_enum)]
    ending: Option<EndingArg>,
}

impl RuleArgs {
    /// These rules on a board of `pits` pits a side and `seeds` seeds a pit.
    fn rules(&self, pits: u32, seeds: u32) -> anyhow::Result<Rules> {
        let (Ok(m), Ok(n)) = (u8::try_from(pits), u8::try_from(seeds)) else {
            bail!("Kalah({pits}, {seeds}) is far too large");
        };
        let capture = if self.no_empty_capture {
            Capture::NonEmpty
        } else {
            Capture::Always
        };
        let ending = match self.ending.unwrap_or(EndingArg::AfterAnyMove) {
            EndingArg::AfterAnyMove => Ending::AfterAnyMove,
            EndingArg::MoverStuck => Ending::MoverStuck,
        };
        Ok(Rules::new(m, n)?.with_capture(capture).with_ending(ending))
    }
}

/// One Kalah variant, for the verbs that can also take it from a table.
#[derive(Args, Clone, Debug)]
pub struct VariantArgs {
    /// Pits a side (m) [default: 3, or the --table's]
    #[arg(long)]
    pits: Option<u32>,
    /// Seeds a pit at the start (n) [default: 3, or the --table's]
    #[arg(long)]
    seeds: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
}

impl VariantArgs {
    /// The rules: each option as given, else as the `table` file's header
    /// names it (a table says which variant it holds), else Kalah(3, 3)'s. A
    /// given one that is not the table's is refused on opening it.
    fn rules_for(&self, table: Option<&Path>) -> anyhow::Result<Rules> {
        let Some(path) = table else {
            return self
                .rules
                .rules(self.pits.unwrap_or(3), self.seeds.unwrap_or(3));
        };
        let header = crate::common::table_header(path, "kalah", |header| {
            let rules = header_rules(header.params).context(path.display().to_string())?;
            Ok(tabula_tables::kalah::spec(&rules))
        })?;
        let own = header_rules(header.params)?;
        let (pits, seeds) = (
            self.pits.unwrap_or(own.pits.into()),
            self.seeds.unwrap_or(own.seeds.into()),
        );
        let mut rules = self.rules.rules(pits, seeds)?;
        if !self.rules.no_empty_capture {
            rules = rules.with_capture(own.capture);
        }
        if self.rules.ending.is_none() {
            rules = rules.with_ending(own.ending);
        }
        Ok(rules)
    }
}

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("kalah", "Kalah(m, n), Irving, Donkers and Uiterwijk 2000")
        .draws(tabula_verify::kalah::draw::show)
        .analyzes(tabula_verify::kalah::analysis::analyst)
        .agents(&kv::AGENTS)
        .tables(TableHooks {
            describe: describe_table,
            check: check_records,
            export: export_records,
        })
        .verb(Verb::new(
            "build",
            "Every board of Kalah(m, n) with at most its seeds",
            build,
        ))
        .verb(Verb::new(
            "query",
            "Value and every move's value of a board (table or search)",
            query,
        ))
        .verb(Verb::new(
            "play",
            "Play against the optimal player over a line dialogue on stdin/stdout",
            play,
        ))
        .verb(
            Verb::new(
                "verify",
                "Every pair of built-in players on Kalah(m, n) variants, both seatings",
                verify,
            )
            .default("games", "10"),
        )
        .verb(Verb::new(
            "referee",
            "Referee a player (--player CMD or --agent NAME) over the play dialogue: one game \
             first, one second, against --opponent (optimal by default); --timeout is the \
             player's time for each game",
            referee,
        ))
        .verb(Verb::new(
            "serve",
            "A built-in player (--agent NAME) on the play dialogue over stdin/stdout",
            serve,
        ))
        .verb(Verb::new(
            "sweep",
            "The first player's optimal margin for each Kalah(m, n)",
            sweep,
        ))
        .verb(Verb::new(
            "perft",
            "From the start of Kalah(m, n) (a move that ends in the store and goes on is a ply of its own)",
            perft,
        ))
}
