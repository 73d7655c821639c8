//! `tabula replay LOG -o replay.html`: logged games as one self-contained page.

use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use tabula_verify::record::GameLine;
use tabula_verify::record::log_lines;
use tabula_verify::replay::{Shown, unknown_game, write_page};

use crate::common::{OutputFile, output_file};
use crate::out::outln;
use crate::progress::bar;
use crate::registry::GameEntry;
use crate::registry::Outcome;

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
pub fn replay(args: ReplayArgs, registered: &[GameEntry]) -> Outcome {
    let (file, metadata) = open_log(&args.log)?;
    if same_file(&metadata, &args.output) {
        bail!(
            "{} and --output {}: the page would overwrite its own log",
            args.log.display(),
            args.output.display()
        );
    }
    let text = read_capped(file, &metadata, &args.log)?;
    // The games are parsed, replayed and written one at a time: a page of the
    // whole log is never in memory (games are numbered as `--game` counts them).
    let count = text.lines().filter(|l| !l.trim().is_empty()).count();
    if count == 0 {
        bail!("{}: the log holds no game", args.log.display());
    }
    let wanted = match args.game {
        Some(k) if k >= count => bail!("--game {k}: the log has {count} games"),
        Some(k) => k..k + 1,
        None => 0..count,
    };
    let progress = bar(wanted.len(), "games replayed");
    let log = args.log.display();
    // Every line is parsed, `--game` or not: a log with a line that is no game
    // is refused whole.
    let games = log_lines(&text).enumerate().filter_map(|(k, line)| {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                return Some(Err(anyhow!(error).context(format!("{log}: not a game log"))));
            }
        };
        if !wanted.contains(&k) {
            return None;
        }
        let shown = show(registered, &line).with_context(|| format!("{log}: game {k}"));
        progress.inc(1);
        Some(shown)
    });
    // A game that cannot be shown stops the page, which is then not written;
    // its error is kept aside, since the writer only passes on I/O errors.
    let (mut failure, mut written) = (None, 0);
    let outcome = tabula_tables::atomic::write_file(&args.output, |out| {
        let games = games.map_while(|game: anyhow::Result<_>| match game {
            Ok(shown) => Some(Ok::<_, std::io::Error>(shown)),
            Err(error) => {
                failure = Some(error);
                None
            }
        });
        written = write_page(out, games)?;
        match failure {
            Some(_) => Err(std::io::Error::other("a game could not be shown")),
            None => Ok(()),
        }
    });
    progress.finish_and_clear();
    if let Some(error) = failure {
        return Err(error);
    }
    outcome.with_context(|| args.output.display().to_string())?;
    let games = if written == 1 {
        "1 game".to_string()
    } else {
        format!("{written} games")
    };
    outln!("wrote {} ({games})", crate::common::shown(&args.output))?;
    Ok(ExitCode::SUCCESS)
}

/// The most of a log that is read: a bigger one is refused rather than read
/// until memory runs out.
/// A logged game drawn by its game's registration.
fn show(games: &[GameEntry], line: &GameLine) -> Result<Shown, tabula_verify::record::ReplayError> {
    match games
        .iter()
        .find(|entry| entry.name == line.game)
        .and_then(|entry| entry.draw)
    {
        Some(draw) => draw(line),
        None => Err(unknown_game(&line.game)),
    }
}

const MAX_LOG_BYTES: u64 = 1 << 30;

/// Opens the log, which must be a regular file.
pub(crate) fn open_log(path: &Path) -> anyhow::Result<(File, Metadata)> {
    let name = || path.display().to_string();
    // Without blocking, so that a FIFO is refused instead of waited on.
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .with_context(name)?;
    let metadata = file.metadata().with_context(name)?;
    if !metadata.is_file() {
        bail!("{}: not a regular file", path.display());
    }
    Ok((file, metadata))
}

/// Reads the log as text, refusing one over [`MAX_LOG_BYTES`].
pub(crate) fn read_capped(file: File, metadata: &Metadata, path: &Path) -> anyhow::Result<String> {
    let too_big = || {
        anyhow!(
            "{}: the log is over 1 GiB; refusing to read it",
            path.display()
        )
    };
    if metadata.len() > MAX_LOG_BYTES {
        return Err(too_big());
    }
    let bytes = crate::common::read_at_most(file, MAX_LOG_BYTES)
        .with_context(|| path.display().to_string())?
        .ok_or_else(too_big)?;
    String::from_utf8(bytes)
        .map_err(|_| anyhow!("{}: not a game log: not UTF-8 text", path.display()))
}

/// Whether `output` is the file of `log` (another spelling or a hard link included).
fn same_file(log: &Metadata, output: &Path) -> bool {
    std::fs::metadata(output).is_ok_and(|out| (out.dev(), out.ino()) == (log.dev(), log.ino()))
}
