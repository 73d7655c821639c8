//! PseudoTonga benchmarks: the server's move by board size, a whole N=16 game of
//! the server against a greedy player, the exact endgame by empty squares, and
//! the exact endgame at 16 empties over game positions and scattered boards;
//! the endgame at 8 empties beside plain negamax.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tabula_solver::search::negamax;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::opponents::{self, Geometry};
use tabula_solver::tonga::{Board, Cell, Colour, Position};

/// Plays a whole game, server (Black) against greedy (White); first of ties.
fn server_vs_greedy(geo: &Geometry, n: usize) -> Board {
    let mut board = Board::new(n).unwrap();
    let mut mover = Colour::Black;
    while !board.is_full() {
        let cell = if mover == Colour::Black {
            opponents::choices(geo, &board, mover).unwrap().cells[0]
        } else {
            opponents::greedy_choices(geo, &board, mover)[0]
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
            opponents::choices(geo, &board, mover).unwrap().cells
        } else {
            opponents::greedy_choices(geo, &board, mover)
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
            b.iter(|| opponents::choices(&geo, black_box(board), board.to_move()))
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
    // The same solve against plain negamax (flood-fill scoring at every leaf,
    // no table, no pruning), in the same run.
    let board = midgame(&geo, 16, 8, 2);
    let position = Position::from_board(board);
    let solved = Endgame::new(&board).unwrap().solve(board.to_move());
    assert_eq!(
        solved,
        negamax(&position),
        "the same value, or no comparison"
    );
    group.bench_function("8_plain_negamax", |b| {
        b.iter(|| negamax(black_box(&position)))
    });
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

/// A board of side `n`, Black to move, with `empties` empty squares no two of
/// them adjacent, and the other squares a seeded random mix of both colours.
fn scattered(n: usize, empties: usize, seed: u64) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut holes = Board::new(n).unwrap();
    let mut chosen = 0;
    while chosen < empties {
        let cell = rng.random_range(0..n * n) as Cell;
        let free = holes.at(cell).is_none()
            && holes
                .neighbours(cell)
                .iter()
                .all(|&nb| holes.at(nb).is_none());
        if free {
            holes.place(cell, Colour::Black);
            chosen += 1;
        }
    }
    let stones = n * n - empties;
    let mut colours: Vec<Colour> = (0..stones)
        .map(|k| {
            if k % 2 == 0 {
                Colour::Black
            } else {
                Colour::White
            }
        })
        .collect();
    for k in (1..colours.len()).rev() {
        colours.swap(k, rng.random_range(0..=k));
    }
    let mut board = Board::new(n).unwrap();
    let mut next = colours.into_iter();
    for cell in (0..n * n).map(|c| c as Cell) {
        if holes.at(cell).is_none() {
            board.place(cell, next.next().unwrap());
        }
    }
    board
}

/// Median and worst of per-position times.
fn summary(times: &[Duration]) -> (Duration, Duration) {
    let mut sorted = times.to_vec();
    sorted.sort();
    (sorted[sorted.len() / 2], sorted[sorted.len() - 1])
}

/// The exact solve at 16 empties over two distributions of positions: one
/// criterion iteration solves one position (in turn, the first call all of
/// them), and each position's fastest solve is kept for the median and worst
/// printed at the end.
fn bench_endgame_distribution(c: &mut Criterion) {
    let mut groups: Vec<(&str, Vec<Board>)> = Vec::new();
    let mut games = Vec::new();
    for seed in 0..20u64 {
        let n = if seed % 2 == 0 { 16 } else { 10 };
        games.push(midgame(&Geometry::new(n), n, 16, 100 + seed));
    }
    groups.push(("games", games));
    let boards = (0..20u64)
        .map(|seed| scattered(if seed % 2 == 0 { 16 } else { 10 }, 16, 200 + seed))
        .collect();
    groups.push(("scattered", boards));
    let mut group = c.benchmark_group("tonga_endgame_16");
    group.sample_size(10);
    for (name, boards) in &groups {
        let best = RefCell::new(vec![Duration::MAX; boards.len()]);
        let next = RefCell::new(0usize);
        group.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                // The first call solves every position once, so that each has a time.
                let rounds = if *next.borrow() == 0 {
                    iters.max(boards.len() as u64)
                } else {
                    iters
                };
                let mut total = Duration::ZERO;
                for _ in 0..rounds {
                    let k = *next.borrow() % boards.len();
                    *next.borrow_mut() += 1;
                    let board = &boards[k];
                    let start = Instant::now();
                    let mut game = Endgame::new(black_box(board)).unwrap();
                    black_box(game.solve(board.to_move()));
                    let took = start.elapsed();
                    total += took;
                    let slot = &mut best.borrow_mut()[k];
                    *slot = (*slot).min(took);
                }
                total * iters as u32 / rounds as u32
            })
        });
        let times = best.into_inner();
        if times.iter().all(|&t| t < Duration::MAX) {
            let (median, worst) = summary(&times);
            let slowest = times.iter().position(|&t| t == worst).unwrap();
            println!(
                "tonga_endgame_16/{name}: {} positions, median {median:.3?}, worst {worst:.3?} (position {slowest})",
                boards.len()
            );
            let each: Vec<String> = times
                .iter()
                .map(|t| format!("{:.0}", t.as_secs_f64() * 1e3))
                .collect();
            println!("  each position (ms): {}", each.join(" "));
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_server,
    bench_endgame,
    bench_endgame_distribution
);
criterion_main!(benches);
