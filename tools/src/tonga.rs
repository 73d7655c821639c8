//! `tabula … tonga`: score, server-moves, build, query, referee, serve and verify.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::server::{self, Geometry};
use tabula_solver::tonga::{Board, Colour};
use tabula_tables::Table;
use tabula_tables::tonga::{self as table, TongaTable};
use tabula_verify::process::{ExternalPlayer, parse_seconds};
use tabula_verify::protocol;
use tabula_verify::tonga::{
    AGENTS, GameResult, SIZES, ServeSession, agent, agent_rng, game_rng, play_game, referee_game,
    signed_sqrt, verify as verify_report,
};

use crate::Outcome;
use crate::common::stderr_mode;
use crate::progress::bar;
use crate::registry::{GameEntry, Verb};

/// `tabula tonga …`: rules tools.
#[derive(Clone, Copy, Subcommand)]
pub enum TongaCommand {
    /// Read `N` and N rows on stdin and print `B <points> W <points>`.
    Score,
    /// Read `N`, the server's colour (B or W) and N rows on stdin; print the
    /// server's maximal 3-ply score, then each tied-best square as `row col`.
    ServerMoves,
    /// Read `N` and N rows (at most 16 empty squares) on stdin; print the exact
    /// value for the side to move (Black when the counts are equal) under
    /// perfect play, its optimal squares, and (up to 12 empties) the expected
    /// value and best square when the other side follows the server's policy.
    Solve,
}

/// Arguments of `tabula build tonga`.
#[derive(Args)]
pub struct BuildArgs {
    /// Board side; only 4 is tabulated.
    #[arg(long, default_value_t = 4)]
    size: usize,
    /// Where to write the table.
    #[arg(short, long, default_value = "tonga4.tab")]
    output: PathBuf,
}

/// Arguments of `tabula query tonga`.
#[derive(Args)]
pub struct QueryArgs {
    /// The 4×4 table file.
    #[arg(long)]
    table: PathBuf,
}

/// Arguments shared by the commands that play games.
#[derive(Args)]
pub struct GamesArgs {
    /// Seed of the coins and the server's tie-breaks.
    #[arg(long, default_value_t = 6759)]
    seed: u64,
    /// Board sides, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = SIZES)]
    sizes: Vec<usize>,
}

/// Arguments of `tabula referee tonga`.
#[derive(Args)]
pub struct RefereeArgs {
    /// The player's command, run with `sh -c` and spoken to over pipes.
    #[arg(long, conflicts_with = "agent", required_unless_present = "agent")]
    player: Option<String>,
    /// A built-in player instead: random, greedy, server or best.
    #[arg(long)]
    agent: Option<String>,
    #[command(flatten)]
    games_args: GamesArgs,
    /// Games per board side.
    #[arg(long, default_value_t = 1)]
    games: usize,
    /// Time limit for the player's whole game, in seconds, at most a day (only
    /// the time spent waiting for it to take messages and answer counts).
    #[arg(long, value_parser = parse_seconds, default_value = "20")]
    timeout: Duration,
    /// Let the player's stderr through instead of quoting its last lines in the
    /// reason of an exit.
    #[arg(long, requires = "player")]
    player_stderr: bool,
    /// Record every game's moves (and the dialogue) in this file.
    #[arg(long)]
    log: Option<PathBuf>,
}

/// Arguments of `tabula serve tonga`.
#[derive(Args)]
pub struct ServeArgs {
    /// The built-in player: random, greedy, server or best.
    #[arg(long)]
    agent: String,
    /// Seed of the player's own random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Arguments of `tabula verify tonga`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    games_args: GamesArgs,
    /// Games per board side and player.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Players to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = AGENTS.map(String::from))]
    agents: Vec<String>,
    /// Also write the report as JSON to this file; `-` writes the JSON alone to stdout.
    #[arg(long, value_parser = crate::common::output_path)]
    json: Option<crate::common::OutputPath>,
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .context("reading stdin")?;
    Ok(text)
}

/// No arguments: the board comes on stdin.
#[derive(Args)]
pub struct StdinArgs {}

/// The game's registration: its verbs and extras.
pub fn entry() -> GameEntry {
    GameEntry::new("tonga", "PseudoTonga, TopCoder MM 6")
        .table_check(check_records)
        .verb(Verb::new("build", "Every 4x4 position reachable with Black first", build))
        .verb(Verb::new("query", "Exact value and optimal squares of a 4x4 board read on stdin", query))
        .verb(Verb::new("serve", "A built-in player over the init/move/end line protocol", serve))
        .verb(Verb::new("referee", "The server against a player, with the TopCoder scoring", referee))
        .verb(Verb::new("verify", "Mean case score per board side of each built-in player against the server", verify))
        .extra(Verb::new("score", "Read N and N rows on stdin; print `B <points> W <points>`", |_: StdinArgs| tonga(TongaCommand::Score)))
        .extra(Verb::new("server-moves", "Read N, the server's colour (B or W) and N rows on stdin; print the server's maximal 3-ply score, then each tied-best square", |_: StdinArgs| tonga(TongaCommand::ServerMoves)))
        .extra(Verb::new("solve", "Read a board with at most 16 empty squares on stdin; print its exact value, optimal squares and (up to 12 empties) the value against the server", |_: StdinArgs| tonga(TongaCommand::Solve)))
}

/// Runs `tabula tonga score`, `server-moves` or `solve`.
pub fn tonga(command: TongaCommand) -> Outcome {
    let text = read_stdin()?;
    match command {
        TongaCommand::Score => {
            let board = Board::parse(&text).context("stdin")?;
            println!(
                "B {} W {}",
                board.points(Colour::Black),
                board.points(Colour::White)
            );
        }
        TongaCommand::ServerMoves => {
            let (board, colour) = Board::parse_with_colour(&text).context("stdin")?;
            let geo = Geometry::new(board.n());
            let Some(choices) = server::choices(&geo, &board, colour) else {
                bail!("stdin: the board is full, the server has no move");
            };
            let mut out = io::stdout().lock();
            writeln!(out, "{}", choices.value)?;
            for cell in choices.cells {
                let (r, c) = board.row_col(cell);
                writeln!(out, "{r} {c}")?;
            }
        }
        TongaCommand::Solve => {
            let board = Board::parse(&text).context("stdin")?;
            let mover = board.to_move();
            let mut game = Endgame::new(&board).context("stdin")?;
            let square = |cell: u8| {
                let (r, c) = board.row_col(cell);
                format!("{r} {c}")
            };
            println!("to move: {}", mover.letter());
            if board.is_full() {
                let diff = i64::from(board.points(mover)) - i64::from(board.points(mover.other()));
                println!("value: {diff} (the board is full)");
                return Ok(ExitCode::SUCCESS);
            }
            let values = game.move_values(mover);
            let best = values.iter().map(|&(_, v)| v).max().expect("a move");
            let optimal: Vec<String> = values
                .iter()
                .filter(|&&(_, v)| v == best)
                .map(|&(c, _)| square(c))
                .collect();
            println!("value: {best}");
            println!("optimal: {}", optimal.join(", "));
            // The expectimax calls the server's search at every node: seconds
            // beyond 12 empties on big boards.
            if board.empties() <= 12 {
                let (expected, cell) = game.against_server(mover, mover);
                let cell = cell.expect("a move");
                println!("against the server: {expected:.3} with {}", square(cell));
            } else {
                println!("against the server: not computed above 12 empty squares");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Builds the 4×4 table file.
pub fn build(args: BuildArgs) -> Outcome {
    if args.size != 4 {
        bail!(
            "--size {}: only the 4x4 board is tabulated (larger boards are solved \
             exactly from 16 empty squares on)",
            args.size
        );
    }
    let started = Instant::now();
    let progress = bar(table::SPEC.entries as usize, "positions");
    table::build(&args.output, &|done| progress.set_position(done))?;
    progress.finish_and_clear();
    println!(
        "wrote {} ({} positions) in {:.1} s",
        args.output.display(),
        table::SPEC.entries,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads a 4×4 board on stdin and prints its exact value and optimal squares.
pub fn query(args: QueryArgs) -> Outcome {
    // SAFETY (inside open): tables are replaced by renaming, never rewritten in place.
    let table = TongaTable::open(&args.table)?;
    let board = Board::parse(&read_stdin()?).context("stdin")?;
    let value = table.value(&board).context("stdin")?;
    let mover = board.to_move();
    println!("to move: {}", mover.letter());
    println!("value: {value}");
    let squares: Vec<String> = table
        .best_moves(&board)?
        .iter()
        .map(|&c| {
            let (r, col) = board.row_col(c);
            format!("{r} {col}")
        })
        .collect();
    println!("optimal: {}", squares.join(", "));
    for cell in board.empty().iter() {
        let mut child = board;
        child.place(cell as u8, mover);
        let (r, c) = board.row_col(cell as u8);
        println!("move {r} {c}: value {}", -table.value(&child)?);
    }
    Ok(ExitCode::SUCCESS)
}

fn check_sizes(sizes: &[usize], allow_small: bool) -> anyhow::Result<()> {
    let low = if allow_small { 4 } else { 6 };
    for &n in sizes {
        if n % 2 != 0 || !(low..=16).contains(&n) {
            bail!("--sizes: {n} is not an even board side from {low} to 16");
        }
    }
    if sizes.is_empty() {
        bail!("--sizes: no board side given");
    }
    Ok(())
}

fn check_agent(name: &str) -> anyhow::Result<()> {
    if !AGENTS.contains(&name) {
        bail!("unknown player '{name}' (known: {})", AGENTS.join(", "));
    }
    Ok(())
}

/// Referees games against an external player or a built-in one.
pub fn referee(args: RefereeArgs) -> Outcome {
    check_sizes(&args.games_args.sizes, true)?;
    if let Some(name) = &args.agent {
        check_agent(name)?;
    }
    let timeout = args.timeout;
    let mut log: Option<BufWriter<File>> = match &args.log {
        Some(path) => Some(BufWriter::new(
            File::create(path).with_context(|| format!("{}", path.display()))?,
        )),
        None => None,
    };
    let seed = args.games_args.seed;
    let mut total = 0.0;
    let mut count = 0;
    for &n in &args.games_args.sizes {
        for g in 0..args.games {
            let mut rng = game_rng(seed, n, g);
            let mut lines = Vec::new();
            let result: GameResult = match (&args.player, &args.agent) {
                (Some(command), _) => {
                    let mode = stderr_mode(args.player_stderr);
                    let mut player = ExternalPlayer::spawn_with(command, mode)?;
                    let result = referee_game(n, &mut player, Some(timeout), &mut rng, &mut |l| {
                        lines.push(l.to_string())
                    });
                    player.finish(Duration::from_millis(200));
                    result
                }
                (None, Some(name)) => {
                    let mut a = agent(name, agent_rng(seed, n, g)).expect("checked name");
                    play_game(n, a.as_mut(), &mut rng)
                }
                (None, None) => unreachable!("clap requires --player or --agent"),
            };
            if let Some(log) = log.as_mut() {
                writeln!(log, "# game {g} N {n} seed {seed}")?;
                for line in &lines {
                    writeln!(log, "{line}")?;
                }
                let moves: Vec<String> = result
                    .moves
                    .iter()
                    .map(|(c, r, col)| format!("{c}{r},{col}"))
                    .collect();
                writeln!(log, "moves {}", moves.join(" "))?;
                writeln!(log, "{}", result.line())?;
            }
            println!("{}", result.line());
            total += signed_sqrt(result.case_score());
            count += 1;
        }
    }
    if let Some(log) = log.as_mut() {
        log.flush().context("writing the log")?;
    }
    println!("overall {total:.3} over {count} games");
    Ok(ExitCode::SUCCESS)
}

/// Answers the line protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServeArgs) -> Outcome {
    check_agent(&args.agent)?;
    let mut session = ServeSession::new(
        agent(&args.agent, tabula_verify::tournament::rng(args.seed, 0)).expect("checked name"),
    );
    let stdin = io::stdin();
    protocol::serve(stdin.lock(), io::stdout().lock(), |line| {
        session.handle(line)
    })
    .context("serving on stdin/stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the verify report, optionally also as JSON.
pub fn verify(args: VerifyArgs) -> Outcome {
    check_sizes(&args.games_args.sizes, true)?;
    for name in &args.agents {
        check_agent(name)?;
    }
    let names: Vec<&str> = args.agents.iter().map(String::as_str).collect();
    let total = names.len() * args.games_args.sizes.len() * args.games;
    let progress = bar(total, "games");
    let report = verify_report(
        &names,
        &args.games_args.sizes,
        args.games,
        args.games_args.seed,
        &|done| progress.set_position(done as u64),
    );
    progress.finish_and_clear();
    crate::common::emit_report(&report.to_markdown(), args.json.as_ref(), &report)?;
    Ok(ExitCode::SUCCESS)
}

/// `tabula check` for a tonga table: every record against its children.
pub fn check_records(table: Table) -> anyhow::Result<usize> {
    let table = TongaTable::new(table)?;
    Ok(table.check_records()?)
}
