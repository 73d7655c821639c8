//! The whole N = 5 Dominoes table, built once: its bytes pinned, every record
//! checked against its children, lookups against a plain memoized solver and
//! 3000 random records against the exact endgame search,
//! and damaged files refused with typed errors.

use std::collections::HashMap;
use std::path::Path;

use tabula_solver::dominoes::search::Endgame;
use tabula_solver::dominoes::space::{DominoesSpace, Outcome, TABLE_POSITIONS};
use tabula_solver::dominoes::{Move, Position, Side, Tiles};
use tabula_tables::dominoes::{self, DominoesTable, SPEC};
use tabula_tables::format::{Meta, encode_records, table_bytes};
use tabula_tables::ioiwari::IoiwariTable;
use tabula_tables::{Table, TableError};
use xxhash_rust::xxh3::xxh3_64;

/// Moves in a fixed order, to compare sets of moves.
fn key(mv: &Move) -> (u8, usize) {
    match *mv {
        Move::Place(t, Side::Left) => (0, t.index()),
        Move::Place(t, Side::Right) => (1, t.index()),
        _ => (2, 0),
    }
}

/// A small deterministic generator, so the test needs no extra dependency.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The mover's value by plain recursion over [`Position`] (memoized): a hand
/// emptied wins, a block is scored by pips, a seat without a fitting tile passes.
fn plain(pos: &Position, memo: &mut HashMap<Position, i32>) -> i32 {
    if pos.is_over() {
        let s = pos.score();
        let s = if pos.mover == 0 { s } else { 1.0 - s };
        return (2.0 * s - 1.0) as i32;
    }
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let v = pos
        .moves()
        .iter()
        .map(|&mv| -plain(&pos.after(mv), memo))
        .max()
        .expect("a position not over has a move");
    memo.insert(*pos, v);
    v
}

/// A random stock-empty N = 5 position: a random line, the rest dealt at random.
fn random_position(state: &mut u64) -> Position {
    loop {
        let full = Tiles::full(5);
        let first = full.iter().nth((next(state) % 15) as usize).unwrap();
        let (mut left, mut right) = (first.low(), first.high());
        let mut unplayed = full.minus(Tiles(first.bit()));
        let length = next(state) % 14;
        for _ in 0..length {
            let fits: Vec<_> = unplayed.and(Tiles::matching(left, right)).iter().collect();
            if fits.is_empty() {
                break;
            }
            let t = fits[(next(state) % fits.len() as u64) as usize];
            unplayed.remove(t);
            if t.has(left) && (next(state) & 1 == 0 || !t.has(right)) {
                left = t.other(left);
            } else {
                right = t.other(right);
            }
        }
        let mut hands = [Tiles::EMPTY; 2];
        for t in unplayed.iter() {
            hands[(next(state) & 1) as usize].insert(t);
        }
        let mover = (next(state) & 1) as u8;
        if !hands[usize::from(mover)].is_empty() {
            return Position {
                hands,
                stock: Tiles::EMPTY,
                left,
                right,
                mover,
            };
        }
    }
}

fn assert_err(result: Result<impl Sized, TableError>, check: impl Fn(&TableError) -> bool) {
    match result {
        Ok(_) => panic!("a damaged table was accepted"),
        Err(e) => assert!(check(&e), "unexpected error: {e}"),
    }
}

fn rewrite(from: &Path, to: &Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(from).unwrap();
    edit(&mut bytes);
    std::fs::write(to, bytes).unwrap();
}

#[test]
fn whole_table_pinned_checked_and_against_two_solvers() {
    let solution = dominoes::solve(true, &|_| {});
    let payload = encode_records(&solution, SPEC.layout);
    assert_eq!(payload.len() as u64, 3 * TABLE_POSITIONS);
    assert_eq!(xxh3_64(&payload), 0x6611_95ca_9fb6_9c67);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dominoes5.tab");
    let bytes = table_bytes(
        &SPEC,
        &Meta {
            generator: "test".into(),
            description: "test".into(),
        },
        &payload,
    );
    std::fs::write(&path, &bytes).unwrap();
    // SAFETY: the test's own file, not changed while mapped.
    let table = unsafe { dominoes::map(&path) }.unwrap();
    assert!(table.table().is_mapped());
    assert_eq!(table.check_records().unwrap() as u64, TABLE_POSITIONS);

    // Lookups against the plain solver, for either seat to move, with the optimal moves.
    let mut memo = HashMap::new();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut seen = [0usize; 3];
    for _ in 0..20_000 {
        let pos = random_position(&mut state);
        let value = plain(&pos, &mut memo);
        let got = table.lookup(&pos).unwrap().expect("indexed");
        assert_eq!(
            got,
            Outcome::of_value(value),
            "{}",
            dominoes::describe(&pos)
        );
        seen[(value + 1) as usize] += 1;
        if pos.is_over() {
            assert!(table.best_moves(&pos).unwrap().is_empty());
            continue;
        }
        let best: Vec<Move> = pos
            .moves()
            .iter()
            .copied()
            .filter(|&mv| -plain(&pos.after(mv), &mut memo) == value)
            .collect();
        let mut stored = table.best_moves(&pos).unwrap();
        stored.sort_by_key(key);
        let mut best = best;
        best.sort_by_key(key);
        assert_eq!(stored, best, "{}", dominoes::describe(&pos));
    }
    assert!(seen.iter().all(|&c| c > 100), "{seen:?}");
    assert!(matches!(
        table.lookup(&Position {
            stock: Tiles::full(5),
            ..random_position(&mut state)
        }),
        Ok(None)
    ));

    // 3000 random records against the exact endgame search (alpha-beta, its own code).
    let space = DominoesSpace::new(5);
    let mut endgame = Endgame::new(20);
    for k in 0..3000 {
        let index = next(&mut state) % TABLE_POSITIONS;
        let pos = space.state(index).position((next(&mut state) & 1) as u8);
        let got = table.lookup(&pos).unwrap().expect("indexed");
        assert_eq!(got, endgame.solve(&pos), "{}", dominoes::describe(&pos));
        if k % 10 == 0 && !pos.is_over() {
            let mut stored = table.best_moves(&pos).unwrap();
            stored.sort_by_key(key);
            let mut best: Vec<Move> = endgame.best_moves(&pos).to_vec();
            best.sort_by_key(key);
            assert_eq!(stored, best, "{}", dominoes::describe(&pos));
        }
    }

    // Damaged files: truncated, a flipped payload byte, another game's table.
    let bad = dir.path().join("bad.tab");
    rewrite(&path, &bad, |b| b.truncate(b.len() - 1));
    assert_err(DominoesTable::open(&bad), |e| {
        matches!(e, TableError::Truncated { .. })
    });
    rewrite(&path, &bad, |b| *b.last_mut().unwrap() ^= 1);
    assert_err(
        DominoesTable::open(&bad),
        |e| matches!(e, TableError::Corrupted { what, .. } if what.contains("payload checksum")),
    );
    assert_err(IoiwariTable::open(&path), |e| {
        matches!(e, TableError::WrongGame { .. })
    });
    // A record the game cannot have, with valid checksums: refused by the lookup and by check.
    let pos = random_position(&mut state);
    let index = space.index_of_position(&pos).unwrap() as usize;
    let mut damaged = payload.clone();
    damaged[3 * index] = 2;
    let table = DominoesTable::new(
        Table::from_bytes(table_bytes(&SPEC, &Meta::default(), &damaged), &bad).unwrap(),
    )
    .unwrap();
    assert_err(
        table.lookup(&pos),
        |e| matches!(e, TableError::BadRecord { index: i, .. } if *i == index as u64),
    );
    assert_err(
        table.check_records(),
        |e| matches!(e, TableError::BadRecord { index: i, .. } if *i == index as u64),
    );
}
