//! Dominoes: the clairvoyant's whole games (its decisions dominate) by case.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::{Deal, Match, Rules};
use tabula_solver::{Game, Turn};
use tabula_verify::agent::{Agent, RandomAgent};
use tabula_verify::dominoes::Clairvoyant;

/// One game of a fresh clairvoyant (seat 0, other hand open) against random play; its score.
fn game(deal: &Deal, rng: &mut ChaCha8Rng) -> f64 {
    let mut state = Match::new(deal).with_open_hand(0);
    let mut me = Clairvoyant::new();
    let mut other = RandomAgent::new(ChaCha8Rng::seed_from_u64(rng.random()));
    loop {
        let mv = match state.turn() {
            Turn::Over => return state.scores()[0],
            Turn::Chance => state.sample_chance(rng),
            Turn::Seat(0) => me.choose(&state.view(0)),
            Turn::Seat(s) => Agent::<Match>::choose(&mut other, &state.view(s)),
        };
        state.apply(mv);
    }
}

fn clairvoyant_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_clairvoyant_game");
    group.sample_size(10);
    for (n, h) in [(5, 4), (7, 7), (9, 4), (9, 7)] {
        let rules = Rules::new(n, h).unwrap();
        group.bench_function(BenchmarkId::from_parameter(format!("n{n}h{h}")), |b| {
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            b.iter(|| {
                let deal = Deal::random(rules, &mut rng);
                game(&deal, &mut rng)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, clairvoyant_games);
criterion_main!(benches);
