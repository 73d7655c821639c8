//! `tabula … tonga`: score, server-moves, solve, build, query, referee, serve and verify.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde::Serialize;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::opponents::{self, Geometry};
use tabula_solver::tonga::{Board, Cell, Colour, Position};
use tabula_tables::tonga::{self as table, TongaTable};
use tabula_tables::{LookupError, Table, Tabulated};
use tabula_verify::seat::Limits;
use tabula_verify::tonga::terminal::play_referee_game;
use tabula_verify::tonga::{
    AGENTS, TongaContest, TongaWire, agent, agent_rng, timed_agent, verify as verify_report,
};
use tabula_verify::wire::Session;

use crate::batch::{LookedUp, answer_lines};
use crate::common::{
    GamesArgs, Log, OutputFile, RefereeRunArgs, SeatArgs, SeedArgs, check_agent, finish_play,
    known_agent, output_file, referee_contest, seconds, serve_stdio, served_rng,
};
use crate::export::write_entries;
use crate::line::{LineMoveAnswer, line_json, line_text, optimal_line};
use crate::memory::games_bar;
use crate::out::outln;
use crate::progress::bar;
use crate::registry::Outcome;
use crate::registry::{GameEntry, TableHooks, Verb};

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
    #[arg(short, long, default_value = "tonga4.tab", value_parser = output_file)]
    output: OutputFile,
}

/// Arguments of `tabula query tonga`.
#[derive(Args)]
pub struct QueryArgs {
    /// The 4×4 table file.
    #[arg(long)]
    table: PathBuf,
    /// Read boards from stdin, one a line, its 4 rows split by `/`
    /// (`B.W./..../..../....`), and answer each with one line of JSON
    /// (`{"board":[rows],"to_move":"W","value":v,"optimal":[[row,col]],"moves":[...]}`,
    /// or `{"input":"...","error":"..."}` for a line that is no board).
    #[arg(long)]
    batch: bool,
    /// Also give the optimal line to the full board: the first optimal square
    /// at each turn, row-major (`"line"` in each JSON line with --batch).
    #[arg(long)]
    line: bool,
}

/// What `query tonga` says of one board (a line of JSON with `--batch`).
#[derive(Serialize)]
struct TongaAnswer {
    /// The rows, `.`, `B` and `W`.
    board: Vec<String>,
    /// The colour to move, `B` or `W`.
    to_move: char,
    /// The mover's exact value under perfect play (points, mover's minus the other's).
    value: i32,
    /// The optimal squares as `[row, col]`, row-major.
    optimal: Vec<[usize; 2]>,
    /// Every empty square's value for the mover.
    moves: Vec<TongaMove>,
    /// The optimal line to the full board, with `--line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineMoveAnswer<Square>>>,
    /// The optimal line as the text output shows it, with `--line`.
    #[serde(skip)]
    line_shown: Option<[String; 2]>,
}

/// A square of the optimal line.
#[derive(Serialize)]
struct Square {
    /// The row, from 0.
    row: usize,
    /// The column, from 0.
    col: usize,
}

/// One move of a [`TongaAnswer`].
#[derive(Serialize)]
struct TongaMove {
    /// The square's row, from 0.
    row: usize,
    /// The square's column, from 0.
    col: usize,
    /// The mover's value after placing there.
    value: i32,
}

/// Board sides (comma-separated) of the commands that play games.
#[derive(Args)]
pub struct SizesArgs {
    /// Board sides, comma-separated (even, 4 to 16).
    #[arg(long, value_delimiter = ',', default_value = "6,8,10,12,14,16")]
    sizes: Vec<usize>,
}

/// Arguments of `tabula referee tonga`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    seat: SeatArgs,
    #[command(flatten)]
    sizes: SizesArgs,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: RefereeRunArgs,
}

/// Arguments of `tabula play tonga`.
#[derive(Args)]
pub struct PlayArgs {
    /// The board side (even, 4 to 16).
    #[arg(long, default_value_t = 6)]
    size: usize,
    /// The referee's game of that side to play (who starts, the server's tie-breaks), from 0.
    #[arg(long, default_value_t = 0)]
    game: usize,
    /// Another built-in opponent instead of the server: random, greedy or best
    /// (`--agent` is the older name).
    #[arg(long = "opponent", visible_alias = "agent", value_name = "NAME")]
    agent: Option<String>,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Arguments of `tabula serve tonga`.
#[derive(Args)]
pub struct ServeArgs {
    /// The built-in player: random, greedy, server or best.
    #[arg(long)]
    agent: String,
    /// The player's time for its whole game, which it cannot learn over the
    /// protocol (`best` spreads it over its moves).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "20", allow_negative_numbers = true)]
    budget: Duration,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Arguments of `tabula verify tonga`.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    sizes: SizesArgs,
    #[command(flatten)]
    games: GamesArgs,
    /// Players to measure, comma-separated (`--agents` is its older name).
    #[arg(
        long,
        alias = "agents",
        value_delimiter = ',',
        default_value = "random,greedy,server,best"
    )]
    players: Vec<String>,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    out: crate::common::VerifyOutputArgs,
}

fn read_stdin() -> anyhow::Result<String> {
    // A 16x16 board is under 1 KiB: a megabyte is no board, and endless
    // input (`< /dev/zero`) must not fill the memory.
    const MAX_INPUT: u64 = 1 << 20;
    let Some(bytes) =
        crate::common::read_at_most(io::stdin(), MAX_INPUT).context("reading stdin")?
    else {
        bail!("stdin: more than {MAX_INPUT} bytes, too long for a board");
    };
    String::from_utf8(bytes).context("stdin: not UTF-8 text")
}

/// No arguments: the board comes on stdin.
#[derive(Args)]
pub struct StdinArgs {}

/// The game's registration: its verbs and extras.
pub fn entry() -> GameEntry {
    GameEntry::new("tonga", "PseudoTonga, TopCoder MM 6")
        .draws(tabula_verify::tonga::draw::show)
        .analyzes(tabula_verify::tonga::analysis::analyst)
        .alias("pseudotonga")
        .agents(&tabula_verify::tonga::AGENTS)
        .tables(TableHooks {
            describe: describe_table,
            check: check_records,
            export: export_records,
        })
        .verb(Verb::new("build", "Every 4x4 position reachable with Black first", build))
        .verb(Verb::new("query", "Exact value and optimal squares of a 4x4 board read on stdin", query))
        .verb(Verb::new("play", "Play the referee's game against the server (or --agent NAME) in the terminal", play).default("seed", "6759"))
        .verb(Verb::new("serve", "A built-in player over the init/move/end line protocol", serve).default("seed", "6759"))
        .verb(Verb::new("referee", "The server against a player, with the TopCoder scoring; --games per board side, --timeout for the player's whole game (only the time waiting for its answers counts)", referee).default("seed", "6759").default("timeout", "20"))
        .verb(Verb::new("verify", "Mean case score per board side of each built-in player against the server; --games per board side and player", verify).default("seed", "6759").default("games", "20"))
        .verb(Verb::new("perft", "From the empty board of a side (--size), a ply a stone", perft))
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
            outln!(
                "B {} W {}",
                board.points(Colour::Black),
                board.points(Colour::White)
            )?;
        }
        TongaCommand::ServerMoves => {
            let (board, colour) = Board::parse_with_colour(&text).context("stdin")?;
            // The server moves in a game Black started, as `solve` reads one.
            board.check_counts().context("stdin")?;
            if !board.is_full() && colour != board.to_move() {
                bail!(
                    "stdin: the server's colour is {} but {} is to move (B {}, W {} stones; Black starts)",
                    colour.letter(),
                    board.to_move().letter(),
                    board.stones(Colour::Black).count(),
                    board.stones(Colour::White).count()
                );
            }
            let geo = Geometry::new(board.n());
            let Some(choices) = opponents::choices(&geo, &board, colour) else {
                bail!("stdin: the board is full, the server has no move");
            };
            let mut out = crate::out::stdout();
            writeln!(out, "{}", choices.value)?;
            for cell in choices.cells {
                let (r, c) = board.row_col(cell);
                writeln!(out, "{r} {c}")?;
            }
        }
        TongaCommand::Solve => {
            let board = Board::parse(&text).context("stdin")?;
            // The mover is read from the counts, so they must fit a game.
            board.check_counts().context("stdin")?;
            let mover = board.to_move();
            let mut game = Endgame::new(&board).context("stdin")?;
            let square = |cell: u8| {
                let (r, c) = board.row_col(cell);
                format!("{r} {c}")
            };
            outln!("to move: {}", mover.letter())?;
            if board.is_full() {
                let diff = i64::from(board.points(mover)) - i64::from(board.points(mover.other()));
                outln!("value: {diff} (the board is full)")?;
                return Ok(ExitCode::SUCCESS);
            }
            let spinner = crate::progress::spinner("solving exactly");
            let values = game.move_values(mover);
            spinner.finish_and_clear();
            let best = values.iter().map(|&(_, v)| v).max().expect("a move");
            let optimal: Vec<String> = values
                .iter()
                .filter(|&&(_, v)| v == best)
                .map(|&(c, _)| square(c))
                .collect();
            outln!("value: {best}")?;
            outln!("optimal: {}", optimal.join(", "))?;
            // The expectimax calls the server's search at every node: seconds
            // beyond 12 empties on big boards.
            if board.empties() <= 12 {
                let (expected, cell) = game.against_server(mover, mover);
                let cell = cell.expect("a move");
                outln!("against the server: {expected:.3} with {}", square(cell))?;
            } else {
                outln!("against the server: not computed above 12 empty squares")?;
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
    outln!(
        "wrote {} ({} positions) in {:.1} s",
        crate::common::shown(&args.output),
        table::SPEC.entries,
        started.elapsed().as_secs_f64()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Reads a 4×4 board on stdin and prints its exact value and optimal squares.
pub fn query(args: QueryArgs) -> Outcome {
    // SAFETY (inside open): tables are replaced by renaming, never rewritten in place.
    let table = TongaTable::open(&args.table)?;
    if args.batch {
        return answer_lines(|line| {
            // One line, its rows split by `/`: the board text `score` reads.
            let rows: Vec<&str> = line.split('/').collect();
            // A row left out between slashes would otherwise be passed over as a blank line.
            if let Some(i) = rows.iter().position(|r| r.trim().is_empty()) {
                anyhow::bail!("row {} of {} is empty", i + 1, rows.len());
            }
            let text = format!("{}\n{}", rows.len(), rows.join("\n"));
            answer(&table, &Board::parse(&text)?, "board", args.line)
        });
    }
    let board = Board::parse(&read_stdin()?).context("stdin")?;
    let found = answer(&table, &board, "stdin", args.line)?;
    outln!("to move: {}", found.to_move)?;
    outln!("value: {}", found.value)?;
    let squares: Vec<String> = found
        .optimal
        .iter()
        .map(|[r, c]| format!("{r} {c}"))
        .collect();
    match squares.is_empty() {
        true => outln!("optimal: none (the board is full)")?,
        false => outln!("optimal: {}", squares.join(", "))?,
    }
    for m in &found.moves {
        outln!("move {} {}: value {}", m.row, m.col, m.value)?;
    }
    for text in found.line_shown.iter().flatten() {
        outln!("{text}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The table's answer for `board`, read from `source` (named when the board
/// is outside the table; a bad record names the table file), with its
/// optimal line when `with_line`.
fn answer(
    table: &TongaTable,
    board: &Board,
    source: &str,
    with_line: bool,
) -> anyhow::Result<TongaAnswer> {
    let value = table.value(board).map_err(|e| match e {
        LookupError::Record(e) => anyhow::Error::new(e),
        LookupError::Position(e) => anyhow::Error::new(e).context(source.to_string()),
        e @ LookupError::NotAState(_) => anyhow::Error::new(e).context(source.to_string()),
    })?;
    let mover = board.to_move();
    let optimal = table
        .best_moves(board)
        .looked_up()?
        .iter()
        .map(|&c| board.row_col(c).into())
        .collect();
    let mut moves = Vec::new();
    for cell in board.empty().iter() {
        let mut child = *board;
        child.place(cell as u8, mover);
        let (row, col) = board.row_col(cell as u8);
        let value = -table.value(&child).looked_up()?;
        moves.push(TongaMove { row, col, value });
    }
    let line = if with_line {
        let start = Position::from_board(*board);
        Some(optimal_line(&start, |p: &Position| {
            table.value(&p.board).looked_up()
        })?)
    } else {
        None
    };
    let square = |cell: Cell| {
        let (row, col) = board.row_col(cell);
        Square { row, col }
    };
    let colour = |by_mover: bool| match (by_mover, mover) {
        (true, Colour::Black) | (false, Colour::White) => "B ",
        _ => "W ",
    };
    Ok(TongaAnswer {
        board: board_rows(board),
        to_move: mover.letter(),
        value,
        optimal,
        moves,
        line: line.as_ref().map(|line| line_json(line, square)),
        line_shown: line.as_ref().map(|line| {
            let legend = "the first optimal square each turn, row-major";
            line_text(line, legend, false, colour, |cell| {
                let Square { row, col } = square(cell);
                format!("{row} {col}")
            })
        }),
    })
}

/// Arguments of `tabula perft tonga`.
#[derive(Args)]
pub struct PerftArgs {
    /// The board side (even, 4 to 16); the board starts empty, Black to move.
    #[arg(long, default_value_t = 4)]
    size: usize,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts PseudoTonga's move sequences from the empty board.
pub fn perft(args: PerftArgs) -> Outcome {
    check_sizes("--size", &[args.size])?;
    let start = Position::start(args.size).expect("a checked side");
    crate::perft::perft(start, &args.perft)
}

/// Checks the board sides given to `flag`: even, 4 to 16, at least one, none twice.
fn check_sizes(flag: &str, sizes: &[usize]) -> anyhow::Result<()> {
    for &n in sizes {
        if !n.is_multiple_of(2) || !(4..=16).contains(&n) {
            bail!("{flag}: {n} is not an even board side from 4 to 16");
        }
    }
    if sizes.is_empty() {
        bail!("{flag}: no board side given");
    }
    crate::common::given_once(flag, sizes)
}

/// Referees games against an external player or a built-in one.
pub fn referee(args: RefereeArgs) -> Outcome {
    check_sizes("--sizes", &args.sizes.sizes)?;
    args.seat.check(&AGENTS)?;
    let seed = args.run.seed.seed;
    let timeout = args.run.timeout.timeout;
    let contest = TongaContest {
        sizes: args.sizes.sizes,
        games: args.games.games,
        seed,
        limits: Limits {
            per_game: Some(timeout),
            ..Limits::default()
        },
    };
    referee_contest(
        &contest,
        &args.seat,
        TongaWire::default,
        // A built-in player is told its time for the game, and drawn
        // afresh as `serve --seed` draws it, so that both play alike.
        |name| timed_agent(name, served_rng(seed), Some(timeout)),
        &AGENTS,
        &args.run,
    )
}

/// Answers the line protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServeArgs) -> Outcome {
    let rng = served_rng(args.seed.seed);
    let budget = Some(args.budget);
    let agent = known_agent(&args.agent, |name| timed_agent(name, rng, budget), &AGENTS)?;
    serve_stdio(Session::new(TongaWire::default(), agent))
}

/// Lets a person play the referee's game `--game` of side `--size` in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    check_sizes("--size", &[args.size])?;
    let seed = args.seed.seed;
    if let Some(name) = &args.agent {
        check_agent("--opponent", name, &AGENTS)?;
    }
    let opponent = match &args.agent {
        Some(name) => Some(known_agent(
            name,
            |name| agent(name, agent_rng(seed, args.size, args.game)),
            &AGENTS,
        )?),
        None => None,
    };
    let end = play_referee_game(
        io::stdin().lock(),
        crate::out::data_stdout(),
        args.size,
        args.game,
        seed,
        opponent,
    );
    finish_play(end)
}

/// Prints the verify report, optionally also as JSON.
pub fn verify(args: VerifyArgs) -> Outcome {
    check_sizes("--sizes", &args.sizes.sizes)?;
    crate::common::known_players("--players", &args.players, &AGENTS)?;
    let names: Vec<&str> = args.players.iter().map(String::as_str).collect();
    let total = names.len() * args.sizes.sizes.len() * args.games.games;
    let progress = games_bar(total, total)?;
    let log = Log::open(&args.out)?;
    let report = verify_report(
        &names,
        &args.sizes.sizes,
        args.games.games,
        args.seed.seed,
        &|done| progress.set_position(done as u64),
        log.games(),
    );
    progress.finish_and_clear();
    args.out.finish(&log, Some(args.seed.seed), &report)
}

/// `tabula check` for a tonga table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let table = TongaTable::new(table)?;
    Ok(table.check_records_with(progress)?)
}

/// A board's rows as the JSON answers write them, `B.W.` (no spaces).
fn board_rows(board: &Board) -> Vec<String> {
    let shown = board.to_string();
    shown.lines().map(|row| row.replace(' ', "")).collect()
}

/// One line of `tabula export`: a board as `query tonga --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
struct ExportedBoard {
    /// The rows, `.`, `B` and `W`.
    board: Vec<String>,
    /// The colour to move, `B` or `W`.
    to_move: char,
    /// The mover's exact value under perfect play.
    value: i32,
    /// The optimal squares as `[row, col]`, row-major.
    optimal: Vec<[usize; 2]>,
}

/// Every position of the table file, a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let table = TongaTable::new(table)?;
    write_entries(&table, out, progress, |entry| {
        let board = &entry.position;
        ExportedBoard {
            board: board_rows(board),
            to_move: board.to_move().letter(),
            value: entry.value,
            optimal: entry
                .optimal
                .iter()
                .map(|&c| board.row_col(c).into())
                .collect(),
        }
    })
}

/// `tabula info` for a tonga table: the one table there is, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    table.expect(&table::Tonga.spec())?;
    Ok("every position of PseudoTonga on the 4×4 board".into())
}
