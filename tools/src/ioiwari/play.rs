//! `tabula play ioiwari` and `tabula serve ioiwari`: a built-in player 1
//! over the IOI dialogue on stdin/stdout; and perft.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use tabula_solver::ioiwari::{Board, Ring, RingMatch};
use tabula_verify::ioiwari::{self as ioi, AGENTS, IoiWire};
use tabula_verify::tournament::served_rng;
use tabula_verify::wire::Session;

use super::RingArgs;
use super::query::parse_board;
use super::table::{open_table, variant_table};
use crate::common::{SeedArgs, check_agent, serve_stdio};
use crate::registry::Outcome;

/// Arguments of `tabula play ioiwari`.
#[derive(Args)]
pub struct PlayArgs {
    // The variant (the IOI game by default); its board lines have `--pits` counts.
    #[command(flatten)]
    ring: RingArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
}

/// Arguments of `tabula serve ioiwari`.
#[derive(Args)]
pub struct ServeArgs {
    // The variant (the IOI game by default); its board lines have `--pits` counts.
    #[command(flatten)]
    ring: RingArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The built-in player 1: optimal, greedy1, greedy2 or random.
    #[arg(long, value_name = "NAME", default_value = "optimal")]
    agent: String,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Arguments of `tabula perft ioiwari`.
#[derive(Args)]
pub struct PerftArgs {
    /// The IOI game's starting board (player 1 to move, both banks empty).
    #[arg(long, default_value = "4 3 2 4 2 3 2")]
    board: String,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts the IOI game's move sequences from a board.
pub fn perft(args: PerftArgs) -> Outcome {
    let board = parse_board(&args.board).context("--board")?;
    crate::perft::perft(tabula_solver::ioiwari::Match::new(board), &args.perft)
}

/// The optimal player 1 over the IOI dialogue on stdin/stdout (the task's
/// name for it; `serve ioiwari --agent optimal` is the same).
pub fn play(args: PlayArgs) -> Outcome {
    serve(ServeArgs {
        ring: args.ring,
        table: args.table,
        agent: "optimal".into(),
        seed: SeedArgs { seed: 0 },
    })
}

/// A built-in player 1 over the IOI dialogue on stdin/stdout, as every
/// game's `serve`; its random stream is the one `referee --agent` gives it.
pub fn serve(args: ServeArgs) -> Outcome {
    check_agent("--agent", &args.agent, &AGENTS)?;
    let params = args.ring.params_for(args.table.as_deref())?;
    let rng = served_rng(args.seed.seed);
    if params.is_ioi_table() {
        let table = open_table(args.table.as_deref())?;
        let player = ioi::agent::<Board>(&args.agent, &table, rng).expect("checked");
        return serve_stdio(Session::new(IoiWire::default(), player));
    }
    let table = variant_table(&params, args.table.as_deref())?;
    let player = ioi::agent::<Ring>(&args.agent, &table, rng).expect("checked");
    serve_stdio(Session::new(IoiWire::<RingMatch>::new(params), player))
}
