//! `tabula query reversi`: a board's legal moves, player 1's built-in players'
//! choices, and a referee case's computer opponents' view of it; with
//! `--batch`, every board of stdin, each case's opponents evolved once per side.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Args;
use tabula_solver::reversi::{Board, Weights};
use tabula_verify::protocol::excerpt;
use tabula_verify::reversi::query::{Analysis, analyse, parse_board};
use tabula_verify::reversi::referee::opponents;

use crate::batch::answer_lines;
use crate::common::{JsonArgs, SeedArgs, emit_report, run_info};
use crate::registry::Outcome;

/// Arguments of `tabula query reversi`.
#[derive(Args)]
#[command(group(
    clap::ArgGroup::new("case_options")
        .args(["seed", "generations", "ga_games", "zero", "ties"])
        .multiple(true)
        .requires("case")
))]
pub struct QueryArgs {
    /// The board: its rows separated by spaces or `/` (`......./......./..123../...`),
    /// optionally after their count, as `getNextMove` sends it.
    #[arg(required_unless_present = "batch")]
    board: Option<String>,
    /// Read boards from stdin, one a line (as the board argument is written,
    /// optionally followed by `mover P`, that line's --mover), and answer
    /// each with one line of JSON (the fields of `--json`'s answer, without
    /// `run`), or `{"input":"...","error":"..."}` for a line that is no
    /// board; with --case, the opponents of each side are evolved once, at
    /// its first board.
    #[arg(long, conflicts_with_all = ["board", "json"])]
    batch: bool,
    /// The player to move, 1..P (the next one who can, if it cannot); with
    /// --batch, on every board whose line names none.
    #[arg(long, default_value_t = 1)]
    mover: usize,
    /// The referee's case (with --seed and the genetic algorithm's options)
    /// whose computer opponents to consult: the oracle's move for player 1,
    /// an opponent's ratios and move for players 2..
    #[arg(long)]
    case: Option<usize>,
    #[command(flatten)]
    ga: super::GaArgs,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// Runs `tabula query reversi`.
pub fn query(args: QueryArgs) -> Outcome {
    let mut cases = Evolved::default();
    let Some(text) = &args.board else {
        return answer_lines(|line| {
            let (text, mover, named) = line_mover(line, args.mover)?;
            let (board, mover) = read(&text, mover, named)?;
            Ok(answer(&args, &board, mover, &mut cases))
        });
    };
    let (board, mover) = read(text, args.mover, "--mover")?;
    let analysis = answer(&args, &board, mover, &mut cases);
    let stamped = run_info(args.case.map(|_| args.seed.seed)).stamp(&analysis);
    emit_report(&analysis.to_text(), args.json.json.as_ref(), &stamped)?;
    Ok(ExitCode::SUCCESS)
}

/// Each side's opponents of the asked case, evolved at most once.
type Evolved = HashMap<usize, Vec<Weights>>;

/// A batch line's board, its mover and what named it: `BOARD mover P` names
/// its own, a board alone takes `default` (`--mover`'s). No row of a board
/// is `mover`.
fn line_mover(line: &str, default: usize) -> anyhow::Result<(String, usize, &'static str)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words[..] {
        [ref board @ .., "mover", last] if !board.is_empty() => match last.parse() {
            Ok(mover) => Ok((board.join(" "), mover, "mover")),
            Err(_) => bail!("mover '{}': not a player number", excerpt(last)),
        },
        _ => Ok((line.to_string(), default, "--mover")),
    }
}

/// The board of `text` with `mover` (1..) asked to move; `named` is what
/// named the mover, for the error.
fn read(text: &str, mover: usize, named: &str) -> anyhow::Result<(Board, usize)> {
    let shown = excerpt(text);
    // The side is read first, so that the mover is checked against its players.
    let board = parse_board(text, 0).map_err(|e| anyhow!("bad board '{shown}': {e}"))?;
    if !(1..=board.players()).contains(&mover) {
        bail!(
            "{named} {mover}: the board has players 1 to {}",
            board.players()
        );
    }
    let board = parse_board(text, mover - 1).expect("read above");
    Ok((board, mover))
}

/// What the query says of `board`, the case's opponents evolved for its side if asked.
fn answer(args: &QueryArgs, board: &Board, mover: usize, cases: &mut Evolved) -> Analysis {
    let case = args.case.map(|case| {
        cases.entry(board.n()).or_insert_with(|| {
            let settings = args.ga.settings(board.n());
            super::with_generations_bar(|progress| {
                opponents(args.seed.seed, &settings, case, progress).0
            })
        })
    });
    let rule = args.ga.rule.rule();
    analyse(
        board,
        mover - 1,
        case.map(|weights| (weights.as_slice(), rule)),
    )
}
