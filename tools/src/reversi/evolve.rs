//! `tabula reversi evolve`: one population of the opponents' strategies.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use tabula_solver::reversi::{MAX_N, MIN_N};
use tabula_verify::reversi::evolve::Settings;
use tabula_verify::reversi::referee::opponents_population;

use crate::Outcome;
use crate::common::{GamesArgs, JsonArgs, SeedArgs, emit_report, positive};

/// Arguments of `tabula reversi evolve`.
#[derive(Args)]
pub struct EvolveArgs {
    /// The board side, 7 to 12.
    #[arg(long, value_parser = side)]
    size: usize,
    #[command(flatten)]
    seed: SeedArgs,
    /// Generations (default: drawn from 50 to 100, as the statement says).
    #[arg(long, value_parser = positive)]
    generations: Option<usize>,
    // Games played in each generation.
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    rule: super::RuleArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// Parses a board side.
pub fn side(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (MIN_N..=MAX_N).contains(&n) => Ok(n),
        _ => Err(format!("'{text}' is not a board side {MIN_N} to {MAX_N}")),
    }
}

/// The population as JSON: the settings and each strategy's N×N weights, row-major.
#[derive(Serialize)]
struct Population {
    n: usize,
    seed: u64,
    generations: usize,
    games: usize,
    /// The opponents' corner cases the games were played with.
    rule: String,
    weights: Vec<Vec<f64>>,
}

/// Runs `tabula reversi evolve`.
pub fn run_evolve(args: EvolveArgs) -> Outcome {
    let n = args.size;
    let settings = Settings {
        generations: args.generations,
        games: args.games.games,
        rule: args.rule.rule(),
        ..Settings::new(n)
    };
    let (population, generations) = super::with_generations_bar(|progress| {
        opponents_population(args.seed.seed, &settings, 0, progress)
    });
    let cells = n * n;
    let weights: Vec<Vec<f64>> = population.iter().map(|w| w.0[..cells].to_vec()).collect();
    // The mean weight of each cell over the population, as a grid.
    let mut text = format!(
        "population of {} strategies, {n}x{n}, seed {}, {generations} generations of {} games; mean weight per cell:\n",
        weights.len(),
        args.seed.seed,
        settings.games
    );
    for row in 0..n {
        let means: Vec<String> = (0..n)
            .map(|col| {
                let sum: f64 = weights.iter().map(|w| w[row * n + col]).sum();
                format!("{:6.1}", sum / weights.len() as f64)
            })
            .collect();
        text.push_str(&means.join(" "));
        text.push('\n');
    }
    let out = Population {
        n,
        seed: args.seed.seed,
        generations,
        games: settings.games,
        rule: settings.rule.to_string(),
        weights,
    };
    emit_report(&text, args.json.json.as_ref(), &out)?;
    Ok(ExitCode::SUCCESS)
}
