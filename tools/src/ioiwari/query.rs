//! `tabula query ioiwari`: a board's value, its optimal moves and every
//! move's value; and how the verbs read a board.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_solver::ioiwari::{Board, Params, Ring};
use tabula_tables::TypedTable;
use tabula_tables::ioiwari::{Variant, VariantTable};
use tabula_verify::ioiwari::IoiBoard;

use super::RingArgs;
use super::table::{open_table, solved_in_memory};
use crate::batch::{LookedUp, answer_lines};
use crate::line::{LineAnswer, PitField, optimal_line, pit_line};
use crate::out::outln;
use crate::registry::Outcome;

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
    #[serde(flatten)]
    line: LineAnswer<PitField>,
    /// The board as the text output shows it.
    #[serde(skip)]
    shown: String,
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
        Some(pit_line(&optimal_line(board, |b: &B| {
            table.value(b).looked_up()
        })?))
    } else {
        None
    };
    Ok(BoardAnswer {
        board: board.counts(),
        value: table.value(board).looked_up()?,
        optimal,
        moves,
        line: LineAnswer::of(line),
        shown: board.to_string(),
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
    found.line.print()?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn parse_board(text: &str) -> anyhow::Result<Board> {
    text.parse()
        .with_context(|| format!("bad board '{}'", text.trim()))
}

/// A variant's board, as [`parse_board`] reads the IOI game's.
pub(super) fn parse_ring(params: &Params, text: &str) -> anyhow::Result<Ring> {
    Ring::parse(params, text).with_context(|| format!("bad board '{}'", text.trim()))
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

/// A starting ring of the IOI table's variants as the IOI game's board.
pub(super) fn ioi_board(ring: Ring) -> Board {
    ring.to_board()
        .expect("a ring of 7 pits of at most 5 beads")
}
