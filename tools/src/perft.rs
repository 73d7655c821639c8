//! `tabula perft GAME`: how many move sequences of each length a position
//! has, so that another program's move generation can be checked against
//! ours, ply by ply and (`--divide`) move by move. Each game gives its start;
//! the count and the report are one function for every game.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_solver::Game;
use tabula_solver::perft::{PerftCounts, divide};
use tabula_verify::record::Notation;

use crate::common::{JsonArgs, emit_report};
use crate::progress::spinner;
use crate::registry::Outcome;

/// The options of every game's `perft`.
#[derive(Args)]
pub struct PerftOptions {
    /// Plies to count (1 to 64), or fewer when every game is over sooner; the count grows about as the moves a ply to this power.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Also give each first move's sequences at the last ply (chess programs' "divide"), in the game's notation.
    #[arg(long)]
    pub divide: bool,
    /// Start from this state instead: the `start` object of a `--log` line, as JSON (the game's own start options are then not used).
    #[arg(long, value_name = "JSON")]
    pub start: Option<String>,
    #[command(flatten)]
    pub json: JsonArgs,
}

/// One ply's counts in the report.
#[derive(Serialize)]
struct Ply {
    ply: usize,
    /// Move sequences of exactly this many plies.
    sequences: u64,
    /// How many of them end the game.
    finished: u64,
    /// The leaves of the tree cut at this ply: these sequences and the games that ended before.
    leaves: u64,
}

/// A first move's count at the last ply (`--divide`).
#[derive(Serialize)]
struct Divided {
    #[serde(rename = "move")]
    mv: String,
    /// Sequences of the whole depth that start with it.
    sequences: u64,
    /// The leaves below it of the tree cut at the depth.
    leaves: u64,
}

/// The report of `tabula perft`.
#[derive(Serialize)]
struct PerftReport {
    game: &'static str,
    /// The state counted from, as the game logs it.
    start: serde_json::Value,
    /// The plies asked for (`plies` stops sooner when every game is over).
    depth: u32,
    /// Whether the start is a finished game: no ply, and one leaf at every depth.
    over: bool,
    plies: Vec<Ply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    divide: Option<Vec<Divided>>,
}

/// Counts from `start`, or from `--start` when given, and prints the report.
pub fn perft<G: Game + Notation>(start: G, args: &PerftOptions) -> Outcome {
    let start = match &args.start {
        Some(text) => {
            let value: serde_json::Value = serde_json::from_str(text).context("--start")?;
            G::from_start_json(&value).map_err(|e| anyhow::anyhow!("--start: {e}"))?
        }
        None => start,
    };
    let counting = spinner(&format!("counting {} plies", args.depth));
    let divided = divide(&start, args.depth);
    counting.finish_and_clear();
    let mut total = PerftCounts::new(args.depth);
    for (_, counts) in &divided {
        total.add(counts);
    }
    // Once a ply has no sequence, neither has any later one: the list stops
    // there (at once for a finished start, which is the one leaf).
    let plies = match total.sequences.iter().position(|&n| n == 0) {
        _ if start.is_over() => 0,
        Some(empty) => empty + 1,
        None => args.depth as usize,
    };
    let plies: Vec<Ply> = (1..=plies)
        .map(|ply| Ply {
            ply,
            sequences: total.sequences[ply - 1],
            finished: total.finished[ply - 1],
            leaves: total.leaves(ply),
        })
        .collect();
    let last = args.depth as usize - 1;
    let divide = (args.divide && !start.is_over()).then(|| {
        divided
            .iter()
            .map(|(mv, counts)| Divided {
                mv: start.move_text(*mv),
                sequences: counts.sequences[last],
                leaves: counts.leaves(last + 1),
            })
            .collect::<Vec<_>>()
    });
    let report = PerftReport {
        game: G::NAME,
        start: start.start_json(),
        depth: args.depth,
        over: start.is_over(),
        plies,
        divide,
    };
    emit_report(&markdown(&report), args.json.json.as_ref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

/// The report as text: the start, a line per ply, then the division.
fn markdown(report: &PerftReport) -> String {
    let mut text = format!("{} perft from {}\n", report.game, report.start);
    if report.over {
        text +=
            "the start is a finished game: no move, so no sequence, and 1 leaf at every depth\n";
    }
    for p in &report.plies {
        text += &format!(
            "ply {}: {} sequences, {} finished games, {} leaves\n",
            p.ply, p.sequences, p.finished, p.leaves
        );
    }
    if let Some(last) = report.plies.last().filter(|p| p.sequences == 0) {
        text += &format!(
            "every game is over by ply {}: {} games\n",
            last.ply, last.leaves
        );
    }
    if let Some(divided) = &report.divide {
        let ply = report.depth;
        text += &format!(
            "divide at ply {ply} (each first move: its sequences of {ply} plies, its leaves):\n"
        );
        for d in divided {
            text += &format!("{} {} {}\n", d.mv, d.sequences, d.leaves);
        }
    }
    text
}
