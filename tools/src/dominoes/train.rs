//! `tabula dominoes train` (learns `server`'s weights) and `tabula dominoes
//! ladder` (the opponent ladder against itself over paired deals).

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_verify::dominoes::server::{FEATURE_NAMES, SHIPPED, Weights};
use tabula_verify::dominoes::train::{Generation, Paired, TrainConfig, paired_match, train};
use tabula_verify::dominoes::{self, AGENTS};
use tabula_verify::report::Table;
use tabula_verify::tournament::{Purpose, stream};

use crate::Outcome;
use crate::common::{
    GamesArgs, JsonArgs, OutputPath, SeedArgs, emit_report, known_agent, output_path, positive,
};
use crate::progress::bar;

/// Arguments of `tabula dominoes train`.
#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    seed: SeedArgs,
    /// Generations of the cross-entropy method.
    #[arg(long, value_parser = positive, default_value = "30")]
    generations: usize,
    /// Paired deals per candidate and opponent in each generation.
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
        progress.suspend(|| {
            eprintln!(
                "generation {}: mean scores {:.4}, best candidate {:.4}",
                g.index, g.mean_score, g.best_score
            )
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
        eprintln!("note: these differ from the shipped weights");
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `tabula dominoes ladder`.
#[derive(Args)]
pub struct LadderArgs {
    /// The players, comma-separated (players that see the other hand are refused).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "random,heaviest,doubles,blocker,server"
    )]
    agents: Vec<String>,
    /// Paired deals per pair of players (each played twice, seats swapped),
    /// cycling through the 20 cases.
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// One pairing of the ladder report.
#[derive(Serialize)]
struct Pairing {
    player: String,
    opponent: String,
    #[serde(flatten)]
    result: Paired,
}

/// Runs `tabula dominoes ladder`.
pub fn run_ladder(args: LadderArgs) -> Outcome {
    for name in &args.agents {
        known_agent(
            name,
            |n| dominoes::agent(n, stream(0, Purpose::Agent, 0, 0, 0)),
            AGENTS,
        )?;
        anyhow::ensure!(
            !dominoes::sees_open_hand(name),
            "--agents {name}: it sees the other hand; the ladder plays hidden hands"
        );
    }
    let names: Vec<&str> = args.agents.iter().map(String::as_str).collect();
    let pairs: Vec<(usize, usize)> = (0..names.len())
        .flat_map(|i| (i + 1..names.len()).map(move |j| (i, j)))
        .collect();
    let deals = args.games.games;
    let progress = bar(pairs.len() * deals * 2, "ladder");
    let mut results = Vec::new();
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let make = |name: &str| {
            let name = name.to_string();
            move |rng| dominoes::agent(&name, rng).expect("a registered agent")
        };
        let (a, b) = (make(names[i]), make(names[j]));
        let done = k * deals * 2;
        let result = paired_match(&a, &b, deals, args.seed.seed, 0, &|n| {
            progress.set_position((done + 2 * n) as u64)
        });
        results.push(Pairing {
            player: names[i].into(),
            opponent: names[j].into(),
            result,
        });
    }
    progress.finish_and_clear();
    let mut table = Table::new(&["player", "opponent", "games", "W-T-L", "score (95%)"]);
    for p in &results {
        let r = &p.result;
        table.row(&[
            p.player.clone(),
            p.opponent.clone(),
            r.games.to_string(),
            format!("{}-{}-{}", r.wins, r.ties, r.losses),
            r.per_deal.display(3),
        ]);
    }
    let markdown = format!(
        "Dominoes ladder: {deals} paired deals per pair (each played with both seatings), \
         the 20 cases in turn, seed {}.\n\n{}",
        args.seed.seed,
        table.to_markdown()
    );
    emit_report(&markdown, args.json.json.as_ref(), &results)?;
    Ok(ExitCode::SUCCESS)
}
