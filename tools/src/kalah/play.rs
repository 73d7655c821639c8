//! `tabula play kalah` and `tabula serve kalah`: the optimal player over the
//! line dialogue, and a built-in player served on stdin/stdout; and perft.

use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::bail;
use clap::Args;
use tabula_solver::kalah::{Match, Rules};
use tabula_tables::kalah::{KalahGame, KalahTable};
use tabula_verify::arena::play_case;
use tabula_verify::kalah::{self as kv, KalahWire, OptimalAgent};
use tabula_verify::process::StreamPeer;
use tabula_verify::seat::{Clock, FaultKind, Local, Player, Remote};
use tabula_verify::tournament::{Purpose, stream};
use tabula_verify::wire::Session;

use super::VariantArgs;
use crate::common::{SeedArgs, check_agent, serve_stdio, served_rng};
use crate::registry::Outcome;

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
    #[command(flatten)]
    endgame: super::endgame::EndgameArgs,
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
    // With --endgame and no size (the greeting names it), the table is
    // probed in the games of its own pits and rules only.
    #[command(flatten)]
    endgame: super::endgame::EndgameArgs,
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
/// of the `searchers` optimal players at a time searches (for `think` a
/// move, if given, else to the end), and their search tables must fit.
pub(super) fn checked_table(
    rules: Rules,
    path: Option<&Path>,
    searchers: u64,
    think: Option<std::time::Duration>,
) -> anyhow::Result<Vec<Arc<KalahTable>>> {
    let Some(path) = path else {
        if searchers > 0 {
            let bits = match think {
                Some(think) => kv::timed_search_bits(&rules, think),
                None => kv::search_bits(&rules),
            };
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
pub(super) struct SearchDisplay(Arc<std::sync::Mutex<Option<indicatif::ProgressBar>>>);

impl SearchDisplay {
    /// What an optimal player, `who` (`the opponent's`), tells of its search.
    pub(super) fn tell(&self, who: &'static str) -> kv::SearchProgress {
        let shown = self.clone();
        Arc::new(move |tick| {
            let mut bar = shown.0.lock().unwrap_or_else(|e| e.into_inner());
            match tick {
                // A timed search's last word: what it proved, or the best so far.
                Some(tick) if tick.done => {
                    if let Some(bar) = bar.take() {
                        bar.finish_and_clear();
                    }
                    eprintln!("{who} {} for this move", tick.describe());
                }
                Some(tick) => {
                    let bar = bar.get_or_insert_with(|| crate::progress::spinner("searching"));
                    bar.set_message(format!("{who} {} for this move", tick.describe()));
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

/// A built-in player on the dialogue of `play kalah`, over stdin/stdout.
pub fn serve(args: ServeArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    check_agent("--agent", &args.agent, &kv::AGENTS)?;
    let tables = checked_table(
        rules,
        args.table.as_deref(),
        u64::from(args.agent == "optimal"),
        Some(args.think.think()),
    )?;
    let rng = served_rng(args.seed.seed);
    // Its stdout is the dialogue; a long search shows on stderr.
    let searching = SearchDisplay::default();
    let told = searching.tell("the optimal player's");
    let think = Some(args.think.think());
    // Without a table or a size, the referee's greeting says what is played.
    let sized = args.table.is_some() || args.variant.pits.is_some() || args.variant.seeds.is_some();
    let endgame = match sized {
        true => args.endgame.open(&rules)?,
        // The agent probes it only in games of its pits and rules.
        false => args.endgame.open_for(&[])?,
    };
    let agent = kv::agent(&args.agent, &tables, rng, Some(told), think, endgame).expect("checked");
    let wire = if sized {
        KalahWire::new(rules)
    } else {
        KalahWire::sized_by_greeting(rules)
    };
    serve_stdio(Session::new(wire, agent))
}

/// One game against the optimal player over stdin/stdout (the dialogue of
/// [`tabula_verify::kalah`]); bad answers get `error: ...` and are asked again.
pub fn play(args: PlayArgs) -> Outcome {
    let rules = args.variant.rules_for(args.table.as_deref())?;
    let optimal = match checked_table(rules, args.table.as_deref(), 1, Some(args.think.think()))? {
        // The dialogue is on stdout; a long search shows on stderr.
        tables if tables.is_empty() => {
            let told = SearchDisplay::default().tell("tabula's");
            OptimalAgent::searching()
                .with_progress(Some(told))
                .thinking(Some(args.think.think()))
                .with_endgame(args.endgame.open(&rules)?)
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
