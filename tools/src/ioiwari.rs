//! `tabula … ioiwari`: build, query, play, referee and verify.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args;
use tabula_solver::ioiwari::{Board, instances, parse_label, starting_boards};
use tabula_tables::Table;
use tabula_tables::ioiwari::{self as table, IoiwariTable};
use tabula_verify::ioiwari::{referee_game, results_table};
use tabula_verify::process::{ExternalPlayer, Peer, StreamPeer, parse_seconds};

use crate::Outcome;
use crate::common::stderr_mode;
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
    /// Player 1's command, run with `sh -c` and spoken to over pipes
    /// (default: talk over this program's own stdin/stdout).
    #[arg(long)]
    player: Option<String>,
    /// Time limit for player 1's whole game (reading its moves and writing to
    /// it), in seconds, at most a day.
    #[arg(long, value_parser = parse_seconds, default_value = "10")]
    timeout: Duration,
    /// Let player 1's stderr through instead of quoting its last lines in the
    /// reason of an exit.
    #[arg(long, requires = "player")]
    player_stderr: bool,
    /// Record the dialogue in this file (like ioiwari.out).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Play the 51 instances (needs --player).
    #[arg(long, requires = "player")]
    all: bool,
    /// Play all 357 starting boards (needs --player).
    #[arg(long, requires = "player", conflicts_with = "all")]
    rotations: bool,
}

/// Arguments of `tabula verify ioiwari`.
#[derive(Args)]
pub struct VerifyArgs {
    /// The table file (built in memory when omitted).
    #[arg(long)]
    table: Option<PathBuf>,
    /// Random games per instance.
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Seed of the random games.
    #[arg(long, default_value_t = 2001)]
    seed: u64,
    /// All 357 starting boards instead of the 51 instances.
    #[arg(long)]
    rotations: bool,
    /// Also write the report as JSON to this file; `-` writes the JSON alone to stdout.
    #[arg(long, value_parser = crate::common::output_path)]
    json: Option<crate::common::OutputPath>,
}

fn open_table(path: Option<&Path>) -> anyhow::Result<IoiwariTable> {
    Ok(IoiwariTable::open_or_build(path)?)
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
    let table = open_table(args.table.as_deref())?;
    let board = parse_board(&args.board)?;
    println!("board: {board}");
    println!("value: {}", table.value(&board));
    let labels: Vec<String> = table
        .best_moves(&board)
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
                gain - table.value(&child)
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
        .verb(Verb::new(
            "referee",
            "The optimal player 2 (ioiwari2) against player 1",
            referee,
        ))
        .verb(Verb::new(
            "verify",
            "The official results table: optimal, greedy and random play per instance",
            verify,
        ))
}

/// Player 1 over the IOI dialogue on stdin/stdout.
pub fn play(args: PlayArgs) -> Outcome {
    let table = open_table(args.table.as_deref())?;
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut stdout = io::stdout().lock();
    let mut line = String::new();
    if input.read_line(&mut line).context("reading the board")? == 0 {
        bail!("stdin: no board line");
    }
    let mut board = parse_board(&line)?;
    while let Some(pit) = table.best_move(&board) {
        writeln!(stdout, "{}", pit + 1)?;
        stdout.flush()?;
        board.sow(pit);
        if board.is_empty() {
            break;
        }
        line.clear();
        if input.read_line(&mut line).context("reading a move")? == 0 {
            bail!("stdin: input ended while waiting for player 2's move on {board}");
        }
        let reply = parse_label(&line).with_context(|| "player 2's move".to_string())?;
        if !board.is_legal(reply) {
            bail!(
                "player 2 played pit {}, which is empty on {board}",
                reply + 1
            );
        }
        board.sow(reply);
    }
    Ok(ExitCode::SUCCESS)
}

/// The optimal player 2 against player 1, one game or a tally of many.
pub fn referee(args: RefereeArgs) -> Outcome {
    let table = open_table(args.table.as_deref())?;
    let mut log: Option<BufWriter<File>> = match &args.log {
        Some(path) => Some(BufWriter::new(
            File::create(path).with_context(|| format!("{}", path.display()))?,
        )),
        None => None,
    };
    let boards = if args.all {
        instances()
    } else if args.rotations {
        starting_boards()
    } else {
        let board = parse_board(&args.board)?;
        if board.is_empty() {
            bail!("bad board '{}': every pit is empty", args.board.trim());
        }
        vec![board]
    };
    let many = boards.len() > 1;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for board in boards {
        let deadline = Some(Instant::now() + args.timeout);
        let mut record = |line: &str| {
            if let Some(log) = log.as_mut() {
                let _ = writeln!(log, "{line}");
            }
        };
        record(&format!("# game {board}"));
        let verdict = match &args.player {
            Some(command) => {
                let mut player =
                    ExternalPlayer::spawn_with(command, stderr_mode(args.player_stderr))?;
                let verdict = referee_game(board, &table, &mut player, deadline, &mut record);
                player.finish(Duration::from_millis(500));
                verdict
            }
            None => {
                let mut peer = StreamPeer::new(io::stdin(), io::stdout());
                referee_game(
                    board,
                    &table,
                    &mut peer as &mut dyn Peer,
                    deadline,
                    &mut record,
                )
            }
        };
        record(&verdict.summary());
        match verdict.outcome() {
            "win" => wins += 1,
            "draw" => draws += 1,
            _ => losses += 1,
        }
        // Over stdin/stdout the summary follows the dialogue's last line.
        if many {
            println!("{board}: {}", verdict.summary());
        } else {
            println!("{}", verdict.summary());
        }
    }
    if let Some(log) = log.as_mut() {
        log.flush().context("writing the log")?;
    }
    if many {
        println!("tally: {wins} win, {draws} draw, {losses} loss");
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
    let progress = bar(boards.len(), "instances");
    let report = results_table(&boards, &table, args.games, args.seed, &|done| {
        progress.set_position(done as u64)
    });
    progress.finish_and_clear();
    crate::common::emit_report(&report.to_markdown(), args.json.as_ref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `tabula check` for an Ioiwari table: every record against its children.
pub fn check_records(table: Table) -> anyhow::Result<usize> {
    let table = IoiwariTable::new(table)?;
    Ok(table.check_records()?)
}
