//! `tabula build dominoes` and `tabula query dominoes`: the table of every
//! stock-empty position of the N = 5 set, and lookups in it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::dominoes::space::Outcome;
use tabula_solver::dominoes::tiles::parse_oriented;
use tabula_solver::dominoes::{Move, Position, Side, Tile, Tiles};
use tabula_tables::dominoes::{self as table, DominoesTable, describe};
use tabula_tables::{LookupError, Table, Tabulated};

use crate::batch::{LookedUp, answer_lines};
use crate::common::{OutputFile, build_table, output_file};
use crate::out::outln;
use crate::progress::spinner;
use crate::registry::Outcome as CommandOutcome;

/// Arguments of `tabula build dominoes`.
#[derive(Args)]
pub struct BuildArgs {
    /// Where to write the table.
    #[arg(
        short,
        long,
        visible_alias = "out",
        default_value = "dominoes5.tab",
        value_parser = output_file
    )]
    output: OutputFile,
}

/// Arguments of `tabula query dominoes`.
#[derive(Args)]
pub struct QueryArgs {
    /// The table file (built in memory when omitted, a few seconds).
    #[arg(long)]
    table: Option<PathBuf>,
    /// The position: `hand0 / hand1 / left right / mover`, tiles as `a-b`
    /// over 0..4 (`-` for an empty hand), e.g. `0-1 2-4 / 3-3 1-4 / 0 2 / 0`;
    /// the tiles in neither hand are on the line, the stock is empty.
    #[arg(required_unless_present = "batch", num_args = 1.., allow_hyphen_values = true)]
    position: Vec<String>,
    /// Read positions from stdin, one a line, and answer each with one line of
    /// JSON (`{"position":...,"mover":0,"result":"win","over":false,"optimal":[...],"moves":[...]}`,
    /// or `{"input":"...","error":"..."}`), the table opened or built once.
    #[arg(long, conflicts_with = "position")]
    batch: bool,
}

/// What `query dominoes` says of one position (a line of JSON with `--batch`).
#[derive(Serialize)]
struct PositionAnswer {
    /// The position as the query reads it.
    position: String,
    /// The seat to move.
    mover: u8,
    /// The mover's result under perfect play: win, tie or loss.
    result: &'static str,
    /// Whether the game is over.
    over: bool,
    /// The optimal moves (`L 2-4`, `R 0-3`, `PASS`).
    optimal: Vec<String>,
    /// Every legal move with the mover's result after it.
    moves: Vec<MoveResult>,
}

/// One legal move of a [`PositionAnswer`].
#[derive(Serialize)]
struct MoveResult {
    /// The move.
    #[serde(rename = "move")]
    mv: String,
    /// The mover's result after it: win, tie or loss.
    result: &'static str,
}

/// The table's answer for the position written `text`.
fn position_answer(table: &DominoesTable, text: &str) -> anyhow::Result<PositionAnswer> {
    let pos = parse_position(text).with_context(|| format!("bad position '{}'", text.trim()))?;
    let outcome = match table.value(&pos) {
        Ok(value) => Outcome::of_value(value),
        Err(LookupError::Position(e)) => {
            bail!("position '{}' is not in the table: {e}", describe(&pos))
        }
        Err(e @ LookupError::NotAState(_)) => bail!("{e}"),
        Err(LookupError::Record(e)) => return Err(e.into()),
    };
    let mut found = PositionAnswer {
        position: describe(&pos),
        mover: pos.mover,
        result: outcome_word(outcome),
        over: pos.is_over(),
        optimal: Vec::new(),
        moves: Vec::new(),
    };
    if found.over {
        return Ok(found);
    }
    found.optimal = table
        .best_moves(&pos)
        .looked_up()?
        .into_iter()
        .map(move_word)
        .collect();
    for &mv in pos.moves().iter() {
        let child = table
            .lookup(&pos.after(mv))?
            .context("a move left the table")?;
        found.moves.push(MoveResult {
            mv: move_word(mv),
            result: outcome_word(child.flip()),
        });
    }
    Ok(found)
}

/// Builds the table file.
pub fn build(args: BuildArgs) -> CommandOutcome {
    let output = &args.output;
    build_table(output, table::SPEC.entries, |progress| {
        table::build(output, progress)
    })
}

/// Reads `hand0 / hand1 / left right / mover` (N = 5, stock empty).
pub fn parse_position(text: &str) -> anyhow::Result<Position> {
    let parts: Vec<&str> = text.split('/').map(str::trim).collect();
    let [h0, h1, ends, mover] = parts[..] else {
        bail!(
            "expected `hand0 / hand1 / left right / mover`, got {} part(s)",
            parts.len()
        );
    };
    let hand = |part: &str, seat: usize| -> anyhow::Result<Tiles> {
        let mut set = Tiles::EMPTY;
        if part == "-" {
            return Ok(set);
        }
        for word in part.split([' ', ',']).filter(|w| !w.is_empty()) {
            let (a, b) = parse_oriented(word, 5).with_context(|| format!("hand {seat}"))?;
            let t = Tile::new(a, b);
            if set.contains(t) {
                bail!("hand {seat}: tile {t} twice");
            }
            set.insert(t);
        }
        Ok(set)
    };
    let hands = [hand(h0, 0)?, hand(h1, 1)?];
    let number = |word: &str, what: &str| -> anyhow::Result<u8> {
        match word.parse::<u8>() {
            Ok(n) if n < 5 => Ok(n),
            _ => bail!("{what} '{word}' is not a number from 0 to 4"),
        }
    };
    let ends: Vec<&str> = ends.split_whitespace().collect();
    let [left, right] = ends[..] else {
        bail!("expected two ends `left right`, got {} word(s)", ends.len());
    };
    let (left, right) = (number(left, "left end")?, number(right, "right end")?);
    let mover = match mover {
        "0" => 0,
        "1" => 1,
        other => bail!("mover '{other}' is not 0 or 1"),
    };
    Ok(Position {
        hands,
        stock: Tiles::EMPTY,
        left,
        right,
        mover,
    })
}

fn outcome_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Tie => "tie",
        Outcome::Loss => "loss",
    }
}

fn move_word(mv: Move) -> String {
    match mv {
        Move::Place(t, Side::Left) => format!("L {t}"),
        Move::Place(t, Side::Right) => format!("R {t}"),
        Move::Pass => "PASS".into(),
        other => format!("{other:?}"),
    }
}

/// Prints the mover's exact result, the optimal moves and every move's result.
pub fn query(args: QueryArgs) -> CommandOutcome {
    let text = args.position.join(" ");
    // A bad position is told before the table is built.
    if !args.batch {
        parse_position(&text).with_context(|| format!("bad position '{}'", text.trim()))?;
    }
    let table = match &args.table {
        Some(path) => DominoesTable::open(path)?,
        None => {
            let spinner = spinner("building the table in memory");
            let table = DominoesTable::in_memory();
            spinner.finish_and_clear();
            table
        }
    };
    if args.batch {
        return answer_lines(|line| position_answer(&table, line));
    }
    let found = position_answer(&table, &text)?;
    outln!("position: {}", found.position)?;
    outln!("to move: seat {}", found.mover)?;
    outln!("result: {} for the mover", found.result)?;
    if found.over {
        outln!("the game is over")?;
        return Ok(ExitCode::SUCCESS);
    }
    outln!("optimal: {}", found.optimal.join(", "))?;
    for m in &found.moves {
        outln!("move {}: {} for the mover", m.mv, m.result)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `tabula check` for dominoes tables: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    Ok(DominoesTable::new(table)?.check_records_with(progress)?)
}

/// One line of `tabula export`: a position as `query dominoes --batch`
/// answers it, without the list of every move.
#[derive(Serialize)]
struct ExportedPosition {
    /// The position as the query reads it (the table's positions have seat 0 to move).
    position: String,
    /// The mover's result under perfect play: win, tie or loss.
    result: &'static str,
    /// The optimal moves (`L 2-4`, `R 0-3`, `PASS`).
    optimal: Vec<String>,
}

/// Every position of the table file, a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn std::io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let table = DominoesTable::new(table)?;
    crate::export::write_entries(&table, out, progress, |entry| ExportedPosition {
        position: describe(&entry.position),
        result: outcome_word(Outcome::of_value(entry.value)),
        optimal: entry.optimal.iter().map(|&mv| move_word(mv)).collect(),
    })
}

/// `tabula info` for a dominoes table: the one table there is, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    table.expect(&table::Dominoes.spec())?;
    Ok("every stock-empty position of Dominoes with N = 5".into())
}
