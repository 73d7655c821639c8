//! `tabula dominoes train`: learns `server`'s weights by self-play.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_verify::dominoes::opponents::{FEATURE_NAMES, SHIPPED, Weights};
use tabula_verify::dominoes::train::{Generation, TrainConfig, train};

use crate::common::{GamesArgs, OutputPath, SeedArgs, emit_report, output_path, positive};
use crate::progress::bar;
use crate::registry::Outcome;

/// Arguments of `tabula dominoes train`.
#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    seed: SeedArgs,
    /// Generations of the cross-entropy method.
    #[arg(long, value_parser = positive, default_value = "30")]
    generations: usize,
    // Paired deals per candidate and opponent in each generation.
    #[command(flatten)]
    games: GamesArgs,
    /// Also write the weights and the history as JSON to this file (`-`: stdout).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    out: Option<OutputPath>,
}

/// The shipped configuration's defaults, as the command line sets them.
pub const DEFAULT_SEED: &str = "2009";
/// See [`DEFAULT_SEED`].
pub const DEFAULT_DEALS: &str = "100";

/// The weights as the Rust constant that ships them.
fn as_constant(weights: &Weights) -> String {
    let mut text = String::from("pub const SHIPPED: Weights = [\n");
    for (w, name) in weights.iter().zip(FEATURE_NAMES) {
        text.push_str(&format!("    {w:?}, // {name}\n"));
    }
    text.push_str("];\n");
    text
}

/// Runs `tabula dominoes train`.
pub fn run_train(args: TrainArgs) -> Outcome {
    let config = TrainConfig {
        seed: args.seed.seed,
        generations: args.generations,
        deals: args.games.games,
        ..TrainConfig::shipped()
    };
    let progress = bar(config.games(), "training");
    let mut report = |g: &Generation| {
        // Best effort, as progress: a full stderr must not stop the training.
        progress.suspend(|| {
            let _ = writeln!(
                std::io::stderr(),
                "generation {}: mean scores {:.4}, best candidate {:.4}",
                g.index,
                g.mean_score,
                g.best_score
            );
        })
    };
    let trained = train(&config, &|n| progress.set_position(n as u64), &mut report);
    progress.finish_and_clear();
    #[derive(Serialize)]
    struct Out<'a> {
        config: TrainConfig,
        weights: &'a Weights,
        history: &'a [Generation],
    }
    let out = Out {
        config,
        weights: &trained.weights,
        history: &trained.history,
    };
    let text = as_constant(&trained.weights);
    emit_report(&text, args.out.as_ref(), &out).context("writing the weights")?;
    if config == TrainConfig::shipped() && trained.weights != SHIPPED {
        let _ = writeln!(
            std::io::stderr(),
            "note: these differ from the shipped weights"
        );
    }
    Ok(ExitCode::SUCCESS)
}
