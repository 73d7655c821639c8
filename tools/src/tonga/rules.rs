//! `tabula tonga score`, `server-moves` and `solve`: rules tools on a board read from stdin.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::opponents::{self, Geometry};
use tabula_solver::tonga::{Board, Colour};

use super::read_stdin;
use crate::out::outln;
use crate::registry::Outcome;

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

/// No arguments: the board comes on stdin.
#[derive(Args)]
pub struct StdinArgs {}

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
