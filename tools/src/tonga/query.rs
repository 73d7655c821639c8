//! `tabula query tonga` (a 4x4 board's exact value from the table) and `perft tonga`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_solver::tonga::{Board, Cell, Colour, Position};
use tabula_tables::LookupError;
use tabula_tables::tonga::TongaTable;

use super::{board_rows, check_sizes, read_stdin};
use crate::batch::{LookedUp, answer_lines};
use crate::line::{LineAnswer, line_json, line_text, optimal_line};
use crate::out::outln;
use crate::registry::Outcome;

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
    #[serde(flatten)]
    line: LineAnswer<Square>,
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

/// Reads a 4×4 board on stdin and prints its exact value and optimal squares.
pub fn query(args: QueryArgs) -> Outcome {
    // SAFETY (inside open): tables are replaced by renaming, never rewritten in place.
    let table = TongaTable::open(&args.table)?;
    if args.batch {
        return answer_lines(|line| {
            let board =
                tabula_verify::tonga::analysis::parse_rows(line).map_err(anyhow::Error::msg)?;
            answer(&table, &board, "board", args.line)
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
    found.line.print()?;
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
        line: LineAnswer::of(line.as_ref().map(|line| {
            let legend = "the first optimal square each turn, row-major";
            let text = line_text(line, legend, false, colour, |cell| {
                let Square { row, col } = square(cell);
                format!("{row} {col}")
            });
            (line_json(line, square), text)
        })),
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
