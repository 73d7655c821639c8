//! `tabula build ioiwari`, the tables the other verbs open or solve, and the
//! table hooks: `check`, `export` and `info` of an Ioiwari table.

use std::io;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::ioiwari::Params;
use tabula_tables::ioiwari::{self as table, IoiwariTable, Variant, VariantTable, variant_of};
use tabula_tables::{Table, Tabulated};
use tabula_verify::ioiwari::IoiBoard;

use super::RingArgs;
use crate::common::{OutputFile, output_file};
use crate::export::write_entries;
use crate::progress::bar;
use crate::registry::Outcome;
use crate::table_build::BuildMode;

/// Arguments of `tabula build ioiwari`.
#[derive(Args)]
pub struct BuildArgs {
    #[command(flatten)]
    ring: RingArgs,
    /// Build in memory up to this many boards (10 bytes a board plus its record), out of core
    /// above. By default every ring is built out of core, which is also the faster way for
    /// rings (6^10 boards: 1.7 s and 183 MB against 4.8 s and 968 MB in memory).
    #[arg(long, default_value_t = 0)]
    max_boards: u64,
    #[command(flatten)]
    mode: BuildMode,
    /// Where to write the table.
    #[arg(short, long, default_value = "ioiwari.tab", value_parser = output_file)]
    output: OutputFile,
}

/// The table, built in memory or read from `path`; a file's every record is
/// checked first (value range, legal optimal moves, and against its children),
/// so play never meets a bad one.
pub(super) fn open_table(path: Option<&Path>) -> anyhow::Result<Arc<IoiwariTable>> {
    let table = IoiwariTable::open_or_build(path)?;
    if path.is_some() {
        // 6^7 records take milliseconds to check against their children, so
        // no wrong value is ever shown or played.
        table.check_records()?;
    }
    Ok(Arc::new(table))
}

/// Builds the table file.
pub fn build(args: BuildArgs) -> Outcome {
    let params = args.ring.params_for(None)?;
    let boards = params.boards();
    // The IOI game is the variant of 7 pits and 5 beads: `build_variant` takes
    // its fast path and writes the same file.
    let in_memory = || -> anyhow::Result<()> {
        let progress = bar(boards as usize, "boards");
        table::build_variant(&args.output, &params, &|done| progress.set_position(done))?;
        progress.finish_and_clear();
        Ok(())
    };
    let game = Variant { params };
    let what = format!("{boards} boards");
    args.mode
        .build_and_report(&game, &args.output, args.max_boards, &what, in_memory)?;
    Ok(ExitCode::SUCCESS)
}

/// Boards that `query` and `play` solve in memory without a table.
const MAX_IN_MEMORY: u64 = 200_000_000;

/// The variant's table solved in memory, unless it is too large for that.
pub(super) fn solved_in_memory(params: &Params) -> anyhow::Result<VariantTable> {
    let boards = params.boards();
    if boards > MAX_IN_MEMORY {
        bail!(
            "Ioiwari with {} pits of at most {} beads has {boards} boards, more than the \
             {MAX_IN_MEMORY} solved in memory without a table: build one with \
             `tabula build ioiwari` and pass --table",
            params.pits,
            params.cap
        );
    }
    let record_size = table::variant_spec(params).layout.record_size();
    crate::memory::check_memory(
        crate::table_build::in_memory_build_bytes(boards, record_size),
        &format!("solving {boards} boards in memory"),
        "build a table with `tabula build ioiwari --out-of-core` and pass --table",
    )?;
    let progress = bar(boards as usize, "solving");
    let table = table::variant_in_memory(params, &|done| progress.set_position(done));
    progress.finish_and_clear();
    Ok(table)
}

/// A variant's table: read from `path` with its every optimal move checked
/// legal, so that play never meets a bad one, or solved in memory.
pub(super) fn variant_table(
    params: &Params,
    path: Option<&Path>,
) -> anyhow::Result<Arc<VariantTable>> {
    let table = match path {
        Some(path) => {
            let table = VariantTable::open_for(Variant { params: *params }, path)?;
            table.check_moves()?;
            table
        }
        None => solved_in_memory(params)?,
    };
    Ok(Arc::new(table))
}

/// `tabula check` for an Ioiwari table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let game = table_variant(&table)?;
    Ok(VariantTable::new_for(game, table)?.check_records_with(progress)?)
}

/// One line of `tabula export`: a board as `query ioiwari --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
struct ExportedBoard {
    /// The pit counts, pit 1 first.
    board: Vec<u8>,
    /// The mover's best final bank difference from here.
    value: i32,
    /// The optimal pits, from 1.
    optimal: Vec<u8>,
}

/// Every board of a table file, a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let table = VariantTable::new_for(table_variant(&table)?, table)?;
    write_entries(&table, out, progress, |entry| ExportedBoard {
        board: entry.position.counts(),
        value: entry.value,
        optimal: entry.optimal.iter().map(|p| p + 1).collect(),
    })
}

/// The variant a table's header names (the IOI table is the variant of 7
/// pits and 5 beads, header and all).
fn table_variant(table: &Table) -> anyhow::Result<Variant> {
    header_variant(table.header().params)
}

/// The variant a header's parameters name.
pub(super) fn header_variant(params: [u32; 4]) -> anyhow::Result<Variant> {
    variant_of(params).with_context(|| {
        format!(
            "the header's parameters (pits {}, cap {}) are no Ioiwari variant",
            params[0], params[1]
        )
    })
}

/// `tabula info` for an ioiwari table: its ring, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    let game = table_variant(table)?;
    table.expect(&game.spec())?;
    let Params { pits, cap, .. } = game.params;
    let ioi = if game.params.is_ioi_table() {
        " (the IOI 2001 game's)"
    } else {
        ""
    };
    Ok(format!(
        "every board of a ring of {pits} pits holding at most {cap} beads each{ioi}"
    ))
}
