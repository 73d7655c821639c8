//! Tothello speed: bestMove throughput, solver nodes per second, exact solve times.
//!
//! Positions come from seeded random games, so every run measures the same ones.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::search::negamax;
use tabula_solver::tothello::rules::best_move_bits;
use tabula_solver::tothello::{Move, Position, Solver};

/// A position with `empties` empty squares after seeded random placements from the start.
fn random_position(rng: &mut ChaCha8Rng, empties: u32) -> Position {
    let mut pos = Position::start();
    while pos.empties() > empties {
        let empty = pos.board.empty();
        let pick = rng.random_range(0..empty.count_ones());
        let mut bits = empty;
        for _ in 0..pick {
            bits &= bits - 1;
        }
        pos.apply(Move::Place(bits.trailing_zeros() as u8));
    }
    pos
}

/// Four positions of `empties` empty squares, from the random stream `seed`.
fn four_positions(seed: u64, empties: u32) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..4).map(|_| random_position(&mut rng, empties)).collect()
}

/// A group of exact solves: few samples, each one slow.
fn solve_group<'c>(c: &'c mut Criterion, name: &str) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group
}

fn best_move_throughput(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // Mid-game boards, 4 to 60 pieces.
    let positions: Vec<(u64, u64)> = (0..1000)
        .map(|i| {
            let pos = random_position(&mut rng, 60 - i % 57);
            (pos.mover(), pos.opponent())
        })
        .collect();
    let mut group = c.benchmark_group("tothello");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("best_move_x1000", |b| {
        b.iter(|| {
            let mut total = 0u32;
            for &(mover, opponent) in &positions {
                total +=
                    best_move_bits(black_box(mover), black_box(opponent)).map_or(0, |m| m.pieces);
            }
            total
        })
    });
    group.finish();
}

fn exact_solve(c: &mut Criterion) {
    let mut group = solve_group(c, "tothello_solve");
    for empties in [10u32, 12, 14, 16] {
        let positions = four_positions(u64::from(empties), empties);
        // One solve per position with a fresh table (cleared outside the timing).
        let mut solver = Solver::new(21);
        let mut nodes = 0;
        for pos in &positions {
            solver.clear();
            nodes += solver.solve(pos).nodes;
        }
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("exact_{empties}_empties_x4"), |b| {
            b.iter_custom(|iters| {
                let mut elapsed = Duration::ZERO;
                for _ in 0..iters {
                    for pos in &positions {
                        solver.clear();
                        let start = Instant::now();
                        black_box(solver.solve(black_box(pos)).value);
                        elapsed += start.elapsed();
                    }
                }
                elapsed
            })
        });
    }
    group.finish();
}

/// The exact solver against plain negamax (no table, no ordering, no pruning)
/// on the same positions, in the same run.
fn solve_against_plain_negamax(c: &mut Criterion) {
    let mut group = solve_group(c, "tothello_solve_vs_negamax");
    let positions = four_positions(7, 7);
    let mut solver = Solver::new(16);
    for pos in &positions {
        // The same values, or the comparison means nothing.
        solver.clear();
        assert_eq!(solver.solve(pos).value, negamax(pos), "{pos}");
    }
    group.bench_function("solver_7_empties_x4", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|pos| {
                    solver.clear();
                    solver.solve(black_box(pos)).value
                })
                .sum::<i32>()
        })
    });
    group.bench_function("plain_negamax_7_empties_x4", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|pos| negamax(black_box(pos)))
                .sum::<i32>()
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    best_move_throughput,
    exact_solve,
    solve_against_plain_negamax
);
criterion_main!(benches);
