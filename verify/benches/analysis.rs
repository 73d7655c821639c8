//! `tabula analyze`'s work on a 1,000-game Ioiwari log: every logged move
//! replayed and valued (the log: the official results table's games, as
//! `tabula referee ioiwari --all --log` writes them, cut to 1,000).
//! Run: `cargo bench -p tabula-verify --bench analysis`.

use std::hint::black_box;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tabula_solver::ioiwari::instances;
use tabula_tables::ioiwari::IoiwariTable;
use tabula_verify::ioiwari::results_table;
use tabula_verify::record::{GameLine, GameLog, log_lines};

/// A writer into a shared buffer.
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn log_of_1000_games() -> Vec<GameLine> {
    let buffer = Arc::new(Mutex::new(Vec::new()));
    let log = GameLog::to_writer(Box::new(Shared(buffer.clone())));
    let table = Arc::new(IoiwariTable::in_memory());
    results_table(&instances(), &table, 20, 1, &|_| {}, &log);
    let text = String::from_utf8(buffer.lock().unwrap().clone()).unwrap();
    let lines: Vec<GameLine> = log_lines(&text).map(Result::unwrap).take(1000).collect();
    assert_eq!(lines.len(), 1000);
    lines
}

fn bench(c: &mut Criterion) {
    let lines = log_of_1000_games();
    let analyst = tabula_verify::ioiwari::analysis::analyst(&[]).unwrap();
    c.bench_function("analyze 1000 ioiwari games", |b| {
        b.iter(|| {
            let deadline = Instant::now() + Duration::from_secs(10);
            for line in &lines {
                black_box(analyst.game(line, deadline).unwrap());
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
