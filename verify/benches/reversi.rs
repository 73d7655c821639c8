//! MultiplayerReversi: the opponents' rule, whole games, and the genetic
//! algorithm's generation at the smallest and largest sides.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabula_solver::reversi::Board;
use tabula_verify::reversi::evolve::{POPULATION, Settings, evolve, generation, play_out};

fn population(n: usize) -> Vec<tabula_solver::reversi::Weights> {
    let settings = Settings {
        generations: Some(0),
        ..Settings::new(n)
    };
    evolve(&settings, &mut ChaCha8Rng::seed_from_u64(1), &|_, _| {})
}

fn benches(c: &mut Criterion) {
    for n in [7, 12] {
        let pop = population(n);
        assert_eq!(pop.len(), POPULATION);
        let start = Board::start(n).unwrap();
        c.bench_function(&format!("reversi/legal moves {n}x{n}"), |b| {
            b.iter(|| black_box(&start).moves_of(0))
        });
        let settings = Settings::new(n);
        let seats: Vec<_> = pop.iter().take(Board::players_for(n)).collect();
        c.bench_function(&format!("reversi/ga game {n}x{n}"), |b| {
            b.iter(|| play_out(n, black_box(&seats), settings.rule))
        });
        c.bench_function(&format!("reversi/ga generation {n}x{n} (100 games)"), |b| {
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            b.iter(|| generation(black_box(&pop), &settings, &mut rng))
        });
    }
}

criterion_group! {
    name = reversi;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(reversi);
