//! The options every game shares, validated in one place, and the helpers
//! that print reports.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_verify::arena::GameRecord;
use tabula_verify::record::{At, GameLog, Notation};

use crate::out::{out, outln};

/// Where output goes: a file, or stdout for `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputPath {
    /// Standard output.
    Stdout,
    /// A file, written atomically.
    File(PathBuf),
}

/// Parses an output path and checks at once that it can be written, so that a
/// long run does not fail at its end.
pub fn output_path(text: &str) -> Result<OutputPath, String> {
    if text == "-" {
        return Ok(OutputPath::Stdout);
    }
    let path = PathBuf::from(text);
    if path.is_dir() {
        return Err(format!("{text}: is a directory"));
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Creating (and dropping) a temporary file proves the directory is writable.
    tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| format!("{text}: cannot write in {}: {e}", dir.display()))?;
    Ok(OutputPath::File(path))
}

/// The most a count may ask for: the schedule of a run is held in memory, and
/// a million games of a case is already days of play.
pub const MAX_COUNT: usize = 1_000_000;

/// Parses a positive count (`--games`, `--cases`): zero work is an error, and
/// so is more than [`MAX_COUNT`].
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) if n > MAX_COUNT => Err(format!("must be at most {MAX_COUNT}")),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Refuses a list option that names an item twice (`--players a,a`): the
/// report would count the item's games twice under one name.
pub fn given_once<T: PartialEq + std::fmt::Display>(flag: &str, items: &[T]) -> anyhow::Result<()> {
    match items
        .iter()
        .enumerate()
        .find(|(i, item)| items[..*i].contains(item))
    {
        Some((_, twice)) => anyhow::bail!("{flag}: '{twice}' is given twice"),
        None => Ok(()),
    }
}

/// Parses a share of instances or games: a number from 0 to 1.
pub fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(_) => Err("must be a share from 0 to 1".into()),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Parses a limit in seconds that may be fractional: finite and not negative.
pub fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("must be a finite number of seconds, at least 0".into()),
        Err(e) => Err(format!("'{text}': {e}")),
    }
}

/// Parses a time limit in seconds: positive, finite, at most a day.
pub fn seconds(text: &str) -> Result<Duration, String> {
    tabula_verify::process::parse_seconds(text)
}

/// Who plays the tested seat: an external program or a built-in agent.
#[derive(Args, Clone, Debug)]
pub struct SeatArgs {
    /// The player's command, run with `sh -c` and spoken to over pipes in the game's protocol.
    #[arg(long, value_name = "CMD", conflicts_with = "agent")]
    pub player: Option<String>,
    /// A built-in player instead (see `tabula games` and each game's section of the README).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Pass the player's stderr through instead of keeping its last lines for the fault reason.
    #[arg(long)]
    pub player_stderr: bool,
}

/// How an external player's stderr is handled: captured for fault reasons, or passed through.
pub fn stderr_mode(pass_through: bool) -> tabula_verify::process::StderrMode {
    use tabula_verify::process::StderrMode;
    if pass_through {
        StderrMode::Inherit
    } else {
        StderrMode::Capture
    }
}

/// The seed of a run.
#[derive(Args, Clone, Debug)]
pub struct SeedArgs {
    /// Seed of every random stream of the run; the same seed gives the same report.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// How many games.
#[derive(Args, Clone, Debug)]
pub struct GamesArgs {
    /// Games to play (per case, per player, as the game's help says).
    #[arg(long, value_parser = positive, default_value = "1")]
    pub games: usize,
}

/// A time limit.
#[derive(Args, Clone, Debug)]
pub struct TimeoutArgs {
    /// Time limit in seconds (what it covers is the game's own rule: see its help).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10")]
    pub timeout: Duration,
}

/// A game log and a transcript.
#[derive(Args, Clone, Debug)]
pub struct LogArgs {
    /// Record every game in this file as JSON Lines, one object per game (format in the README).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub log: Option<OutputPath>,
    /// Record the dialogue with external players (`>` sent, `<` received) and the referee's result lines in this text file.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub transcript: Option<OutputPath>,
}

/// Parses `--plot FILE.svg`: a file (not stdout), checked writable before the run.
pub fn plot_path(text: &str) -> Result<PathBuf, String> {
    match output_path(text)? {
        OutputPath::File(path) => Ok(path),
        OutputPath::Stdout => Err("a plot goes to a file, not stdout".into()),
    }
}

/// A plot of the report.
#[derive(Args, Clone, Debug)]
pub struct PlotArgs {
    /// Also draw the report as an SVG plot: means with 95% intervals per player and case, reference ceilings dashed.
    #[arg(long, value_name = "FILE.svg", value_parser = plot_path)]
    pub plot: Option<PathBuf>,
}

impl PlotArgs {
    /// Draws `plot()` into `--plot` when it was given.
    pub fn write(&self, plot: impl FnOnce() -> tabula_verify::plot::Plot) -> anyhow::Result<()> {
        if let Some(path) = &self.plot {
            plot().write_svg(path)?;
        }
        Ok(())
    }
}

/// A report's JSON.
#[derive(Args, Clone, Debug)]
pub struct JsonArgs {
    /// Also write the report as JSON to this file; `-` writes the JSON alone to stdout.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub json: Option<OutputPath>,
}

/// Ends a referee run: the total line to the log and stdout, the JSON where asked.
pub fn finish_referee(
    log: &Log,
    total_line: &str,
    json: Option<&OutputPath>,
    report: &impl Serialize,
) -> crate::Outcome {
    log.line(total_line);
    log.flush()?;
    emit_report(&format!("{total_line}\n"), json, report)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Prints a report's Markdown on stdout and writes its JSON where asked
/// (with `--json -`, the JSON alone goes to stdout).
pub fn emit_report(
    markdown: &str,
    json: Option<&OutputPath>,
    report: &impl Serialize,
) -> anyhow::Result<()> {
    match json {
        Some(OutputPath::Stdout) => {
            outln!("{}", serde_json::to_string_pretty(report)?)?;
        }
        Some(OutputPath::File(path)) => {
            out!("{markdown}")?;
            tabula_verify::report::write_json(path, report)?;
        }
        None => out!("{markdown}")?,
    }
    Ok(())
}

/// Opens a log file for writing (stdout for `-`).
pub fn open_log(
    log: Option<&OutputPath>,
) -> anyhow::Result<Option<Box<dyn std::io::Write + Send>>> {
    Ok(match log {
        None => None,
        Some(OutputPath::Stdout) => Some(Box::new(crate::out::stdout())),
        Some(OutputPath::File(path)) => Some(Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| path_text(path))?,
        ))),
    })
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// A run's records: the game log (`--log`, JSON Lines) and the transcript
/// (`--transcript`, text: the dialogue with external players and result lines).
#[derive(Clone, Default)]
pub struct Log {
    games: GameLog,
    text: Option<std::sync::Arc<std::sync::Mutex<Box<dyn std::io::Write + Send>>>>,
}

impl Log {
    /// Opens `--log` and `--transcript` (nothing when absent).
    pub fn open(args: &LogArgs) -> anyhow::Result<Log> {
        Ok(Log {
            games: open_log(args.log.as_ref())?
                .map(GameLog::to_writer)
                .unwrap_or_default(),
            text: open_log(args.transcript.as_ref())?
                .map(|w| std::sync::Arc::new(std::sync::Mutex::new(w))),
        })
    }

    /// The game log, for runs that write it from the verify crate.
    pub fn games(&self) -> &GameLog {
        &self.games
    }

    /// Writes one game to the game log.
    pub fn game<G: Notation>(&self, record: &GameRecord<G>, params: &G::Params, at: &At) {
        self.games.record(record, params, at);
    }

    /// Writes one line to the transcript (best effort: a full disk must not stop the games).
    pub fn line(&self, text: &str) {
        if let Some(w) = &self.text
            && let Ok(mut w) = w.lock()
        {
            let _ = writeln!(w, "{text}");
        }
    }

    /// A transcript for a remote seat, writing into the transcript file.
    pub fn transcript(&self) -> tabula_verify::seat::Transcript {
        let log = self.clone();
        Box::new(move |line| log.line(line))
    }

    /// Flushes both files.
    pub fn flush(&self) -> anyhow::Result<()> {
        self.games.flush()?;
        if let Some(w) = &self.text
            && let Ok(mut w) = w.lock()
        {
            w.flush()?;
        }
        Ok(())
    }
}

/// The player of the tested seat: `--player CMD` over the game's wire, or `--agent NAME`.
pub fn tested_player<G, W>(
    seat: &SeatArgs,
    wire: W,
    agent: impl FnOnce(&str) -> Option<Box<dyn tabula_verify::agent::Agent<G>>>,
    known: &[&str],
    log: &Log,
) -> anyhow::Result<Box<dyn tabula_verify::seat::Player<G>>>
where
    G: tabula_solver::Game + 'static,
    W: tabula_verify::wire::Wire<G> + 'static,
{
    use tabula_verify::process::ExternalPlayer;
    use tabula_verify::seat::{Local, Remote};
    match (&seat.player, &seat.agent) {
        (Some(command), _) => {
            let peer = ExternalPlayer::spawn_with(command, stderr_mode(seat.player_stderr))?;
            Ok(Box::new(
                Remote::new(command.clone(), Box::new(peer), wire)
                    .with_transcript(log.transcript()),
            ))
        }
        (None, Some(name)) => Ok(Box::new(Local(known_agent(name, agent, known)?))),
        (None, None) => anyhow::bail!("give --player CMD or --agent NAME"),
    }
}

/// The built-in agent `name`, or an error listing the known ones.
pub fn known_agent<T>(
    name: &str,
    agent: impl FnOnce(&str) -> Option<T>,
    known: &[&str],
) -> anyhow::Result<T> {
    agent(name).ok_or_else(|| {
        anyhow::anyhow!(
            "--agent {name}: unknown agent (known: {})",
            known.join(", ")
        )
    })
}

/// Serves `session` on stdin/stdout until end of input.
pub fn serve_stdio<G, W, A>(mut session: tabula_verify::wire::Session<G, W, A>) -> crate::Outcome
where
    G: tabula_solver::Game,
    W: tabula_verify::wire::Wire<G>,
    A: tabula_verify::agent::Agent<G>,
{
    use tabula_verify::protocol::DialogueError;
    match session.serve(std::io::stdin().lock(), crate::out::stdout()) {
        Ok(()) => Ok(std::process::ExitCode::SUCCESS),
        // Stdout's errors say so themselves (and a closed one ends quietly).
        Err(DialogueError::Io(e)) if crate::out::is_stdout_error(&e) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context("stdin")),
    }
}

/// An inclusive range of whole numbers on the command line: `5..9` or `7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first value.
    pub first: u32,
    /// The last value (at least `first`).
    pub last: u32,
}

impl Span {
    /// The values, in order.
    pub fn values(self) -> std::ops::RangeInclusive<u32> {
        self.first..=self.last
    }
}

/// Parses `a..b` (inclusive, `a <= b`) or a single number.
pub fn span(text: &str) -> Result<Span, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|e| format!("'{}': {e}", t.trim()))
    };
    let (first, last) = match text.split_once("..") {
        Some((a, b)) => (number(a)?, number(b.trim_start_matches('='))?),
        None => {
            let n = number(text)?;
            (n, n)
        }
    };
    if first > last {
        return Err(format!("'{text}': the range is empty ({first} > {last})"));
    }
    Ok(Span { first, last })
}
