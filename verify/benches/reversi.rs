//! MultiplayerReversi: legal moves and a move, perft against the plain grid
//! of the tests in the same run, random games, the opponents' rule, the
//! genetic algorithm's game and generation, and each built-in player's
//! decision by side.
//!
//! `cargo bench -p tabula-verify --bench reversi -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::grid::Square;
use tabula_solver::reversi::plain::Plain;
use tabula_solver::reversi::{Board, MAX_N, MIN_N, Rule, Weights};
use tabula_verify::agent::Agent;
use tabula_verify::reversi::agent;
use tabula_verify::reversi::evolve::{POPULATION, Settings, evolve, generation, play_out};

fn population(n: usize) -> Vec<Weights> {
    let settings = Settings {
        generations: Some(0),
        ..Settings::new(n)
    };
    evolve(&settings, &mut ChaCha8Rng::seed_from_u64(1), &|_, _| {})
}

/// A random game to its end.
fn random_game(n: usize, rng: &mut ChaCha8Rng) -> Board {
    let mut board = Board::start(n).unwrap();
    while let Some(seat) = board.mover() {
        let moves = board.moves_of(seat);
        let k = rng.random_range(0..moves.count() as usize);
        board.play(moves.iter().nth(k).unwrap() as Square);
    }
    board
}

/// A position about a third full with player 1 to move, reached by random play.
fn midgame(n: usize) -> Board {
    let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
    loop {
        let mut board = Board::start(n).unwrap();
        while let Some(seat) = board.mover() {
            if seat == 0 && board.occupied().count() as usize >= n * n / 3 {
                return board;
            }
            let moves = board.moves_of(seat);
            let k = rng.random_range(0..moves.count() as usize);
            board.play(moves.iter().nth(k).unwrap() as Square);
        }
    }
}

fn rules(c: &mut Criterion) {
    for n in [7, 12] {
        let mid = midgame(n);
        c.bench_function(&format!("reversi/legal moves {n}x{n} midgame"), |b| {
            b.iter(|| black_box(&mid).moves_of(0))
        });
        let first = mid.moves_of(0).iter().next().unwrap() as Square;
        c.bench_function(&format!("reversi/a move {n}x{n} midgame"), |b| {
            b.iter(|| {
                let mut next = *black_box(&mid);
                next.play(first);
                next
            })
        });
        c.bench_function(&format!("reversi/random game {n}x{n}"), |b| {
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            b.iter(|| random_game(n, &mut rng))
        });
        let pop = population(n);
        assert_eq!(pop.len(), POPULATION);
        c.bench_function(&format!("reversi/opponent decision {n}x{n} midgame"), |b| {
            b.iter(|| pop[0].choose(black_box(&mid), Rule::default()))
        });
    }
}

/// Move generation and play over a whole tree: the bitboards against the
/// tests' plain grid (a `Vec` of rows, every direction walked), same counts.
fn perft_against_plain(c: &mut Criterion) {
    for n in [7, 12] {
        let start = Board::start(n).unwrap();
        let plain = Plain::of(&start);
        let depth = 4;
        assert_eq!(start.perft(depth), plain.perft(depth), "the same tree");
        let mut group = c.benchmark_group(format!("reversi/perft {depth} {n}x{n} start"));
        group.bench_function("bitboards", |b| b.iter(|| black_box(&start).perft(depth)));
        group.bench_function("plain grid", |b| b.iter(|| black_box(&plain).perft(depth)));
        group.finish();
    }
}

fn ga(c: &mut Criterion) {
    for n in [7, 12] {
        let pop = population(n);
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

fn players(c: &mut Criterion) {
    // `best` learns across a game's decisions: benches/reversi_best.rs times whole games.
    for name in ["weights", "paranoid", "brs"] {
        for n in MIN_N..=MAX_N {
            let mid = midgame(n);
            let mut player = agent(name, ChaCha8Rng::seed_from_u64(4)).unwrap();
            c.bench_function(&format!("reversi/decision {name} {n}x{n} midgame"), |b| {
                b.iter(|| player.choose(black_box(&mid)))
            });
        }
    }
}

criterion_group! {
    name = reversi;
    config = Criterion::default().sample_size(10);
    targets = rules, perft_against_plain, ga, players
}
criterion_main!(reversi);
