//! MultiplayerReversi: `best`'s time per game by size (every decision of one
//! whole game against opponents drawn from a briefly evolved population), and
//! the oracle's for comparison.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula_solver::reversi::{Board, Rule, Weights};
use tabula_verify::agent::Agent;
use tabula_verify::reversi::evolve::{Settings, evolve};
use tabula_verify::reversi::{Opponent, case_agent};

fn opponents(n: usize) -> Vec<Opponent> {
    let settings = Settings {
        generations: Some(5),
        ..Settings::new(n)
    };
    let population: Vec<Weights> =
        evolve(&settings, &mut ChaCha8Rng::seed_from_u64(99), &|_, _| {});
    (1..Board::players_for(n))
        .map(|k| Opponent {
            weights: population[k],
            rule: Rule::default(),
        })
        .collect()
}

/// One whole game: the player in seat 0, the opponents in the others.
fn game(name: &str, n: usize, opponents: &[Opponent]) -> Board {
    let mut player = case_agent(
        name,
        ChaCha8Rng::seed_from_u64(1),
        opponents,
        &Arc::default(),
    )
    .expect("a known player");
    let mut board = Board::start(n).unwrap();
    player.start_game(0, &board);
    while let Some(seat) = board.mover() {
        let mv = if seat == 0 {
            player.choose(&board)
        } else {
            opponents[seat - 1]
                .weights
                .choose(&board, Rule::default())
                .unwrap()
        };
        board.play(mv);
    }
    board
}

fn benches(c: &mut Criterion) {
    for n in [7, 8, 9, 10, 11, 12] {
        let opp = opponents(n);
        for name in ["best", "oracle"] {
            c.bench_function(&format!("reversi/{name} game {n}x{n}"), |b| {
                b.iter(|| game(name, n, black_box(&opp)))
            });
        }
    }
}

criterion_group! {
    name = reversi_best;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(reversi_best);
