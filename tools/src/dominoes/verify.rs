//! `tabula verify dominoes`: every built-in player against the ladder.

use anyhow::bail;
use clap::Args;
use tabula_verify::dominoes::report::{Settings, run};
use tabula_verify::dominoes::{AGENTS, parse_cases};

use crate::common::{GamesArgs, Log};
use crate::memory::games_bar;
use crate::progress::tracked;
use crate::registry::Outcome;
use tabula_verify::report::Composed;

/// Arguments of `tabula verify dominoes`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    table: super::TableArgs,
    /// Players to measure, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,heaviest,doubles,blocker,server,ismcts,pimc,best,clairvoyant"
    )]
    players: Vec<String>,
    /// Opponents each player meets, comma-separated (default: the ladder).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,heaviest,doubles,blocker,server"
    )]
    opponents: Vec<String>,
    /// The (N,H) cases: `all` or a list like `5:4,9:7`.
    #[arg(long, default_value = "all")]
    cases: String,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// Runs the report.
pub fn verify(args: VerifyArgs) -> Outcome {
    args.table.install()?;
    let cases = parse_cases(&args.cases).map_err(|e| anyhow::anyhow!("--cases: {e}"))?;
    for (flag, names) in [
        ("--players", &args.players),
        ("--opponents", &args.opponents),
    ] {
        crate::common::known_players(flag, names, AGENTS)?;
    }
    let games = args.games.games;
    if !games.is_multiple_of(2) {
        bail!("--games {games}: deals are played in pairs, so the count must be even");
    }
    let settings = Settings {
        players: args.players,
        opponents: args.opponents,
        cases,
        games,
        seed: args.run.seed(),
    };
    let total = settings.players.len() * settings.opponents.len() * settings.cases.len() * games;
    let progress = games_bar(total, total)?;
    let log = Log::open(&args.run)?;
    let report = tracked(progress, |done| run(&settings, done, log.games()));
    let report = Composed {
        markdown: report.to_markdown(&settings.cases),
        json: &report,
        plot: || report.plot(&settings.cases),
    };
    args.run.finish(&log, &report)
}
