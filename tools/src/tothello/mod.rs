//! `tabula … tothello`: serve the line protocol, query, play a person, verify.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::tothello::search::SCALE;
use tabula_solver::tothello::{Board, Color, Position, Solver, best_move, square_name};
use tabula_verify::process::{ExternalPlayer, Peer, StreamPeer};
use tabula_verify::protocol;
use tabula_verify::seat::EXIT_GRACE;
use tabula_verify::tothello::{
    AgentKind, Answerer, TournamentConfig, answer, play_terminal, referee_best_move,
    run_tournament, test_cases,
};

use crate::batch::answer_lines;
use crate::common::{
    JsonArgs, Log, SeedArgs, TimeoutArgs, TranscriptArgs, count, emit_report, person_end, positive,
    report_then_finish, run_info, stderr_mode,
};
use crate::line::{LineMoveAnswer, line_json, line_text, optimal_line};
use crate::memory::games_bar;
use crate::out::outln;
use crate::progress::{bar, spinner};
use crate::registry::Outcome;
use crate::registry::{GameEntry, Verb};
use tabula_verify::report::Composed;

/// Plies of heuristic search before the exact endgame, for `query` and `play`
/// alike: the same position gets the same advice in both.
const DEPTH: u8 = 6;

/// Empty squares from which `query` and `play` solve exactly.
const EXACT: u32 = 14;

/// Arguments of `tabula serve tothello`.
#[derive(Args)]
pub struct ServeArgs {}

/// A position given on the command line.
#[derive(Args)]
pub struct PositionArgs {
    /// Red pieces, separated by commas or spaces (e.g. "D4,E5").
    #[arg(long)]
    red: Option<String>,
    /// Black pieces, separated by commas or spaces (e.g. "D5,E4").
    #[arg(long)]
    black: Option<String>,
    /// The player to move: Red or Black (any case).
    #[arg(long)]
    turn: Option<String>,
    /// The other player passed on the last move, so a pass now ends the game
    /// (its value can differ: passing is always allowed).
    #[arg(long)]
    passed: bool,
}

/// Arguments of `tabula query tothello`.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Plies of heuristic search when too many squares are empty to solve.
    #[arg(long, default_value_t = DEPTH, value_parser = clap::value_parser!(u8).range(1..=64))]
    depth: u8,
    /// Solve exactly when at most this many squares are empty.
    #[arg(long, default_value_t = EXACT, value_parser = clap::value_parser!(u32).range(0..=64))]
    exact: u32,
    /// Read positions from stdin, one a line, `RED / BLACK / TURN` with `/ passed`
    /// after a pass (`D4 E5 / D5 E4 / Red`), and answer each with one line of JSON
    /// (`{"red":[...],"black":[...],"to_move":"Red","passed":false,"best_move":{"pieces":p,"squares":[...]},"exact":true,"value":v,"move":"E3","nodes":n}`, v a whole number when exact,
    /// or `{"input":"...","error":"..."}` for a line that is no position).
    #[arg(long, conflicts_with_all = ["red", "black", "turn", "passed"])]
    batch: bool,
    /// Also give the optimal line to the end of the game, when the position
    /// is solved exactly (at most --exact empty squares): the first optimal
    /// move at each turn, squares before a pass (`"line"` in each JSON line
    /// with --batch).
    #[arg(long)]
    line: bool,
}

/// What `query tothello` says of one position (a line of JSON with `--batch`).
#[derive(Serialize)]
struct TothelloAnswer {
    /// Red's squares.
    red: Vec<String>,
    /// Black's squares.
    black: Vec<String>,
    /// The player to move, `Red` or `Black`.
    to_move: String,
    /// Whether the other player passed on the last move.
    passed: bool,
    /// The statement's `bestMove`; none on a full board.
    best_move: Option<BestMoveAnswer>,
    /// Whether `value` is the exact result of perfect play, not an estimate.
    exact: bool,
    /// The mover's pieces less the other's: exact (an integer), or the search's estimate.
    value: TothelloValue,
    /// A move reaching `value` (`pass` when the mover has none); none when the game is over.
    #[serde(rename = "move")]
    best: Option<String>,
    /// Nodes the search visited.
    nodes: u64,
    /// The optimal line to the end, with `--line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineMoveAnswer<MoveField>>>,
    /// The optimal line as the text output shows it, with `--line`.
    #[serde(skip)]
    line_shown: Option<[String; 2]>,
}

/// A move of the optimal line: a square such as `E3`, or `pass`.
#[derive(Serialize)]
struct MoveField {
    #[serde(rename = "move")]
    mv: String,
}

/// The value of a [`TothelloAnswer`]: a whole number of pieces when exact.
#[derive(Clone, Copy, Serialize)]
#[serde(untagged)]
enum TothelloValue {
    /// Perfect play's result.
    Exact(i32),
    /// The heuristic search's estimate, in pieces.
    Estimate(f64),
}

/// The statement's `bestMove` of a [`TothelloAnswer`].
#[derive(Serialize)]
struct BestMoveAnswer {
    /// The mover's pieces after the best placement.
    pieces: u32,
    /// Every square that reaches them.
    squares: Vec<String>,
}

/// Arguments of `tabula play tothello`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// The colour you play, Red or Black in any case (Black moves first from the standard start).
    #[arg(long, visible_alias = "colour", default_value = "Black")]
    color: String,
    /// Plies the computer searches before the endgame.
    #[arg(long, default_value_t = DEPTH, value_parser = clap::value_parser!(u8).range(1..=64))]
    depth: u8,
    /// Empty squares from which the computer plays perfectly.
    #[arg(long, default_value_t = EXACT, value_parser = clap::value_parser!(u32).range(0..=64))]
    exact: u32,
}

/// Arguments of `tabula referee tothello`.
#[derive(Args)]
pub struct RefereeArgs {
    /// The bestMove program's command, run with `sh -c` and spoken to over pipes
    /// in the line protocol (default: requests on stderr, answers read from stdin).
    #[arg(long, value_name = "CMD", value_parser = crate::common::command)]
    player: Option<String>,
    /// Random valid boards sent after the statement's two examples (0 to 1,000,000).
    #[arg(long, value_parser = count, default_value = "1000")]
    cases: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    timeout: TimeoutArgs,
    #[command(flatten)]
    log: TranscriptArgs,
    /// Let the program's stderr through instead of quoting its last lines in
    /// the reason of an exit.
    #[arg(long, requires = "player")]
    player_stderr: bool,
    #[command(flatten)]
    json: JsonArgs,
}

/// Arguments of `tabula verify tothello`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Openings per pair of players; each is played with both colours.
    #[arg(long, value_parser = positive, default_value = "20")]
    openings: usize,
    /// Random placements from the standard start in each opening (at most
    /// 60, the empty squares of the start).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(0..=60))]
    opening_plies: u8,
    #[command(flatten)]
    seed: SeedArgs,
    /// Search depths of the solver players, comma-separated.
    #[arg(long, default_value = "1,2,3", value_delimiter = ',')]
    depths: Vec<u8>,
    /// Empty squares from which the solver players solve exactly.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=64))]
    exact: u32,
    /// Each solver's transposition table holds 2^bits entries of 24 bytes.
    #[arg(long, default_value_t = 18)]
    table_bits: u32,
    #[command(flatten)]
    out: crate::common::VerifyOutputArgs,
}

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("tothello", "Tothello, TopCoder Invitational 2001")
        .draws(tabula_verify::tothello::draw::show)
        .analyzes(tabula_verify::tothello::analysis::analyst)
        .agents(&["random", "greedy", "solver-dD-eE"])
        .verb(Verb::new(
            "query",
            "bestMove and the solver's value and move for a position",
            query,
        ))
        .verb(Verb::new(
            "play",
            "Play against the solver in the terminal",
            play,
        ))
        .verb(Verb::new(
            "serve",
            "Answer bestMove requests on the line protocol",
            serve,
        ))
        .verb(
            Verb::new(
                "referee",
                "Check a bestMove program over the line protocol (--timeout: per answer)",
                referee,
            )
            .default("seed", "2001")
            .default("timeout", "2"),
        )
        .verb(
            Verb::new(
                "verify",
                "Tournament of the built-in players from seeded random openings",
                verify,
            )
            .default("seed", "2001"),
        )
        .verb(Verb::new(
            "perft",
            "From a position (the standard start by default); a pass is a ply where the rules allow it",
            perft,
        ))
        .extra(
            Verb::new(
                "cases",
                "The referee's cases as test data: each bestMove request line and its right answer",
                cases,
            )
            .default("seed", "2001"),
        )
}

/// Arguments of `tabula tothello cases`.
#[derive(Args)]
pub struct CasesArgs {
    /// Random valid boards after the statement's two examples (0 to 1,000,000), as `referee --cases` sends them.
    #[arg(long, value_parser = count, default_value = "1000")]
    cases: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// The referee's cases, as `--json` writes them after `run` (whose `seed`
/// they are drawn from) and `game`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CasesReport {
    /// Each request and the piece count of its right answer.
    cases: Vec<tabula_verify::tothello::checker::Case>,
}

/// Prints the referee's cases (the checker's test data): each request line
/// and the piece count the right answer gives, one line a case.
pub fn cases(args: CasesArgs) -> Outcome {
    let seed = args.seed.seed;
    let cases = test_cases(args.cases, seed);
    let text: String = cases
        .iter()
        .enumerate()
        .map(|(k, case)| format!("case {k}: {} -> {}\n", case.request, case.expected))
        .collect();
    let report = CasesReport { cases };
    let stamped = run_info(Some(seed)).stamp(&report);
    emit_report(&text, args.json.json.as_ref(), &stamped)?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `tabula perft tothello`.
#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts Tothello's move sequences from a position.
pub fn perft(args: PerftArgs) -> Outcome {
    crate::perft::perft(parse_position(&args.position)?, &args.perft)
}

/// Answers `bestMove` requests on stdin until end of input.
pub fn serve(_args: ServeArgs) -> Outcome {
    protocol::serve(io::stdin().lock(), crate::out::data_stdout(), answer).context("serving")?;
    Ok(ExitCode::SUCCESS)
}

fn parse_position(args: &PositionArgs) -> anyhow::Result<Position> {
    let mut pos = placed_position(args)?;
    pos.passes = u8::from(args.passed);
    Ok(pos)
}

/// The pieces and the player to move of `args` (the standard start by default).
fn placed_position(args: &PositionArgs) -> anyhow::Result<Position> {
    // No pieces given: the standard start's, with `--turn` if given.
    if args.red.is_none() && args.black.is_none() {
        let start = Position::start();
        return match &args.turn {
            None => Ok(start),
            Some(turn) => Ok(Position::new(
                start.board,
                parse_color(turn).context("bad --turn")?,
            )),
        };
    }
    let list = |text: &Option<String>| square_list(text.as_deref().unwrap_or(""));
    let board = Board::from_squares(&list(&args.red), &list(&args.black))
        .context("bad position (--red/--black)")?;
    let turn = parse_color(args.turn.as_deref().unwrap_or("Black")).context("bad --turn")?;
    Ok(Position::new(board, turn))
}

/// A colour on the command line: `Red` or `Black` in any case (the protocol
/// itself keeps the statement's exact spelling).
pub fn parse_color(text: &str) -> Result<Color, tabula_solver::tothello::TothelloError> {
    if text.eq_ignore_ascii_case("red") {
        Ok(Color::Red)
    } else if text.eq_ignore_ascii_case("black") {
        Ok(Color::Black)
    } else {
        text.parse()
    }
}

/// The names of a mask's squares, in square order.
fn square_names(mask: u64) -> Vec<String> {
    (0..64u8)
        .filter(|&s| mask >> s & 1 == 1)
        .map(square_name)
        .collect()
}

/// Squares separated by commas or spaces (`D4,E5` or `D4 E5`).
fn square_list(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A `--batch` line: `RED / BLACK / TURN`, then `/ passed` after a pass.
fn parse_line(line: &str) -> anyhow::Result<Position> {
    let fields: Vec<&str> = line.split('/').map(str::trim).collect();
    let passed = match fields.get(3) {
        None => false,
        Some(&"passed") if fields.len() == 4 => true,
        Some(_) => bail!("expected RED / BLACK / TURN, then `/ passed` or nothing"),
    };
    let [red, black, turn] = fields[..fields.len().min(3)] else {
        bail!("expected RED / BLACK / TURN, then `/ passed` or nothing");
    };
    let board =
        Board::from_squares(&square_list(red), &square_list(black)).context("bad position")?;
    let turn = parse_color(turn).context("bad turn")?;
    let mut pos = Position::new(board, turn);
    pos.passes = u8::from(passed);
    Ok(pos)
}

/// bestMove and the solver's verdict for `pos`: exact up to `exact` empty
/// squares, else an estimate after `depth` plies.
fn answer_position(
    solver: &mut Solver,
    pos: &Position,
    depth: u8,
    exact: u32,
    with_line: bool,
) -> anyhow::Result<TothelloAnswer> {
    if with_line && pos.empties() > exact {
        bail!(
            "--line needs an exact value: the position has {} empty squares, more than \
             --exact {exact}",
            pos.empties()
        );
    }
    let best = best_move(&pos.board, pos.to_move)
        .map(|b| BestMoveAnswer {
            pieces: b.pieces,
            squares: square_names(b.squares),
        })
        .ok();
    let searching = spinner("searching");
    let result = solver.decide(pos, depth, exact);
    searching.finish_and_clear();
    let value = match result.exact {
        true => TothelloValue::Exact(result.value),
        false => TothelloValue::Estimate(f64::from(result.value) / f64::from(SCALE)),
    };
    let line = if with_line {
        let searching = spinner("following the optimal line");
        let line = optimal_line(pos, |p: &Position| Ok(solver.solve(p).value));
        searching.finish_and_clear();
        Some(line?)
    } else {
        None
    };
    let legend = format!(
        "R Red, B Black, {} to move: the first optimal move each turn",
        pos.to_move.name()
    );
    let colour = |by_mover: bool| match (by_mover, pos.to_move) {
        (true, Color::Red) | (false, Color::Black) => "R ",
        _ => "B ",
    };
    Ok(TothelloAnswer {
        red: square_names(pos.board.red),
        black: square_names(pos.board.black),
        to_move: pos.to_move.name().to_string(),
        passed: pos.passes > 0,
        best_move: best,
        exact: result.exact,
        value,
        best: result.best.map(|m| m.to_string()),
        nodes: result.nodes,
        line: line
            .as_ref()
            .map(|line| line_json(line, |mv| MoveField { mv: mv.to_string() })),
        line_shown: line
            .as_ref()
            .map(|line| line_text(line, &legend, false, colour, |mv| mv.to_string())),
    })
}

/// Prints bestMove and the solver's verdict for a position.
pub fn query(args: QueryArgs) -> Outcome {
    let pos = (!args.batch)
        .then(|| parse_position(&args.position))
        .transpose()?;
    // The search's table: 2^22 entries of 24 bytes, kept over a batch.
    crate::memory::check_memory(24 << 22, "the search's table", "free some memory")?;
    let mut solver = Solver::new(22);
    let Some(pos) = pos else {
        return answer_lines(|line| {
            let pos = parse_line(line)?;
            // Emptied for each line: an answer does not depend on the lines before it.
            solver.clear();
            answer_position(&mut solver, &pos, args.depth, args.exact, args.line)
        });
    };
    // A full board is answered as a batch line answers it: the game is over.
    let found = answer_position(&mut solver, &pos, args.depth, args.exact, args.line)?;
    outln!("{pos}")?;
    match &found.best_move {
        Some(best) => outln!(
            "bestMove: {} pieces, at {}",
            best.pieces,
            best.squares.join(" ")
        )?,
        None => outln!("bestMove: none (the board is full: the game is over)")?,
    }
    let mv = found.best.as_deref().unwrap_or("-");
    match found.value {
        TothelloValue::Exact(value) => outln!(
            "exact value: {value} (pieces, {} minus the other), best move {mv}, {} nodes",
            pos.to_move,
            found.nodes
        )?,
        TothelloValue::Estimate(value) => outln!(
            "estimate after {} plies: {value:.2} pieces, best move {mv}, {} nodes",
            args.depth,
            found.nodes
        )?,
    }
    for text in found.line_shown.iter().flatten() {
        outln!("{text}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Plays a game between a person (reading `input`) and the solver, through
/// the core's person seat (see `tabula_verify::terminal`).
///
/// Returns the final position, or `None` when the person typed `quit`.
pub fn play_session(
    input: impl BufRead,
    output: impl Write,
    start: Position,
    human: Color,
    depth: u8,
    exact: u32,
) -> anyhow::Result<Option<Position>> {
    person_end(play_terminal(input, output, start, human, depth, exact))
}

/// Lets a person play against the solver in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    let start = parse_position(&args.position)?;
    let human = parse_color(&args.color).context("bad --color")?;
    play_session(
        io::stdin().lock(),
        crate::out::data_stdout(),
        start,
        human,
        args.depth,
        args.exact,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Checks a bestMove program's answers on the examples and random boards.
///
/// Prints each wrong answer and a summary; exits 0 when every answer is right, 1 otherwise.
pub fn referee(args: RefereeArgs) -> Outcome {
    let timeout = Some(args.timeout.timeout);
    let cases = test_cases(args.cases, args.seed.seed);
    let log = Log::open(&args.log)?;
    let mut record = |line: &str| log.transcript_line(line);
    let report = match &args.player {
        Some(command) => {
            let mut player = ExternalPlayer::spawn_with(command, stderr_mode(args.player_stderr))?;
            let progress = bar(cases.len(), "cases");
            let report = referee_best_move(
                &cases,
                &mut player,
                Answerer::Program,
                timeout,
                &mut record,
                &|done| progress.set_position(done as u64),
            );
            progress.finish_and_clear();
            // A program stopped for a fault may be stalled: it gets no grace.
            let grace = match report.fault {
                None => EXIT_GRACE,
                Some(_) => std::time::Duration::ZERO,
            };
            player.finish(grace);
            report
        }
        None => {
            let mut peer = StreamPeer::for_person(io::stdin(), io::stderr());
            // No bar: stderr carries the requests here.
            referee_best_move(
                &cases,
                &mut peer as &mut dyn Peer,
                Answerer::Person,
                timeout,
                &mut record,
                &|_| {},
            )
        }
    };
    // The result lines, also kept in the transcript after the dialogue.
    let mut lines = Vec::new();
    for failure in report.failures.iter().take(10) {
        lines.push(format!(
            "wrong: {} -> got '{}', expected {}",
            failure.request,
            protocol::excerpt(&failure.got),
            failure.expected
        ));
    }
    if report.failures.len() > 10 {
        lines.push(format!(
            "... and {} more wrong answers",
            report.failures.len() - 10
        ));
    }
    if let Some(first) = report.unsolicited.first() {
        let count = match report.unsolicited.len() {
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        lines.push(format!(
            "unsolicited: {count} answering no request (the first: '{}')",
            protocol::excerpt(first)
        ));
    }
    if let Some(fault) = &report.fault {
        lines.push(format!("stopped: {fault}"));
    }
    lines.push(format!(
        "passed {} of {} cases",
        report.passed, report.cases
    ));
    for line in &lines {
        log.transcript_line(line);
    }
    report_then_finish(&log, || {
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        emit_report(
            &text,
            args.json.json.as_ref(),
            &run_info(Some(args.seed.seed)).stamp(&report),
        )
    })?;
    Ok(if report.passed == report.cases {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Runs the tournament of the built-in players and prints its report.
pub fn verify(args: VerifyArgs) -> Outcome {
    if !(8..=28).contains(&args.table_bits) {
        bail!("--table-bits must be between 8 and 28");
    }
    // Games run in parallel, each with up to two solvers of 2^bits entries of 24 bytes.
    let threads = tabula_verify::tournament::games_at_once() as u64;
    crate::memory::check_memory(
        (24u64 << args.table_bits) * 2 * threads,
        &format!("--table-bits {} on {threads} threads", args.table_bits),
        "lower --table-bits",
    )?;
    let mut players = vec![AgentKind::Random, AgentKind::Greedy];
    crate::common::given_once("--depths", &args.depths)?;
    for &depth in &args.depths {
        if !(1..=64).contains(&depth) {
            bail!("--depths: a solver depth is 1 to 64, as query's --depth, not {depth}");
        }
        players.push(AgentKind::Solver {
            depth,
            exact: args.exact,
        });
    }
    let config = TournamentConfig {
        players,
        openings: args.openings,
        opening_plies: usize::from(args.opening_plies),
        seed: args.seed.seed,
        table_bits: args.table_bits,
    };
    let pairs = config.players.len() * (config.players.len() - 1) / 2;
    let progress = games_bar(pairs * 2 * config.openings, 2 * config.openings)?;
    let log = Log::open(&args.out)?;
    let report = run_tournament(
        &config,
        &|done| progress.set_position(done as u64),
        log.games(),
    );
    progress.finish_and_clear();
    // The title is Markdown: `--json -` writes the JSON alone.
    let markdown = format!(
        "Tothello tournament: {} openings of {} random placements, both colours, seed {}.\n\n{}",
        config.openings,
        config.opening_plies,
        config.seed,
        report.to_markdown()
    );
    let report = Composed {
        markdown,
        json: &report,
        plot: || report.plot(),
    };
    args.out.finish(&log, Some(args.seed.seed), &report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(start: Position, input: &str) -> (anyhow::Result<Option<Position>>, String) {
        let mut output = Vec::new();
        let result = play_session(input.as_bytes(), &mut output, start, Color::Black, 2, 10);
        (result, String::from_utf8(output).unwrap())
    }

    #[test]
    fn person_plays_to_the_end_with_clear_messages_for_bad_moves() {
        // Two empty squares, A1 and B1; Black to move.
        let board = Board {
            red: 0x5555_5555_5555_5500,
            black: 0xAAAA_AAAA_AAAA_AA00 | 0xFC,
        };
        let start = Position::new(board, Color::Black);
        let (result, text) = session(start, "Z9\nC1\nA1\nB1\n");
        let end = result.unwrap().expect("played to the end");
        assert!(end.is_finished());
        assert!(text.contains("illegal move: 'Z9' is not a move"), "{text}");
        assert!(
            text.contains("illegal move: square C1 is not empty"),
            "{text}"
        );
        assert!(text.contains("  A B C D E F G H"), "{text}");
        assert!(text.contains("Game over: Red "), "{text}");
        // Two empties: the computer plays perfectly and says so.
        assert!(text.contains("(perfect play ends "), "{text}");
    }

    #[test]
    fn quit_and_end_of_input() {
        let (result, _) = session(Position::start(), "quit\n");
        assert!(result.unwrap().is_none());
        let (result, _) = session(Position::start(), "");
        assert!(
            result
                .unwrap_err()
                .to_string()
                .contains("stdin: the input ended before the game did")
        );
    }
}
