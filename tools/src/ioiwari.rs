//! `tabula … ioiwari`: build, query, play, referee and verify.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use tabula_solver::ioiwari::{Board, Match, instances, starting_boards};
use tabula_tables::Table;
use tabula_tables::ioiwari::{self as table, IoiwariTable};
use tabula_verify::arena::{Outcome as GameOutcome, play_case};
use tabula_verify::ioiwari::{self as ioi, AGENTS, IoiWire, OptimalAgent, result_line};
use tabula_verify::process::StreamPeer;
use tabula_verify::record::At;
use tabula_verify::seat::{Clock, Limits, Local, Player, Remote};
use tabula_verify::stats::Wdl;
use tabula_verify::tournament::{Purpose, stream};
use tabula_verify::wire::Session;

use crate::Outcome;
use crate::common::{
    GamesArgs, JsonArgs, Log, LogArgs, PlotArgs, SeatArgs, SeedArgs, TimeoutArgs, emit_report,
    serve_stdio, tested_player,
};
use crate::progress::bar;
use crate::registry::{GameEntry, Verb};

/// Arguments of `tabula build ioiwari`.
#[derive(Args)]
pub struct BuildArgs {
    /// Where to write the table.
    #[arg(short, long, default_value = "ioiwari.tab")]
    output: PathBuf,
}

/// Arguments of `tabula query ioiwari`.
#[derive(Args)]
pub struct QueryArgs {
    /// The table file (built in memory when omitted).
    #[arg(long)]
    table: Option<PathBuf>,
    /// The board: seven bead counts, pit 1 first, e.g. "4 3 2 4 2 3 2".
    board: String,
}

/// Arguments of `tabula play ioiwari`.
#[derive(Args)]
pub struct PlayArgs {
    /// The table file (built in memory when omitted).
    #[arg(long)]
    table: Option<PathBuf>,
}

/// Arguments of `tabula referee ioiwari`.
#[derive(Args)]
pub struct RefereeArgs {
    /// The table file (built in memory when omitted).
    #[arg(long)]
    table: Option<PathBuf>,
    /// The starting board.
    #[arg(long, default_value = "4 3 2 4 2 3 2", conflicts_with_all = ["all", "rotations"])]
    board: String,
    /// Player 1: `--player CMD` (a new process per game, over pipes) or
    /// `--agent NAME`; neither talks over this program's own stdin/stdout.
    #[command(flatten)]
    seat: SeatArgs,
    /// Player 1's time limit per game: only the time waiting for its answers counts.
    #[command(flatten)]
    timeout: TimeoutArgs,
    /// Seed of a random player 1 (`--agent random`).
    #[command(flatten)]
    seed: SeedArgs,
    /// Record the dialogue in this file (like ioiwari.out).
    #[command(flatten)]
    log: LogArgs,
    /// Play the 51 instances (needs --player or --agent).
    #[arg(long)]
    all: bool,
    /// Play all 357 starting boards (needs --player or --agent).
    #[arg(long, conflicts_with = "all")]
    rotations: bool,
}

/// Arguments of `tabula verify ioiwari`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The table file (built in memory when omitted).
    #[arg(long)]
    table: Option<PathBuf>,
    /// Random games per instance.
    #[command(flatten)]
    games: GamesArgs,
    /// Seed of the random games.
    #[command(flatten)]
    seed: SeedArgs,
    /// All 357 starting boards instead of the 51 instances.
    #[arg(long)]
    rotations: bool,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    log: LogArgs,
    #[command(flatten)]
    plot: PlotArgs,
}

/// The table, built in memory or read from `path`; a file's every record is
/// checked first (value range, legal optimal moves), so play never meets a bad one.
fn open_table(path: Option<&Path>) -> anyhow::Result<Arc<IoiwariTable>> {
    let table = IoiwariTable::open_or_build(path)?;
    if path.is_some() {
        table.check_moves()?;
    }
    Ok(Arc::new(table))
}

fn parse_board(text: &str) -> anyhow::Result<Board> {
    text.parse()
        .with_context(|| format!("bad board '{}'", text.trim()))
}

/// Builds the table file.
pub fn build(args: BuildArgs) -> Outcome {
    let started = Instant::now();
    table::build(&args.output, &|_| {})?;
    println!(
        "wrote {} ({} boards) in {:.1} ms",
        args.output.display(),
        table::SPEC.entries,
        started.elapsed().as_secs_f64() * 1e3
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints the value and the optimal moves of a board, and the value of every move.
pub fn query(args: QueryArgs) -> Outcome {
    let table = IoiwariTable::open_or_build(args.table.as_deref())?;
    let board = parse_board(&args.board)?;
    let value = table.value(&board)?;
    println!("board: {board}");
    println!("value: {value}");
    if board.is_empty() {
        println!("the game is over: every pit is empty");
        return Ok(ExitCode::SUCCESS);
    }
    let labels: Vec<String> = table
        .best_moves(&board)?
        .iter()
        .map(|p| (p + 1).to_string())
        .collect();
    println!("optimal moves: {}", labels.join(" "));
    for pit in 0..7u8 {
        if board.is_legal(pit) {
            let mut child = board;
            let gain = child.sow(pit).difference();
            println!(
                "move {}: value {} (gains {gain}, leaves {child})",
                pit + 1,
                gain - table.value(&child)?
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("ioiwari", "Ioiwari, IOI 2001")
        .table_check(check_records)
        .verb(Verb::new("build", "Every one of the 6^7 boards", build))
        .verb(Verb::new(
            "query",
            "Value and optimal moves of a board",
            query,
        ))
        .verb(Verb::new(
            "play",
            "Player 1 over the IOI dialogue on stdin/stdout",
            play,
        ))
        .verb(
            Verb::new(
                "referee",
                "The optimal player 2 (ioiwari2) against player 1 (time limit per game, 10 s by default)",
                referee,
            )
            .default("timeout", "10"),
        )
        .verb(
            Verb::new(
                "verify",
                "The official results table: optimal, greedy and random play per instance",
                verify,
            )
            .default("games", "1000")
            .default("seed", "2001"),
        )
}

/// Player 1 over the IOI dialogue on stdin/stdout.
pub fn play(args: PlayArgs) -> Outcome {
    let table = open_table(args.table.as_deref())?;
    serve_stdio(Session::new(IoiWire::default(), OptimalAgent::new(table)))
}

/// The optimal player 2 against player 1, one game or a tally of many.
pub fn referee(args: RefereeArgs) -> Outcome {
    let table = open_table(args.table.as_deref())?;
    let log = Log::open(&args.log)?;
    let external = args.seat.player.is_some() || args.seat.agent.is_some();
    let boards = if args.all || args.rotations {
        if !external {
            bail!("--all and --rotations need --player CMD or --agent NAME");
        }
        if args.all {
            instances()
        } else {
            starting_boards()
        }
    } else {
        let board = parse_board(&args.board)?;
        if board.is_empty() {
            bail!("bad board '{}': every pit is empty", args.board.trim());
        }
        vec![board]
    };
    let limits = Limits {
        per_game: Some(args.timeout.timeout),
        ..Limits::default()
    };
    let seed = args.seed.seed;
    let many = boards.len() > 1;
    let mut tally = Wdl::default();
    for (case, board) in boards.into_iter().enumerate() {
        log.line(&format!("# game {board}"));
        // A new player 1 per game, so that a crash loses only that game.
        let mut tested: Box<dyn Player<Match>> = if external {
            let rng = stream(seed, Purpose::Agent, case as u64, 0, 0);
            tested_player(
                &args.seat,
                IoiWire::default(),
                |n| ioi::agent(n, &table, rng),
                &AGENTS,
                &log,
            )?
        } else {
            let peer = StreamPeer::new(io::stdin(), io::stdout());
            Box::new(
                Remote::new("stdin/stdout", Box::new(peer), IoiWire::default())
                    .with_transcript(log.transcript()),
            )
        };
        let mut optimal = Local(OptimalAgent::new(table.clone()));
        let mut players: Vec<&mut dyn Player<Match>> = vec![tested.as_mut(), &mut optimal];
        let mut clocks = vec![Clock::new(limits), Clock::default()];
        let record = play_case(&board, 1, &mut players, &mut clocks, |game| {
            let chance = stream(seed, Purpose::Chance, case as u64, game as u64, 0);
            (Match::new(board), chance, vec![0, 1])
        })
        .pop()
        .expect("one game");
        drop(players);
        drop(tested);
        log.game(&record, &board, &At::new(seed, case, board.to_string(), 0));
        let line = result_line(&record);
        log.line(&line);
        tally.add(match record.outcome(0) {
            GameOutcome::Win => 1,
            GameOutcome::Draw => 0,
            GameOutcome::Loss => -1,
        });
        // Over stdin/stdout the summary follows the dialogue's last line.
        if many {
            println!("{board}: {line}");
        } else {
            println!("{line}");
        }
    }
    log.flush().context("writing the log")?;
    if many {
        println!(
            "tally: {} win, {} draw, {} loss",
            tally.wins, tally.draws, tally.losses
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the official results table, optionally also as JSON.
pub fn verify(args: VerifyArgs) -> Outcome {
    let table = open_table(args.table.as_deref())?;
    let boards = if args.rotations {
        starting_boards()
    } else {
        instances()
    };
    let games = args.games.games;
    let progress = bar(boards.len() * (games + 2), "games");
    let log = Log::open(&args.log)?;
    let report = ioi::results_table(
        &boards,
        &table,
        games,
        args.seed.seed,
        &|done| progress.set_position(done as u64),
        log.games(),
    );
    progress.finish_and_clear();
    log.flush()?;
    args.plot.write(|| report.plot())?;
    emit_report(&report.to_markdown(), args.json.json.as_ref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `tabula check` for an Ioiwari table: every record against its children.
pub fn check_records(table: Table) -> anyhow::Result<usize> {
    let table = IoiwariTable::new(table)?;
    Ok(table.check_records()?)
}
