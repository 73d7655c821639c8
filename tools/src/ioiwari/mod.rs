//! `tabula … ioiwari`: build, query, play, referee, verify and sweep.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::ioiwari::{BankMatch, Board, Params, Ring, RingMatch};
use tabula_tables::ioiwari::{self as table, IoiwariTable, Variant, VariantTable, variant_of};
use tabula_tables::{Table, Tabulated, TypedTable};
use tabula_verify::arena::play_case;
use tabula_verify::ioiwari::sweep::{Thresholds, sweep as run_sweep};
use tabula_verify::ioiwari::{
    self as ioi, AGENTS, Banked, IoiBoard, IoiWire, OptimalAgent, RefereedGame,
};
use tabula_verify::process::StreamPeer;
use tabula_verify::record::{At, Notation};
use tabula_verify::report::RefereeReport;
use tabula_verify::seat::{Clock, EXIT_GRACE, Limits, Local, Player, Remote};
use tabula_verify::tournament::{Purpose, served_rng, stream};
use tabula_verify::wire::Session;

use crate::batch::{LookedUp, answer_lines};
use crate::common::{
    GamesArgs, JsonArgs, Log, LogArgs, OutputFile, OutputPath, PlotArgs, SeatArgs, SeedArgs, Span,
    StrictArgs, TimeoutArgs, TimingsArgs, check_agent, emit_report, output_file,
    report_then_finish, run_info, serve_stdio, span, tested_player,
};
use crate::export::write_entries;
use crate::line::{
    LineMoveAnswer, PIT_LEGEND, PitField, line_json, line_text, optimal_line, pit_field,
    pit_players,
};
use crate::memory::games_bar;
use crate::out::outln;
use crate::progress::bar;
use crate::registry::Outcome;
use crate::registry::{GameEntry, TableHooks, Verb};
use crate::table_build::BuildMode;

/// The ring of an Ioiwari variant (the IOI game by default).
#[derive(Args, Clone, Debug)]
pub struct RingArgs {
    /// Pits around the ring (2..13; the IOI game has 7) [default: 7, or the --table's]
    #[arg(long)]
    pits: Option<u8>,
    /// Most beads a pit holds during play (2..9; the IOI game has 5) [default: 5, or the --table's]
    #[arg(long)]
    cap: Option<u8>,
}

impl RingArgs {
    /// The ring's pits and cap: as given, else the IOI game's.
    fn ring(&self) -> (u8, u8) {
        (self.pits.unwrap_or(7), self.cap.unwrap_or(5))
    }

    /// The ring's pits and cap: each as given, else as the `table` file's
    /// header names it (a table says which variant it holds), else the IOI
    /// game's. A given one that is not the table's is refused on opening it.
    fn ring_of(&self, table: Option<&Path>) -> anyhow::Result<(u8, u8)> {
        let (Some(path), false) = (table, self.pits.is_some() && self.cap.is_some()) else {
            return Ok(self.ring());
        };
        let header = crate::common::table_header(path, "ioiwari", |header| {
            let variant = header_variant(header.params).context(path.display().to_string())?;
            Ok(variant.spec())
        })?;
        let variant = header_variant(header.params)?;
        Ok((
            self.pits.unwrap_or(variant.params.pits),
            self.cap.unwrap_or(variant.params.cap),
        ))
    }

    /// The variant's parameters (the starting boards do not shape a table),
    /// the ring read from the `table` file when not given.
    fn params_for(&self, table: Option<&Path>) -> anyhow::Result<Params> {
        let (pits, cap) = self.ring_of(table)?;
        Ok(Params::new(pits, cap, 0, 0, cap)?)
    }
}

/// An Ioiwari variant with its starting boards (the IOI game by default), as
/// `verify` and `referee` play it.
#[derive(Args, Clone, Debug)]
pub struct VariantArgs {
    #[command(flatten)]
    ring: RingArgs,
    /// Beads on a starting board (the IOI game has 20).
    #[arg(long, default_value_t = 20)]
    beads: u32,
    /// Fewest beads in a starting pit (the IOI game has 2).
    #[arg(long, default_value_t = 2)]
    low: u8,
    /// Most beads in a starting pit (the IOI game has 4).
    #[arg(long, default_value_t = 4)]
    high: u8,
}

impl VariantArgs {
    /// The variant's checked parameters, the ring read from the `table`
    /// file when not given.
    fn params_for(&self, table: Option<&Path>) -> anyhow::Result<Params> {
        // A start of no beads is over before a move: it is no game to play.
        if self.beads == 0 {
            bail!("--beads 0: a starting board needs beads to be a game");
        }
        let (pits, cap) = self.ring.ring_of(table)?;
        Ok(Params::new(pits, cap, self.beads, self.low, self.high)?)
    }
}

/// Arguments of `tabula build ioiwari`.
#[derive(Args)]
pub struct BuildArgs {
    #[command(flatten)]
    ring: RingArgs,
    /// Build in memory up to this many boards (10 bytes a board plus its record), out of core
    /// above. By default every ring is built out of core, which is also the faster way for
    /// rings (6^10 boards: 1.7 s and 183 MB against 4.8 s and 968 MB in memory).
    #[arg(long, default_value_t = 0)]
    max_boards: u64,
    #[command(flatten)]
    mode: BuildMode,
    /// Where to write the table.
    #[arg(short, long, default_value = "ioiwari.tab", value_parser = output_file)]
    output: OutputFile,
}

/// Arguments of `tabula query ioiwari`.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    ring: RingArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The board: the bead counts, pit 1 first, e.g. "4 3 2 4 2 3 2".
    #[arg(required_unless_present = "batch")]
    board: Option<String>,
    /// Read boards from stdin, one a line, and answer each with one line of
    /// JSON (`{"board":[...],"value":v,"optimal":[pits],"moves":[...]}`, or
    /// `{"input":"...","error":"..."}` for a line that is no board), the table
    /// opened once.
    #[arg(long, conflicts_with = "board")]
    batch: bool,
    /// Also give the optimal line to the end of the game: the first optimal
    /// pit at each turn, with what each move gains (`"line"` in each JSON
    /// line with --batch).
    #[arg(long)]
    line: bool,
}

/// What `query ioiwari` says of one board (a line of JSON with `--batch`).
#[derive(Serialize)]
struct BoardAnswer {
    /// The pit counts, pit 1 first.
    board: Vec<u8>,
    /// The mover's best final bank difference from here.
    value: i32,
    /// The optimal pits, from 1 (none when the game is over).
    optimal: Vec<u8>,
    /// Every legal move.
    moves: Vec<MoveAnswer>,
    /// The optimal line to the end, with `--line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineMoveAnswer<PitField>>>,
    /// The board as the text output shows it.
    #[serde(skip)]
    shown: String,
    /// The optimal line as the text output shows it, with `--line`.
    #[serde(skip)]
    line_shown: Option<[String; 2]>,
}

/// One legal move of a [`BoardAnswer`].
#[derive(Serialize)]
struct MoveAnswer {
    /// The pit, from 1.
    pit: u8,
    /// The mover's final bank difference after it, with optimal play on.
    value: i32,
    /// The beads it banks at once, less the opponent's.
    gains: i32,
    /// The board it leaves, the other player to move.
    leaves: Vec<u8>,
    #[serde(skip)]
    shown: String,
}

/// The table's answer for `board`, with its optimal line when `with_line`.
fn answer<B: IoiBoard>(
    table: &TypedTable<B::Table>,
    board: &B,
    with_line: bool,
) -> anyhow::Result<BoardAnswer> {
    let optimal = if board.is_empty() {
        Vec::new()
    } else {
        table
            .best_moves(board)
            .looked_up()?
            .iter()
            .map(|p| p + 1)
            .collect()
    };
    let mut moves = Vec::new();
    for pit in 0..board.pit_count() as u8 {
        if board.is_legal(pit) {
            let mut child = *board;
            let gains = child.sow(pit).difference();
            moves.push(MoveAnswer {
                pit: pit + 1,
                value: gains - table.value(&child).looked_up()?,
                gains,
                leaves: child.counts(),
                shown: child.to_string(),
            });
        }
    }
    let line = if with_line {
        Some(optimal_line(board, |b: &B| table.value(b).looked_up())?)
    } else {
        None
    };
    Ok(BoardAnswer {
        board: board.counts(),
        value: table.value(board).looked_up()?,
        optimal,
        moves,
        line: line.as_ref().map(|line| line_json(line, pit_field)),
        shown: board.to_string(),
        line_shown: line.as_ref().map(|line| {
            line_text(line, PIT_LEGEND, true, pit_players, |pit| {
                (pit + 1).to_string()
            })
        }),
    })
}

/// Answers `board` as text, or without one (`--batch`) every board of stdin
/// as JSON Lines.
fn query_boards<B: IoiBoard>(
    board: Option<B>,
    table: &TypedTable<B::Table>,
    parse: impl Fn(&str) -> anyhow::Result<B>,
    with_line: bool,
) -> Outcome {
    let Some(board) = board else {
        return answer_lines(|line| answer(table, &parse(line)?, with_line));
    };
    let found = answer(table, &board, with_line)?;
    outln!("board: {}", found.shown)?;
    outln!("value: {}", found.value)?;
    if found.moves.is_empty() {
        outln!("the game is over: every pit is empty")?;
    } else {
        let labels: Vec<String> = found.optimal.iter().map(u8::to_string).collect();
        outln!("optimal moves: {}", labels.join(" "))?;
    }
    for m in &found.moves {
        outln!(
            "move {}: value {} (gains {}, leaves {})",
            m.pit,
            m.value,
            m.gains,
            m.shown
        )?;
    }
    for text in found.line_shown.iter().flatten() {
        outln!("{text}")?;
    }
    Ok(ExitCode::SUCCESS)
}

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

/// Arguments of `tabula verify ioiwari`.
#[derive(Args)]
pub struct VerifyArgs {
    // The variant (the IOI game by default): its instances are the table's rows.
    #[command(flatten)]
    variant: VariantArgs,
    /// The table file (built in memory when omitted); its header names its ring, so --pits and --cap may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    // Random games per instance, and their seed.
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    seed: SeedArgs,
    /// Every starting board (the IOI game's 357) instead of the instances modulo rotation (51).
    #[arg(long)]
    rotations: bool,
    #[command(flatten)]
    out: crate::common::VerifyOutputArgs,
}

/// The table, built in memory or read from `path`; a file's every record is
/// checked first (value range, legal optimal moves, and against its children),
/// so play never meets a bad one.
fn open_table(path: Option<&Path>) -> anyhow::Result<Arc<IoiwariTable>> {
    let table = IoiwariTable::open_or_build(path)?;
    if path.is_some() {
        // 6^7 records take milliseconds to check against their children, so
        // no wrong value is ever shown or played.
        table.check_records()?;
    }
    Ok(Arc::new(table))
}

fn parse_board(text: &str) -> anyhow::Result<Board> {
    text.parse()
        .with_context(|| format!("bad board '{}'", text.trim()))
}

/// A variant's board, as [`parse_board`] reads the IOI game's.
fn parse_ring(params: &Params, text: &str) -> anyhow::Result<Ring> {
    Ring::parse(params, text).with_context(|| format!("bad board '{}'", text.trim()))
}

/// Builds the table file.
pub fn build(args: BuildArgs) -> Outcome {
    let params = args.ring.params_for(None)?;
    let boards = params.boards();
    // The IOI game is the variant of 7 pits and 5 beads: `build_variant` takes
    // its fast path and writes the same file.
    let in_memory = || -> anyhow::Result<()> {
        let progress = bar(boards as usize, "boards");
        table::build_variant(&args.output, &params, &|done| progress.set_position(done))?;
        progress.finish_and_clear();
        Ok(())
    };
    let game = Variant { params };
    let what = format!("{boards} boards");
    args.mode
        .build_and_report(&game, &args.output, args.max_boards, &what, in_memory)?;
    Ok(ExitCode::SUCCESS)
}

/// Boards that `query` and `play` solve in memory without a table.
const MAX_IN_MEMORY: u64 = 200_000_000;

/// The variant's table solved in memory, unless it is too large for that.
fn solved_in_memory(params: &Params) -> anyhow::Result<VariantTable> {
    let boards = params.boards();
    if boards > MAX_IN_MEMORY {
        bail!(
            "Ioiwari with {} pits of at most {} beads has {boards} boards, more than the \
             {MAX_IN_MEMORY} solved in memory without a table: build one with \
             `tabula build ioiwari` and pass --table",
            params.pits,
            params.cap
        );
    }
    let record_size = table::variant_spec(params).layout.record_size();
    crate::memory::check_memory(
        crate::table_build::in_memory_build_bytes(boards, record_size),
        &format!("solving {boards} boards in memory"),
        "build a table with `tabula build ioiwari --out-of-core` and pass --table",
    )?;
    let progress = bar(boards as usize, "solving");
    let table = table::variant_in_memory(params, &|done| progress.set_position(done));
    progress.finish_and_clear();
    Ok(table)
}

/// A variant's table: read from `path` with its every optimal move checked
/// legal, so that play never meets a bad one, or solved in memory.
fn variant_table(params: &Params, path: Option<&Path>) -> anyhow::Result<Arc<VariantTable>> {
    let table = match path {
        Some(path) => {
            let table = VariantTable::open_for(Variant { params: *params }, path)?;
            table.check_moves()?;
            table
        }
        None => solved_in_memory(params)?,
    };
    Ok(Arc::new(table))
}

/// Prints the value and the optimal moves of a board, and the value of every move.
pub fn query(args: QueryArgs) -> Outcome {
    let params = args.ring.params_for(args.table.as_deref())?;
    // The board is read first: a bad one is named without any solving.
    if !params.is_ioi_table() {
        let parse = |text: &str| parse_ring(&params, text);
        let board = args.board.as_deref().map(parse).transpose()?;
        let table = match &args.table {
            Some(path) => VariantTable::open_for(Variant { params }, path)?,
            None => solved_in_memory(&params)?,
        };
        return query_boards(board, &table, parse, args.line);
    }
    let board = args.board.as_deref().map(parse_board).transpose()?;
    let table = open_table(args.table.as_deref())?;
    query_boards(board, &table, parse_board, args.line)
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

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("ioiwari", "Ioiwari, IOI 2001")
        .draws(tabula_verify::ioiwari::draw::show)
        .analyzes(tabula_verify::ioiwari::analysis::analyst)
        .agents(&tabula_verify::ioiwari::AGENTS)
        .tables(TableHooks {
            describe: describe_table,
            check: check_records,
            export: export_records,
        })
        .verb(Verb::new(
            "build",
            "Every one of the 6^7 boards (or (cap+1)^pits of a variant)",
            build,
        ))
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
            "serve",
            "A built-in player 1 (--agent, optimal by default) over the IOI dialogue on stdin/stdout",
            serve,
        ))
        .verb(
            Verb::new(
                "referee",
                "The optimal player 2 (ioiwari2) against player 1 (--timeout per game, 10 s by default, counting only the time waiting for its answers)",
                referee,
            )
            .default("timeout", "10"),
        )
        .verb(
            Verb::new(
                "verify",
                "The official results table: optimal, greedy and random play per instance; --games random games per instance",
                verify,
            )
            .default("games", "1000")
            .default("seed", "2001"),
        )
        .verb(
            Verb::new(
                "sweep",
                "The designer's sweep over variants: instances, optimal, greedy and random results, table cost; --games random games per instance",
                sweep,
            )
            .default("games", "100")
            .default("seed", "2001"),
        )
        .verb(Verb::new(
            "perft",
            "The IOI game from a board (--board), a ply a pit",
            perft,
        ))
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

/// A starting ring of the IOI table's variants as the IOI game's board.
fn ioi_board(ring: Ring) -> Board {
    ring.to_board()
        .expect("a ring of 7 pits of at most 5 beads")
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
    let log = Log::open(&args.out)?;
    let report = ioi::results_table(
        boards,
        table,
        games,
        args.seed.seed,
        &|done| progress.set_position(done as u64),
        log.games(),
    )
    .of_variant(params);
    progress.finish_and_clear();
    args.out.finish(&log, Some(args.seed.seed), &report)
}

/// `tabula check` for an Ioiwari table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let game = table_variant(&table)?;
    Ok(VariantTable::new_for(game, table)?.check_records_with(progress)?)
}

/// One line of `tabula export`: a board as `query ioiwari --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
struct ExportedBoard {
    /// The pit counts, pit 1 first.
    board: Vec<u8>,
    /// The mover's best final bank difference from here.
    value: i32,
    /// The optimal pits, from 1.
    optimal: Vec<u8>,
}

/// Every board of a table file, a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let table = VariantTable::new_for(table_variant(&table)?, table)?;
    write_entries(&table, out, progress, |entry| ExportedBoard {
        board: entry.position.counts(),
        value: entry.value,
        optimal: entry.optimal.iter().map(|p| p + 1).collect(),
    })
}

/// The variant a table's header names (the IOI table is the variant of 7
/// pits and 5 beads, header and all).
fn table_variant(table: &Table) -> anyhow::Result<Variant> {
    header_variant(table.header().params)
}

/// The variant a header's parameters name.
fn header_variant(params: [u32; 4]) -> anyhow::Result<Variant> {
    variant_of(params).with_context(|| {
        format!(
            "the header's parameters (pits {}, cap {}) are no Ioiwari variant",
            params[0], params[1]
        )
    })
}

/// `tabula info` for an ioiwari table: its ring, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    let game = table_variant(table)?;
    table.expect(&game.spec())?;
    let Params { pits, cap, .. } = game.params;
    let ioi = if game.params.is_ioi_table() {
        " (the IOI 2001 game's)"
    } else {
        ""
    };
    Ok(format!(
        "every board of a ring of {pits} pits holding at most {cap} beads each{ioi}"
    ))
}

/// Refuses a sweep whose tables or games cannot fit in the memory available,
/// in one line before any work: every ring's table is built in memory and
/// kept to the end, and a set's random games' results are held until its row.
fn check_sweep_memory(sets: &[Params], games: usize) -> anyhow::Result<()> {
    let rings: std::collections::BTreeSet<(u8, u8)> =
        sets.iter().map(|p| (p.pits, p.cap)).collect();
    let (mut kept, mut largest_build) = (0u64, 0u64);
    for &(pits, cap) in &rings {
        let params = Params::new(pits, cap, 0, 0, cap)?;
        let record_size = table::variant_spec(&params).layout.record_size();
        let table_bytes = params.boards().saturating_mul(record_size as u64);
        kept = kept.saturating_add(table_bytes);
        let build = crate::table_build::in_memory_build_bytes(params.boards(), record_size);
        largest_build = largest_build.max(build - table_bytes);
    }
    crate::memory::check_memory(
        kept.saturating_add(largest_build),
        &format!("building the tables of {} ring(s) in memory", rings.len()),
        "lower --max-boards or sweep fewer pits and caps",
    )?;
    let most_games = sets
        .iter()
        .map(|p| p.instances().len().saturating_mul(games) as u64)
        .max()
        .unwrap_or(0);
    crate::memory::check_memory(
        most_games.saturating_mul(tabula_verify::tournament::BYTES_PER_GAME),
        &format!("holding the {most_games} random games of one set"),
        "lower --games",
    )
}

/// Arguments of `tabula sweep ioiwari`.
#[derive(Args)]
pub struct SweepArgs {
    /// Pits around the ring: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "7")]
    pits: Span,
    /// Pit capacity: a range or one number.
    #[arg(long, value_parser = span, default_value = "5")]
    cap: Span,
    /// Beads on a starting board: a range or one number.
    #[arg(long, value_parser = span, default_value = "20")]
    beads: Span,
    /// Fewest beads in a starting pit: a range or one number.
    #[arg(long, value_parser = span, default_value = "2")]
    low: Span,
    /// Most beads in a starting pit: a range or one number.
    #[arg(long, value_parser = span, default_value = "4")]
    high: Span,
    // Random games per instance (random player 1 against the optimal player
    // 2), and their seed.
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    seed: SeedArgs,
    /// Skip rings with more boards than this (the builder holds 10 bytes a board plus its record).
    #[arg(long, default_value_t = 50_000_000)]
    max_boards: u64,
    /// Winnable: at least this share of instances are first-player wins.
    #[arg(long, default_value_t = 1.0, value_parser = crate::common::share)]
    min_win_share: f64,
    /// Not easy: greedy1 wins at most this share of instances.
    #[arg(long, default_value_t = 0.5, value_parser = crate::common::share)]
    max_greedy_share: f64,
    /// Efficient: the table has at most this many bytes (its build's work; no
    /// wall-clock time, so the verdict is the same on every run).
    #[arg(long, default_value_t = 64 << 20)]
    max_table_bytes: u64,
    #[command(flatten)]
    timings: TimingsArgs,
    /// Drawable: at least this many instances drawn (greedy1 against optimal, or optimal play).
    #[arg(long, default_value_t = 1)]
    min_draws: usize,
    /// Enough instances: at least this many starting boards modulo rotation.
    #[arg(long, default_value_t = 20)]
    min_instances: usize,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// One row per parameter set of the ranges.
pub fn sweep(args: SweepArgs) -> Outcome {
    // Each combination is looked at, even those that make no game.
    const MAX_COMBINATIONS: u64 = 1_000_000;
    let spans = [args.pits, args.cap, args.beads, args.low, args.high];
    let combinations = spans
        .iter()
        .map(|s| s.len())
        .fold(1u64, u64::saturating_mul);
    if combinations > MAX_COMBINATIONS {
        bail!(
            "--pits, --cap, --beads, --low and --high make {combinations} combinations, \
             more than {MAX_COMBINATIONS}: narrow them (a ring holds at most pits × cap beads)"
        );
    }
    // A value past a byte makes no game; it is named as given.
    let small = |v: u32, option: &str| {
        u8::try_from(v).map_err(|_| format!("{option} {v} is far past any ring"))
    };
    let mut sets = Vec::new();
    let (mut no_game, mut too_large) = (0usize, Vec::new());
    // Why the first set that makes no game makes none, for the report.
    let mut first_reason = None;
    for pits in args.pits.values() {
        for cap in args.cap.values() {
            for beads in args.beads.values() {
                for low in args.low.values() {
                    for high in args.high.values() {
                        let params = (|| {
                            let (p, c) = (small(pits, "--pits")?, small(cap, "--cap")?);
                            let (l, h) = (small(low, "--low")?, small(high, "--high")?);
                            Params::new(p, c, beads, l, h).map_err(|e| e.to_string())
                        })();
                        match params {
                            Ok(p) if p.boards() > args.max_boards => too_large.push(p),
                            Ok(p) => sets.push(p),
                            Err(reason) => {
                                no_game += 1;
                                first_reason.get_or_insert(reason);
                            }
                        }
                    }
                }
            }
        }
    }
    let why = first_reason.map_or(String::new(), |reason| format!(" (the first: {reason})"));
    if sets.is_empty() {
        bail!(
            "no parameter set to sweep: {no_game} make no game{why}, {} have more than --max-boards {} boards",
            too_large.len(),
            args.max_boards
        );
    }
    check_sweep_memory(&sets, args.games.games)?;
    let thresholds = Thresholds {
        min_win_share: args.min_win_share,
        max_greedy_share: args.max_greedy_share,
        max_table_bytes: args.max_table_bytes,
        min_draws: args.min_draws,
        min_instances: args.min_instances,
    };
    let progress = bar(sets.len(), "parameter sets");
    let report = run_sweep(
        &sets,
        args.games.games,
        args.seed.seed,
        &thresholds,
        args.timings.timings,
        &|done| progress.set_position(done as u64),
    );
    progress.finish_and_clear();
    let mut markdown = report.to_markdown();
    if no_game > 0 || !too_large.is_empty() {
        markdown.push_str(&format!(
            "Skipped: {no_game} set(s) that make no game{why}, {} set(s) above --max-boards {}.\n",
            too_large.len(),
            args.max_boards
        ));
    }
    args.plot.write(|| report.plot())?;
    emit_report(
        &markdown,
        args.json.json.as_ref(),
        &run_info(Some(args.seed.seed)).stamp(&report),
    )?;
    Ok(ExitCode::SUCCESS)
}
