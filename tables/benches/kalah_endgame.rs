//! Kalah endgame tables (issue 49): probes a second into a mapped table, and
//! the nodes a second of the search that probes it against the plain search,
//! in the same run. The table (6 pits a side, at most 10 seeds: 646,646
//! boards) is built into a temporary directory first. And boards a second
//! of the endgame build, the fast layer solver against the generic one, in
//! the same run: into a file (syncs and all) and in memory (the solvers
//! alone): `cargo bench -p tabula-tables --bench kalah_endgame -- build`.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::AtomicU8;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use tabula_solver::kalah::{Endgame, ExactSolver, KalahSpace, Rules, solve_endgame_layer};
use tabula_solver::retrograde::{StateSpace, solve_records_layer};
use tabula_tables::kalah::{KalahEndgame, build_endgame, build_endgame_generic, open_endgame};

const PITS: u8 = 6;
const MAX_SEEDS: u32 = 10;
/// Boards probed in one benchmark iteration.
const PROBES: usize = 1 << 16;

/// The mapped endgame table, built afresh in `dir`.
fn endgame(dir: &std::path::Path) -> Endgame {
    let path = dir.join("kalah-endgame.tab");
    let game = KalahEndgame::new(Rules::new(PITS, 1).unwrap(), MAX_SEEDS);
    build_endgame(&path, &game, &|_| {}).unwrap();
    Arc::new(open_endgame(&path).unwrap())
}

/// Indices of boards spread over the table, every one a board play reaches.
fn sample_indices(space: &KalahSpace) -> Vec<u64> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut out = Vec::with_capacity(PROBES);
    while out.len() < PROBES {
        // xorshift: a fixed, cheap spread of indices.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let index = x % space.len();
        if space.is_state(index) {
            out.push(index);
        }
    }
    out
}

fn probes(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let table = endgame(dir.path());
    let space = KalahSpace::endgame(Rules::new(PITS, 1).unwrap(), MAX_SEEDS);
    let indices = sample_indices(&space);
    let mut group = c.benchmark_group("kalah endgame/probe");
    group.throughput(Throughput::Elements(PROBES as u64));
    group.bench_function("value by index, m=6 S=10", |b| {
        b.iter(|| {
            indices
                .iter()
                .map(|&i| table.value(black_box(i)))
                .sum::<i32>()
        })
    });
    // As the search probes: the board is ranked first.
    let boards: Vec<_> = indices.iter().map(|&i| space.position(i)).collect();
    group.bench_function("rank and value, m=6 S=10", |b| {
        b.iter(|| {
            boards
                .iter()
                .map(|p| table.value(black_box(p).index()))
                .sum::<i32>()
        })
    });
    group.finish();
}

/// Nodes a second (criterion's elements) of the search from the start with
/// and without the table; each search gets a fresh table of 2^18 slots (4 MiB:
/// a bigger one costs more to map than these small searches take).
fn search(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let table = endgame(dir.path());
    let mut group = c.benchmark_group("kalah endgame/search");
    group.sample_size(10);
    for seeds in [2u8, 3] {
        let start = Rules::new(PITS, seeds).unwrap().start();
        let name = format!("Kalah({PITS},{seeds})");
        for (label, probed) in [("plain", None), ("probed S=10", Some(table.clone()))] {
            let solver = || ExactSolver::new(18).with_endgame(probed.clone());
            let mut once = solver();
            once.value(&start);
            group.throughput(Throughput::Elements(once.nodes));
            group.bench_with_input(BenchmarkId::new(label, &name), &start, |b, start| {
                b.iter_batched_ref(
                    solver,
                    |s| s.value(black_box(start)),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

/// Boards a second (criterion's elements) of the endgame build of m = 6,
/// S = 10 into a fresh file, by the fast layer solver and by the generic one.
fn build(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let game = KalahEndgame::new(Rules::new(PITS, 1).unwrap(), MAX_SEEDS);
    let mut group = c.benchmark_group("kalah endgame/build");
    group.sample_size(10);
    let boards = KalahSpace::boards_up_to(PITS, MAX_SEEDS).unwrap();
    group.throughput(Throughput::Elements(boards));
    for label in ["fast", "generic"] {
        group.bench_function(BenchmarkId::new(label, "m=6 S=10"), |b| {
            b.iter_custom(|iterations| {
                let mut spent = std::time::Duration::ZERO;
                for _ in 0..iterations {
                    let path = dir.path().join(format!("{label}.tab"));
                    let started = std::time::Instant::now();
                    match label {
                        "fast" => build_endgame(&path, &game, &|_| {}),
                        _ => build_endgame_generic(&path, &game, &|_| {}),
                    }
                    .unwrap();
                    spent += started.elapsed();
                    std::fs::remove_file(&path).unwrap();
                }
                spent
            })
        });
    }
    // The solvers alone, every layer into memory, on a bigger table.
    let space = KalahSpace::endgame(Rules::new(PITS, 1).unwrap(), SOLVED_SEEDS);
    group.throughput(Throughput::Elements(space.len()));
    for label in ["fast", "generic"] {
        let name = format!("m=6 S={SOLVED_SEEDS} in memory");
        group.bench_function(BenchmarkId::new(label, name), |b| {
            b.iter(|| {
                let values: Vec<AtomicU8> = (0..space.len()).map(|_| AtomicU8::new(0)).collect();
                for layer in 0..space.num_layers() {
                    match label {
                        "fast" => solve_endgame_layer(&space, &values, layer, &|_| {}),
                        _ => solve_records_layer(&space, &values, 0, layer, &|_| {}),
                    }
                    .unwrap();
                }
                values
            })
        });
    }
    group.finish();
}

/// The most seeds of the table the build's solvers fill in memory.
const SOLVED_SEEDS: u32 = 11;

criterion_group!(benches, probes, search, build);
criterion_main!(benches);
