//! `tabula referee dominoes` (the tester), `tabula serve dominoes` (the
//! player side of the init/reset/play protocol), `play dominoes` at the
//! terminal, and the tester's deals as data (`deals`) and perft.

use std::io;

use anyhow::{anyhow, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::dominoes::Match;
use tabula_verify::dominoes::referee::{deal, opponent_rng, parse_cases, stock_order};
use tabula_verify::dominoes::terminal::play_deal;
use tabula_verify::dominoes::{AGENTS, DominoesContest, DominoesWire, agent, sees_open_hand};
use tabula_verify::seat::Limits;
use tabula_verify::wire::Session;

use crate::common::{
    GamesArgs, JsonArgs, OutputPath, RefereeRunArgs, SeatArgs, SeedArgs, ServedAgentArgs,
    check_agent, emit_report, finish_play, known_agent, referee_contest, run_info, serve_stdio,
    served_rng,
};
use crate::out::outln;
use crate::registry::Outcome;

/// Arguments of `tabula referee dominoes`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    table: super::TableArgs,
    #[command(flatten)]
    seat: SeatArgs,
    /// The opponent, a built-in player.
    #[arg(long, value_name = "NAME", default_value = "server")]
    opponent: String,
    /// The cases: N:H pairs separated by commas (5:4,9:7), or `all` for the contest's 20.
    #[arg(long, default_value = "all")]
    cases: String,
    #[command(flatten)]
    games: GamesArgs,
    /// Play each deal twice, the players exchanging hands (--games must be even).
    #[arg(long)]
    paired: bool,
    #[command(flatten)]
    run: RefereeRunArgs,
}

/// Arguments of `tabula play dominoes`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    table: super::TableArgs,
    /// The opponent, a built-in player (`--agent` is the older name).
    #[arg(
        long = "opponent",
        visible_alias = "agent",
        value_name = "NAME",
        default_value = "server"
    )]
    agent: String,
    /// The case N:H.
    #[arg(long, default_value = "7:5")]
    case: String,
    /// The referee's deal of that case to play, from 0 (its hands and stock order).
    #[arg(long, default_value_t = 0)]
    deal: usize,
    /// Your seat, 1 or 2 (the deal decides who opens; seat 0 or 1 in logs, transcripts and `deals`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    seat: u8,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Arguments of `tabula perft dominoes`.
#[derive(Args)]
pub struct PerftArgs {
    /// The case N:H.
    #[arg(long, default_value = "5:4")]
    case: String,
    /// The referee's deal of that case to count from, from 0 (as `dominoes deals` lists them).
    #[arg(long, default_value_t = 0)]
    deal: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

/// Counts Dominoes' move sequences from one of the referee's deals, each
/// draw branching on every stock tile.
pub fn perft(args: PerftArgs) -> Outcome {
    let cases = parse_cases(&args.case).map_err(|e| anyhow!("--case: {e}"))?;
    let [rules] = cases[..] else {
        bail!("--case: give one case N:H, not {}", cases.len());
    };
    let start = Match::new(&deal(args.seed.seed, rules, args.deal));
    crate::perft::perft(start, &args.perft)
}

/// Lets a person play one of the referee's deals in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    args.table.install()?;
    let cases = parse_cases(&args.case).map_err(|e| anyhow!("--case: {e}"))?;
    let [rules] = cases[..] else {
        bail!("--case: give one case N:H, not {}", cases.len());
    };
    let seed = args.seed.seed;
    let rng = opponent_rng(seed, rules);
    check_agent("--opponent", &args.agent, AGENTS)?;
    let opponent = known_agent(&args.agent, |name| agent(name, rng), AGENTS)?;
    let person = usize::from(args.seat) - 1;
    let end = play_deal(
        io::stdin().lock(),
        crate::out::data_stdout(),
        rules,
        args.deal,
        seed,
        person,
        opponent,
    );
    finish_play(end)
}

/// Arguments of `tabula serve dominoes`.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    table: super::TableArgs,
    #[command(flatten)]
    served: ServedAgentArgs,
}

/// Referees the cases between the tested player and a built-in opponent.
pub fn referee(args: RefereeArgs) -> Outcome {
    args.table.install()?;
    // Every option is checked before a player starts.
    let cases = parse_cases(&args.cases).map_err(|e| anyhow!("--cases: {e}"))?;
    let games = args.games.games;
    if args.paired && !games.is_multiple_of(2) {
        bail!("--games {games}: with --paired each deal is played twice, so give an even number");
    }
    check_agent("--opponent", &args.opponent, AGENTS)?;
    let seed = args.run.seed.seed;
    let limits = Limits {
        per_case: Some(args.run.timeout.timeout),
        ..Limits::default()
    };
    let tested_name = match &args.seat.player {
        Some(_) => None,
        None => args.seat.agent.clone(),
    };
    let contest = DominoesContest::new(
        cases,
        seed,
        (games, args.paired),
        args.opponent,
        tested_name,
        limits,
    );
    referee_contest(
        &contest,
        &args.seat,
        DominoesWire::default,
        // The tested built-in player as `serve --seed` draws it, so that both play alike.
        |name, _| agent(name, served_rng(seed)),
        AGENTS,
        &args.run,
    )
}

/// Answers the init/reset/play protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServeArgs) -> Outcome {
    args.table.install()?;
    if sees_open_hand(&args.served.agent) {
        bail!(
            "--agent {}: it needs the other hand, which the protocol does not show",
            args.served.agent
        );
    }
    let agent = args.served.built_in(agent, AGENTS)?;
    serve_stdio(Session::new(DominoesWire::default(), agent))
}

/// Arguments of `tabula dominoes deals`.
#[derive(Args)]
pub struct DealsArgs {
    /// The cases: N:H pairs separated by commas (5:4,9:7), or `all` for the contest's 20.
    #[arg(long, default_value = "all")]
    cases: String,
    /// Deals per case, from deal 0 (at most 10,000: the JSON is held whole).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=10_000))]
    deals: u16,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// One deal as test data: both hands, the opening, the stock in draw order.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct DealData {
    /// The deal's number in its case, from 0.
    deal: usize,
    /// Seat 0's hand, then seat 1's, in the order dealt (the opening tile included).
    hands: [Vec<String>; 2],
    /// The seat whose tile opens (0 or 1, as the logs count), and that tile.
    opener: usize,
    /// The opening tile.
    opening: String,
    /// The stock in the order the referee's draws take it.
    stock: Vec<String>,
}

/// The deals of a run, as `--json` writes them after `run` (whose `seed`
/// they are drawn from) and `game`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct DealsReport {
    /// Each case's deals.
    cases: Vec<CaseDeals>,
}

/// A case's deals.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CaseDeals {
    /// The highest pip.
    n: u8,
    /// The tiles of a hand.
    h: u8,
    /// Its deals, in the referee's order.
    deals: Vec<DealData>,
}

/// Prints the referee's deals of each case (the tester's test data): a line
/// each as it is made, and the JSON, held until the end, when asked for.
pub fn deals(args: DealsArgs) -> Outcome {
    let cases = parse_cases(&args.cases).map_err(|e| anyhow!("--cases: {e}"))?;
    let seed = args.seed.seed;
    let json = args.json.json.as_ref();
    let words = |tiles: &[String]| tiles.join(" ");
    let mut data = Vec::new();
    for rules in cases {
        let mut case = CaseDeals {
            n: rules.numbers,
            h: rules.hand,
            deals: Vec::new(),
        };
        for index in 0..usize::from(args.deals) {
            let dealt = deal(seed, rules, index);
            let (opener, tile) = dealt.opening();
            let hands = dealt
                .hands
                .each_ref()
                .map(|h| h.iter().map(ToString::to_string).collect());
            let stock = stock_order(seed, rules, index)
                .iter()
                .map(ToString::to_string)
                .collect();
            let deal = DealData {
                deal: index,
                hands,
                opener,
                opening: tile.to_string(),
                stock,
            };
            if json != Some(&OutputPath::Stdout) {
                outln!(
                    "case {} {} deal {index}: seat 0 {} | seat 1 {} | opens seat {} with {} | stock {}",
                    rules.numbers,
                    rules.hand,
                    words(&deal.hands[0]),
                    words(&deal.hands[1]),
                    deal.opener,
                    deal.opening,
                    words(&deal.stock)
                )?;
            }
            if json.is_some() {
                case.deals.push(deal);
            }
        }
        data.push(case);
    }
    // The lines are out: what is left is the JSON, if any.
    let report = DealsReport { cases: data };
    emit_report("", json, &run_info(Some(seed)).stamp(&report))?;
    Ok(std::process::ExitCode::SUCCESS)
}
