//! Report emission: the run's stamp, the Markdown on stdout, the JSON and the plot where asked, the referee's end.

use clap::Args;
use serde::Serialize;
use tabula_verify::referee::TotalLines;
use tabula_verify::report::{RefereeReport, RefereedCase};

use crate::out::{out, outln};

use super::*;

/// The verb and game the dispatch ran, set once by [`crate::registry::dispatch`].
static DISPATCHED: std::sync::OnceLock<(String, Option<String>)> = std::sync::OnceLock::new();

/// Records the verb and the game (by its name, not an alias) that the dispatch
/// runs, for every report's `run` and `game`.
pub fn set_dispatched(verb: &str, game: Option<&str>) {
    // One dispatch per process: a second call (tests) keeps the first.
    let _ = DISPATCHED.set((verb.to_string(), game.map(str::to_string)));
}

/// This run's version, arguments and `seed`, for a report's JSON; the verb and
/// game come from the dispatch.
pub fn run_info(seed: Option<u64>) -> tabula_verify::report::RunInfo {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let (verb, game) = DISPATCHED.get().cloned().unwrap_or_default();
    tabula_verify::report::RunInfo {
        version: env!("CARGO_PKG_VERSION").into(),
        verb,
        game,
        args,
        seed,
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

/// What every verify run takes, in this order: `--seed`, `--json`, `--log`,
/// `--plot` (flattened into each game's `verify` arguments).
#[derive(Args, Clone, Debug)]
pub struct VerifyRunArgs {
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    log: GameLogArgs,
    #[command(flatten)]
    plot: PlotArgs,
}

impl LogOptions for VerifyRunArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        self.log.game_log()
    }
    fn transcript(&self) -> Option<&OutputPath> {
        None
    }
}

impl VerifyRunArgs {
    /// The seed of every random stream of the run.
    pub fn seed(&self) -> u64 {
        self.seed.seed
    }

    /// The one tail of every verify run: the plot where asked, the Markdown
    /// on stdout and the JSON (stamped with the run and its `seed`) where
    /// asked, then `log` (opened from these options) finished.
    pub fn finish(
        &self,
        log: &Log,
        report: &impl tabula_verify::report::Report,
    ) -> crate::registry::Outcome {
        report_then_finish(log, || {
            self.plot.write(|| report.plot())?;
            emit_report(
                &report.markdown(),
                self.json.json.as_ref(),
                &run_info(Some(self.seed())).stamp(report.json()),
            )
        })
    }
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

/// Ends a referee run: the report of `results`, its `total` lines to the
/// transcript and stdout (each where given), the JSON (stamped with the run
/// and its `seed`) where asked, and the exit status (`--strict`).
pub fn finish_referee<C: RefereedCase + Serialize>(
    log: &Log,
    results: Vec<C>,
    total: impl FnOnce(&RefereeReport<C>) -> TotalLines,
    json: Option<&OutputPath>,
    seed: u64,
    strict: &StrictArgs,
) -> crate::registry::Outcome {
    let report = RefereeReport::new(results);
    let total = total(&report);
    if let Some(line) = &total.transcript {
        log.transcript_line(line);
    }
    let markdown = total
        .stdout
        .map_or(String::new(), |line| format!("{line}\n"));
    let reported = report_then_finish(log, || {
        emit_report(&markdown, json, &run_info(Some(seed)).stamp(&report))
    });
    strict.status(reported, report.faults())
}

/// Ends a run: writes its report with `report`, then finishes its logs even
/// if that failed, so that neither a closed stdout nor a full disk under the
/// log loses the other. The report's error comes first.
pub fn report_then_finish(
    log: &Log,
    report: impl FnOnce() -> anyhow::Result<()>,
) -> crate::registry::Outcome {
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

/// Builds a table file of `entries` positions with `build`, counting them on
/// a bar, then says where it wrote them and how long it took.
pub fn build_table<E>(
    output: &std::path::Path,
    entries: u64,
    build: impl FnOnce(tabula_solver::retrograde::Progress<'_>) -> Result<(), E>,
) -> crate::registry::Outcome
where
    anyhow::Error: From<E>,
{
    let started = std::time::Instant::now();
    let progress = crate::progress::bar(entries as usize, "positions");
    build(&|done| progress.set_position(done))?;
    progress.finish_and_clear();
    outln!(
        "wrote {} ({entries} positions) in {:.1} s",
        shown(output),
        started.elapsed().as_secs_f64()
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}
