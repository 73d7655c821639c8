//! `tabula build tonga` and the 4x4 table's hooks (describe, check, export).

use std::io::Write;

use anyhow::bail;
use clap::Args;
use serde::Serialize;
use tabula_tables::tonga::{self as table, TongaTable};
use tabula_tables::{Table, Tabulated};

use super::board_rows;
use crate::common::{OutputFile, build_table, output_file};
use crate::export::write_entries;
use crate::registry::Outcome;

/// Arguments of `tabula build tonga`.
#[derive(Args)]
pub struct BuildArgs {
    /// Board side; only 4 is tabulated.
    #[arg(long, default_value_t = 4)]
    size: usize,
    /// Where to write the table.
    #[arg(short, long, default_value = "tonga4.tab", value_parser = output_file)]
    output: OutputFile,
}

/// Builds the 4×4 table file.
pub fn build(args: BuildArgs) -> Outcome {
    if args.size != 4 {
        bail!(
            "--size {}: only the 4x4 board is tabulated (larger boards are solved \
             exactly from 16 empty squares on)",
            args.size
        );
    }
    let output = &args.output;
    build_table(output, table::SPEC.entries, |progress| {
        table::build(output, progress)
    })
}

/// `tabula check` for a tonga table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let table = TongaTable::new(table)?;
    Ok(table.check_records_with(progress)?)
}

/// One line of `tabula export`: a board as `query tonga --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
struct ExportedBoard {
    /// The rows, `.`, `B` and `W`.
    board: Vec<String>,
    /// The colour to move, `B` or `W`.
    to_move: char,
    /// The mover's exact value under perfect play.
    value: i32,
    /// The optimal squares as `[row, col]`, row-major.
    optimal: Vec<[usize; 2]>,
}

/// Every position of the table file, a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let table = TongaTable::new(table)?;
    write_entries(&table, out, progress, |entry| {
        let board = &entry.position;
        ExportedBoard {
            board: board_rows(board),
            to_move: board.to_move().letter(),
            value: entry.value,
            optimal: entry
                .optimal
                .iter()
                .map(|&c| board.row_col(c).into())
                .collect(),
        }
    })
}

/// `tabula info` for a tonga table: the one table there is, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    table.expect(&table::Tonga.spec())?;
    Ok("every position of PseudoTonga on the 4×4 board".into())
}
