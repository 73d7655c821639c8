//! `tabula referee ioiwari`: the optimal player 2 against player 1, one game
//! or a tally of many.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use clap::Args;
use tabula_solver::ioiwari::{BankMatch, Params, Ring};
use tabula_tables::TypedTable;
use tabula_verify::arena::play_case;
use tabula_verify::ioiwari::{
    self as ioi, AGENTS, Banked, IoiBoard, IoiWire, OptimalAgent, RefereedGame,
};
use tabula_verify::process::StreamPeer;
use tabula_verify::record::{At, Notation};
use tabula_verify::report::RefereeReport;
use tabula_verify::seat::{Clock, EXIT_GRACE, Limits, Local, Player, Remote};
use tabula_verify::tournament::{Purpose, served_rng, stream};

use super::VariantArgs;
use super::query::{ioi_board, parse_board, parse_ring};
use super::table::{open_table, variant_table};
use crate::common::{
    JsonArgs, Log, LogArgs, OutputPath, SeatArgs, SeedArgs, StrictArgs, TimeoutArgs, emit_report,
    report_then_finish, run_info, tested_player,
};
use crate::out::outln;
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
    // Player 1's time limit per game.
    #[command(flatten)]
    timeout: TimeoutArgs,
    // Seed of a random player 1 (`--agent random`).
    #[command(flatten)]
    seed: SeedArgs,
    // `--log` (each game) and `--transcript` (the dialogue, like ioiwari.out).
    #[command(flatten)]
    log: LogArgs,
    /// Play the instances, the starting boards modulo rotation (the IOI game's 51; needs
    /// --player or --agent).
    #[arg(long)]
    all: bool,
    /// Play every starting board (the IOI game's 357; needs --player or --agent).
    #[arg(long, conflicts_with = "all")]
    rotations: bool,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    strict: StrictArgs,
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
            ("--log", &args.log.log),
            ("--transcript", &args.log.transcript),
            ("--json", &args.json.json),
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
        let log = Log::open(&args.log)?;
        let boards = referee_boards(&args, &params, ioi_board, parse_board)?;
        referee_games(&args, boards, &table, (), log)
    } else {
        let table = variant_table(&params, args.table.as_deref())?;
        let log = Log::open(&args.log)?;
        let parse = |text: &str| parse_ring(&params, text);
        let boards = referee_boards(&args, &params, |ring| ring, parse)?;
        referee_games(&args, boards, &table, params, log)
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
/// their result lines, the tally and the report.
fn referee_games<B: IoiBoard>(
    args: &RefereeArgs,
    boards: Vec<B>,
    table: &Arc<TypedTable<B::Table>>,
    setup: <BankMatch<B> as Banked>::Setup,
    log: Log,
) -> Outcome
where
    BankMatch<B>: Banked + Notation<Params = B>,
{
    let limits = Limits {
        per_game: Some(args.timeout.timeout),
        ..Limits::default()
    };
    let seed = args.seed.seed;
    let many = boards.len() > 1;
    let json = args.json.json.as_ref();
    let mut games = Vec::new();
    for (case, board) in boards.into_iter().enumerate() {
        log.transcript_line(&format!("# game {board}"));
        // A new player 1 per game, so that a crash loses only that game.
        let mut tested: Box<dyn Player<BankMatch<B>>> = if args.external() {
            // As `serve ioiwari --seed` draws it, so that both play alike.
            let rng = served_rng(seed);
            tested_player(
                &args.seat,
                IoiWire::<BankMatch<B>>::new(setup),
                |n| ioi::agent(n, table, rng),
                &AGENTS,
                &log,
            )?
        } else {
            let peer = StreamPeer::for_person(io::stdin(), crate::out::data_stdout());
            Box::new(
                Remote::new(
                    "stdin/stdout",
                    Box::new(peer),
                    IoiWire::<BankMatch<B>>::new(setup),
                )
                .with_transcript(log.transcript()),
            )
        };
        let mut optimal = Local(OptimalAgent::new(table.clone()));
        let mut players: Vec<&mut dyn Player<BankMatch<B>>> = vec![tested.as_mut(), &mut optimal];
        let mut clocks = vec![Clock::new(limits), Clock::default()];
        let record = play_case(&board, 1, &mut players, &mut clocks, |game| {
            let chance = stream(seed, Purpose::Chance, case as u64, game as u64, 0);
            (BankMatch::new(board), chance, vec![0, 1])
        })
        .pop()
        .expect("one game");
        drop(players);
        // Time to read the last move and end by itself, then it is killed.
        tested.finish(EXIT_GRACE);
        drop(tested);
        log.game(&record, &board, &At::new(seed, case, board.to_string(), 0));
        let game = RefereedGame::new(&record);
        let line = game.line();
        log.transcript_line(&line);
        // Over stdin/stdout the summary follows the dialogue's last line.
        if json != Some(&OutputPath::Stdout) {
            if many {
                outln!("{board}: {line}")?;
            } else {
                outln!("{line}")?;
            }
        }
        games.push(game);
    }
    let report = RefereeReport::new(games);
    let reported = report_then_finish(&log, || {
        // The task's scoring over many boards: 4 points a win, 2 a draw.
        let tally = if many {
            format!("{}\n", report.tally_line())
        } else {
            String::new()
        };
        emit_report(&tally, json, &run_info(Some(seed)).stamp(&report))
    });
    args.strict.status(reported, report.faults())
}
