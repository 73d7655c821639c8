//! `tabula verify tonga`: each built-in player against the server.

use clap::Args;
use tabula_verify::tonga::{AGENTS, verify as verify_report};

use crate::common::{GamesArgs, Log};
use crate::memory::games_bar;
use crate::progress::tracked;
use crate::registry::Outcome;

use super::{SizesArgs, check_sizes};

/// Arguments of `tabula verify tonga`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    sizes: SizesArgs,
    #[command(flatten)]
    games: GamesArgs,
    /// Players to measure, comma-separated (`--agents` is its older name).
    #[arg(
        long,
        alias = "agents",
        value_delimiter = ',',
        default_value = "random,greedy,server,best"
    )]
    players: Vec<String>,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// Prints the verify report, optionally also as JSON.
pub fn verify(args: VerifyArgs) -> Outcome {
    check_sizes("--sizes", &args.sizes.sizes)?;
    crate::common::known_players("--players", &args.players, &AGENTS)?;
    let names: Vec<&str> = args.players.iter().map(String::as_str).collect();
    let total = names.len() * args.sizes.sizes.len() * args.games.games;
    let progress = games_bar(total, total)?;
    let log = Log::open(&args.run)?;
    let report = tracked(progress, |done| {
        verify_report(
            &names,
            &args.sizes.sizes,
            args.games.games,
            args.run.seed(),
            done,
            log.games(),
        )
    });
    args.run.finish(&log, &report)
}
