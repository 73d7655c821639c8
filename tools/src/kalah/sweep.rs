//! `tabula sweep kalah`: the first player's optimal margin for each Kalah(m, n).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use tabula_solver::kalah::SearchProgress;
use tabula_verify::kalah::sweep::{self as kalah_sweep, SweepOptions};

use super::RuleArgs;
use super::query::{ThreadsArgs, search_line};
use crate::common::{
    JsonArgs, PlotArgs, Span, TimingsArgs, emit_report, run_info, search_limit, span,
};
use crate::progress::{bar, tracked};
use crate::registry::Outcome;

/// Arguments of `tabula sweep kalah`.
#[derive(Args)]
pub struct SweepArgs {
    /// Pits a side: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "1..4")]
    pits: Span,
    /// Seeds a pit: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "1..6")]
    seeds: Span,
    #[command(flatten)]
    rules: RuleArgs,
    /// The search's transposition table has 2^BITS slots (16 bytes each).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(10..=30))]
    table_bits: u32,
    #[command(flatten)]
    threads: ThreadsArgs,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    timings: TimingsArgs,
    #[command(flatten)]
    endgame: super::endgame::EndgameArgs,
    /// Stop each variant's search after SECS seconds and give the bounds
    /// proven by then (`+4 to +12 (stopped)`; in JSON
    /// `"unproven":{"lower":..,"upper":..}` in place of `"value"`); the
    /// result column says W or L when the bounds settle it, else `?`
    #[arg(long, value_name = "SECS", value_parser = search_limit)]
    time_limit: Option<Duration>,
    /// Stop each variant's search after N nodes, as --time-limit (tests: no clock).
    #[arg(long, value_name = "N", hide = true)]
    node_limit: Option<u64>,
}

/// The first player's optimal margin for every (m, n).
pub fn sweep(args: SweepArgs) -> Outcome {
    let mut sets = Vec::new();
    for m in args.pits.values() {
        for n in args.seeds.values() {
            sets.push(args.rules.rules(m, n)?);
        }
    }
    // The search's table: 2^bits slots of 16 bytes.
    crate::memory::check_memory(
        16u64 << args.table_bits,
        &format!("--table-bits {}", args.table_bits),
        "lower --table-bits",
    )?;
    let endgame = args.endgame.open_for(&sets)?;
    let max_seeds = endgame.as_ref().map_or(0, |e| e.max_seeds());
    let most = sets.iter().map(|r| r.start().seeds()).max().unwrap_or(0);
    if let Some(note) = kalah_sweep::long_search_note(most, max_seeds) {
        eprintln!("note: {note}");
    }
    let progress = bar(sets.len(), "variants solved");
    let started = Instant::now();
    let shown = progress.clone();
    let mut searching = |p: &SearchProgress| {
        shown.set_message(format!(
            "variants solved; {}",
            search_line(p, started.elapsed())
        ))
    };
    let options = SweepOptions {
        table_bits: args.table_bits,
        threads: args.threads.get(most),
        endgame,
        timings: args.timings.timings,
        time_limit: args.time_limit,
        node_limit: args.node_limit,
    };
    let report = tracked(progress, |done| {
        kalah_sweep::sweep(&sets, &options, done, &mut searching)
    });
    // Spans are never empty, and every variant shares the capture and end rules.
    args.plot.write(|| report.plot(&sets[0]))?;
    emit_report(
        &report.to_markdown(),
        args.json.json.as_ref(),
        &run_info(None).stamp(&report),
    )?;
    Ok(ExitCode::SUCCESS)
}
