//! `tabula verify kalah`: every pair of built-in players on Kalah(m, n) variants.

use anyhow::bail;
use clap::Args;
use tabula_solver::kalah::Rules;
use tabula_tables::kalah as table;
use tabula_verify::kalah as kv;
use tabula_verify::report::Composed;

use super::RuleArgs;
use crate::common::{GamesArgs, Log, Span, span};
use crate::memory::games_bar;
use crate::progress::{bar, tracked};
use crate::registry::Outcome;

/// Arguments of `tabula verify kalah`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Pits a side: numbers and ranges `a..b`, comma-separated; one case per m and n.
    #[arg(long, value_parser = span, value_delimiter = ',', default_value = "2..3")]
    pits: Vec<Span>,
    /// Seeds a pit: numbers and ranges `a..b`, comma-separated.
    #[arg(long, value_parser = span, value_delimiter = ',', default_value = "1..4")]
    seeds: Vec<Span>,
    #[command(flatten)]
    rules: RuleArgs,
    /// The players, comma-separated: every pair plays, with both seatings.
    #[arg(long, value_delimiter = ',', default_value = "optimal,greedy,random")]
    players: Vec<String>,
    /// Refuse variants with more boards than this: each variant is solved in
    /// memory before play (Kalah(3, 7) has 12 million boards, Kalah(4, 4) 77 million).
    #[arg(long, default_value_t = 20_000_000)]
    max_boards: u64,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// The values of a list of spans, in order, each value once.
fn values_once(flag: &str, spans: &[Span]) -> anyhow::Result<Vec<u32>> {
    let values: Vec<u32> = spans.iter().flat_map(|s| s.values()).collect();
    crate::common::given_once(flag, &values)?;
    Ok(values)
}

/// Refuses, before any work, variants that cannot all be solved in memory
/// and kept while the games are played; returns their boards in all.
fn check_variants(sets: &[Rules], max_boards: u64) -> anyhow::Result<u64> {
    // Checked before any work: every variant is solved in memory and kept
    // while the games are played.
    let mut boards = 0;
    let (mut kept, mut peak) = (0u64, 0u64);
    for rules in sets {
        let spec = table::spec(rules);
        if spec.entries > max_boards {
            bail!(
                "Kalah({}, {}) has {} boards, more than --max-boards {}: each variant is \
                 solved in memory before play (raise --max-boards to try it)",
                rules.pits,
                rules.seeds,
                spec.entries,
                max_boards
            );
        }
        let record_size = spec.layout.record_size();
        boards += spec.entries;
        kept += spec.entries * record_size as u64;
        peak = peak.max(crate::table_build::in_memory_build_bytes(
            spec.entries,
            record_size,
        ));
    }
    crate::memory::check_memory(
        kept + peak,
        &format!("solving {boards} boards in memory"),
        "give fewer or smaller variants",
    )?;
    Ok(boards)
}

/// Every pair of the built-in players on each Kalah(m, n), both seatings.
pub fn verify(args: VerifyArgs) -> Outcome {
    crate::common::known_players("--players", &args.players, &kv::AGENTS)?;
    if args.players.len() < 2 {
        bail!("--players: give at least two players (each pair plays)");
    }
    let mut sets = Vec::new();
    for m in values_once("--pits", &args.pits)? {
        for n in values_once("--seeds", &args.seeds)? {
            sets.push(args.rules.rules(m, n)?);
        }
    }
    let boards = check_variants(&sets, args.max_boards)?;
    let log = Log::open(&args.run)?;
    let solving = bar(boards as usize, "boards solved");
    let mut before = 0;
    let variants: Vec<kv::Variant> = sets
        .iter()
        .map(|&rules| {
            let variant = kv::Variant::solved(rules, &|done| solving.set_position(before + done));
            before += table::spec(&rules).entries;
            variant
        })
        .collect();
    solving.finish_and_clear();
    let (games, seed) = (args.games.games, args.run.seed());
    let total = tabula_verify::round_robin::total_games(args.players.len(), variants.len(), games);
    let playing = games_bar(total, variants.len() * games * 2)?;
    let board = tracked(playing, |done| {
        kv::verify(&args.players, &variants, games, seed, done, log.games())
    });
    let report = kv::verify_report(&board, &variants, &args.players, games, seed);
    let report = Composed {
        markdown: report.markdown,
        json: report.json,
        plot: || kv::plot(&board, games, seed),
    };
    args.run.finish(&log, &report)
}
