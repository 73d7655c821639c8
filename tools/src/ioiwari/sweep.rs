//! `tabula sweep ioiwari`: the designer's sweep over variants.

use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use tabula_solver::ioiwari::Params;
use tabula_tables::ioiwari as table;
use tabula_verify::ioiwari::sweep::{Thresholds, sweep as run_sweep};

use crate::common::{
    GamesArgs, JsonArgs, PlotArgs, SeedArgs, Span, TimingsArgs, emit_report, run_info, span,
};
use crate::progress::{bar, tracked};
use crate::registry::Outcome;

/// Refuses a sweep whose tables or games cannot fit in the memory available,
/// in one line before any work: every ring's table is built in memory and
/// kept to the end, and a set's random games' results are held until its row.
fn check_sweep_memory(sets: &[Params], games: usize) -> anyhow::Result<()> {
    let rings: std::collections::BTreeSet<(u8, u8)> =
        sets.iter().map(|p| (p.pits, p.cap)).collect();
    let (mut kept, mut largest_build) = (0u64, 0u64);
    for &(pits, cap) in &rings {
        let params = Params::new(pits, cap, 0, 0, cap)?;
        let record_size = table::variant_spec(&params).layout.record_size();
        let table_bytes = params.boards().saturating_mul(record_size as u64);
        kept = kept.saturating_add(table_bytes);
        let build = crate::table_build::in_memory_build_bytes(params.boards(), record_size);
        largest_build = largest_build.max(build - table_bytes);
    }
    crate::memory::check_memory(
        kept.saturating_add(largest_build),
        &format!("building the tables of {} ring(s) in memory", rings.len()),
        "lower --max-boards or sweep fewer pits and caps",
    )?;
    let most_games = sets
        .iter()
        .map(|p| p.instances().len().saturating_mul(games) as u64)
        .max()
        .unwrap_or(0);
    crate::memory::check_memory(
        most_games.saturating_mul(tabula_verify::tournament::BYTES_PER_GAME),
        &format!("holding the {most_games} random games of one set"),
        "lower --games",
    )
}

/// Arguments of `tabula sweep ioiwari`.
#[derive(Args)]
pub struct SweepArgs {
    /// Pits around the ring: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "7")]
    pits: Span,
    /// Pit capacity: a range or one number.
    #[arg(long, value_parser = span, default_value = "5")]
    cap: Span,
    /// Beads on a starting board: a range or one number.
    #[arg(long, value_parser = span, default_value = "20")]
    beads: Span,
    /// Fewest beads in a starting pit: a range or one number.
    #[arg(long, value_parser = span, default_value = "2")]
    low: Span,
    /// Most beads in a starting pit: a range or one number.
    #[arg(long, value_parser = span, default_value = "4")]
    high: Span,
    // Random games per instance (random player 1 against the optimal player
    // 2), and their seed.
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    seed: SeedArgs,
    /// Skip rings with more boards than this (the builder holds 10 bytes a board plus its record).
    #[arg(long, default_value_t = 50_000_000)]
    max_boards: u64,
    /// Winnable: at least this share of instances are first-player wins.
    #[arg(long, default_value_t = 1.0, value_parser = crate::common::share)]
    min_win_share: f64,
    /// Not easy: greedy1 wins at most this share of instances.
    #[arg(long, default_value_t = 0.5, value_parser = crate::common::share)]
    max_greedy_share: f64,
    /// Efficient: the table has at most this many bytes (its build's work; no
    /// wall-clock time, so the verdict is the same on every run).
    #[arg(long, default_value_t = 64 << 20)]
    max_table_bytes: u64,
    #[command(flatten)]
    timings: TimingsArgs,
    /// Drawable: at least this many instances drawn (greedy1 against optimal, or optimal play).
    #[arg(long, default_value_t = 1)]
    min_draws: usize,
    /// Enough instances: at least this many starting boards modulo rotation.
    #[arg(long, default_value_t = 20)]
    min_instances: usize,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// One row per parameter set of the ranges.
pub fn sweep(args: SweepArgs) -> Outcome {
    // Each combination is looked at, even those that make no game.
    const MAX_COMBINATIONS: u64 = 1_000_000;
    let spans = [args.pits, args.cap, args.beads, args.low, args.high];
    let combinations = spans
        .iter()
        .map(|s| s.len())
        .fold(1u64, u64::saturating_mul);
    if combinations > MAX_COMBINATIONS {
        bail!(
            "--pits, --cap, --beads, --low and --high make {combinations} combinations, \
             more than {MAX_COMBINATIONS}: narrow them (a ring holds at most pits × cap beads)"
        );
    }
    // A value past a byte makes no game; it is named as given.
    let small = |v: u32, option: &str| {
        u8::try_from(v).map_err(|_| format!("{option} {v} is far past any ring"))
    };
    let mut sets = Vec::new();
    let (mut no_game, mut too_large) = (0usize, Vec::new());
    // Why the first set that makes no game makes none, for the report.
    let mut first_reason = None;
    for pits in args.pits.values() {
        for cap in args.cap.values() {
            for beads in args.beads.values() {
                for low in args.low.values() {
                    for high in args.high.values() {
                        let params = (|| {
                            let (p, c) = (small(pits, "--pits")?, small(cap, "--cap")?);
                            let (l, h) = (small(low, "--low")?, small(high, "--high")?);
                            Params::new(p, c, beads, l, h).map_err(|e| e.to_string())
                        })();
                        match params {
                            Ok(p) if p.boards() > args.max_boards => too_large.push(p),
                            Ok(p) => sets.push(p),
                            Err(reason) => {
                                no_game += 1;
                                first_reason.get_or_insert(reason);
                            }
                        }
                    }
                }
            }
        }
    }
    let why = first_reason.map_or(String::new(), |reason| format!(" (the first: {reason})"));
    if sets.is_empty() {
        bail!(
            "no parameter set to sweep: {no_game} make no game{why}, {} have more than --max-boards {} boards",
            too_large.len(),
            args.max_boards
        );
    }
    check_sweep_memory(&sets, args.games.games)?;
    let thresholds = Thresholds {
        min_win_share: args.min_win_share,
        max_greedy_share: args.max_greedy_share,
        max_table_bytes: args.max_table_bytes,
        min_draws: args.min_draws,
        min_instances: args.min_instances,
    };
    let progress = bar(sets.len(), "parameter sets");
    let report = tracked(progress, |done| {
        run_sweep(
            &sets,
            args.games.games,
            args.seed.seed,
            &thresholds,
            args.timings.timings,
            done,
        )
    });
    let mut markdown = report.to_markdown();
    if no_game > 0 || !too_large.is_empty() {
        markdown.push_str(&format!(
            "Skipped: {no_game} set(s) that make no game{why}, {} set(s) above --max-boards {}.\n",
            too_large.len(),
            args.max_boards
        ));
    }
    args.plot.write(|| report.plot())?;
    emit_report(
        &markdown,
        args.json.json.as_ref(),
        &run_info(Some(args.seed.seed)).stamp(&report),
    )?;
    Ok(ExitCode::SUCCESS)
}
