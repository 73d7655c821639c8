//! `tabula referee reversi` (the tester), `tabula serve reversi` (the
//! player side of the getNextMove protocol) and `play reversi` at the terminal.

use std::io;

use anyhow::anyhow;
use clap::Args;
use tabula_verify::referee::Case;
use tabula_verify::reversi::referee::{opponents, parse_sizes};
use tabula_verify::reversi::report::evolve_cases;
use tabula_verify::reversi::terminal::play_referee_case;
use tabula_verify::reversi::{
    AGENTS, REFERENCE_AGENTS, ReversiContest, ReversiWire, agent, case_agent,
};
use tabula_verify::seat::Limits;
use tabula_verify::wire::Session;

use crate::common::{
    RefereeRunArgs, SeatArgs, SeedArgs, ServedAgentArgs, finish_play, referee_contest, serve_stdio,
    served_rng,
};
use crate::progress::{bar, tracked};
use crate::registry::Outcome;

/// Arguments of `tabula referee reversi`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    seat: SeatArgs,
    #[command(flatten)]
    suite: super::SuiteArgs,
    #[command(flatten)]
    run: RefereeRunArgs,
}

/// Arguments of `tabula play reversi`.
#[derive(Args)]
pub struct PlayArgs {
    /// The board side, 7 to 12.
    #[arg(long, value_parser = super::evolve::side, default_value = "7")]
    size: usize,
    /// The referee's case of that side to play (its evolved opponents), from 0.
    #[arg(long, default_value_t = 0)]
    case: usize,
    #[command(flatten)]
    ga: super::GaArgs,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Lets a person play player 1 of one of the referee's cases in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    let rule = args.ga.rule.rule();
    let settings = args.ga.settings(args.size);
    let (weights, _) = super::with_generations_bar(|progress| {
        opponents(args.seed.seed, &settings, args.case, progress)
    });
    let end = play_referee_case(
        io::stdin().lock(),
        crate::out::data_stdout(),
        args.size,
        &weights,
        rule,
    );
    finish_play(end)
}

/// Every name `--agent` takes in the referee.
fn referee_agents() -> Vec<&'static str> {
    AGENTS.iter().chain(REFERENCE_AGENTS).copied().collect()
}

/// Referees one game per case between the tested player and evolved opponents.
pub fn referee(args: RefereeArgs) -> Outcome {
    // Every option is checked before a player starts.
    let sizes = parse_sizes(&args.suite.sizes).map_err(|e| anyhow!("--sizes: {e}"))?;
    args.seat.check(&referee_agents())?;
    let seed = args.run.seed.seed;
    let suite = args.suite.suite(sizes, seed);
    let cases = suite.case_list();
    // The opponents first, in parallel: only the tested player's answers are timed.
    let progress = bar(cases.len(), "evolving opponents");
    let opponents = tracked(progress, |done| evolve_cases(&suite, done));
    let contest = ReversiContest {
        cases,
        opponents,
        rule: args.suite.ga.rule.rule(),
        seed,
        tested_agent: args.seat.agent.clone(),
        limits: Limits {
            per_case: Some(args.run.timeout.timeout),
            ..Limits::default()
        },
    };
    // The tested built-in player of a case, on `serve`'s random stream (each
    // case is a fresh process there), and the reference players (`oracle`)
    // that read the case's opponents.
    let agent = |name: &str, case: Option<&Case<usize>>| {
        let opponents = case.map(|case| contest.case_opponents(case));
        let predictions = std::sync::Arc::default();
        case_agent(
            name,
            served_rng(seed),
            &opponents.unwrap_or_default(),
            &predictions,
        )
    };
    referee_contest(
        &contest,
        &args.seat,
        ReversiWire::default,
        agent,
        &referee_agents(),
        &args.run,
    )
}

/// Answers the getNextMove protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServedAgentArgs) -> Outcome {
    let agent = args.built_in(agent, AGENTS)?;
    serve_stdio(Session::new(ReversiWire::default(), agent))
}
