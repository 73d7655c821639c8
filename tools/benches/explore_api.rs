//! A click on `tabula explore`'s board, end to end through its HTTP API:
//! `POST /api/position` of an Ioiwari position (the IOI sample board, a few
//! moves in) with its table file given, answered with the position's value
//! and every legal move's, over a new loopback connection each time, as the
//! page sends it. The server is the built binary (`tabula explore ioiwari
//! --table FILE --port 0`), the table built first by `tabula build ioiwari`.
//! Run: `cargo bench -p tabula-tools --bench explore_api`.

use std::io::{Read, Write};
use std::net::TcpStream;

use criterion::{Criterion, criterion_group, criterion_main};

// The CLI tests' helpers: building a table and starting the server.
#[path = "../tests/common/mod.rs"]
mod common;

/// One request on a new connection; the answer's body.
fn post(address: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("the server listens");
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    answer.split_once("\r\n\r\n").unwrap().1.to_string()
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("ioiwari.tab");
    let table = table.to_str().unwrap();
    common::build("ioiwari", table);
    // Killed when dropped.
    let server = common::explore(&["ioiwari", "--table", table]);
    let address = server.1.clone();
    let body = r#"{"moves":["3","4","7"]}"#;
    // The answer is the position's and its moves' exact values.
    let answer: serde_json::Value =
        serde_json::from_str(&post(&address, "/api/position", body)).unwrap();
    assert!(answer["complete"].as_bool().unwrap(), "{answer}");
    c.bench_function("explore: a click on ioiwari with its table", |b| {
        b.iter(|| post(&address, "/api/position", body))
    });
    drop(server);
}

criterion_group!(benches, bench);
criterion_main!(benches);
