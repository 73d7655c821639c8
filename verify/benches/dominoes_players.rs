//! Dominoes: the inference sampler's deals per second, and the time of the
//! players that infer the other hand (first decision and whole games).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula_solver::dominoes::inference::Knowledge;
use tabula_solver::dominoes::{Deal, Match, Rules, Tile, View};
use tabula_solver::{Game, Turn};
use tabula_verify::agent::Agent;
use tabula_verify::dominoes::clairvoyant::heaviest_move;
use tabula_verify::dominoes::players::BETA;

const CASES: [(u32, u32); 4] = [(5, 7), (7, 5), (9, 4), (9, 7)];

/// Seat 0's knowledge and view once the stock is down to half, both seats
/// playing heaviest first.
fn midgame(rules: Rules, seed: u64) -> (Knowledge, View) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let deal = Deal::random(rules, &mut rng);
    let mut game = Match::new(&deal);
    let start = game.stock().len();
    let mut know = Knowledge::new(rules);
    know.start(rules, Some(Tile::new(game.line()[0].0, game.line()[0].1)));
    let mut last = None;
    while game.turn() != Turn::Over {
        let mv = match game.turn() {
            Turn::Chance => game.sample_chance(&mut rng),
            Turn::Seat(s) => {
                let view = game.view(s);
                if s == 0 {
                    know.update(&view).unwrap();
                    if view.stock * 2 <= start && view.stock > 0 {
                        return (know, view);
                    }
                    last = Some(view.clone());
                }
                heaviest_move(&view)
            }
            Turn::Over => unreachable!(),
        };
        game.apply(mv);
    }
    (know, last.expect("seat 0 moved"))
}

fn bench_sampler(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_sampler");
    for (n, h) in CASES {
        let rules = Rules::new(n, h).unwrap();
        let (know, view) = midgame(rules, 3);
        group.throughput(Throughput::Elements(100));
        group.bench_with_input(
            BenchmarkId::new("100_deals", format!("{n}x{h}")),
            &(),
            |b, _| {
                let mut rng = ChaCha8Rng::seed_from_u64(1);
                b.iter(|| {
                    let sampler = know.sampler(black_box(&view), BETA);
                    (0..100)
                        .map(|_| sampler.sample(&mut rng).weight)
                        .sum::<f64>()
                })
            },
        );
    }
    group.finish();
}

/// A fresh agent's first decision of a game (the largest stock).
fn bench_first_decision(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_first_decision");
    group.sample_size(10);
    for name in ["best", "pimc", "ismcts"] {
        for (n, h) in CASES {
            let rules = Rules::new(n, h).unwrap();
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let game = Match::new(&Deal::random(rules, &mut rng));
            let seat = match game.turn() {
                Turn::Seat(s) => s,
                _ => unreachable!(),
            };
            let view = game.view(seat);
            group.bench_with_input(
                BenchmarkId::new(name, format!("{n}x{h}")),
                &view,
                |b, view| {
                    b.iter(|| {
                        let mut agent =
                            tabula_verify::dominoes::agent(name, ChaCha8Rng::seed_from_u64(2))
                                .unwrap();
                        let mut start = view.clone();
                        start.line.truncate(1);
                        agent.start_game(seat, &start);
                        agent.choose(black_box(view))
                    })
                },
            );
        }
    }
    group.finish();
}

/// A whole game against heaviest-first, both seats' decisions included.
fn bench_game(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_game_vs_heaviest");
    group.sample_size(10);
    for (n, h) in CASES {
        let rules = Rules::new(n, h).unwrap();
        group.bench_with_input(
            BenchmarkId::new("best", format!("{n}x{h}")),
            &rules,
            |b, &rules| {
                let mut rng = ChaCha8Rng::seed_from_u64(4);
                b.iter(|| {
                    let deal = Deal::random(rules, &mut rng);
                    let mut game = Match::new(&deal);
                    let mut best =
                        tabula_verify::dominoes::agent("best", ChaCha8Rng::seed_from_u64(5))
                            .unwrap();
                    best.start_game(0, &game.view(0));
                    while game.turn() != Turn::Over {
                        let mv = match game.turn() {
                            Turn::Chance => game.sample_chance(&mut rng),
                            Turn::Seat(0) => best.choose(&game.view(0)),
                            _ => heaviest_move(&game.view(1)),
                        };
                        game.apply(mv);
                    }
                    game.scores()[0]
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_sampler, bench_first_decision, bench_game);
criterion_main!(benches);
