//! Ioiwari: one whole game of the table player against the referee, in process.

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::ioiwari::{Board, Match};
use tabula_tables::ioiwari::IoiwariTable;
use tabula_verify::arena::play_game;
use tabula_verify::ioiwari::{IoiWire, OptimalAgent};
use tabula_verify::process::{Peer, PlayerError};
use tabula_verify::protocol::Reply;
use tabula_verify::seat::{Clock, Local, Player, Remote};
use tabula_verify::tournament::{Purpose, stream};
use tabula_verify::wire::Session;

/// Player 1 answering the referee's lines in process, as `tabula play ioiwari` does over pipes.
struct InProcessPlayer {
    session: Session<Match, IoiWire, OptimalAgent>,
    answers: VecDeque<String>,
}

impl Peer for InProcessPlayer {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        match self.session.handle(line).expect("a good request") {
            Reply::Line(answer) | Reply::Last(Some(answer)) => self.answers.push_back(answer),
            Reply::Silent | Reply::Last(None) => {}
        }
        Ok(())
    }

    fn recv_line(&mut self, _deadline: Option<Instant>) -> Result<String, PlayerError> {
        self.answers.pop_front().ok_or(PlayerError::ClosedOutput)
    }
}

fn game(table: &Arc<IoiwariTable>, first: &mut dyn Player<Match>, start: Board) -> i32 {
    let mut second = Local(OptimalAgent::new(table.clone()));
    let mut players: Vec<&mut dyn Player<Match>> = vec![first, &mut second];
    let mut clocks = vec![Clock::default(), Clock::default()];
    let mut chance = stream(0, Purpose::Chance, 0, 0, 0);
    play_game(
        Match::new(start),
        &mut players,
        &[0, 1],
        &mut clocks,
        &mut chance,
    )
    .end
    .difference()
}

fn whole_game(c: &mut Criterion) {
    let table = Arc::new(IoiwariTable::in_memory());
    let start: Board = "4 3 2 4 2 3 2".parse().unwrap();
    c.bench_function("ioiwari_game_referee_dialogue_in_process", |b| {
        b.iter(|| {
            let player = InProcessPlayer {
                session: Session::new(IoiWire::default(), OptimalAgent::new(table.clone())),
                answers: VecDeque::new(),
            };
            let mut remote = Remote::new("in process", Box::new(player), IoiWire::default());
            game(&table, &mut remote, black_box(start))
        })
    });
    c.bench_function("ioiwari_game_agents_in_process", |b| {
        b.iter(|| {
            let mut first = Local(OptimalAgent::new(table.clone()));
            game(&table, &mut first, black_box(start))
        })
    });
}

criterion_group!(benches, whole_game);
criterion_main!(benches);
