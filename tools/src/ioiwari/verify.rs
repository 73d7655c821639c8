//! `tabula verify ioiwari`: the official results table.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use tabula_solver::ioiwari::{BankMatch, Board, Params};
use tabula_tables::TypedTable;
use tabula_verify::ioiwari::{self as ioi, IoiBoard};
use tabula_verify::record::Notation;

use super::VariantArgs;
use super::query::ioi_board;
use super::table::{open_table, variant_table};
use crate::common::{GamesArgs, Log};
use crate::memory::games_bar;
use crate::progress::tracked;
use crate::registry::Outcome;

/// Arguments of `tabula verify ioiwari`.
#[derive(Args)]
pub struct VerifyArgs {
    // The variant (the IOI game by default): its instances are the table's rows.
    #[command(flatten)]
    variant: VariantArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    // Random games per instance.
    #[command(flatten)]
    games: GamesArgs,
    /// Every starting board (the IOI game's 357) instead of the instances modulo rotation (51).
    #[arg(long)]
    rotations: bool,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

/// Prints the official results table, optionally also as JSON.
pub fn verify(args: VerifyArgs) -> Outcome {
    let params = args.variant.params_for(args.table.as_deref())?;
    // The table first: it refuses a variant too large before its boards are listed.
    let rings = |params: &Params| {
        if args.rotations {
            params.starting_rings()
        } else {
            params.instances()
        }
    };
    // The IOI table's boards are played as the IOI game, whatever the starting boards.
    if params.is_ioi_table() {
        let table = open_table(args.table.as_deref())?;
        let boards: Vec<Board> = rings(&params).into_iter().map(ioi_board).collect();
        results(&args, &params, &boards, &table)
    } else {
        let table = variant_table(&params, args.table.as_deref())?;
        results(&args, &params, &rings(&params), &table)
    }
}

/// The results table of `boards` and its outputs.
fn results<B: IoiBoard>(
    args: &VerifyArgs,
    params: &Params,
    boards: &[B],
    table: &Arc<TypedTable<B::Table>>,
) -> Outcome
where
    BankMatch<B>: Notation<Params = B>,
{
    let games = args.games.games;
    let total = boards.len() * (games + 2);
    let progress = games_bar(total, total)?;
    let log = Log::open(&args.run)?;
    let report = tracked(progress, |done| {
        ioi::results_table(boards, table, games, args.run.seed(), done, log.games())
            .of_variant(params)
    });
    args.run.finish(&log, &report)
}
