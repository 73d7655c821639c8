//! The options every game shares, validated in one place, and the helpers
//! that print reports.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{ArgMatches, Args, Command};
use serde::Serialize;
use tabula_tables::atomic;
use tabula_verify::arena::GameRecord;
use tabula_verify::record::{At, GameLog, LineSink, Notation};
use tabula_verify::report::{RefereeReport, RefereedCase};
use tabula_verify::terminal::PersonEnd;

use crate::out::{out, outln};

/// Where output goes: a file, or stdout for `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputPath {
    /// Standard output.
    Stdout,
    /// A file, written atomically.
    File(PathBuf),
}

/// Parses an output path, `-` for stdout; [`check_outputs`] checks it before any work.
pub fn output_path(text: &str) -> Result<OutputPath, String> {
    Ok(match text {
        "-" => OutputPath::Stdout,
        _ => OutputPath::File(PathBuf::from(text)),
    })
}

/// An output that is always a file (a table, a plot, a page), written atomically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile(PathBuf);

impl std::ops::Deref for OutputFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

/// Parses an output file; [`check_outputs`] checks it before any work.
pub fn output_file(text: &str) -> Result<OutputFile, String> {
    match text {
        "-" => Err("this output goes to a file, not stdout".into()),
        _ => Ok(OutputFile(PathBuf::from(text))),
    }
}

/// Parses `--plot`: a file whose name, if it has an extension, says SVG, the
/// only format drawn (`--plot p.png` would hold SVG under a PNG's name).
pub fn svg_file(text: &str) -> Result<OutputFile, String> {
    let file = output_file(text)?;
    match file.0.extension().and_then(|e| e.to_str()) {
        Some(extension) if !extension.eq_ignore_ascii_case("svg") => Err(format!(
            "the plot is drawn as SVG: name the file .svg, not .{extension}"
        )),
        _ => Ok(file),
    }
}

/// Checks every output of the command line before any work starts, so that a
/// long run does not fail at its end: each file can be written (it is absent
/// or a regular file, its directory exists and takes new files), and no two
/// outputs name the same file, or both stdout. A game log or transcript on
/// stdout (`--log -`) sends the report's lines to stderr.
///
/// Outputs are the arguments parsed by [`output_path`] and [`output_file`],
/// found in `matches` whatever the verb.
pub fn check_outputs(command: &Command, matches: &ArgMatches) -> anyhow::Result<()> {
    let (mut command, mut matches) = (command, matches);
    while let Some((name, sub)) = matches.subcommand() {
        let Some(found) = command.find_subcommand(name) else {
            break;
        };
        (command, matches) = (found, sub);
    }
    let mut seen: Vec<(String, Option<PathBuf>)> = Vec::new();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        let path = match (
            matches.try_get_one::<OutputPath>(id),
            matches.try_get_one::<OutputFile>(id),
        ) {
            (Ok(Some(OutputPath::Stdout)), _) => None,
            (Ok(Some(OutputPath::File(path))), _) | (_, Ok(Some(OutputFile(path)))) => Some(path),
            _ => continue,
        };
        let option = arg
            .get_long()
            .map_or_else(|| id.to_string(), |long| format!("--{long}"));
        let label = format!(
            "{option} {}",
            path.map_or("-".into(), |p| p.display().to_string())
        );
        let grows = matches!(id, "log" | "transcript");
        if let Some(path) = path {
            atomic::check_writable(path).with_context(|| label.clone())?;
            if grows {
                atomic::check_partial(path).with_context(|| label.clone())?;
            }
        }
        // A log also takes, while it is written, the name it grows under.
        let mut names = vec![(label.clone(), path.map(|p| file_identity(p)))];
        if let Some(path) = path.filter(|_| grows) {
            let part = atomic::partial_path(path);
            let growing = format!("{label} (written as {} until the run ends)", part.display());
            names.push((growing, Some(file_identity(&part))));
        }
        for (label, same) in names {
            if let Some((first, _)) = seen.iter().find(|(_, other)| *other == same) {
                match same {
                    None => bail!("{first} and {label}: two outputs cannot share stdout"),
                    Some(_) => bail!("{first} and {label}: two outputs cannot share a file"),
                }
            }
            seen.push((label, same));
        }
        if path.is_none() && grows {
            // Other outputs on stdout replace the report (`--json -`); a log
            // runs beside it, written as the games end.
            crate::out::report_to_stderr();
        }
    }
    Ok(())
}

/// Names the same file for every spelling of a path: its directory resolved,
/// then its name (the file itself is no symlink: those are refused).
fn file_identity(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match path.file_name() {
        Some(name) => dir.join(name),
        None => path.to_path_buf(),
    }
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

/// Parses a count that may be zero (`referee tothello --cases 0`: the
/// statement's examples alone), and at most [`MAX_COUNT`].
pub fn count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
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

/// Checks a list of players given to `flag`: each one known, none twice.
pub fn known_players<T: AsRef<str>>(flag: &str, names: &[T], known: &[&str]) -> anyhow::Result<()> {
    for name in names {
        let name = name.as_ref();
        if !known.contains(&name) {
            anyhow::bail!(
                "{flag}: unknown player '{name}' (known: {})",
                known.join(", ")
            );
        }
    }
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    given_once(flag, &names)
}

/// Parses a share of instances or games: a number from 0 to 1.
pub fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(_) => Err("must be a share from 0 to 1".into()),
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
    #[arg(long, value_name = "CMD", conflicts_with = "agent", value_parser = command)]
    pub player: Option<String>,
    /// A built-in player instead (see `tabula games` and each game's section of the README).
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Pass the player's stderr through instead of keeping its last lines for the fault reason.
    #[arg(long)]
    pub player_stderr: bool,
    /// Limit the player's memory to MIB mebibytes, as `ulimit -v` does: its address space,
    /// and that of each process it starts, each on its own; the statements' limits:
    /// PseudoTonga 64, Dominoes and MultiplayerReversi 1024. No limit unless given.
    #[arg(long, value_name = "MIB", conflicts_with = "agent",
          value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    pub memory: Option<u64>,
}

impl SeatArgs {
    /// Checks, before any game, that a player is given and that a named
    /// built-in one is among `known`, so that a typo costs no player run.
    pub fn check(&self, known: &[&str]) -> anyhow::Result<()> {
        match (&self.player, &self.agent) {
            (None, None) => anyhow::bail!("give --player CMD or --agent NAME"),
            (None, Some(name)) => check_agent("--agent", name, known),
            _ => Ok(()),
        }
    }
}

/// Parses a player's command: anything `sh -c` runs, but not nothing.
pub fn command(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("an empty command runs no player".into())
    } else {
        Ok(text.to_string())
    }
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
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10", allow_negative_numbers = true)]
    pub timeout: Duration,
}

/// The header of the table file at `path`, which must be one of `game`'s:
/// enough to learn the variant it holds without reading its records.
pub fn table_header(path: &Path, game: &str) -> anyhow::Result<tabula_tables::Header> {
    let header = tabula_tables::Table::read_header(path)?;
    if header.game != game {
        return Err(tabula_tables::TableError::WrongGame {
            path: path.to_path_buf(),
            found: format!("'{}' with parameters {:?}", header.game, header.params),
            expected: format!("'{game}'"),
        }
        .into());
    }
    Ok(header)
}

/// A path as a report line shows it: its control and invisible characters
/// escaped, as errors show it, so that a name cannot fake a line.
pub fn shown(path: &Path) -> String {
    tabula_verify::protocol::escape_controls(&path.display().to_string())
}

/// This run's version, arguments and `seed`, for a report's JSON.
pub fn run_info(seed: Option<u64>) -> tabula_verify::report::RunInfo {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let word = |i: usize| args.get(i).map_or("", String::as_str);
    // `tabula <verb> <game>`, or `tabula <game> <tool>`, a game named by an alias or its name.
    let game_named = |word: &str| {
        crate::GAMES
            .iter()
            .map(|entry| entry())
            .find(|g| g.name == word || g.aliases.contains(&word))
            .map(|g| g.name.to_string())
    };
    let (verb, game) = match game_named(word(0)) {
        Some(game) => (word(1).to_string(), Some(game)),
        None => (word(0).to_string(), game_named(word(1))),
    };
    tabula_verify::report::RunInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        verb,
        game,
        args,
        seed,
    }
}

/// `--timings`: a sweep's measured times, left out by default so that the
/// same options give the same report on every run and machine.
#[derive(Args, Clone, Debug)]
pub struct TimingsArgs {
    /// Add the time each table build or search took (a column before the
    /// verdict, and in the JSON); the report then differs from run to run.
    #[arg(long)]
    pub timings: bool,
}

/// `--strict`: a referee's exit status tells a faulting player from a weak one.
#[derive(Args, Clone, Debug)]
pub struct StrictArgs {
    /// Exit with status 1 when the tested player lost any game to a fault of its
    /// own (a crash, a time-out, a malformed or illegal answer), as Tothello's
    /// checker does on a wrong answer; without it the status is 0 whenever the
    /// games were refereed.
    #[arg(long)]
    pub strict: bool,
}

impl StrictArgs {
    /// The status of a run whose report is written: 1 with `--strict` and a
    /// fault (said on stderr), else `reported`.
    pub fn status(&self, reported: crate::Outcome, faults: usize) -> crate::Outcome {
        let status = reported?;
        if self.strict && faults > 0 {
            let games = if faults == 1 { "game" } else { "games" };
            // A closed stderr must not turn the status into a panic.
            let line = format!("--strict: the tested player lost {faults} {games} to faults\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            return Ok(std::process::ExitCode::from(1));
        }
        Ok(status)
    }
}

/// A game log and a transcript: a referee's, which plays games with external players.
#[derive(Args, Clone, Debug)]
pub struct LogArgs {
    /// Record every game in this file as JSON Lines, one object per game (format in the README).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub log: Option<OutputPath>,
    /// Record the dialogue with external players (`>` sent, `<` received) and the referee's result lines in this text file.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub transcript: Option<OutputPath>,
}

/// A game log alone: a `verify`'s, which speaks to no external player, so it
/// has no dialogue to transcribe.
#[derive(Args, Clone, Debug)]
pub struct GameLogArgs {
    /// Record every game in this file as JSON Lines, one object per game (format in the README).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub log: Option<OutputPath>,
}

/// A transcript alone: the `bestMove` checker's, which plays no game to log.
#[derive(Args, Clone, Debug)]
pub struct TranscriptArgs {
    /// Record the dialogue with the program (`>` sent, `<` received) and the verdict's lines in this text file.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub transcript: Option<OutputPath>,
}

/// The records a command's options ask for: [`LogArgs`], [`GameLogArgs`] or [`TranscriptArgs`].
pub trait LogOptions {
    /// `--log`, if the command has it and it was given.
    fn game_log(&self) -> Option<&OutputPath>;
    /// `--transcript`, if the command has it and it was given.
    fn transcript(&self) -> Option<&OutputPath>;
}

impl LogOptions for LogArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        self.log.as_ref()
    }
    fn transcript(&self) -> Option<&OutputPath> {
        self.transcript.as_ref()
    }
}

impl LogOptions for GameLogArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        self.log.as_ref()
    }
    fn transcript(&self) -> Option<&OutputPath> {
        None
    }
}

impl LogOptions for TranscriptArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        None
    }
    fn transcript(&self) -> Option<&OutputPath> {
        self.transcript.as_ref()
    }
}

/// A plot of the report.
#[derive(Args, Clone, Debug)]
pub struct PlotArgs {
    /// Also draw the report as an SVG plot (a verify's: means with 95% intervals per player and case, reference ceilings dashed).
    #[arg(long, value_name = "FILE.svg", value_parser = svg_file)]
    pub plot: Option<OutputFile>,
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

/// Writes a referee's result line to the transcript, and to stdout unless
/// `--json -` keeps stdout for the JSON alone.
pub fn say(log: &Log, json: Option<&OutputPath>, line: &str) -> std::io::Result<()> {
    log.transcript_line(line);
    if json != Some(&OutputPath::Stdout) {
        outln!("{line}")?;
    }
    Ok(())
}

/// Ends a referee run: the report of `results`, its `total_line` to the log
/// and stdout, the JSON (stamped with the run and its `seed`) where asked.
pub fn finish_referee<C: RefereedCase + Serialize>(
    log: &Log,
    results: Vec<C>,
    total_line: fn(&RefereeReport<C>) -> String,
    json: Option<&OutputPath>,
    seed: u64,
    strict: &StrictArgs,
) -> crate::Outcome {
    let report = RefereeReport::new(results);
    let total_line = total_line(&report);
    log.transcript_line(&total_line);
    let reported = report_then_finish(log, || {
        emit_report(
            &format!("{total_line}\n"),
            json,
            &run_info(Some(seed)).stamp(&report),
        )
    });
    strict.status(reported, report.faults())
}

/// Ends a run: writes its report with `report`, then finishes its logs even
/// if that failed, so that neither a closed stdout nor a full disk under the
/// log loses the other. The report's error comes first.
pub fn report_then_finish(
    log: &Log,
    report: impl FnOnce() -> anyhow::Result<()>,
) -> crate::Outcome {
    let reported = report();
    let finished = log.finish();
    reported?;
    finished?;
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

/// A run's records: the game log (`--log`, JSON Lines) and the transcript
/// (`--transcript`, text: the dialogue with external players and result lines).
///
/// Files grow under `FILE.part` as the games end (each line is flushed), and
/// [`Log::finish`] renames them to `FILE`. A run that fails leaves the old
/// file as it was, and its `FILE.part` if any line was written.
#[derive(Clone, Default)]
pub struct Log {
    games: GameLog,
    /// `--log`'s option and path, for its errors.
    games_label: String,
    text: Option<Arc<Mutex<LineSink>>>,
    /// `--transcript`'s option and path, for its errors.
    text_label: String,
    /// The partial files to rename into place when the run is over.
    files: Arc<Mutex<Vec<Pending>>>,
}

/// A partial file waiting to be renamed over its target.
struct Pending {
    label: String,
    target: PathBuf,
    partial: atomic::Partial,
}

impl Log {
    /// Opens `--log` and `--transcript` (nothing when absent).
    pub fn open(args: &impl LogOptions) -> anyhow::Result<Log> {
        let mut files = Vec::new();
        let games_label = label("--log", args.game_log());
        let games = open_output(args.game_log(), &games_label, &mut files)?
            .map(GameLog::to_writer)
            .unwrap_or_default();
        let text_label = label("--transcript", args.transcript());
        let text = open_output(args.transcript(), &text_label, &mut files)?
            .map(|out| Arc::new(Mutex::new(LineSink::new(out))));
        Ok(Log {
            games,
            games_label,
            text,
            text_label,
            files: Arc::new(Mutex::new(files)),
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

    /// Writes one line to the transcript (`--transcript`, not the game log);
    /// a failure is kept for [`Log::finish`].
    pub fn transcript_line(&self, line: &str) {
        if let Some(text) = &self.text
            && let Ok(mut text) = text.lock()
        {
            text.line(line);
        }
    }

    /// A transcript for a remote seat, writing into the transcript file.
    pub fn transcript(&self) -> tabula_verify::seat::Transcript {
        let log = self.clone();
        Box::new(move |line| log.transcript_line(line))
    }

    /// Ends the records: flushes both, reports a write that failed, and renames
    /// the files into place.
    pub fn finish(&self) -> anyhow::Result<()> {
        self.games.flush().context(self.games_label.clone())?;
        if let Some(text) = &self.text
            && let Ok(mut text) = text.lock()
        {
            text.flush().context(self.text_label.clone())?;
        }
        let pending = std::mem::take(&mut *self.files.lock().unwrap_or_else(|e| e.into_inner()));
        for Pending {
            label,
            target,
            partial,
        } in pending
        {
            partial.finish(&target).context(label)?;
        }
        Ok(())
    }
}

/// `--log FILE`, `--log -`, or `--log` alone when absent (never shown then).
fn label(option: &str, path: Option<&OutputPath>) -> String {
    match path {
        Some(OutputPath::File(path)) => format!("{option} {}", path.display()),
        Some(OutputPath::Stdout) => format!("{option} -"),
        None => option.to_string(),
    }
}

/// Opens an output for streaming: stdout for `-`, else `FILE.part`, added to
/// `files` to be renamed at the end.
fn open_output(
    path: Option<&OutputPath>,
    label: &str,
    files: &mut Vec<Pending>,
) -> anyhow::Result<Option<Box<dyn Write + Send>>> {
    Ok(match path {
        None => None,
        Some(OutputPath::Stdout) => Some(Box::new(crate::out::data_stdout())),
        Some(OutputPath::File(target)) => {
            let partial = atomic::Partial::create(target).context(label.to_string())?;
            let writer = partial.writer().context(label.to_string())?;
            files.push(Pending {
                label: label.to_string(),
                target: target.clone(),
                partial,
            });
            Some(Box::new(BufWriter::new(writer)))
        }
    })
}

pub use tabula_verify::tournament::served_rng;

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
            let memory = seat.memory.map(|mib| mib << 20);
            let stderr = stderr_mode(seat.player_stderr);
            let peer = ExternalPlayer::spawn_limited(command, stderr, memory)?;
            let again = command.clone();
            Ok(Box::new(
                Remote::new(command.clone(), Box::new(peer), wire)
                    .with_transcript(log.transcript())
                    .restarting(Box::new(move || {
                        let peer = ExternalPlayer::spawn_limited(&again, stderr, memory)?;
                        Ok(Box::new(peer) as Box<dyn tabula_verify::process::Peer + Send>)
                    })),
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
    agent(name).ok_or_else(|| unknown_agent("--agent", name, known))
}

/// Checks that `name`, given to `option`, is one of the `known` agents.
pub fn check_agent(option: &str, name: &str, known: &[&str]) -> anyhow::Result<()> {
    if known.contains(&name) {
        Ok(())
    } else {
        Err(unknown_agent(option, name, known))
    }
}

fn unknown_agent(option: &str, name: &str, known: &[&str]) -> anyhow::Error {
    anyhow::anyhow!(
        "{option} {name}: unknown agent (known: {})",
        known.join(", ")
    )
}

/// Serves `session` on stdin/stdout until end of input.
pub fn serve_stdio<G, W, A>(mut session: tabula_verify::wire::Session<G, W, A>) -> crate::Outcome
where
    G: tabula_solver::Game,
    W: tabula_verify::wire::Wire<G>,
    A: tabula_verify::agent::Agent<G>,
{
    use tabula_verify::protocol::DialogueError;
    match session.serve(std::io::stdin().lock(), crate::out::data_stdout()) {
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

    /// How many values.
    pub fn len(self) -> u64 {
        u64::from(self.last - self.first) + 1
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

/// All of `reader` when it holds at most `max` bytes, `None` when it holds
/// more (of which only `max + 1` are read, so endless input cannot fill the
/// memory, and a file growing meanwhile cannot pass the cap).
pub fn read_at_most(reader: impl std::io::Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(max + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// A person's game as a result: the final state, `None` after `quit`, or an
/// error for an input that ended before the game did.
pub fn person_end<G>(end: std::io::Result<PersonEnd<G>>) -> anyhow::Result<Option<G>> {
    match end.context("the terminal")? {
        PersonEnd::Finished(end) => Ok(Some(end)),
        PersonEnd::Quit => Ok(None),
        PersonEnd::InputEnded => bail!("stdin: the input ended before the game did"),
    }
}

/// Ends `tabula play <game>`: a finished game or `quit` is a success.
pub fn finish_play<G>(end: std::io::Result<PersonEnd<G>>) -> crate::Outcome {
    person_end(end)?;
    Ok(std::process::ExitCode::SUCCESS)
}
