//! `tabula referee kalah`: a player against a built-in one on the generic referee run.

use std::path::PathBuf;

use clap::Args;
use tabula_verify::kalah::{self as kv, KalahContest, KalahWire};
use tabula_verify::seat::Limits;

use super::VariantArgs;
use super::play::{SearchDisplay, checked_table};
use crate::common::{RefereeRunArgs, SeatArgs, check_agent, referee_contest, served_rng};
use crate::registry::Outcome;

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
    // The tested player's time for each game, and the seed of a random player.
    #[command(flatten)]
    run: RefereeRunArgs,
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
    let tables = checked_table(rules, args.table.as_deref(), searchers, None)?;
    let searching = SearchDisplay::default();
    let seed = args.run.seed.seed;
    let contest = KalahContest {
        rules,
        tables: tables.clone(),
        opponent: args.opponent.clone(),
        progress: Some(searching.tell("the optimal opponent's")),
        seed,
        limits: Limits {
            per_game: Some(args.run.timeout.timeout),
            ..Limits::default()
        },
    };
    referee_contest(
        &contest,
        &args.seat,
        || KalahWire::new(rules),
        // The tested built-in player as `serve --seed` draws it, so that both play alike.
        |name, _| {
            let told = searching.tell("the tested optimal player's");
            kv::agent(name, &tables, served_rng(seed), Some(told), None, None)
        },
        &kv::AGENTS,
        &args.run,
    )
}
