//! `tabula verify reversi`: every player on the same cases, scored as the tester scores them.

use anyhow::anyhow;
use clap::Args;
use tabula_verify::reversi::referee::parse_sizes;
use tabula_verify::reversi::report::{Settings, default_players, evolve_cases, run};

use crate::common::Log;
use crate::memory::games_bar;
use crate::progress::{bar, tracked};
use crate::registry::Outcome;

/// Arguments of `tabula verify reversi`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Players to measure, comma-separated (default: every built-in player and the oracle).
    #[arg(long, value_delimiter = ',')]
    players: Option<Vec<String>>,
    #[command(flatten)]
    suite: super::SuiteArgs,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// Runs the report.
pub fn verify(args: VerifyArgs) -> Outcome {
    let sizes = parse_sizes(&args.suite.sizes).map_err(|e| anyhow!("--sizes: {e}"))?;
    let players = args.players.unwrap_or_else(default_players);
    let every = default_players();
    let every: Vec<&str> = every.iter().map(String::as_str).collect();
    crate::common::known_players("--players", &players, &every)?;
    let settings = Settings {
        players,
        suite: args.suite.suite(sizes, args.run.seed()),
    };
    let log = Log::open(&args.run)?;
    let cases = settings.suite.case_list().len();
    let progress = bar(cases, "evolving opponents");
    let drawn = tracked(progress, |done| evolve_cases(&settings.suite, done));
    let progress = games_bar(
        cases * settings.players.len(),
        cases * settings.players.len(),
    )?;
    let report = tracked(progress, |done| run(&settings, &drawn, done, log.games()));
    args.run.finish(&log, &report)
}
