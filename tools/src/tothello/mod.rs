//! `tabula … tothello`: serve the line protocol, query, play a person, verify.

mod play;
mod query;
pub(crate) mod referee;
mod verify;

use anyhow::Context;
use clap::Args;
use tabula_solver::tothello::{Board, Position};

use crate::registry::{GameEntry, Verb};

/// Plies of heuristic search before the exact endgame, for `query` and `play`
/// alike: the same position gets the same advice in both.
const DEPTH: u8 = 6;

/// Empty squares from which `query` and `play` solve exactly.
const EXACT: u32 = 14;

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

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("tothello", "Tothello, TopCoder Invitational 2001")
        .draws(tabula_verify::tothello::draw::show)
        .analyzes(tabula_verify::tothello::analysis::analyst)
        .agents(&["random", "greedy", "solver-dD-eE"])
        .verb(Verb::new(
            "query",
            "bestMove and the solver's value and move for a position",
            query::query,
        ))
        .verb(Verb::new(
            "play",
            "Play against the solver in the terminal",
            play::play,
        ))
        .verb(Verb::new(
            "serve",
            "Answer bestMove requests on the line protocol",
            referee::serve,
        ))
        .verb(
            Verb::new(
                "referee",
                "Check a bestMove program over the line protocol (--timeout: per answer)",
                referee::referee,
            )
            .default("seed", "2001")
            .default("timeout", "2"),
        )
        .verb(
            Verb::new(
                "verify",
                "Tournament of the built-in players from seeded random openings",
                verify::verify,
            )
            .default("seed", "2001"),
        )
        .verb(Verb::new(
            "perft",
            "From a position (the standard start by default); a pass is a ply where the rules allow it",
            query::perft,
        ))
        .extra(
            Verb::new(
                "cases",
                "The referee's cases as test data: each bestMove request line and its right answer",
                referee::cases,
            )
            .default("seed", "2001"),
        )
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

pub use tabula_verify::tothello::analysis::{parse_color, square_list};
