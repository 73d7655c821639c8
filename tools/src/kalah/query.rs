//! `tabula query kalah`: a board's value and every move's, from a table or a search.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use tabula_solver::ZeroSum;
use tabula_solver::kalah::{ExactSolver, Kalah, Rules};
use tabula_solver::zero_sum::Line;
use tabula_tables::kalah::{KalahGame, KalahTable};
use tabula_verify::kalah as kv;

use super::{VariantArgs, endgame};
use crate::batch::{LookedUp, answer_lines};
use crate::line::{LineAnswer, PitField, optimal_line, pit_line};
use crate::out::outln;
use crate::progress::spinner;
use crate::registry::Outcome;

/// Arguments of `tabula query kalah`.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The table file (the position is searched when omitted); its header
    /// names its rules, so --pits, --seeds and the rules may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The board from the mover's side: her pits then the opponent's, each in
    /// sowing order, the sides split by `/` ("3 3 3 / 3 3 3"); the start when omitted.
    board: Option<String>,
    /// Read boards from stdin, one a line, and answer each with one line of
    /// JSON (`{"board":[[mover's],[opponent's]],"value":v,"over":false,"moves":[...]}`,
    /// or `{"input":"...","error":"..."}` for a line that is no board).
    #[arg(long, conflicts_with = "board")]
    batch: bool,
    #[command(flatten)]
    endgame: endgame::EndgameArgs,
    /// Also give the optimal line to the end of the game: the first optimal
    /// pit at each turn, with what each move gains (`"line"` in each JSON
    /// line with --batch).
    #[arg(long)]
    line: bool,
}

/// What `query kalah` says of one board (a line of JSON with `--batch`).
#[derive(Serialize)]
struct KalahAnswer {
    /// The mover's pits, then the opponent's, each in sowing order.
    board: [Vec<u8>; 2],
    /// The mover's best final store difference from here.
    value: i32,
    /// Whether the game is over.
    over: bool,
    /// Every legal move.
    moves: Vec<KalahMove>,
    /// The optimal line to the end, with `--line`.
    #[serde(flatten)]
    line: LineAnswer<PitField>,
    #[serde(skip)]
    shown: String,
}

/// One legal move of a [`KalahAnswer`].
#[derive(Serialize)]
struct KalahMove {
    /// The pit, from 1.
    pit: u8,
    /// The mover's final store difference after it, with optimal play on.
    value: i32,
    /// The seeds it stores at once, less the opponent's.
    gains: i32,
    /// Whether the mover moves again.
    again: bool,
    /// The board it leaves, from the side of the player then to move.
    leaves: [Vec<u8>; 2],
    #[serde(skip)]
    shown: String,
}

/// The two sides of `position`, the mover's first.
pub(crate) fn sides(position: &Kalah) -> [Vec<u8>; 2] {
    let (mine, theirs) = position.pits().split_at(usize::from(position.rules().pits));
    [mine.to_vec(), theirs.to_vec()]
}

/// The answer for `position`, its values from `value_of`, with its optimal
/// line when `with_line`.
fn kalah_answer(
    position: &Kalah,
    value_of: &mut dyn FnMut(&Kalah) -> anyhow::Result<i32>,
    with_line: bool,
) -> anyhow::Result<KalahAnswer> {
    let mut found = KalahAnswer {
        board: sides(position),
        value: 0,
        over: true,
        moves: Vec::new(),
        line: LineAnswer::of(None),
        shown: position.to_string(),
    };
    if !position.arises() {
        // The move that emptied a side ended the game: each side's seeds go to
        // its owner. No table holds such a board.
        found.value = position.side(0) as i32 - position.side(1) as i32;
        if with_line {
            found.set_line(&Line {
                moves: Vec::new(),
                final_for_first: found.value,
            });
        }
        return Ok(found);
    }
    found.value = value_of(position)?;
    found.over = position.is_finished();
    for &pit in position.legal_moves().iter() {
        let (child, sowing) = position.child(pit);
        let gains = sowing.mover as i32 - sowing.opponent as i32;
        found.moves.push(KalahMove {
            pit: pit + 1,
            value: position.move_value(pit, gains, value_of(&child)?),
            gains,
            again: sowing.again,
            leaves: sides(&child),
            shown: child.to_string(),
        });
    }
    if with_line {
        found.set_line(&optimal_line(position, &mut *value_of)?);
    }
    Ok(found)
}

impl KalahAnswer {
    /// Adds `line` (`--line`) to the JSON and the text.
    fn set_line(&mut self, line: &Line<u8>) {
        self.line = LineAnswer::of(Some(pit_line(line)));
    }
}

fn parse_board(rules: &Rules, text: &str) -> anyhow::Result<Kalah> {
    kv::analysis::parse_board(rules, text).map_err(anyhow::Error::msg)
}

/// Where `query kalah` finds a board's value: its table file, or a search.
enum Values {
    Table(KalahTable),
    Search(ExactSolver),
}

/// Prints the value and optimal moves of a board, and the value of every move.
pub fn query(args: QueryArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    let position = match &args.board {
        Some(text) => parse_board(&rules, text)?,
        None => rules.start(),
    };
    let mut values = match &args.table {
        Some(path) => Values::Table(KalahTable::open_for(KalahGame { rules }, path)?),
        None => {
            // One search whose table the children's searches share.
            let bits = kv::search_bits(&rules);
            crate::memory::check_memory(16 << bits, "a search without --table", "pass --table")?;
            Values::Search(ExactSolver::new(bits).with_endgame(args.endgame.open(&rules)?))
        }
    };
    // One spinner for the whole run: a search is many values.
    let searching = matches!(values, Values::Search(_)).then(|| spinner("searching"));
    let mut value_of = |p: &Kalah| -> anyhow::Result<i32> {
        Ok(match &mut values {
            Values::Table(table) => table.value(p).looked_up()?,
            Values::Search(solver) => solver.value(p),
        })
    };
    if args.batch {
        let answered = answer_lines(|line| {
            kalah_answer(&parse_board(&rules, line)?, &mut value_of, args.line)
        });
        searching.inspect(|s| s.finish_and_clear());
        return answered;
    }
    let found = kalah_answer(&position, &mut value_of, args.line);
    searching.inspect(|s| s.finish_and_clear());
    let found = found?;
    outln!("board: {} (mover's pits / opponent's)", found.shown)?;
    outln!("value: {}", found.value)?;
    if !position.arises() {
        outln!("the game is over (a side is empty: each side's seeds go to its owner)")?;
    } else if found.over {
        outln!("the game is over")?;
    }
    for m in &found.moves {
        outln!(
            "move {}: value {} (gains {}{}, leaves {})",
            m.pit,
            m.value,
            m.gains,
            if m.again { ", moves again" } else { "" },
            m.shown
        )?;
    }
    found.line.print()?;
    Ok(ExitCode::SUCCESS)
}
