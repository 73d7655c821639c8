//! `tabula build kalah` and the table hooks: `check`, `export` and `info` of a Kalah table.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_solver::kalah::Rules;
use tabula_solver::retrograde::StateSpace;
use tabula_tables::Table;
use tabula_tables::kalah::{self as table, KalahGame, KalahTable};

use super::{RuleArgs, endgame, sides};
use crate::common::{OutputFile, output_file};
use crate::export::write_entries;
use crate::progress::bar;
use crate::registry::Outcome;
use crate::table_build::BuildMode;

/// Arguments of `tabula build kalah`.
#[derive(Args)]
pub struct BuildArgs {
    /// Pits a side (m).
    #[arg(long, default_value_t = 3)]
    pits: u32,
    /// Seeds a pit at the start (n).
    #[arg(long, default_value_t = 3)]
    seeds: u32,
    /// Build an endgame table instead: every board of --pits pits a side with
    /// at most this many seeds in the pits, for any --seeds (values only, out
    /// of core, or with MPI ranks given --distributed).
    #[arg(long, value_name = "S", conflicts_with_all = ["seeds", "max_boards"])]
    max_seeds: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
    /// Build in memory up to this many records (10 bytes a board plus its record), out of core above.
    #[arg(long, default_value_t = 100_000_000)]
    max_boards: u64,
    #[command(flatten)]
    mode: BuildMode,
    /// Where to write the table.
    #[arg(short, long, default_value = "kalah.tab", value_parser = output_file)]
    output: OutputFile,
}

/// Builds the table of every board of Kalah(m, n).
pub fn build(args: BuildArgs) -> Outcome {
    let rules = args.rules.rules(args.pits, args.seeds)?;
    if let Some(max_seeds) = args.max_seeds {
        let distributed = args.mode.distributed_plan();
        endgame::build(&rules, max_seeds, &args.output, distributed)?;
        return Ok(ExitCode::SUCCESS);
    }
    let spec = table::spec(&rules);
    let in_memory = || -> anyhow::Result<()> {
        let progress = bar(spec.entries as usize, "boards");
        table::build(&args.output, &rules, &|done| progress.set_position(done))?;
        progress.finish_and_clear();
        Ok(())
    };
    let game = KalahGame { rules };
    let what = format!(
        "{} boards of Kalah({}, {})",
        spec.entries, rules.pits, rules.seeds
    );
    args.mode
        .build_and_report(&game, &args.output, args.max_boards, &what, in_memory)?;
    Ok(ExitCode::SUCCESS)
}

/// `tabula check` for a Kalah table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let rules = table_rules(&table)?;
    let table = KalahTable::new_for(KalahGame { rules }, table)?;
    let checked = table.check_records_with(progress)?;
    debug_assert!(checked as u64 <= tabula_solver::kalah::KalahSpace::new(rules).len());
    Ok(checked)
}

/// One line of `tabula export`: a board as `query kalah --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
pub(crate) struct ExportedBoard {
    /// The mover's pits, then the opponent's, each in sowing order.
    pub(super) board: [Vec<u8>; 2],
    /// The mover's best final store difference from here.
    pub(super) value: i32,
    /// The optimal pits, from 1.
    pub(super) optimal: Vec<u8>,
}

/// Every board a table file holds (all but those with one side empty and
/// seeds on the other, under the default end rule), a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn std::io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let rules = table_rules(&table)?;
    let table = KalahTable::new_for(KalahGame { rules }, table)?;
    write_entries(&table, out, progress, |entry| ExportedBoard {
        board: sides(&entry.position),
        value: entry.value,
        optimal: entry.optimal.iter().map(|p| p + 1).collect(),
    })
}

/// The rules a table's header names.
fn table_rules(table: &Table) -> anyhow::Result<Rules> {
    header_rules(table.header().params)
}

/// The rules a header's parameters name.
pub(super) fn header_rules(params: [u32; 4]) -> anyhow::Result<Rules> {
    table::rules_of(params)
        .map_err(anyhow::Error::msg)
        .context("the header's parameters")
}

/// `tabula info` for a kalah table: its rules, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    let rules = table_rules(table)?;
    table.expect(&table::spec(&rules))?;
    Ok(format!(
        "every board of Kalah({}, {}) with at most its seeds; capture {}, end {} \
         (the header's parameters: pits, seeds, capture 0 always / 1 non-empty, end 0 \
         after-any-move / 1 mover-stuck)",
        rules.pits,
        rules.seeds,
        rules.capture.name(),
        rules.ending.name()
    ))
}
