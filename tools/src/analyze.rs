//! `tabula analyze LOG`: each logged move that an exact value covers, with
//! the value before and after it, the best available and the loss; the moves
//! that changed the result marked; per-game totals. Text, or JSON Lines.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use clap::Args;
use tabula_verify::analysis::{Analyst, GameAnalysis, MoveMark};
use tabula_verify::record::log_lines;

use crate::out::out;
use crate::registry::{GameEntry, Outcome};

/// Arguments of `tabula analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// A game log written by `--log FILE` (JSON Lines) of a referee or verify run.
    log: PathBuf,
    /// Only game K of the log (its line number, from 0).
    #[arg(long, value_name = "K")]
    game: Option<usize>,
    /// A table file to take exact values from (repeat for several variants);
    /// without one, Ioiwari rings are solved in memory and Kalah is searched.
    #[arg(long, value_name = "FILE")]
    table: Vec<PathBuf>,
    /// One line of JSON per game instead of text.
    #[arg(long)]
    json: bool,
    /// Seconds of search per game, after which its moves not yet valued are left uncovered.
    #[arg(long, default_value = "10", value_name = "SECONDS", value_parser = crate::common::seconds)]
    time_limit: Duration,
}

/// Marks every logged game's moves and writes them.
pub fn analyze(args: AnalyzeArgs, games: &[GameEntry]) -> Outcome {
    let (file, metadata) = crate::replay::open_log(&args.log)?;
    let text = crate::replay::read_capped(file, &metadata, &args.log)?;
    let log = args.log.display().to_string();
    let mut analysts: HashMap<String, Box<dyn Analyst>> = HashMap::new();
    let mut count = 0;
    for (k, line) in log_lines(&text).enumerate() {
        let line = line.map_err(|e| anyhow!(e).context(format!("{log}: not a game log")))?;
        count += 1;
        if args.game.is_some_and(|wanted| wanted != k) {
            continue;
        }
        if !analysts.contains_key(&line.game) {
            let entry = games.iter().find(|g| g.name == line.game);
            let make = entry.and_then(|g| g.analyst).ok_or_else(|| {
                anyhow!(
                    "{log}: game {k}: '{}' is no game tabula analyzes",
                    tabula_verify::protocol::escape_controls(&line.game)
                )
            })?;
            analysts.insert(line.game.clone(), make(&args.table)?);
        }
        let deadline = Instant::now() + args.time_limit;
        let analysis = analysts[&line.game]
            .game(&line, deadline)
            .with_context(|| format!("{log}: game {k}"))?;
        let shown = match args.json {
            true => {
                let mut json = serde_json::to_value(&analysis)?;
                json["index"] = k.into();
                format!("{json}\n")
            }
            false => text_of(k, &analysis),
        };
        out!("{shown}")?;
    }
    if count == 0 {
        bail!("{log}: the log holds no game");
    }
    if let Some(k) = args.game.filter(|&k| k >= count) {
        bail!("--game {k}: the log has {count} games");
    }
    Ok(ExitCode::SUCCESS)
}

/// A signed value: `+2`, `0`, `-1`.
fn signed(value: i32) -> String {
    match value {
        0 => "0".into(),
        v => format!("{v:+}"),
    }
}

/// One move's line of the text.
fn mark_line(mark: &MoveMark, seats: &[String]) -> String {
    let player = seats.get(mark.seat).map_or("?", String::as_str);
    let mut line = format!(
        "  ply {:>3} seat {} ({player}) {}: before {}, after {}, best {} ({})",
        mark.ply,
        mark.seat,
        mark.mv,
        signed(mark.before),
        signed(mark.after),
        signed(mark.best),
        mark.optimal.join(" "),
    );
    if mark.loss > 0 {
        let _ = write!(line, ", loss {}", mark.loss);
    }
    if let Some([was, is]) = mark.changed {
        let _ = write!(line, "  ** {} to {}", was.name(), is.name());
    }
    line
}

/// A game's analysis as text: a heading, a line per covered move, the totals.
fn text_of(k: usize, game: &GameAnalysis) -> String {
    let seats: Vec<String> = game
        .seats
        .iter()
        .enumerate()
        .map(|(s, p)| format!("seat {s} {p}"))
        .collect();
    let mut text = format!(
        "game {k}: {}, {}, game {} ({})\n",
        game.game,
        game.case_label,
        game.game_index,
        seats.join(", ")
    );
    for mark in &game.marks {
        text.push_str(&mark_line(mark, &game.seats));
        text.push('\n');
    }
    let first = match game.first_mistake {
        Some(ply) => format!("first mistake at ply {ply}"),
        None => "no mistake".into(),
    };
    let _ = writeln!(
        text,
        "  totals: {} moves, {} covered, {} lost value, {first}",
        game.moves,
        game.marks.len(),
        game.lost_value
    );
    text
}
