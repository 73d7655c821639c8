//! PseudoTonga benchmarks: the server's move by board size, a whole N=16 game of
//! the server against a greedy player, and the exact endgame by empty squares.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::server::{self, Geometry};
use tabula_solver::tonga::{Board, Cell, Colour};

/// Plays a whole game, server (Black) against greedy (White); first of ties.
fn server_vs_greedy(geo: &Geometry, n: usize) -> Board {
    let mut board = Board::new(n).unwrap();
    let mut mover = Colour::Black;
    while !board.is_full() {
        let cell = if mover == Colour::Black {
            server::choices(geo, &board, mover).unwrap().cells[0]
        } else {
            server::greedy_choices(geo, &board, mover)[0]
        };
        board.place(cell, mover);
        mover = mover.other();
    }
    board
}

/// A position of a server-vs-greedy game with `empties` squares left.
fn midgame(geo: &Geometry, n: usize, empties: usize, seed: u64) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::new(n).unwrap();
    let mut mover = Colour::Black;
    while board.empties() > empties {
        let choices = if mover == Colour::Black {
            server::choices(geo, &board, mover).unwrap().cells
        } else {
            server::greedy_choices(geo, &board, mover)
        };
        let cell: Cell = choices[rng.random_range(0..choices.len())];
        board.place(cell, mover);
        mover = mover.other();
    }
    board
}

fn bench_server(c: &mut Criterion) {
    let mut group = c.benchmark_group("tonga_server_move");
    group.sample_size(10);
    for n in [6, 8, 10, 12, 14, 16] {
        let geo = Geometry::new(n);
        // A position a quarter into the game: the widest searches.
        let board = midgame(&geo, n, n * n * 3 / 4, 1);
        group.bench_with_input(BenchmarkId::from_parameter(n), &board, |b, board| {
            b.iter(|| server::choices(&geo, black_box(board), board.to_move()))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("tonga_server_game");
    group.sample_size(10);
    for n in [6, 8, 10, 12, 14, 16] {
        let geo = Geometry::new(n);
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| server_vs_greedy(&geo, black_box(n)))
        });
    }
    group.finish();
}

fn bench_endgame(c: &mut Criterion) {
    let mut group = c.benchmark_group("tonga_endgame_solve");
    group.sample_size(10);
    let geo = Geometry::new(16);
    for empties in [8, 10, 12, 14, 16] {
        let board = midgame(&geo, 16, empties, 2);
        group.bench_with_input(BenchmarkId::from_parameter(empties), &board, |b, board| {
            b.iter(|| {
                let mut game = Endgame::new(black_box(board)).unwrap();
                game.solve(board.to_move())
            })
        });
    }
    let board = Board::new(4).unwrap();
    group.bench_function("4x4_empty", |b| {
        b.iter(|| {
            let mut game = Endgame::new(black_box(&board)).unwrap();
            game.solve(Colour::Black)
        })
    });
    group.finish();
    let mut group = c.benchmark_group("tonga_endgame_vs_server");
    group.sample_size(10);
    for empties in [6, 8, 10, 12, 14, 15] {
        let board = midgame(&geo, 16, empties, 3);
        group.bench_with_input(BenchmarkId::from_parameter(empties), &board, |b, board| {
            b.iter(|| {
                let game = Endgame::new(black_box(board)).unwrap();
                game.against_server(board.to_move(), board.to_move())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_server, bench_endgame);
criterion_main!(benches);
