//! `tabula reversi evolve`: one population of the opponents' strategies.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use tabula_solver::reversi::{MAX_N, MIN_N};
use tabula_verify::reversi::referee::case_population;

use crate::common::{JsonArgs, SeedArgs, emit_report, run_info};
use crate::registry::Outcome;

/// Arguments of `tabula reversi evolve`.
#[derive(Args)]
pub struct EvolveArgs {
    /// The board side, 7 to 12.
    #[arg(long, value_parser = side)]
    size: usize,
    /// The referee's case of that side whose population this is, from 0.
    #[arg(long, default_value_t = 0)]
    case: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    ga: super::GaArgs,
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
/// Written after `run`, whose `seed` the population is evolved from, and `game`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct Population {
    /// The board's size.
    n: usize,
    /// The referee's case evolved, from 0.
    case: usize,
    /// Generations evolved.
    generations: usize,
    /// Games per generation (`--ga-games`; `verify reversi` says `ga_games` too).
    ga_games: usize,
    /// The opponents' corner cases the games were played with.
    rule: String,
    /// The indices in `weights` of the case's opponents, seats 2.. in order.
    opponents: Vec<usize>,
    /// Each strategy's weights, row-major.
    weights: Vec<Vec<f64>>,
}

/// Runs `tabula reversi evolve`.
pub fn run_evolve(args: EvolveArgs) -> Outcome {
    let n = args.size;
    let settings = args.ga.settings(n);
    let (population, generations, drawn) = super::with_generations_bar(|progress| {
        case_population(args.seed.seed, &settings, args.case, progress)
    });
    let cells = n * n;
    let weights: Vec<Vec<f64>> = population.iter().map(|w| w.0[..cells].to_vec()).collect();
    // The mean weight of each cell over the population, as a grid.
    let opponents: Vec<String> = drawn.iter().map(usize::to_string).collect();
    let mut text = format!(
        "population of {} strategies, {n}x{n}, seed {}, case {}, {generations} generations of {} games; \
         the case's opponents are strategies {} (from 0); mean weight per cell:\n",
        weights.len(),
        args.seed.seed,
        args.case,
        settings.games,
        opponents.join(", ")
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
        case: args.case,
        generations,
        ga_games: settings.games,
        rule: settings.rule.to_string(),
        opponents: drawn,
        weights,
    };
    let stamped = run_info(Some(args.seed.seed)).stamp(&out);
    emit_report(&text, args.json.json.as_ref(), &stamped)?;
    Ok(ExitCode::SUCCESS)
}
