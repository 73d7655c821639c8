//! Times exact Tothello solves on positions from self-play (not random play).
//!
//! `cargo run --release -p tabula-solver --example tothello_endgames -- [EMPTIES] [GAMES]`
//! plays GAMES games (4 seeded random placements, then the depth-2 solver for both
//! sides) down to EMPTIES empty squares, solves each exactly with a cleared
//! 2^22-entry table, and prints each time and the worst.

use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::tothello::{Move, Position, Solver};

/// Argument `name`, `default` when absent; a one-line error and status 2 when it is no count.
fn count<T: std::str::FromStr>(arg: Option<String>, name: &str, default: T) -> T {
    match arg.map(|a| a.parse().map_err(|_| a)) {
        None => default,
        Some(Ok(n)) => n,
        Some(Err(a)) => {
            eprintln!("error: {name} '{a}' is not a count");
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let empties: u32 = count(args.next(), "EMPTIES", 14);
    let games: u64 = count(args.next(), "GAMES", 12);
    let mut solver = Solver::new(22);
    let mut player = Solver::new(18);
    let (mut worst, mut total, mut solved) = (0.0f64, 0.0, 0);
    for game in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(game);
        let mut pos = Position::start();
        for _ in 0..4 {
            let empty = pos.board.empty();
            let mut bits = empty;
            for _ in 0..rng.random_range(0..empty.count_ones()) {
                bits &= bits - 1;
            }
            pos.apply(Move::Place(bits.trailing_zeros() as u8));
        }
        while pos.empties() > empties && !pos.is_finished() {
            let mv = player.choose(&pos, 2, 0).expect("not over");
            pos.apply(mv);
        }
        if pos.is_finished() {
            continue;
        }
        solver.clear();
        let start = Instant::now();
        let result = solver.solve(&pos);
        let seconds = start.elapsed().as_secs_f64();
        worst = worst.max(seconds);
        total += seconds;
        solved += 1;
        println!(
            "game {game}: {} empties, value {:+}, {} nodes, {:.3} s",
            pos.empties(),
            result.value,
            result.nodes,
            seconds
        );
    }
    println!(
        "{solved} solves: mean {:.3} s, worst {worst:.3} s",
        total / f64::from(solved.max(1))
    );
}
