//! The toy game's registration: `serve`, `referee` and `verify` from the
//! shared core alone (hidden from listings; the tests use it).

use clap::Args;
use tabula_solver::nim::Nim;
use tabula_verify::nim::{self, AGENTS, NimContest, NimWire};
use tabula_verify::scoreboard::{Column, ScoreboardJson, wins_and_half_draws};
use tabula_verify::seat::Limits;
use tabula_verify::wire::Session;

use crate::common::{
    GamesArgs, Log, RefereeRunArgs, SeatArgs, SeedArgs, check_agent, known_agent, referee_contest,
    serve_stdio, served_rng,
};
use crate::memory::games_bar;
use crate::progress::tracked;
use crate::registry::Outcome;
use crate::registry::{GameEntry, Verb};
use tabula_verify::report::Composed;

/// The game's registration.
pub fn entry() -> GameEntry {
    GameEntry::new("nim", "Nim, the toy game of the core's tests")
        .draws(tabula_verify::nim::draw::show)
        .analyzes(tabula_verify::nim::analysis::analyst)
        .agents(&tabula_verify::nim::AGENTS)
        .verb(Verb::new(
            "serve",
            "A built-in player on the line protocol",
            serve,
        ))
        .verb(Verb::new("referee", "Games against a player", referee).default("games", "2"))
        .verb(Verb::new("verify", "Every pair of built-in players", verify).default("games", "10"))
        .verb(Verb::new(
            "perft",
            "From a heap (--heap), a ply a take",
            perft,
        ))
        .hidden()
}

/// Arguments of `tabula perft nim`.
#[derive(Args)]
pub struct PerftArgs {
    /// The heap at the start.
    #[arg(long, default_value_t = 5)]
    heap: u32,
    #[command(flatten)]
    perft: crate::perft::PerftOptions,
}

fn perft(args: PerftArgs) -> Outcome {
    crate::perft::perft(Nim::new(args.heap), &args.perft)
}

/// Arguments of `tabula serve nim`.
#[derive(Args)]
pub struct ServeArgs {
    /// The built-in player.
    #[arg(long)]
    agent: String,
    #[command(flatten)]
    seed: SeedArgs,
}

fn serve(args: ServeArgs) -> Outcome {
    let rng = served_rng(args.seed.seed);
    let agent = known_agent(&args.agent, |n| nim::agent(n, rng), &AGENTS)?;
    serve_stdio(Session::new(NimWire, agent))
}

/// Arguments of `tabula referee nim`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    seat: SeatArgs,
    /// The opponent.
    #[arg(long, default_value = "optimal")]
    opponent: String,
    /// Heap sizes, one case each.
    #[arg(long, value_delimiter = ',', default_value = "5,8")]
    heaps: Vec<u32>,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: RefereeRunArgs,
}

fn referee(args: RefereeArgs) -> Outcome {
    // Checked before the log opens and a player starts.
    check_agent("--opponent", &args.opponent, &AGENTS)?;
    let seed = args.run.seed.seed;
    let contest = NimContest {
        heaps: args.heaps,
        games: args.games.games,
        opponent: args.opponent,
        seed,
        limits: Limits {
            per_answer: Some(args.run.timeout.timeout),
            ..Limits::default()
        },
    };
    referee_contest(
        &contest,
        &args.seat,
        || NimWire,
        |n, _| nim::agent(n, served_rng(seed)),
        &AGENTS,
        &args.run,
    )
}

/// Arguments of `tabula verify nim`.
#[derive(Args)]
pub struct VerifyArgs {
    /// Heap sizes, one case each.
    #[arg(long, value_delimiter = ',', default_value = "5,8,9")]
    heaps: Vec<u32>,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: crate::common::VerifyRunArgs,
}

fn verify(args: VerifyArgs) -> Outcome {
    crate::common::given_once("--heaps", &args.heaps)?;
    let log = Log::open(&args.run)?;
    let agents: Vec<String> = AGENTS.iter().map(|s| s.to_string()).collect();
    let (heaps, games) = (args.heaps.len(), args.games.games);
    let total = tabula_verify::round_robin::total_games(agents.len(), heaps, games);
    let progress = games_bar(total, heaps * games * 2)?;
    let board = tracked(progress, |done| {
        nim::verify(
            &agents,
            &args.heaps,
            args.games.games,
            args.run.seed(),
            done,
            log.games(),
        )
    });
    let columns = [
        Column::Games,
        Column::Wdl,
        Column::WinRate,
        Column::CaseScore,
    ];
    let markdown = format!(
        "Nim, {} games per heap and seating, seed {}.\n\n{}",
        args.games.games,
        args.run.seed(),
        board.to_markdown(&columns, &wins_and_half_draws)
    );
    let report = Composed {
        markdown,
        json: ScoreboardJson {
            seed: args.run.seed(),
            extra: nim::report::VerifySettings {
                games: args.games.games,
                heaps: args.heaps.clone(),
            },
            lines: board.lines(&wins_and_half_draws),
        },
        plot: || nim::plot(&board, args.games.games, args.run.seed()),
    };
    args.run.finish(&log, &report)
}
