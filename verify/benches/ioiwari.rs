//! Ioiwari: one whole game of the table player against the referee, in process.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::ioiwari::{Board, parse_label};
use tabula_tables::ioiwari::IoiwariTable;
use tabula_verify::ioiwari::{OptimalAgent, play_game, referee_game};
use tabula_verify::process::{Peer, PlayerError};

/// Player 1 answering the referee's lines in process, as `tabula play ioiwari` does over pipes.
struct InProcessPlayer<'a> {
    table: &'a IoiwariTable,
    board: Option<Board>,
    answers: VecDeque<String>,
}

impl InProcessPlayer<'_> {
    fn move_now(&mut self) {
        let board = self.board.as_mut().expect("board received");
        if let Some(pit) = self.table.best_move(board) {
            board.sow(pit);
            self.answers.push_back((pit + 1).to_string());
        }
    }
}

impl Peer for InProcessPlayer<'_> {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        match self.board.as_mut() {
            None => self.board = Some(line.parse().expect("board line")),
            Some(board) => {
                board.sow(parse_label(line).expect("pit label"));
            }
        }
        self.move_now();
        Ok(())
    }

    fn recv_line(&mut self, _deadline: Option<Instant>) -> Result<String, PlayerError> {
        self.answers.pop_front().ok_or(PlayerError::ClosedOutput)
    }
}

fn whole_game(c: &mut Criterion) {
    let table = IoiwariTable::in_memory();
    let start: Board = "4 3 2 4 2 3 2".parse().unwrap();
    c.bench_function("ioiwari_game_referee_dialogue_in_process", |b| {
        b.iter(|| {
            let mut player = InProcessPlayer {
                table: &table,
                board: None,
                answers: VecDeque::new(),
            };
            referee_game(black_box(start), &table, &mut player, None, &mut |_| {})
        })
    });
    c.bench_function("ioiwari_game_agents_in_process", |b| {
        b.iter(|| {
            play_game(
                black_box(start),
                &mut OptimalAgent::new(&table),
                &mut OptimalAgent::new(&table),
            )
        })
    });
}

criterion_group!(benches, whole_game);
criterion_main!(benches);
