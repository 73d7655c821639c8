//! `tabula info` and `tabula check`: game-independent table inspection.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use tabula_tables::Table;

use crate::Outcome;
use crate::registry::GameEntry;

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
pub fn info(args: InfoArgs) -> Outcome {
    let table = open(&args.file)?;
    let h = table.header();
    println!("file: {}", args.file.display());
    println!("format version: {}", h.version);
    println!("game: {}", h.game);
    println!("parameters: {:?}", h.params);
    println!(
        "record: {} value byte(s), {} move-mask byte(s)",
        h.layout.value_bytes, h.layout.mask_bytes
    );
    println!("entries: {}", h.entries);
    println!("metadata: {} bytes at {}", h.meta_range.1, h.meta_range.0);
    println!(
        "payload: {} bytes at {}",
        h.payload_range.1, h.payload_range.0
    );
    println!("payload xxh3-64: {:016x}", h.payload_hash);
    println!("header xxh3-64: {:016x}", h.header_hash);
    println!("generator: {}", table.meta().generator);
    println!("description: {}", table.meta().description);
    Ok(ExitCode::SUCCESS)
}

/// Verifies everything: header fields and checksums on open, then the game's own records.
pub fn check(args: CheckArgs, games: &[GameEntry]) -> Outcome {
    let table = open(&args.file)?;
    let game = table.header().game.clone();
    let checker = games
        .iter()
        .find(|g| g.name == game)
        .and_then(|g| g.check_table);
    let Some(checker) = checker else {
        anyhow::bail!(
            "{}: a table of game '{game}', which tabula does not know: its header and \
             checksums are sound, but its records cannot be checked",
            args.file.display()
        );
    };
    let spinner = crate::progress::spinner("checking every record against its children");
    let records = checker(table).with_context(|| format!("{}", args.file.display()));
    spinner.finish_and_clear();
    let records = records?;
    println!(
        "{}: ok ({game}, {records} records consistent)",
        args.file.display()
    );
    Ok(ExitCode::SUCCESS)
}
