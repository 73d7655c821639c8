//! `tabula replay LOG -o replay.html`: logged games as one self-contained page.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use tabula_verify::record::read_log;
use tabula_verify::replay::{page, show};

use crate::Outcome;
use crate::common::{OutputFile, output_file};
use crate::out::outln;

/// Arguments of `tabula replay`.
#[derive(Args)]
pub struct ReplayArgs {
    /// A game log written by `--log FILE` (JSON Lines).
    log: PathBuf,
    /// Where to write the page.
    #[arg(
        short,
        long,
        value_name = "FILE.html",
        default_value = "replay.html",
        value_parser = output_file
    )]
    output: OutputFile,
    /// Only game K of the log (its line number, from 0).
    #[arg(long, value_name = "K")]
    game: Option<usize>,
}

/// Replays every game of the log through the rules and writes the page.
pub fn replay(args: ReplayArgs) -> Outcome {
    if same_file(&args.log, &args.output) {
        bail!(
            "{} and --output {}: the page would overwrite its own log",
            args.log.display(),
            args.output.display()
        );
    }
    let text =
        std::fs::read_to_string(&args.log).with_context(|| args.log.display().to_string())?;
    let mut lines =
        read_log(&text).with_context(|| format!("{}: not a game log", args.log.display()))?;
    if lines.is_empty() {
        bail!("{}: the log holds no game", args.log.display());
    }
    if let Some(k) = args.game {
        if k >= lines.len() {
            bail!("--game {k}: the log has {} games", lines.len());
        }
        lines = vec![lines.swap_remove(k)];
    }
    let games = lines
        .iter()
        .enumerate()
        .map(|(k, line)| show(line).with_context(|| format!("game {k} of the log")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    tabula_tables::atomic::write_file(&args.output, |out| out.write_all(page(&games).as_bytes()))
        .with_context(|| args.output.display().to_string())?;
    outln!("wrote {} ({} games)", args.output.display(), games.len())?;
    Ok(ExitCode::SUCCESS)
}

/// Whether `a` and `b` name one existing file (a hard link or another spelling included).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}
