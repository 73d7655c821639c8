//! `tabula referee dominoes` (the tester), `tabula serve dominoes` (the
//! player side of the init/reset/play protocol), `play dominoes` at the
//! terminal, and the tester's deals as data (`deals`) and perft.

use std::io;

use anyhow::{anyhow, bail};
use clap::Args;
use serde::Serialize;
use tabula_solver::dominoes::Match;
use tabula_verify::agent::Agent;
use tabula_verify::arena::GameRecord;
use tabula_verify::dominoes::referee::{
    CaseSetup, case_key, deal, game_line, opponent_rng, parse_cases, referee_case, stock_order,
};
use tabula_verify::dominoes::report::case_name;
use tabula_verify::dominoes::terminal::play_deal;
use tabula_verify::dominoes::{AGENTS, DominoesWire, agent, sees_open_hand};
use tabula_verify::record::At;
use tabula_verify::seat::{EXIT_GRACE, Limits, Local, Player};
use tabula_verify::tournament::{Purpose, stream_name};
use tabula_verify::wire::Session;

use crate::common::{
    GamesArgs, JsonArgs, Log, OutputPath, RefereeRunArgs, SeatArgs, SeedArgs, check_agent,
    emit_report, finish_play, finish_referee, known_agent, run_info, say, serve_stdio, served_rng,
    tested_player,
};
use crate::out::outln;
use crate::progress::bar;
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
    /// The built-in player.
    #[arg(long, value_name = "NAME")]
    agent: String,
    #[command(flatten)]
    seed: SeedArgs,
}

/// The tested built-in player, on the same random stream as `serve`'s, so that
/// `--agent NAME` and `--player "tabula serve dominoes --agent NAME"` play alike.
fn tested_agent(name: &str, seed: u64) -> Option<Box<dyn Agent<Match>>> {
    agent(name, served_rng(seed))
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
    let log = Log::open(&args.run.log)?;
    // One player for the run; after a fault its program is started afresh.
    let mut tested: Box<dyn Player<Match>> = tested_player(
        &args.seat,
        DominoesWire::default(),
        |name| tested_agent(name, seed),
        AGENTS,
        &log,
    )?;
    let tested_open =
        args.seat.player.is_none() && args.seat.agent.as_deref().is_some_and(sees_open_hand);
    let setup = CaseSetup {
        seed,
        games,
        paired: args.paired,
        open_hand: [tested_open, sees_open_hand(&args.opponent)],
    };
    let json = args.run.json.json.as_ref();
    if tested_open {
        let name = tested.name();
        let note =
            format!("note: {name} sees the other hand: a reference ceiling, not a contest score");
        say(&log, json, &note)?;
    }
    if setup.open_hand[1] {
        let name = &args.opponent;
        let note = format!(
            "note: the opponent {name} sees the tested player's hand: an opponent the contest never had"
        );
        say(&log, json, &note)?;
    }
    let limits = Limits {
        per_case: Some(args.run.timeout.timeout),
        ..Limits::default()
    };
    let mut results = Vec::with_capacity(cases.len());
    // A case of 100 games takes seconds: the bar counts games within it.
    let progress = bar(cases.len() * games, "games");
    for (i, &rules) in cases.iter().enumerate() {
        log.transcript_line(&format!(
            "# case {} {} seed {seed} opponent {}",
            rules.numbers, rules.hand, args.opponent
        ));
        let rng = opponent_rng(seed, rules);
        let mut opponent = Local(agent(&args.opponent, rng).expect("a known agent"));
        let label = case_name(rules);
        let mut log_game = |game: usize, record: &GameRecord<Match>| {
            let draws = stream_name(
                Purpose::Chance,
                case_key(rules),
                setup.deal_index(game) as u64,
                0,
            );
            let at = At::new(seed, i, label.clone(), game).with_stream(draws);
            log.game(record, &rules, &at);
            log.transcript_line(&game_line(game, &setup, record));
            progress.inc(1);
        };
        let (result, _) = referee_case(
            rules,
            &setup,
            tested.as_mut(),
            &mut opponent,
            limits,
            &mut log_game,
        );
        progress.set_position(((i + 1) * games) as u64);
        progress.suspend(|| say(&log, json, &result.line()))?;
        results.push(result);
    }
    progress.finish_and_clear();
    tested.finish(EXIT_GRACE);
    drop(tested);
    finish_referee(
        &log,
        results,
        |r| r.total_line(),
        json,
        seed,
        &args.run.strict,
    )
}

/// Answers the init/reset/play protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServeArgs) -> Outcome {
    args.table.install()?;
    if sees_open_hand(&args.agent) {
        bail!(
            "--agent {}: it needs the other hand, which the protocol does not show",
            args.agent
        );
    }
    let seed = args.seed.seed;
    let agent = known_agent(&args.agent, |name| tested_agent(name, seed), AGENTS)?;
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
