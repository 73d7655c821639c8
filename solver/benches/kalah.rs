//! Kalah(m, n) speed: the exact alpha-beta from the start, on one thread
//! and on two (lazy SMP over a shared table), against a plain
//! HashMap-memoized negamax on the same game, in the same run.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use tabula_solver::kalah::{ExactSolver, Rules, SearchOptions};
use tabula_solver::search::memo_negamax;

fn solve_start(c: &mut Criterion) {
    let mut group = c.benchmark_group("kalah/solve start");
    group.sample_size(10);
    for (m, n) in [(3, 3), (3, 4), (3, 5), (4, 3)] {
        let start = Rules::new(m, n).unwrap().start();
        let name = format!("Kalah({m},{n})");
        // A fresh table of 2^20 slots each time, made outside the timing (its
        // pages are supplied as the search first stores on them, inside it).
        group.bench_with_input(BenchmarkId::new("alpha-beta", &name), &start, |b, start| {
            b.iter_batched_ref(
                || ExactSolver::new(20),
                |solver| solver.value(black_box(start)),
                BatchSize::PerIteration,
            )
        });
        // The same search on two threads: the helper starts with each search.
        let id = BenchmarkId::new("alpha-beta 2 threads", &name);
        group.bench_with_input(id, &start, |b, start| {
            b.iter_batched_ref(
                || ExactSolver::with_threads(20, SearchOptions::default(), 2),
                |solver| solver.value(black_box(start)),
                BatchSize::PerIteration,
            )
        });
        group.bench_with_input(
            BenchmarkId::new("hashmap negamax", &name),
            &start,
            |b, start| b.iter(|| memo_negamax(black_box(start), &mut HashMap::new())),
        );
    }
    group.finish();
}

criterion_group!(benches, solve_start);
criterion_main!(benches);
