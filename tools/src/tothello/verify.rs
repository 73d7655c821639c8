//! `tabula verify tothello`: the tournament of the built-in players.

use anyhow::bail;
use clap::Args;
use tabula_verify::tothello::{AgentKind, TournamentConfig, run_tournament};

use crate::common::{Log, positive};
use crate::memory::games_bar;
use crate::progress::tracked;
use crate::registry::Outcome;
use tabula_verify::report::Composed;

/// Arguments of `tabula verify tothello`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Openings per pair of players; each is played with both colours.
    #[arg(long, value_parser = positive, default_value = "20")]
    openings: usize,
    /// Random placements from the standard start in each opening (at most
    /// 60, the empty squares of the start).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(0..=60))]
    opening_plies: u8,
    /// Search depths of the solver players, comma-separated.
    #[arg(long, default_value = "1,2,3", value_delimiter = ',')]
    depths: Vec<u8>,
    /// Empty squares from which the solver players solve exactly.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=64))]
    exact: u32,
    /// Each solver's transposition table holds 2^bits entries of 24 bytes.
    #[arg(long, default_value_t = 18)]
    table_bits: u32,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// Runs the tournament of the built-in players and prints its report.
pub fn verify(args: VerifyArgs) -> Outcome {
    if !(8..=28).contains(&args.table_bits) {
        bail!("--table-bits must be between 8 and 28");
    }
    // Games run in parallel, each with up to two solvers of 2^bits entries of 24 bytes.
    let threads = tabula_verify::tournament::games_at_once() as u64;
    crate::memory::check_memory(
        (24u64 << args.table_bits) * 2 * threads,
        &format!("--table-bits {} on {threads} threads", args.table_bits),
        "lower --table-bits",
    )?;
    let mut players = vec![AgentKind::Random, AgentKind::Greedy];
    crate::common::given_once("--depths", &args.depths)?;
    for &depth in &args.depths {
        if !(1..=64).contains(&depth) {
            bail!("--depths: a solver depth is 1 to 64, as query's --depth, not {depth}");
        }
        players.push(AgentKind::Solver {
            depth,
            exact: args.exact,
        });
    }
    let config = TournamentConfig {
        players,
        openings: args.openings,
        opening_plies: usize::from(args.opening_plies),
        seed: args.run.seed(),
        table_bits: args.table_bits,
    };
    let pairs = config.players.len() * (config.players.len() - 1) / 2;
    let progress = games_bar(pairs * 2 * config.openings, 2 * config.openings)?;
    let log = Log::open(&args.run)?;
    let report = tracked(progress, |done| run_tournament(&config, done, log.games()));
    // The title is Markdown: `--json -` writes the JSON alone.
    let markdown = format!(
        "Tothello tournament: {} openings of {} random placements, both colours, seed {}.\n\n{}",
        config.openings,
        config.opening_plies,
        config.seed,
        report.to_markdown()
    );
    let report = Composed {
        markdown,
        json: &report,
        plot: || report.plot(),
    };
    args.run.finish(&log, &report)
}
