//! Tothello over the line protocol in process: request lines parsed and answered.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tabula_solver::tothello::{Move, Position, square_name};
use tabula_verify::protocol;
use tabula_verify::tothello::answer;

/// `bestMove` request lines for the positions of a fixed pseudo-random game set.
fn request_lines() -> Vec<String> {
    let mut lines = Vec::new();
    let mut state = 0x2001u64;
    for game in 0..20 {
        let mut pos = Position::start();
        while !pos.is_finished() {
            let names = |mask: u64| -> String {
                let squares: Vec<String> = (0..64u8)
                    .filter(|&s| mask >> s & 1 == 1)
                    .map(square_name)
                    .collect();
                format!("{} {}", squares.len(), squares.join(" "))
            };
            lines.push(format!(
                "bestMove {} {} {}",
                names(pos.board.red),
                names(pos.board.black),
                pos.to_move
            ));
            // A simple LCG picks the next square, so the set needs no rand.
            state = state.wrapping_mul(6364136223846793005).wrapping_add(game);
            let empty = pos.board.empty();
            let mut bits = empty;
            for _ in 0..(state >> 33) % u64::from(empty.count_ones()) {
                bits &= bits - 1;
            }
            pos.apply(Move::Place(bits.trailing_zeros() as u8));
        }
    }
    lines
}

fn serve_throughput(c: &mut Criterion) {
    let lines = request_lines();
    let input = lines.join("\n") + "\n";
    let mut group = c.benchmark_group("tothello_protocol");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("answer_lines", |b| {
        b.iter(|| {
            lines
                .iter()
                .map(|line| answer(black_box(line)).map_or(0, |a| a.len()))
                .sum::<usize>()
        })
    });
    group.bench_function("serve_to_buffer", |b| {
        b.iter(|| {
            let mut output = Vec::with_capacity(input.len());
            protocol::serve(black_box(input.as_bytes()), &mut output, answer).unwrap();
            output.len()
        })
    });
    group.finish();
}

criterion_group!(benches, serve_throughput);
criterion_main!(benches);
