//! Dominoes N = 5: the whole-table build and lookups from the mapped file.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::dominoes::Position;
use tabula_solver::dominoes::space::{DominoesSpace, TABLE_NUMBERS, TABLE_POSITIONS};
use tabula_tables::dominoes::{self, build, solve};

fn build_table(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_build");
    // A build takes seconds: the fewest samples criterion allows.
    group.sample_size(10);
    group.bench_function("retrograde_rayon", |b| b.iter(|| solve(true, &|_| {})));
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dominoes5.tab");
    build(&path, &|_| {}).unwrap();
    // SAFETY: the benchmark owns the file and leaves it alone while mapped.
    let table = unsafe { dominoes::map(&path) }.unwrap();
    let space = DominoesSpace::new(TABLE_NUMBERS);
    let positions: Vec<Position> = (0..4096u64)
        .map(|i| {
            space
                .state(i * (TABLE_POSITIONS / 4096) + 7)
                .position((i & 1) as u8)
        })
        .collect();
    let mut i = 0;
    c.bench_function("dominoes_lookup_mapped", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(table.lookup(black_box(&positions[i])).unwrap())
        })
    });
    c.bench_function("dominoes_best_move_mapped", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(table.best_move(black_box(&positions[i])).unwrap())
        })
    });
    // Once every record is checked against its children (as `--table` does
    // before play), lookups skip that.
    table.check_records().unwrap();
    c.bench_function("dominoes_lookup_mapped_after_full_check", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(table.lookup(black_box(&positions[i])).unwrap())
        })
    });
}

criterion_group!(benches, build_table, lookup);
criterion_main!(benches);
