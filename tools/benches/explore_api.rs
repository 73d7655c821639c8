//! A click on `tabula explore`'s board, end to end through its HTTP API:
//! `POST /api/position` of an Ioiwari position (the IOI sample board, a few
//! moves in) with its table file given, answered with the position's value
//! and every legal move's, over a new loopback connection each time, as the
//! page sends it. The server is the built binary (`tabula explore ioiwari
//! --table FILE --port 0`), the table built first by `tabula build ioiwari`.
//! Run: `cargo bench -p tabula-tools --bench explore_api`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

/// The server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

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
    let tabula = env!("CARGO_BIN_EXE_tabula");
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("ioiwari.tab");
    let built = Command::new(tabula)
        .args(["build", "ioiwari", "-o"])
        .arg(&table)
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let mut child = Command::new(tabula)
        .args(["explore", "ioiwari", "--port", "0", "--table"])
        .arg(&table)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let server = Server(child);
    let address = first
        .split("http://")
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches('/')
        .to_string();
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
