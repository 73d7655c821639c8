//! `tabula query kalah`: a board's value and every move's, from a table or a search.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;
use tabula_solver::ZeroSum;
use tabula_solver::kalah::{
    Bounds, ExactSolver, Kalah, Limits, Rules, SearchOptions, SearchProgress,
};
use tabula_solver::zero_sum::{Line, principal_line_from};
use tabula_tables::kalah::{KalahGame, KalahTable};
use tabula_verify::kalah as kv;
// A value a limit kept the search from proving: the sweep's rows use the same bounds.
use tabula_verify::kalah::sweep::Unproven;

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
    /// Give the board's value alone, without each move's: a search spends
    /// most of its time on the moves (`"moves":[]` with --batch).
    #[arg(long)]
    no_moves: bool,
    /// The search's transposition table has 2^BITS slots (16 bytes each);
    /// by default, twice the variant's boards, at most 2^24.
    #[arg(long, value_parser = clap::value_parser!(u32).range(10..=30), conflicts_with = "table")]
    table_bits: Option<u32>,
    #[command(flatten)]
    threads: ThreadsArgs,
    /// Stop searching after SECS seconds (counted once the tables are open)
    /// and print the bounds proven by then
    /// (`value: between -2 and +8, not proven in 3600 s (N nodes)`; in JSON
    /// `"unproven":{"lower":..,"upper":..}` in place of `"value"`): exit
    /// status 0. A move whose search the limit stopped shows its bounds.
    #[arg(long, value_name = "SECS", value_parser = crate::common::search_limit, conflicts_with = "table")]
    time_limit: Option<Duration>,
    /// Stop after N nodes, as --time-limit (tests: no clock).
    #[arg(long, value_name = "N", hide = true, conflicts_with = "table")]
    node_limit: Option<u64>,
}

/// The search's threads (`query kalah`, `sweep kalah`).
#[derive(Args)]
pub(crate) struct ThreadsArgs {
    /// Search on N threads over one shared transposition table: each search
    /// of the board runs on every thread, which start from different moves,
    /// and the first to finish gives the result (the values do not change;
    /// the nodes vary from run to run) [default: all cores for a board of
    /// 48 seeds or more, else 1: a small search is too short to share]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

/// The fewest seeds on a board whose search uses every core by default:
/// Kalah(6, 4)'s start, where two threads were measured 1.2 to 1.5 times as
/// fast as one; from Kalah(3, 3) to (4, 3) they were slower.
const SHARED_SEEDS: u32 = 48;

impl ThreadsArgs {
    /// The threads asked for, else every core's for a board of `seeds`
    /// seeds from [`SHARED_SEEDS`] up, else 1.
    pub(crate) fn get(&self, seeds: u32) -> usize {
        match self.threads {
            Some(n) => n as usize,
            None if seeds < SHARED_SEEDS => 1,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// The error of a value whose search a limit stopped.
#[derive(Debug)]
struct Stopped(Bounds);

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Bounds { lower, upper, .. } = self.0;
        write!(
            f,
            "the search stopped with the value between {lower} and {upper}"
        )
    }
}

impl std::error::Error for Stopped {}

/// The error of an optimal line whose search a limit stopped.
#[derive(Debug)]
struct LineStopped;

impl std::fmt::Display for LineStopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the search stopped before the optimal line was found")
    }
}

impl std::error::Error for LineStopped {}

/// A value, or the bounds a limit left; other errors pass on.
fn proven(found: anyhow::Result<i32>) -> anyhow::Result<Result<i32, Unproven>> {
    match found {
        Ok(value) => Ok(Ok(value)),
        Err(e) => match e.downcast_ref::<Stopped>() {
            Some(Stopped(b)) => Ok(Err(Unproven {
                lower: b.lower,
                upper: b.upper,
            })),
            None => Err(e),
        },
    }
}

/// What `query kalah` says of one board (a line of JSON with `--batch`).
#[derive(Serialize)]
struct KalahAnswer {
    /// The mover's pits, then the opponent's, each in sowing order.
    board: [Vec<u8>; 2],
    /// The mover's best final store difference from here (absent when a
    /// limit stopped its search: see `unproven`).
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<i32>,
    /// The bounds proven when --time-limit stopped the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    unproven: Option<Unproven>,
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
    /// The mover's final store difference after it, with optimal play on
    /// (absent when a limit stopped its search: see `unproven`).
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<i32>,
    /// The bounds proven when --time-limit stopped the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    unproven: Option<Unproven>,
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

/// What a query asks of each board besides its value.
#[derive(Clone, Copy)]
struct Asked {
    /// The optimal line (`--line`).
    line: bool,
    /// Every move's value (not `--no-moves`).
    moves: bool,
}

/// The answer for `position`, its values from `valuer`, with what `asked` says.
fn kalah_answer(
    position: &Kalah,
    valuer: &mut Valuer<'_>,
    asked: Asked,
) -> anyhow::Result<KalahAnswer> {
    let with_line = asked.line;
    let mut found = KalahAnswer {
        board: sides(position),
        value: None,
        unproven: None,
        over: true,
        moves: Vec::new(),
        line: LineAnswer::of(None),
        shown: position.to_string(),
    };
    if !position.arises() {
        // The move that emptied a side ended the game: each side's seeds go to
        // its owner. No table holds such a board.
        let value = position.side(0) as i32 - position.side(1) as i32;
        found.value = Some(value);
        if with_line {
            found.set_line(&Line {
                moves: Vec::new(),
                final_for_first: value,
            });
        }
        return Ok(found);
    }
    let value = match proven(valuer.value(position))? {
        Ok(value) => value,
        Err(bounds) => {
            // The moves' searches would start where this one stopped.
            found.unproven = Some(bounds);
            found.over = false;
            return Ok(found);
        }
    };
    found.value = Some(value);
    found.over = position.is_finished();
    if with_line {
        // Before the moves' values: the line needs only the board's.
        match valuer.line(position, value) {
            Ok(line) => found.set_line(&line),
            // A line the limit stopped is left out.
            Err(e) if e.is::<LineStopped>() => {}
            Err(e) => return Err(e),
        }
    }
    if !asked.moves {
        return Ok(found);
    }
    for &pit in position.legal_moves().iter() {
        let (child, sowing) = position.child(pit);
        let gains = sowing.mover as i32 - sowing.opponent as i32;
        let (value, unproven) = match proven(valuer.value(&child))? {
            Ok(v) => (Some(position.move_value(pit, gains, v)), None),
            Err(b) => {
                let ends = [b.lower, b.upper].map(|v| position.move_value(pit, gains, v));
                let (lower, upper) = (ends[0].min(ends[1]), ends[0].max(ends[1]));
                (None, Some(Unproven { lower, upper }))
            }
        };
        found.moves.push(KalahMove {
            pit: pit + 1,
            value,
            unproven,
            gains,
            again: sowing.again,
            leaves: sides(&child),
            shown: child.to_string(),
        });
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

/// A query's values and the limits of its searches.
struct Valuer<'l> {
    values: Values,
    limits: Limits<'l>,
}

impl Valuer<'_> {
    /// The exact value of `position` for its mover ([`Stopped`] when a limit
    /// stopped its search).
    fn value(&mut self, position: &Kalah) -> anyhow::Result<i32> {
        Ok(match &mut self.values {
            Values::Table(table) => table.value(position).looked_up()?,
            Values::Search(solver) => {
                let bounds = solver.bounds(position, &mut self.limits);
                bounds.exact().ok_or(Stopped(bounds))?
            }
        })
    }

    /// The optimal line from `position`, whose value is `value`. A search
    /// tries each move with one null-window test (does it reach `value`?),
    /// which costs far less than the move's exact value.
    fn line(&mut self, position: &Kalah, value: i32) -> anyhow::Result<Line<u8>> {
        let Values::Search(solver) = &mut self.values else {
            return optimal_line(position, |p| self.value(p));
        };
        let limits = &mut self.limits;
        principal_line_from(position, value, |from, pit, child, reward, here| {
            // The child's value that makes the move worth `here` (no move is worth more).
            let keeps = from.keeps_turn(pit);
            let needed = if keeps { here - reward } else { reward - here };
            let reached = match keeps {
                true => solver.reaches(child, needed, limits),
                false => solver
                    .reaches(child, needed + 1, limits)
                    .map(|above| !above),
            };
            Ok(reached.ok_or(LineStopped)?.then_some(needed))
        })
    }
}

/// Prints the value and optimal moves of a board, and the value of every move.
pub fn query(args: QueryArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    let position = match &args.board {
        Some(text) => parse_board(&rules, text)?,
        None => rules.start(),
    };
    let values = match &args.table {
        Some(path) => Values::Table(KalahTable::open_for(KalahGame { rules }, path)?),
        None => {
            // One search whose table the children's searches share.
            let bits = args.table_bits.unwrap_or_else(|| kv::search_bits(&rules));
            crate::memory::check_memory(
                16 << bits,
                &format!("a search with 2^{bits} table slots"),
                "pass --table or lower --table-bits",
            )?;
            let endgame = args.endgame.open(&rules)?;
            let max_seeds = endgame.as_ref().map_or(0, |e| e.max_seeds());
            if let Some(note) = kv::sweep::long_search_note(position.seeds(), max_seeds) {
                eprintln!("note: {note}");
            }
            let threads = args.threads.get(position.seeds());
            let solver = ExactSolver::with_threads(bits, SearchOptions::default(), threads);
            Values::Search(solver.with_endgame(endgame))
        }
    };
    // The clock starts once the tables are open: a limit and a rate are of the search.
    let started = Instant::now();
    // One spinner for the whole run: a search is many values.
    let searching = matches!(values, Values::Search(_)).then(|| spinner("searching"));
    // A limit beyond any clock (`inf`, 1e300) is no limit.
    let deadline = args.time_limit.and_then(|limit| started.checked_add(limit));
    let mut show = |p: &SearchProgress| {
        if let Some(bar) = &searching {
            bar.set_message(search_line(p, started.elapsed()));
        }
    };
    let limits = Limits {
        deadline,
        max_nodes: args.node_limit,
        stop: None,
        progress: Some(&mut show),
    };
    let mut valuer = Valuer { values, limits };
    let asked = Asked {
        line: args.line,
        moves: !args.no_moves,
    };
    if args.batch {
        let answered =
            answer_lines(|line| kalah_answer(&parse_board(&rules, line)?, &mut valuer, asked));
        searching.as_ref().inspect(|s| s.finish_and_clear());
        return answered;
    }
    let found = kalah_answer(&position, &mut valuer, asked);
    searching.as_ref().inspect(|s| s.finish_and_clear());
    let found = found?;
    let nodes = match &valuer.values {
        Values::Search(solver) => solver.nodes,
        Values::Table(_) => 0,
    };
    print_answer(&found, &position, started.elapsed(), nodes)?;
    Ok(ExitCode::SUCCESS)
}

/// The progress line of a search: `searching: value in [+4, +12], testing ≥
/// +8, 12.3 M nodes, 1.1 M/s`.
pub(crate) fn search_line(p: &SearchProgress, spent: Duration) -> String {
    let rate = p.nodes as f64 / spent.as_secs_f64().max(1e-3);
    let testing = p
        .testing
        .map_or(String::new(), |t| format!(", testing ≥ {t:+}"));
    format!(
        "searching: value in [{:+}, {:+}]{testing}, {:.1} M nodes, {:.1} M/s",
        p.lower,
        p.upper,
        p.nodes as f64 / 1e6,
        rate / 1e6
    )
}

/// Prints `found`, the answer for `position`, after `spent` and `nodes` of search.
fn print_answer(
    found: &KalahAnswer,
    position: &Kalah,
    spent: Duration,
    nodes: u64,
) -> anyhow::Result<()> {
    outln!("board: {} (mover's pits / opponent's)", found.shown)?;
    match (found.value, found.unproven) {
        (Some(value), _) => outln!("value: {value}")?,
        (None, Some(b)) => outln!(
            "value: between {:+} and {:+}, not proven in {:.0} s ({nodes} nodes)",
            b.lower,
            b.upper,
            spent.as_secs_f64()
        )?,
        (None, None) => unreachable!("an answer has a value or bounds"),
    }
    if !position.arises() {
        outln!("the game is over (a side is empty: each side's seeds go to its owner)")?;
    } else if found.over {
        outln!("the game is over")?;
    }
    for m in &found.moves {
        let value = match (m.value, m.unproven) {
            (Some(v), _) => v.to_string(),
            (None, b) => b.map_or(String::new(), |b| {
                format!("between {:+} and {:+} (not proven)", b.lower, b.upper)
            }),
        };
        outln!(
            "move {}: value {value} (gains {}{}, leaves {})",
            m.pit,
            m.gains,
            if m.again { ", moves again" } else { "" },
            m.shown
        )?;
    }
    found.line.print()?;
    Ok(())
}
