//! `tabula query tothello` (bestMove and the solver's verdict) and `perft tothello`.

use std::process::ExitCode;

use anyhow::bail;
use clap::Args;
use serde::Serialize;
use tabula_solver::tothello::search::SCALE;
use tabula_solver::tothello::{Color, Position, Solver, best_move, square_name};

use crate::batch::answer_lines;
use crate::line::{LineAnswer, line_json, line_text, optimal_line};
use crate::out::outln;
use crate::progress::spinner;
use crate::registry::Outcome;

use super::{DEPTH, EXACT, PositionArgs, parse_position};

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
    #[serde(flatten)]
    line: LineAnswer<MoveField>,
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

/// The names of a mask's squares, in square order.
fn square_names(mask: u64) -> Vec<String> {
    (0..64u8)
        .filter(|&s| mask >> s & 1 == 1)
        .map(square_name)
        .collect()
}

/// A `--batch` line: `RED / BLACK / TURN`, then `/ passed` after a pass.
fn parse_line(line: &str) -> anyhow::Result<Position> {
    tabula_verify::tothello::analysis::parse_line(line).map_err(anyhow::Error::msg)
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
        line: LineAnswer::of(line.as_ref().map(|line| {
            (
                line_json(line, |mv| MoveField { mv: mv.to_string() }),
                line_text(line, &legend, false, colour, |mv| mv.to_string()),
            )
        })),
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
    found.line.print()?;
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
