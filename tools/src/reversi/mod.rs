//! MultiplayerReversi (TopCoder Marathon Match 31): its verbs and extras.

pub mod evolve;
mod query;
mod referee;
mod verify;

use clap::Args;
use tabula_solver::reversi::Rule;
use tabula_solver::reversi::opponents::{Ties, ZeroDenominator};
use tabula_verify::reversi::evolve::Settings as GaSettings;
use tabula_verify::reversi::report::Suite;

use crate::common::positive;
use crate::registry::{GameEntry, Verb};

/// The computer opponents' corner cases (`--zero`, `--ties`).
#[derive(Args)]
pub struct RuleArgs {
    /// A zero denominator in the opponents' ratio: `ieee` (x/0 is ±infinity,
    /// 0/0 is NaN, which never beats a number) or `numerator` (the move is
    /// rated by its numerator alone).
    #[arg(long, value_name = "RULE", value_parser = zero, default_value = "ieee")]
    zero: ZeroDenominator,
    /// Which of equally rated moves an opponent plays: `first` or `last` in row-major order.
    #[arg(long, value_name = "RULE", value_parser = ties, default_value = "first")]
    ties: Ties,
}

impl RuleArgs {
    /// The rule these options choose.
    pub fn rule(&self) -> Rule {
        Rule {
            zero: self.zero,
            ties: self.ties,
        }
    }
}

/// Each case's genetic algorithm (`--generations`, `--ga-games`) and the
/// opponents' rule, shared by `referee`, `verify` and `play`.
#[derive(Args)]
pub struct GaArgs {
    /// Generations of each case's genetic algorithm (default: drawn from 50 to 100 per case).
    #[arg(long, value_parser = positive)]
    pub generations: Option<usize>,
    /// Games per generation of each case's genetic algorithm.
    #[arg(long, value_parser = positive, default_value = "100")]
    pub ga_games: usize,
    #[command(flatten)]
    pub rule: RuleArgs,
}

impl GaArgs {
    /// The genetic algorithm's settings for side `n`.
    pub fn settings(&self, n: usize) -> GaSettings {
        GaSettings {
            generations: self.generations,
            games: self.ga_games,
            rule: self.rule.rule(),
            ..GaSettings::new(n)
        }
    }
}

/// The tester's cases (`--sizes`, `--cases`, the genetic algorithm's
/// settings and the opponents' rule), shared by `referee` and `verify`.
#[derive(Args)]
pub struct SuiteArgs {
    /// Board sides, separated by commas.
    #[arg(long, default_value = "7,8,9,10,11,12")]
    pub sizes: String,
    /// Cases per size (the full suite has 5).
    #[arg(long, value_parser = positive, default_value = "5")]
    pub cases: usize,
    #[command(flatten)]
    pub ga: GaArgs,
}

impl SuiteArgs {
    /// The cases these options give on `sizes` (parsed from `--sizes`) for `seed`.
    pub fn suite(&self, sizes: Vec<usize>, seed: u64) -> Suite {
        Suite {
            sizes,
            cases: self.cases,
            seed,
            generations: self.ga.generations,
            ga_games: self.ga.ga_games,
            rule: self.ga.rule.rule(),
        }
    }
}

/// Runs an evolution behind a progress bar of its generations: `run` gets
/// the callback that moves the bar.
pub fn with_generations_bar<T>(run: impl FnOnce(&dyn Fn(usize, usize)) -> T) -> T {
    let progress = crate::progress::bar(0, "generations");
    let result = run(&|done, total| {
        progress.set_length(total as u64);
        progress.set_position(done as u64);
    });
    progress.finish_and_clear();
    result
}

fn zero(text: &str) -> Result<ZeroDenominator, String> {
    match text {
        "ieee" => Ok(ZeroDenominator::Ieee),
        "numerator" => Ok(ZeroDenominator::Numerator),
        _ => Err(format!("'{text}' is not ieee or numerator")),
    }
}

fn ties(text: &str) -> Result<Ties, String> {
    match text {
        "first" => Ok(Ties::First),
        "last" => Ok(Ties::Last),
        _ => Err(format!("'{text}' is not first or last")),
    }
}

/// Arguments of `tabula perft reversi`.
#[derive(Args)]
pub struct PerftArgs {
    /// The board side, 7 to 12 (3 players on odd sides, 4 on even ones).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(7..=12))]
    size: u8,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts MultiplayerReversi's move sequences from the start of a side.
fn perft(args: PerftArgs) -> crate::registry::Outcome {
    let start = tabula_solver::reversi::Board::start(args.size.into())?;
    crate::perft::perft(start, &args.perft)
}

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new(
        "reversi",
        "MultiplayerReversi (TopCoder MM 31): 3-4 players, 7x7 to 12x12, evolved computer opponents",
    )
        .draws(tabula_verify::reversi::draw::show)
        .analyzes(tabula_verify::reversi::analysis::analyst)
    .alias("multiplayerreversi")
    .agents(tabula_verify::reversi::AGENTS)
    .agents(tabula_verify::reversi::REFERENCE_AGENTS)
    .verb(Verb::new("play", "Play player 1 of one of the referee's cases against its evolved opponents in the terminal", referee::play))
    .verb(Verb::new("serve", "A built-in player on the getNextMove line protocol (one game per process)", referee::serve))
    .verb(Verb::new("referee", "The tester: one game per case against opponents evolved afresh by the statement's genetic algorithm, scored owned x P / (N x N); --timeout for the player's whole case (only the time waiting for its answers counts), a fresh player process per case", referee::referee).default("timeout", "30"))
    .verb(Verb::new("verify", "Every player on the same cases (opponents evolved once per case), mean case score +- 95% per size, totals, the share of the oracle's margin over greedy, prediction rates", verify::verify))
    .verb(Verb::new("query", "A board's legal moves and what player 1's built-in players play there; with --case, what that referee case's opponents make of it", query::query))
    .verb(Verb::new("perft", "From the start of a side (--size); a skipped player makes no ply", perft))
    .extra(Verb::new("evolve", "Evolve the population of one of the referee's cases (--case, 0 by default) of that size and seed, and name the opponents it draws; --ga-games games per generation", evolve::run_evolve))
}
