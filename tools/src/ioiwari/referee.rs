//! `tabula referee ioiwari`: the optimal player 2 against player 1, one game
//! or a tally of many.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use clap::Args;
use tabula_solver::ioiwari::{BankMatch, Params, Ring};
use tabula_tables::TypedTable;
use tabula_verify::ioiwari::{self as ioi, AGENTS, Banked, IoiBoard, IoiWire, IoiwariContest};
use tabula_verify::process::StreamPeer;
use tabula_verify::record::Notation;
use tabula_verify::seat::{Limits, Remote};
use tabula_verify::tournament::served_rng;

use super::VariantArgs;
use super::query::{ioi_board, parse_board, parse_ring};
use super::table::{open_table, variant_table};
use crate::common::{OutputPath, RefereeRunArgs, SeatArgs, referee_contest_with, tested_player};
use crate::registry::Outcome;

/// Arguments of `tabula referee ioiwari`.
#[derive(Args)]
pub struct RefereeArgs {
    // The variant (the IOI game by default): its boards and its dialogue's pit labels.
    #[command(flatten)]
    variant: VariantArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The starting board [default: 4 3 2 4 2 3 2 in the IOI game, a variant's first instance].
    #[arg(long, conflicts_with_all = ["all", "rotations"])]
    board: Option<String>,
    // Player 1: `--player CMD` (a new process per game, over pipes) or
    // `--agent NAME`; neither talks over this program's own stdin/stdout.
    #[command(flatten)]
    seat: SeatArgs,
    /// Play the instances, the starting boards modulo rotation (the IOI game's 51; needs
    /// --player or --agent).
    #[arg(long)]
    all: bool,
    /// Play every starting board (the IOI game's 357; needs --player or --agent).
    #[arg(long, conflicts_with = "all")]
    rotations: bool,
    // Player 1's time limit per game, the seed of a random player 1
    // (`--agent random`), `--log` (each game) and `--transcript` (the
    // dialogue, like ioiwari.out).
    #[command(flatten)]
    run: RefereeRunArgs,
}

impl RefereeArgs {
    /// Whether player 1 is a program or a built-in agent, not this program's stdin/stdout.
    fn external(&self) -> bool {
        self.seat.player.is_some() || self.seat.agent.is_some()
    }
}

/// The optimal player 2 against player 1, one game or a tally of many.
pub fn referee(args: RefereeArgs) -> Outcome {
    let params = args.variant.params_for(args.table.as_deref())?;
    if !args.external() {
        for (option, path) in [
            ("--log", &args.run.log.log),
            ("--transcript", &args.run.log.transcript),
            ("--json", &args.run.json.json),
        ] {
            if path == &Some(OutputPath::Stdout) {
                bail!(
                    "{option} -: stdout carries the dialogue with player 1 (no --player or --agent)"
                );
            }
        }
    }
    // The IOI table's boards are played as the IOI game, whatever the starting boards.
    if params.is_ioi_table() {
        let table = open_table(args.table.as_deref())?;
        let boards = referee_boards(&args, &params, ioi_board, parse_board)?;
        referee_games(&args, boards, &table, ())
    } else {
        let table = variant_table(&params, args.table.as_deref())?;
        let parse = |text: &str| parse_ring(&params, text);
        let boards = referee_boards(&args, &params, |ring| ring, parse)?;
        referee_games(&args, boards, &table, params)
    }
}

/// The boards the referee plays: the variant's instances (`--all`), its
/// starting boards (`--rotations`), or the one board (`--board`, else the
/// seed's board in the IOI game and a variant's first instance).
fn referee_boards<B: IoiBoard>(
    args: &RefereeArgs,
    params: &Params,
    board_of: impl Fn(Ring) -> B,
    parse: impl Fn(&str) -> anyhow::Result<B>,
) -> anyhow::Result<Vec<B>> {
    if args.all || args.rotations {
        if !args.external() {
            bail!("--all and --rotations need --player CMD or --agent NAME");
        }
        let rings = if args.all {
            params.instances()
        } else {
            params.starting_rings()
        };
        return Ok(rings.into_iter().map(board_of).collect());
    }
    let text = match &args.board {
        Some(text) => text.clone(),
        None if *params == Params::default() => "4 3 2 4 2 3 2".to_string(),
        // A checked variant has a starting board, so an instance.
        None => params.instances()[0].to_string(),
    };
    let board = parse(&text)?;
    if board.is_empty() {
        bail!("bad board '{}': every pit is empty", text.trim());
    }
    Ok(vec![board])
}

/// The referee's games on `boards`, over the IOI dialogue read with `setup`,
/// on the one referee run: their result lines, the tally and the report.
fn referee_games<B: IoiBoard>(
    args: &RefereeArgs,
    boards: Vec<B>,
    table: &Arc<TypedTable<B::Table>>,
    setup: <BankMatch<B> as Banked>::Setup,
) -> Outcome
where
    BankMatch<B>: Banked + Notation<Params = B>,
{
    let seed = args.run.seed.seed;
    let contest = IoiwariContest {
        boards,
        table: table.clone(),
        seed,
        limits: Limits {
            per_game: Some(args.run.timeout.timeout),
            ..Limits::default()
        },
    };
    referee_contest_with(&contest, &args.run, |log, _case| {
        let wire = IoiWire::<BankMatch<B>>::new(setup);
        if args.external() {
            // As `serve ioiwari --seed` draws it, so that both play alike.
            let rng = served_rng(seed);
            return tested_player(
                &args.seat,
                wire,
                |n| ioi::agent(n, table, rng),
                &AGENTS,
                log,
            );
        }
        let peer = StreamPeer::for_person(io::stdin(), crate::out::data_stdout());
        let person = Remote::new("stdin/stdout", Box::new(peer), wire);
        Ok(Box::new(person.with_transcript(log.transcript())))
    })
}
