//! Ioiwari: whole-table build (against a HashMap baseline) and lookups from the mapped file.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::ioiwari::{Board, NUM_BOARDS};
use tabula_solver::search::memo_negamax;
use tabula_tables::Table;
use tabula_tables::ioiwari::{IoiwariTable, build, solve};

fn build_table(c: &mut Criterion) {
    let mut group = c.benchmark_group("ioiwari_build");
    group.sample_size(20);
    group.bench_function("retrograde_one_core", |b| b.iter(|| solve(false, &|_| {})));
    group.bench_function("retrograde_rayon", |b| b.iter(|| solve(true, &|_| {})));
    // Baseline: the simple HashMap-memoized recursion over every board.
    group.bench_function("hashmap_memo_baseline", |b| {
        b.iter(|| {
            let mut memo = std::collections::HashMap::new();
            for index in 0..NUM_BOARDS {
                memo_negamax(&Board::from_index(index), &mut memo);
            }
            memo.len()
        })
    });
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ioiwari.tab");
    build(&path, &|_| {}).unwrap();
    // SAFETY: the benchmark owns the file and leaves it alone while mapped.
    let table = IoiwariTable::new(unsafe { Table::map(&path) }.unwrap()).unwrap();
    let boards: Vec<Board> = (0..4096).map(|i| Board::from_index(i * 68 + 11)).collect();
    let mut i = 0;
    c.bench_function("ioiwari_lookup_mapped", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(table.best_move(black_box(&boards[i])))
        })
    });
    // Once every record is checked against its children, lookups skip that.
    table.check_records().unwrap();
    c.bench_function("ioiwari_lookup_mapped_after_full_check", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            black_box(table.best_move(black_box(&boards[i])))
        })
    });
    c.bench_function("ioiwari_open_mapped_and_check", |b| {
        // SAFETY: as above.
        b.iter(|| IoiwariTable::new(unsafe { Table::map(&path) }.unwrap()).unwrap())
    });
}

criterion_group!(benches, build_table, lookup);
criterion_main!(benches);
