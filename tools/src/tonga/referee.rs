//! `tabula referee tonga` (the server against a player), `serve tonga` and
//! `play tonga` at the terminal.

use std::io::{self};
use std::time::Duration;

use clap::Args;
use tabula_verify::seat::Limits;
use tabula_verify::tonga::terminal::play_referee_game;
use tabula_verify::tonga::{AGENTS, TongaContest, TongaWire, agent, agent_rng, timed_agent};
use tabula_verify::wire::Session;

use crate::common::{
    GamesArgs, RefereeRunArgs, SeatArgs, SeedArgs, check_agent, finish_play, known_agent,
    referee_contest, seconds, serve_stdio, served_rng,
};
use crate::registry::Outcome;

use super::{SizesArgs, check_sizes};

/// Arguments of `tabula referee tonga`.
#[derive(Args)]
pub struct RefereeArgs {
    #[command(flatten)]
    seat: SeatArgs,
    #[command(flatten)]
    sizes: SizesArgs,
    #[command(flatten)]
    games: GamesArgs,
    #[command(flatten)]
    run: RefereeRunArgs,
}

/// Referees games against an external player or a built-in one.
pub fn referee(args: RefereeArgs) -> Outcome {
    check_sizes("--sizes", &args.sizes.sizes)?;
    args.seat.check(&AGENTS)?;
    let seed = args.run.seed.seed;
    let timeout = args.run.timeout.timeout;
    let contest = TongaContest {
        sizes: args.sizes.sizes,
        games: args.games.games,
        seed,
        limits: Limits {
            per_game: Some(timeout),
            ..Limits::default()
        },
    };
    referee_contest(
        &contest,
        &args.seat,
        TongaWire::default,
        // A built-in player is told its time for the game, and drawn
        // afresh as `serve --seed` draws it, so that both play alike.
        |name, _| timed_agent(name, served_rng(seed), Some(timeout)),
        &AGENTS,
        &args.run,
    )
}

/// Arguments of `tabula serve tonga`.
#[derive(Args)]
pub struct ServeArgs {
    /// The built-in player: random, greedy, server or best.
    #[arg(long)]
    agent: String,
    /// The player's time for its whole game, which it cannot learn over the
    /// protocol (`best` spreads it over its moves).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "20", allow_negative_numbers = true)]
    budget: Duration,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Answers the line protocol on stdin/stdout with a built-in player.
pub fn serve(args: ServeArgs) -> Outcome {
    let rng = served_rng(args.seed.seed);
    let budget = Some(args.budget);
    let agent = known_agent(&args.agent, |name| timed_agent(name, rng, budget), &AGENTS)?;
    serve_stdio(Session::new(TongaWire::default(), agent))
}

/// Arguments of `tabula play tonga`.
#[derive(Args)]
pub struct PlayArgs {
    /// The board side (even, 4 to 16).
    #[arg(long, default_value_t = 6)]
    size: usize,
    /// The referee's game of that side to play (who starts, the server's tie-breaks), from 0.
    #[arg(long, default_value_t = 0)]
    game: usize,
    /// Another built-in opponent instead of the server: random, greedy or best
    /// (`--agent` is the older name).
    #[arg(long = "opponent", visible_alias = "agent", value_name = "NAME")]
    agent: Option<String>,
    #[command(flatten)]
    seed: SeedArgs,
}

/// Lets a person play the referee's game `--game` of side `--size` in the terminal.
pub fn play(args: PlayArgs) -> Outcome {
    check_sizes("--size", &[args.size])?;
    let seed = args.seed.seed;
    if let Some(name) = &args.agent {
        check_agent("--opponent", name, &AGENTS)?;
    }
    let opponent = match &args.agent {
        Some(name) => Some(known_agent(
            name,
            |name| agent(name, agent_rng(seed, args.size, args.game)),
            &AGENTS,
        )?),
        None => None,
    };
    let end = play_referee_game(
        io::stdin().lock(),
        crate::out::data_stdout(),
        args.size,
        args.game,
        seed,
        opponent,
    );
    finish_play(end)
}
