//! Kalah's searching optimal player: its CPU time and nodes for every move
//! of one fixed game, exact (the generic search against [`ExactSolver`]'s
//! default) and timed with time to prove each move (with and without the
//! seed bounds), in the same run. The nodes go to stderr once per setting.
//!
//! [`ExactSolver`]: tabula_solver::kalah::ExactSolver

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::Game;
use tabula_solver::kalah::{Kalah, Match, Rules, SearchOptions};
use tabula_verify::agent::{Agent, RandomAgent};
use tabula_verify::kalah::{Greedy, OptimalAgent};
use tabula_verify::tournament::{Purpose, stream};

/// The positions of one game of greedy against a random player (a fixed stream).
fn positions(rules: Rules) -> Vec<Kalah> {
    let mut random = RandomAgent::new(stream(7, Purpose::Agent, 0, 0, 0));
    let mut game = Match::new(rules);
    let mut seen = Vec::new();
    while !game.is_over() {
        seen.push(game.position);
        let pit = match game.mover {
            0 => Greedy.choose(&game),
            _ => Agent::<Match>::choose(&mut random, &game),
        };
        Game::apply(&mut game, pit);
    }
    seen
}

/// The settings compared: a name, the search's switches, whether timed.
fn settings() -> Vec<(&'static str, SearchOptions, bool)> {
    let plain = SearchOptions {
        seed_bounds: false,
        ..SearchOptions::default()
    };
    vec![
        ("exact generic", SearchOptions::GENERIC, false),
        ("exact solver", SearchOptions::default(), false),
        ("timed plain", plain, true),
        ("timed seed bounds", SearchOptions::default(), true),
    ]
}

/// The moves of a fresh agent of `options` at every position in turn (its
/// table kept from move to move, as in a game), and its nodes.
fn moves(positions: &[Kalah], options: SearchOptions, timed: bool) -> u64 {
    // An hour: every timed search deepens until it proves its move.
    let think = timed.then_some(Duration::from_secs(3600));
    let mut agent = OptimalAgent::by_search(20)
        .with_search_options(options)
        .thinking(think);
    for position in positions {
        black_box(agent.best_move(position));
    }
    agent.nodes()
}

fn benches(c: &mut Criterion) {
    for (pits, seeds) in [(4, 4), (5, 3)] {
        let rules = Rules::new(pits, seeds).expect("valid rules");
        let positions = positions(rules);
        for (name, options, timed) in settings() {
            let nodes = moves(&positions, options, timed);
            eprintln!(
                "kalah({pits},{seeds}) {name}: {nodes} nodes over {} moves",
                positions.len()
            );
            c.bench_function(&format!("kalah({pits},{seeds}) {name}"), |b| {
                b.iter(|| moves(black_box(&positions), options, timed))
            });
        }
    }
}

criterion_group! {
    name = kalah_agent;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(kalah_agent);
