//! `tabula … kalah`: build, query, play, verify and sweep Kalah(m, n).

pub mod endgame;

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use serde::Serialize;
use tabula_solver::ZeroSum;
use tabula_solver::kalah::{Capture, Ending, ExactSolver, Kalah, Match, Rules};
use tabula_solver::retrograde::StateSpace;
use tabula_tables::Table;
use tabula_tables::kalah::{self as table, KalahGame, KalahTable};
use tabula_verify::arena::play_case;
use tabula_verify::kalah::sweep as kalah_sweep;
use tabula_verify::kalah::{self as kv, KalahContest, KalahWire, OptimalAgent};
use tabula_verify::process::StreamPeer;
use tabula_verify::seat::{Clock, FaultKind, Limits, Local, Player, Remote};
use tabula_verify::tournament::{Purpose, stream};
use tabula_verify::wire::Session;

use crate::batch::{LookedUp, answer_lines};
use crate::common::{
    GamesArgs, JsonArgs, Log, LogArgs, OutputFile, PlotArgs, RefereeRunArgs, SeatArgs, SeedArgs,
    Span, StrictArgs, TimeoutArgs, TimingsArgs, check_agent, emit_report, output_file,
    referee_contest, run_info, serve_stdio, served_rng, span,
};
use crate::export::write_entries;
use crate::line::{
    LineMoveAnswer, PIT_LEGEND, PitField, line_json, line_text, optimal_line, pit_field,
    pit_players,
};
use crate::memory::games_bar;
use crate::out::outln;
use crate::progress::{bar, spinner};
use crate::registry::Outcome;
use crate::registry::{GameEntry, TableHooks, Verb};
use crate::table_build::BuildMode;
use tabula_solver::zero_sum::Line;
use tabula_verify::report::Composed;

/// The end-of-game rule on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum EndingArg {
    /// As soon as one side's pits are empty after a move; each side's seeds go to its owner.
    AfterAnyMove,
    /// When the player to move has no seeds; the opponent takes the seeds on her side.
    MoverStuck,
}

/// The rule options every Kalah verb shares.
#[derive(Args, Clone, Debug)]
pub struct RuleArgs {
    /// Capture only when the opposite pit holds seeds (Irving et al. capture even from an empty one).
    #[arg(long)]
    no_empty_capture: bool,
    /// The end-of-game rule [default: after-any-move]
    #[arg(long, value_enum)]
    ending: Option<EndingArg>,
}

impl RuleArgs {
    /// These rules on a board of `pits` pits a side and `seeds` seeds a pit.
    fn rules(&self, pits: u32, seeds: u32) -> anyhow::Result<Rules> {
        let (Ok(m), Ok(n)) = (u8::try_from(pits), u8::try_from(seeds)) else {
            bail!("Kalah({pits}, {seeds}) is far too large");
        };
        let capture = if self.no_empty_capture {
            Capture::NonEmpty
        } else {
            Capture::Always
        };
        let ending = match self.ending.unwrap_or(EndingArg::AfterAnyMove) {
            EndingArg::AfterAnyMove => Ending::AfterAnyMove,
            EndingArg::MoverStuck => Ending::MoverStuck,
        };
        Ok(Rules::new(m, n)?.with_capture(capture).with_ending(ending))
    }
}

/// One Kalah variant, for the verbs that can also take it from a table.
#[derive(Args, Clone, Debug)]
pub struct VariantArgs {
    /// Pits a side (m) [default: 3, or the --table's]
    #[arg(long)]
    pits: Option<u32>,
    /// Seeds a pit at the start (n) [default: 3, or the --table's]
    #[arg(long)]
    seeds: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
}

impl VariantArgs {
    /// The rules: each option as given, else as the `table` file's header
    /// names it (a table says which variant it holds), else Kalah(3, 3)'s. A
    /// given one that is not the table's is refused on opening it.
    fn rules_for(&self, table: Option<&Path>) -> anyhow::Result<Rules> {
        let Some(path) = table else {
            return self
                .rules
                .rules(self.pits.unwrap_or(3), self.seeds.unwrap_or(3));
        };
        let header = crate::common::table_header(path, "kalah", |header| {
            let rules = header_rules(header.params).context(path.display().to_string())?;
            Ok(table::spec(&rules))
        })?;
        let own = header_rules(header.params)?;
        let (pits, seeds) = (
            self.pits.unwrap_or(own.pits.into()),
            self.seeds.unwrap_or(own.seeds.into()),
        );
        let mut rules = self.rules.rules(pits, seeds)?;
        if !self.rules.no_empty_capture {
            rules = rules.with_capture(own.capture);
        }
        if self.rules.ending.is_none() {
            rules = rules.with_ending(own.ending);
        }
        Ok(rules)
    }
}

/// Arguments of `tabula build kalah`.
#[derive(Args)]
pub struct BuildArgs {
    /// Pits a side (m).
    #[arg(long, default_value_t = 3)]
    pits: u32,
    /// Seeds a pit at the start (n).
    #[arg(long, default_value_t = 3)]
    seeds: u32,
    /// Build an endgame table instead: every board of --pits pits a side with
    /// at most this many seeds in the pits, for any --seeds (values only, out of core).
    #[arg(long, value_name = "S", conflicts_with_all = ["seeds", "distributed", "max_boards"])]
    max_seeds: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
    /// Build in memory up to this many records (10 bytes a board plus its record), out of core above.
    #[arg(long, default_value_t = 100_000_000)]
    max_boards: u64,
    #[command(flatten)]
    mode: BuildMode,
    /// Where to write the table.
    #[arg(short, long, default_value = "kalah.tab", value_parser = output_file)]
    output: OutputFile,
}

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
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<Vec<LineMoveAnswer<PitField>>>,
    #[serde(skip)]
    shown: String,
    /// The optimal line as the text output shows it, with `--line`.
    #[serde(skip)]
    line_shown: Option<[String; 2]>,
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
        line: None,
        shown: position.to_string(),
        line_shown: None,
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
        self.line = Some(line_json(line, pit_field));
        self.line_shown = Some(line_text(line, PIT_LEGEND, true, pit_players, |pit| {
            (pit + 1).to_string()
        }));
    }
}

/// Arguments of `tabula play kalah`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// A table (every record is checked first); the optimal moves are
    /// searched when omitted. Its header names its rules, so --pits, --seeds
    /// and the rules may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Play second: tabula moves first.
    #[arg(long)]
    second: bool,
    #[command(flatten)]
    think: ThinkArgs,
}

/// Arguments of `tabula referee kalah`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// A table for the opponent (every record is checked first); its moves
    /// are searched when omitted. Its header names its rules, so --pits,
    /// --seeds and the rules may be left out.
    #[arg(long)]
    table: Option<PathBuf>,
    // The tested player: `--player CMD` (a new process per game, over pipes)
    // or `--agent NAME`.
    #[command(flatten)]
    seat: SeatArgs,
    /// The built-in player it meets: optimal, greedy or random.
    #[arg(long, value_name = "NAME", default_value = "optimal")]
    opponent: String,
    // The tested player's time for each game.
    #[command(flatten)]
    timeout: TimeoutArgs,
    // Seed of a random player.
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    log: LogArgs,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    strict: StrictArgs,
}

/// Arguments of `tabula serve kalah`.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// A table for the optimal player (every record is checked first); its
    /// moves are searched when omitted. Without a table, --pits or --seeds,
    /// the size is the one each greeting names.
    #[arg(long)]
    table: Option<PathBuf>,
    /// The built-in player: optimal, greedy or random.
    #[arg(long)]
    agent: String,
    #[command(flatten)]
    think: ThinkArgs,
    #[command(flatten)]
    seed: SeedArgs,
}

/// `--think-ms`: the searching optimal player's time for a move.
#[derive(Args)]
pub struct ThinkArgs {
    /// Without --table, the optimal player's time for each move, in
    /// milliseconds: the dialogue gives no time, so it assumes this much
    /// (the default fits some 40 moves in `referee kalah`'s default 10 s a
    /// game). It searches deeper and deeper and plays the best move of the
    /// deepest search finished in time, exact once a search reaches every
    /// end (small variants are solved exactly well within it).
    #[arg(long, value_name = "MS", default_value_t = 250)]
    think_ms: u64,
}

impl ThinkArgs {
    /// The time for a move.
    fn think(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.think_ms)
    }
}

/// The table at `path`, checked, for the optimal players; without one, each
/// of the `searchers` optimal players at a time searches, and their search
/// tables must fit.
fn checked_table(
    rules: Rules,
    path: Option<&Path>,
    searchers: u64,
) -> anyhow::Result<Vec<Arc<KalahTable>>> {
    let Some(path) = path else {
        if searchers > 0 {
            let bits = kv::search_bits(&rules);
            crate::memory::check_memory(
                searchers * (16 << bits),
                "the optimal player's search without --table",
                "pass --table",
            )?;
        }
        return Ok(Vec::new());
    };
    let table = KalahTable::open_for(KalahGame { rules }, path)?;
    table.check_moves()?;
    Ok(vec![Arc::new(table)])
}

/// A spinner for the optimal player's searches, shown while one runs long
/// (a search of a large variant can take minutes a move).
#[derive(Clone, Default)]
struct SearchDisplay(Arc<std::sync::Mutex<Option<indicatif::ProgressBar>>>);

impl SearchDisplay {
    /// What an optimal player, `who` (`the opponent's`), tells of its search.
    fn tell(&self, who: &'static str) -> kv::SearchProgress {
        let shown = self.clone();
        Arc::new(move |nodes| {
            let mut bar = shown.0.lock().unwrap_or_else(|e| e.into_inner());
            match nodes {
                Some(nodes) => {
                    let bar = bar.get_or_insert_with(|| crate::progress::spinner("searching"));
                    bar.set_message(format!(
                        "{who} exact search: {:.1} million positions for this move",
                        nodes as f64 / 1e6
                    ));
                }
                // The search is over: the spinner goes until the next long one.
                None => {
                    if let Some(bar) = bar.take() {
                        bar.finish_and_clear();
                    }
                }
            }
        })
    }
}

/// Two games of the tested player against a built-in one, the tested player
/// first, then second, over the dialogue of `play kalah`.
pub fn referee(args: RefereeArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    args.seat.check(&kv::AGENTS)?;
    check_agent("--opponent", &args.opponent, &kv::AGENTS)?;
    let searchers = [Some(args.opponent.as_str()), args.seat.agent.as_deref()]
        .iter()
        .filter(|&&name| name == Some("optimal"))
        .count() as u64;
    let tables = checked_table(rules, args.table.as_deref(), searchers)?;
    let searching = SearchDisplay::default();
    let seed = args.seed.seed;
    let contest = KalahContest {
        rules,
        tables: tables.clone(),
        opponent: args.opponent.clone(),
        progress: Some(searching.tell("the optimal opponent's")),
        seed,
        limits: Limits {
            per_game: Some(args.timeout.timeout),
            ..Limits::default()
        },
    };
    let run = RefereeRunArgs {
        seed: args.seed,
        timeout: args.timeout,
        log: args.log,
        json: args.json,
        strict: args.strict,
    };
    referee_contest(
        &contest,
        &args.seat,
        || KalahWire::new(rules),
        // The tested built-in player as `serve --seed` draws it, so that both play alike.
        |name| {
            let told = searching.tell("the tested optimal player's");
            kv::agent(name, &tables, served_rng(seed), Some(told), None)
        },
        &kv::AGENTS,
        &run,
    )
}

/// A built-in player on the dialogue of `play kalah`, over stdin/stdout.
pub fn serve(args: ServeArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    check_agent("--agent", &args.agent, &kv::AGENTS)?;
    let tables = checked_table(
        rules,
        args.table.as_deref(),
        u64::from(args.agent == "optimal"),
    )?;
    let rng = served_rng(args.seed.seed);
    // Its stdout is the dialogue; a long search shows on stderr.
    let searching = SearchDisplay::default();
    let told = searching.tell("the optimal player's");
    let think = Some(args.think.think());
    let agent = kv::agent(&args.agent, &tables, rng, Some(told), think).expect("checked");
    // Without a table or a size, the referee's greeting says what is played.
    let sized = args.table.is_some() || args.variant.pits.is_some() || args.variant.seeds.is_some();
    let wire = if sized {
        KalahWire::new(rules)
    } else {
        KalahWire::sized_by_greeting(rules)
    };
    serve_stdio(Session::new(wire, agent))
}

/// Arguments of `tabula sweep kalah`.
#[derive(Args)]
pub struct SweepArgs {
    /// Pits a side: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "1..4")]
    pits: Span,
    /// Seeds a pit: a range `a..b` or one number.
    #[arg(long, value_parser = span, default_value = "1..6")]
    seeds: Span,
    #[command(flatten)]
    rules: RuleArgs,
    /// The search's transposition table has 2^BITS slots (16 bytes each).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(10..=30))]
    table_bits: u32,
    #[command(flatten)]
    plot: PlotArgs,
    #[command(flatten)]
    json: JsonArgs,
    #[command(flatten)]
    timings: TimingsArgs,
}

/// Arguments of `tabula verify kalah`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Pits a side: numbers and ranges `a..b`, comma-separated; one case per m and n.
    #[arg(long, value_parser = span, value_delimiter = ',', default_value = "2..3")]
    pits: Vec<Span>,
    /// Seeds a pit: numbers and ranges `a..b`, comma-separated.
    #[arg(long, value_parser = span, value_delimiter = ',', default_value = "1..4")]
    seeds: Vec<Span>,
    #[command(flatten)]
    rules: RuleArgs,
    /// The players, comma-separated: every pair plays, with both seatings.
    #[arg(long, value_delimiter = ',', default_value = "optimal,greedy,random")]
    players: Vec<String>,
    /// Refuse variants with more boards than this: each variant is solved in
    /// memory before play (Kalah(3, 7) has 12 million boards, Kalah(4, 4) 77 million).
    #[arg(long, default_value_t = 20_000_000)]
    max_boards: u64,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    out: crate::common::VerifyOutputArgs,
}

fn parse_board(rules: &Rules, text: &str) -> anyhow::Result<Kalah> {
    let [mover, opponent] = tabula_solver::kalah::parse_sides(text, rules)
        .with_context(|| format!("bad board '{text}'"))?;
    let position = Kalah::from_pits(*rules, &mover, &opponent);
    if position.seeds() > rules.total_seeds() {
        bail!(
            "bad board '{text}': {} seeds, the game has {}",
            position.seeds(),
            rules.total_seeds()
        );
    }
    Ok(position)
}

/// Builds the table of every board of Kalah(m, n).
pub fn build(args: BuildArgs) -> Outcome {
    let rules = args.rules.rules(args.pits, args.seeds)?;
    if let Some(max_seeds) = args.max_seeds {
        endgame::build(&rules, max_seeds, &args.output)?;
        return Ok(ExitCode::SUCCESS);
    }
    let spec = table::spec(&rules);
    let in_memory = || -> anyhow::Result<()> {
        let progress = bar(spec.entries as usize, "boards");
        table::build(&args.output, &rules, &|done| progress.set_position(done))?;
        progress.finish_and_clear();
        Ok(())
    };
    let game = KalahGame { rules };
    let what = format!(
        "{} boards of Kalah({}, {})",
        spec.entries, rules.pits, rules.seeds
    );
    args.mode
        .build_and_report(&game, &args.output, args.max_boards, &what, in_memory)?;
    Ok(ExitCode::SUCCESS)
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
    for text in found.line_shown.iter().flatten() {
        outln!("{text}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One game against the optimal player over stdin/stdout (the dialogue of
/// [`tabula_verify::kalah`]); bad answers get `error: ...` and are asked again.
pub fn play(args: PlayArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    let optimal = match checked_table(rules, args.table.as_deref(), 1)? {
        // The dialogue is on stdout; a long search shows on stderr.
        tables if tables.is_empty() => {
            let told = SearchDisplay::default().tell("tabula's");
            OptimalAgent::searching()
                .with_progress(Some(told))
                .thinking(Some(args.think.think()))
        }
        tables => OptimalAgent::from_tables(tables),
    };
    let peer = StreamPeer::for_person(io::stdin(), crate::out::data_stdout());
    let mut you =
        Remote::new("stdin/stdout", Box::new(peer), KalahWire::new(rules)).patient(kv::check);
    let mut tabula = Local(optimal);
    let mut players: Vec<&mut dyn Player<Match>> = vec![&mut you, &mut tabula];
    let mut clocks = vec![Clock::default(), Clock::default()];
    let seating = if args.second { vec![1, 0] } else { vec![0, 1] };
    let record = play_case(&rules, 1, &mut players, &mut clocks, |_| {
        // No chance in Kalah; the stream is only the loop's argument.
        let chance = stream(0, Purpose::Chance, 0, 0, 0);
        (Match::new(rules), chance, seating.clone())
    })
    .pop()
    .expect("one game");
    match record.fault {
        Some(fault) if fault.kind == FaultKind::ClosedPipe => bail!(
            "stdin: the input ended before the game did ({})",
            fault.reason
        ),
        // A line that is not text, or too long, is not asked again.
        Some(fault) => bail!("stdin: the game stopped before its end ({})", fault.reason),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The first player's optimal margin for every (m, n).
pub fn sweep(args: SweepArgs) -> Outcome {
    let mut sets = Vec::new();
    for m in args.pits.values() {
        for n in args.seeds.values() {
            sets.push(args.rules.rules(m, n)?);
        }
    }
    // The search's table: 2^bits slots of 16 bytes.
    crate::memory::check_memory(
        16u64 << args.table_bits,
        &format!("--table-bits {}", args.table_bits),
        "lower --table-bits",
    )?;
    let progress = bar(sets.len(), "variants solved");
    let report = kalah_sweep::sweep(&sets, args.table_bits, args.timings.timings, &|done| {
        progress.set_position(done as u64)
    });
    progress.finish_and_clear();
    // Spans are never empty, and every variant shares the capture and end rules.
    args.plot.write(|| report.plot(&sets[0]))?;
    emit_report(
        &report.to_markdown(),
        args.json.json.as_ref(),
        &run_info(None).stamp(&report),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The values of a list of spans, in order, each value once.
fn values_once(flag: &str, spans: &[Span]) -> anyhow::Result<Vec<u32>> {
    let values: Vec<u32> = spans.iter().flat_map(|s| s.values()).collect();
    crate::common::given_once(flag, &values)?;
    Ok(values)
}

/// Refuses, before any work, variants that cannot all be solved in memory
/// and kept while the games are played; returns their boards in all.
fn check_variants(sets: &[Rules], max_boards: u64) -> anyhow::Result<u64> {
    // Checked before any work: every variant is solved in memory and kept
    // while the games are played.
    let mut boards = 0;
    let (mut kept, mut peak) = (0u64, 0u64);
    for rules in sets {
        let spec = table::spec(rules);
        if spec.entries > max_boards {
            bail!(
                "Kalah({}, {}) has {} boards, more than --max-boards {}: each variant is \
                 solved in memory before play (raise --max-boards to try it)",
                rules.pits,
                rules.seeds,
                spec.entries,
                max_boards
            );
        }
        let record_size = spec.layout.record_size();
        boards += spec.entries;
        kept += spec.entries * record_size as u64;
        peak = peak.max(crate::table_build::in_memory_build_bytes(
            spec.entries,
            record_size,
        ));
    }
    crate::memory::check_memory(
        kept + peak,
        &format!("solving {boards} boards in memory"),
        "give fewer or smaller variants",
    )?;
    Ok(boards)
}

/// Every pair of the built-in players on each Kalah(m, n), both seatings.
pub fn verify(args: VerifyArgs) -> Outcome {
    crate::common::known_players("--players", &args.players, &kv::AGENTS)?;
    if args.players.len() < 2 {
        bail!("--players: give at least two players (each pair plays)");
    }
    let mut sets = Vec::new();
    for m in values_once("--pits", &args.pits)? {
        for n in values_once("--seeds", &args.seeds)? {
            sets.push(args.rules.rules(m, n)?);
        }
    }
    let boards = check_variants(&sets, args.max_boards)?;
    let log = Log::open(&args.out)?;
    let solving = bar(boards as usize, "boards solved");
    let mut before = 0;
    let variants: Vec<kv::Variant> = sets
        .iter()
        .map(|&rules| {
            let variant = kv::Variant::solved(rules, &|done| solving.set_position(before + done));
            before += table::spec(&rules).entries;
            variant
        })
        .collect();
    solving.finish_and_clear();
    let (games, seed) = (args.games.games, args.seed.seed);
    let total = tabula_verify::round_robin::total_games(args.players.len(), variants.len(), games);
    let playing = games_bar(total, variants.len() * games * 2)?;
    let board = kv::verify(
        &args.players,
        &variants,
        games,
        seed,
        &|done| playing.set_position(done as u64),
        log.games(),
    );
    playing.finish_and_clear();
    let report = kv::verify_report(&board, &variants, &args.players, games, seed);
    let report = Composed {
        markdown: report.markdown,
        json: report.json,
        plot: || kv::plot(&board, games, seed),
    };
    args.out.finish(&log, Some(seed), &report)
}

/// `tabula check` for a Kalah table: every record against its children.
pub fn check_records(
    table: Table,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<usize> {
    let rules = table_rules(&table)?;
    let table = KalahTable::new_for(KalahGame { rules }, table)?;
    let checked = table.check_records_with(progress)?;
    debug_assert!(checked as u64 <= tabula_solver::kalah::KalahSpace::new(rules).len());
    Ok(checked)
}

/// One line of `tabula export`: a board as `query kalah --batch` answers it,
/// without the list of every move.
#[derive(Serialize)]
pub(crate) struct ExportedBoard {
    /// The mover's pits, then the opponent's, each in sowing order.
    board: [Vec<u8>; 2],
    /// The mover's best final store difference from here.
    value: i32,
    /// The optimal pits, from 1.
    optimal: Vec<u8>,
}

/// Every board a table file holds (all but those with one side empty and
/// seeds on the other, under the default end rule), a line of JSON each.
pub fn export_records(
    table: Table,
    out: &mut dyn std::io::Write,
    progress: tabula_solver::retrograde::Progress<'_>,
) -> anyhow::Result<u64> {
    let rules = table_rules(&table)?;
    let table = KalahTable::new_for(KalahGame { rules }, table)?;
    write_entries(&table, out, progress, |entry| ExportedBoard {
        board: sides(&entry.position),
        value: entry.value,
        optimal: entry.optimal.iter().map(|p| p + 1).collect(),
    })
}

/// The rules a table's header names.
fn table_rules(table: &Table) -> anyhow::Result<Rules> {
    header_rules(table.header().params)
}

/// The rules a header's parameters name.
fn header_rules(params: [u32; 4]) -> anyhow::Result<Rules> {
    table::rules_of(params)
        .map_err(anyhow::Error::msg)
        .context("the header's parameters")
}

/// `tabula info` for a kalah table: its rules, checked against the header.
pub fn describe_table(table: &Table) -> anyhow::Result<String> {
    let rules = table_rules(table)?;
    table.expect(&table::spec(&rules))?;
    Ok(format!(
        "every board of Kalah({}, {}) with at most its seeds; capture {}, end {} \
         (the header's parameters: pits, seeds, capture 0 always / 1 non-empty, end 0 \
         after-any-move / 1 mover-stuck)",
        rules.pits,
        rules.seeds,
        rules.capture.name(),
        rules.ending.name()
    ))
}

/// The game's registration: its verbs.
pub fn entry() -> GameEntry {
    GameEntry::new("kalah", "Kalah(m, n), Irving, Donkers and Uiterwijk 2000")
        .draws(tabula_verify::kalah::draw::show)
        .analyzes(tabula_verify::kalah::analysis::analyst)
        .agents(&kv::AGENTS)
        .tables(TableHooks {
            describe: describe_table,
            check: check_records,
            export: export_records,
        })
        .verb(Verb::new(
            "build",
            "Every board of Kalah(m, n) with at most its seeds",
            build,
        ))
        .verb(Verb::new(
            "query",
            "Value and every move's value of a board (table or search)",
            query,
        ))
        .verb(Verb::new(
            "play",
            "Play against the optimal player over a line dialogue on stdin/stdout",
            play,
        ))
        .verb(
            Verb::new(
                "verify",
                "Every pair of built-in players on Kalah(m, n) variants, both seatings",
                verify,
            )
            .default("games", "10"),
        )
        .verb(Verb::new(
            "referee",
            "Referee a player (--player CMD or --agent NAME) over the play dialogue: one game \
             first, one second, against --opponent (optimal by default); --timeout is the \
             player's time for each game",
            referee,
        ))
        .verb(Verb::new(
            "serve",
            "A built-in player (--agent NAME) on the play dialogue over stdin/stdout",
            serve,
        ))
        .verb(Verb::new(
            "sweep",
            "The first player's optimal margin for each Kalah(m, n)",
            sweep,
        ))
        .verb(Verb::new(
            "perft",
            "From the start of Kalah(m, n) (a move that ends in the store and goes on is a ply of its own)",
            perft,
        ))
}

/// Arguments of `tabula perft kalah`.
#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts Kalah's move sequences from the start of the variant.
pub fn perft(args: PerftArgs) -> Outcome {
    let rules = args.variant.rules_for(None)?;
    crate::perft::perft(Match::new(rules), &args.perft)
}
