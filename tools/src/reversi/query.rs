//! `tabula query reversi`: a board's legal moves, player 1's built-in players'
//! choices, and a referee case's computer opponents' view of it.

use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Args;
use tabula_verify::protocol::excerpt;
use tabula_verify::reversi::query::{analyse, parse_board};
use tabula_verify::reversi::referee::opponents;

use crate::Outcome;
use crate::common::{JsonArgs, SeedArgs, emit_report, run_info};

/// Arguments of `tabula query reversi`.
#[derive(Args)]
pub struct QueryArgs {
    /// The board: its rows separated by spaces or `/` (`......./......./..123../...`),
    /// optionally after their count, as `getNextMove` sends it.
    board: String,
    /// The player to move, 1..P (the next one who can, if it cannot).
    #[arg(long, default_value_t = 1)]
    mover: usize,
    /// The referee's case (with --seed and the genetic algorithm's options)
    /// whose computer opponents to consult: the oracle's move for player 1,
    /// an opponent's ratios and move for players 2..
    #[arg(long)]
    case: Option<usize>,
    #[command(flatten)]
    ga: super::GaArgs,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// Runs `tabula query reversi`.
pub fn query(args: QueryArgs) -> Outcome {
    let shown = excerpt(&args.board);
    // The side is read first, so that --mover is checked against its players.
    let board = parse_board(&args.board, 0).map_err(|e| anyhow!("bad board '{shown}': {e}"))?;
    if !(1..=board.players()).contains(&args.mover) {
        bail!(
            "--mover {}: the board has players 1 to {}",
            args.mover,
            board.players()
        );
    }
    let board = parse_board(&args.board, args.mover - 1).expect("read above");
    let case = args.case.map(|case| {
        let settings = args.ga.settings(board.n());
        super::with_generations_bar(|progress| {
            opponents(args.seed.seed, &settings, case, progress).0
        })
    });
    let rule = args.ga.rule.rule();
    let analysis = analyse(
        &board,
        args.mover - 1,
        case.as_deref().map(|weights| (weights, rule)),
    );
    let stamped = run_info(args.case.map(|_| args.seed.seed)).stamp(&analysis);
    emit_report(&analysis.to_text(), args.json.json.as_ref(), &stamped)?;
    Ok(ExitCode::SUCCESS)
}
