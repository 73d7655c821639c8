//! `tabula info` and `tabula check`: game-independent table inspection
//! (`tabula export` is in `export.rs`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use tabula_tables::{Table, TableError};
use tabula_verify::protocol::escape_controls;

use crate::out::outln;
use crate::registry::Outcome;
use crate::registry::{GameEntry, TableHooks};

/// Arguments of `tabula info`.
#[derive(Args)]
pub struct InfoArgs {
    /// The table file.
    file: PathBuf,
}

/// Arguments of `tabula check`.
#[derive(Args)]
pub struct CheckArgs {
    /// The table file.
    file: PathBuf,
}

fn open(path: &Path) -> anyhow::Result<Table> {
    // The header is checked before the rest is read (or, for a huge file, mapped).
    Ok(Table::open(path)?)
}

/// Prints the header and metadata.
pub fn info(args: InfoArgs, games: &[GameEntry]) -> Outcome {
    // The header first: the checksum of a large payload takes a while.
    let h = Table::read_header(&args.file)?;
    outln!("file: {}", crate::common::shown(&args.file))?;
    outln!("format version: {}", h.version)?;
    outln!("game: {}", escape_controls(&h.game))?;
    outln!("parameters: {:?}", h.params)?;
    outln!(
        "record: {} value byte(s), {} move-mask byte(s)",
        h.layout.value_bytes,
        h.layout.mask_bytes
    )?;
    outln!("entries: {}", h.entries)?;
    // `tabula check` reports fewer when some slots of the index name no position.
    outln!("  (a record per slot of the index; `tabula check` counts those that hold a position)")?;
    outln!("metadata: {} bytes at {}", h.meta_range.1, h.meta_range.0)?;
    outln!(
        "payload: {} bytes at {}",
        h.payload_range.1,
        h.payload_range.0
    )?;
    outln!("payload xxh3-64: {:016x}", h.payload_hash)?;
    outln!("header xxh3-64: {:016x}", h.header_hash)?;
    let checking = crate::progress::spinner("checking the payload's checksum");
    let table = open(&args.file);
    checking.finish_and_clear();
    let table = table?;
    // The file's own text: escaped, so it cannot fake a line or drive the terminal.
    outln!("generator: {}", escape_controls(&table.meta().generator))?;
    outln!(
        "description: {}",
        escape_controls(&table.meta().description)
    )?;
    // Sound checksums are not yet a table of the game: its parameters must
    // give the layout and size the header has.
    let describe = hooks(&table, games, &args.file)?.describe;
    let variant = describe(&table).map_err(|e| naming(&args.file, e))?;
    outln!("variant: {variant}")?;
    Ok(ExitCode::SUCCESS)
}

/// `error` from a game's reading of the table `file`, naming the file: a
/// table error names it already; anything else is told where it is.
pub fn naming(file: &Path, error: anyhow::Error) -> anyhow::Error {
    match error.chain().any(|c| c.is::<TableError>()) {
        true => error,
        false => error.context(file.display().to_string()),
    }
}

/// The hooks of the game a table's header names, or an error naming the file.
pub fn hooks(table: &Table, games: &[GameEntry], file: &Path) -> anyhow::Result<TableHooks> {
    let game = &table.header().game;
    games
        .iter()
        .find(|g| g.name == *game)
        .and_then(|g| g.tables)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: a table of game '{}', which tabula does not know: its header and \
                 checksums are sound, but its parameters and records cannot be read",
                file.display(),
                escape_controls(game)
            )
        })
}

/// Verifies everything: header fields and checksums on open, then the game's own records.
pub fn check(args: CheckArgs, games: &[GameEntry]) -> Outcome {
    let table = open(&args.file)?;
    let game = table.header().game.clone();
    let checker = hooks(&table, games, &args.file)?.check;
    // Two passes over the records: each alone, then each against its children.
    let entries = table.header().entries;
    let progress = crate::progress::bar(2 * entries as usize, "records checked (two passes)");
    let records = checker(table, &|done| progress.set_position(done));
    progress.finish_and_clear();
    let records = records.map_err(|e| naming(&args.file, e))?;
    let which = match entries.checked_sub(records as u64) {
        Some(0) | None => "every entry a position, checked against its moves".to_string(),
        Some(empty) => format!(
            "the positions among its {entries} entries, each checked against its moves; \
             the other {empty} are slots of the index that hold no position"
        ),
    };
    outln!(
        "{}: ok ({}, {records} records consistent: {which})",
        crate::common::shown(&args.file),
        escape_controls(&game)
    )?;
    Ok(ExitCode::SUCCESS)
}
