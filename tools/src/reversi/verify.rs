//! `tabula verify reversi`: every player on the same cases, scored as the tester scores them.

use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Args;
use tabula_verify::reversi::referee::parse_sizes;
use tabula_verify::reversi::report::{Settings, default_players, evolve_cases, known, run};

use crate::Outcome;
use crate::common::{JsonArgs, Log, LogArgs, PlotArgs, SeedArgs, emit_report, positive};
use crate::progress::bar;

/// Arguments of `tabula verify reversi`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Players to measure, comma-separated (default: every built-in player and the oracle).
    #[arg(long, value_delimiter = ',')]
    players: Option<Vec<String>>,
    /// Board sides, separated by commas.
    #[arg(long, default_value = "7,8,9,10,11,12")]
    sizes: String,
    /// Cases per size (the full suite has 5).
    #[arg(long, value_parser = positive, default_value = "5")]
    cases: usize,
    /// Generations of each case's genetic algorithm (default: drawn from 50 to 100 per case).
    #[arg(long, value_parser = positive)]
    generations: Option<usize>,
    /// Games per generation of each case's genetic algorithm.
    #[arg(long, value_parser = positive, default_value = "100")]
    ga_games: usize,
    #[command(flatten)]
    rule: super::RuleArgs,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    log: LogArgs,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// Runs the report.
pub fn verify(args: VerifyArgs) -> Outcome {
    let sizes = parse_sizes(&args.sizes).map_err(|e| anyhow!("--sizes: {e}"))?;
    let players = args.players.unwrap_or_else(default_players);
    for name in &players {
        if !known(name) {
            bail!(
                "--players: unknown player '{name}' (known: {})",
                default_players().join(", ")
            );
        }
    }
    if let Some(twice) = players
        .iter()
        .enumerate()
        .find(|(i, p)| players[..*i].contains(p))
    {
        bail!("--players: '{}' is given twice", twice.1);
    }
    let settings = Settings {
        players,
        sizes,
        cases: args.cases,
        seed: args.seed.seed,
        generations: args.generations,
        ga_games: args.ga_games,
        rule: args.rule.rule(),
    };
    let log = Log::open(&args.log)?;
    let cases = settings.sizes.len() * settings.cases;
    let progress = bar(cases, "evolving opponents");
    let drawn = evolve_cases(&settings, &|done| progress.set_position(done as u64));
    progress.finish_and_clear();
    let progress = bar(cases * settings.players.len(), "games");
    let report = run(
        &settings,
        &drawn,
        &|done| progress.set_position(done as u64),
        log.games(),
    );
    progress.finish_and_clear();
    log.flush()?;
    args.plot.write(|| report.plot())?;
    emit_report(&report.to_markdown(), args.json.json.as_ref(), &report)?;
    Ok(ExitCode::SUCCESS)
}
