//! PseudoTonga: the strong player's move time by board size, and whole games
//! of the `best` and `server` players against the server.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use tabula_solver::tonga::opponents::{self, Geometry};
use tabula_solver::tonga::{Board, Colour, Position};
use tabula_verify::agent::Agent;
use tabula_verify::tonga::{BestAgent, BestSettings, agent, agent_rng, play_agent};

/// The position after `stones` moves of the server's policy for both sides (first of ties).
fn opening(n: usize, stones: usize) -> Position {
    let geo = Geometry::new(n);
    let mut board = Board::new(n).unwrap();
    let mut mover = Colour::Black;
    for _ in 0..stones {
        let cell = opponents::choices(&geo, &board, mover).unwrap().cells[0];
        board.place(cell, mover);
        mover = mover.other();
    }
    Position {
        board,
        to_move: mover,
    }
}

fn bench_best(c: &mut Criterion) {
    let mut group = c.benchmark_group("tonga_best_move");
    group.sample_size(10);
    for n in [6, 8, 10, 12, 14, 16] {
        // Early (one round of lookahead at N=14, 16) and mid-game (two rounds).
        for (label, stones) in [("early", 2), ("mid", n * n / 2)] {
            let pos = opening(n, stones);
            group.bench_with_input(BenchmarkId::new(label, n), &pos, |b, pos| {
                b.iter(|| BestAgent::new(BestSettings::default()).choose(black_box(pos)))
            });
        }
    }
    group.finish();
    let mut group = c.benchmark_group("tonga_game_vs_server");
    group.sample_size(10);
    for n in [8, 12, 16] {
        // With the statement's 20 s budget (the default) and without one.
        group.bench_function(BenchmarkId::new("best", n), |b| {
            b.iter(|| {
                let best = Box::new(BestAgent::new(BestSettings::default()));
                play_agent(n, 0, 1, best)
            })
        });
        group.bench_function(BenchmarkId::new("best-unlimited", n), |b| {
            b.iter(|| {
                let settings = BestSettings {
                    budget: None,
                    ..BestSettings::default()
                };
                play_agent(n, 0, 1, Box::new(BestAgent::new(settings)))
            })
        });
        group.bench_function(BenchmarkId::new("server", n), |b| {
            b.iter(|| play_agent(n, 0, 1, agent("server", agent_rng(1, n, 0)).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_best);
criterion_main!(benches);
