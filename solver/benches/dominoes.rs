//! Dominoes speed: move generation, random games on the compact position,
//! perft on it against the referee's state in the same run, the exact
//! endgame solver and the budgeted chance search.
//!
//! Positions come from seeded random games, so every run measures the same ones.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::Game;
use tabula_solver::dominoes::search::{Budget, Endgame, Table, evaluate_moves, perft};
use tabula_solver::dominoes::{Deal, Match, Move, Position, Rules, Side, Tile, Tiles};

/// Positions met in seeded random games of `rules` (seat to move, not over).
fn positions(rules: Rules, games: usize, seed: u64) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::of(&Match::new(&Deal::random(rules, &mut rng)));
        while !pos.is_over() {
            out.push(pos);
            random_step(&mut pos, &mut rng);
        }
    }
    out
}

/// One move of a random game on the position (a draw hands out a random stock tile).
fn random_step(pos: &mut Position, rng: &mut ChaCha8Rng) {
    let moves = pos.moves();
    match *moves.choose(rng).expect("a move") {
        Move::Draw => {
            let tiles: arrayvec::ArrayVec<Tile, 45> = pos.stock.iter().collect();
            pos.play(Move::Drawn(*tiles.choose(rng).expect("a stock tile")));
        }
        mv => pos.play(mv),
    }
}

/// A stock-empty position with `tiles` tiles in hand in all, split at random, random ends.
fn endgame_position(rng: &mut ChaCha8Rng, n: u8, tiles: usize) -> Position {
    loop {
        let all: Vec<Tile> = Tiles::full(n).iter().collect();
        let mut pos = Position {
            hands: [Tiles::EMPTY; 2],
            stock: Tiles::EMPTY,
            left: rng.random_range(0..n),
            right: rng.random_range(0..n),
            mover: 0,
        };
        for (i, &t) in all.sample(rng, tiles).enumerate() {
            pos.hands[i % 2].insert(t);
        }
        if !pos.is_over() {
            return pos;
        }
    }
}

fn move_generation(c: &mut Criterion) {
    let positions = positions(Rules::new(9, 7).unwrap(), 100, 1);
    let mut group = c.benchmark_group("dominoes");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function("moves_n9h7", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| black_box(p).moves().len())
                .sum::<usize>()
        })
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("random_game_n9h7", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let rules = Rules::new(9, 7).unwrap();
        b.iter(|| {
            let mut pos = Position::of(&Match::new(&Deal::random(rules, &mut rng)));
            while !pos.is_over() {
                random_step(&mut pos, &mut rng);
            }
            pos.score()
        })
    });
    group.finish();
}

/// Leaves of the game tree on the referee's state (`Match`: hands as lists,
/// moves through the general `Game` trait, a clone per move), counted as
/// `search::perft` counts them: at equal ends a tile's right-end placement
/// is the left one's twin, walked once and counted twice, so both walk the
/// same tree.
fn match_perft(game: &Match) -> u64 {
    if game.is_over() {
        return 1;
    }
    let (left, right) = game.ends();
    let after = |mv| {
        let mut next = game.clone();
        next.apply(mv);
        match_perft(&next)
    };
    game.moves()
        .iter()
        .map(|&mv| match mv {
            Move::Place(_, Side::Right) if left == right => 0,
            Move::Place(..) if left == right => 2 * after(mv),
            _ => after(mv),
        })
        .sum()
}

/// Whole game trees of small deals: the compact position against the referee's state.
fn perft_against_match(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(2009);
    let deals: Vec<Deal> = (0..4)
        .map(|_| Deal::random(Rules::new(5, 4).unwrap(), &mut rng))
        .collect();
    let games: Vec<Match> = deals.iter().map(Match::new).collect();
    let positions: Vec<Position> = games.iter().map(Position::of).collect();
    let fast: u64 = positions.iter().map(perft).sum();
    assert_eq!(
        fast,
        games.iter().map(match_perft).sum::<u64>(),
        "the same trees"
    );
    let mut group = c.benchmark_group(format!("dominoes_perft_n5h4_x4 ({fast} leaves)"));
    group.sample_size(10);
    group.bench_function("position", |b| {
        b.iter(|| positions.iter().map(|p| perft(black_box(p))).sum::<u64>())
    });
    group.bench_function("referee match", |b| {
        b.iter(|| games.iter().map(|g| match_perft(black_box(g))).sum::<u64>())
    });
    group.finish();
}

fn endgame(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_endgame");
    group.sample_size(10);
    for tiles in [10usize, 14, 18, 22] {
        let mut rng = ChaCha8Rng::seed_from_u64(tiles as u64);
        let batch: Vec<Position> = (0..10)
            .map(|_| endgame_position(&mut rng, 9, tiles))
            .collect();
        // Small enough that clearing it costs little next to the solves.
        let mut solver = Endgame::new(16);
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("solve_x10_n9", tiles),
            &batch,
            |b, batch| {
                b.iter(|| {
                    solver.clear();
                    batch.iter().map(|p| solver.solve(p).value()).sum::<i32>()
                })
            },
        );
    }
    group.finish();
}

fn chance(c: &mut Criterion) {
    let mut group = c.benchmark_group("dominoes_chance");
    group.sample_size(10);
    for (n, h) in [(5, 7), (7, 5), (9, 7)] {
        let rules = Rules::new(n, h).unwrap();
        // Openings: the first decision of each game.
        let batch: Vec<Position> = {
            let mut rng = ChaCha8Rng::seed_from_u64(u64::from(n));
            (0..10)
                .map(|_| Position::of(&Match::new(&Deal::random(rules, &mut rng))))
                .collect()
        };
        let mut table = Table::new(16);
        group.throughput(Throughput::Elements(batch.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("opening_20k_nodes_x10", format!("n{n}h{h}")),
            &batch,
            |b, batch| {
                b.iter(|| {
                    table.clear();
                    batch
                        .iter()
                        .map(|p| evaluate_moves(p, &Budget::nodes(20_000), &mut table).depth)
                        .sum::<u8>()
                })
            },
        );
    }
    group.finish();
}

criterion_group!(
    benches,
    move_generation,
    perft_against_match,
    endgame,
    chance
);
criterion_main!(benches);
