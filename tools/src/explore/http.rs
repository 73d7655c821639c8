//! The explore server's HTTP: a request read with capped sizes and a read
//! timeout, routed to the API, answered with `Connection: close`; a fixed
//! pool of threads takes connections from a bounded queue.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Value, json};

use super::Server;

/// Threads answering requests.
const WORKERS: usize = 4;
/// Connections accepted but not yet taken by a thread.
const QUEUE: usize = 64;
/// The most bytes of a request's line and headers.
const MAX_HEAD: usize = 8 << 10;
/// The most bytes of a request's body.
const MAX_BODY: usize = 256 << 10;
/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

const PAGE: &str = include_str!("page.html");

/// Accepts connections forever, each answered by one of the pool's threads.
pub fn serve(listener: TcpListener, server: Arc<Server>) {
    let (send, receive) = sync_channel::<TcpStream>(QUEUE);
    let receive = Arc::new(Mutex::new(receive));
    for _ in 0..WORKERS {
        let (receive, server) = (receive.clone(), server.clone());
        std::thread::spawn(move || work(&receive, &server));
    }
    for stream in listener.incoming().flatten() {
        if send.send(stream).is_err() {
            return;
        }
    }
}

fn work(receive: &Mutex<Receiver<TcpStream>>, server: &Arc<Server>) {
    loop {
        let next = receive.lock().unwrap_or_else(|e| e.into_inner()).recv();
        let Ok(stream) = next else { return };
        // A client that goes away mid-answer is no concern of the others.
        let _ = answer(stream, server);
    }
}

/// A request, as far as the API needs it.
struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

/// An answer: the status, its content type and body.
type Reply = (u16, &'static str, Vec<u8>);

fn answer(stream: TcpStream, server: &Arc<Server>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let reply = match read_request(&mut reader) {
        Ok(request) => route(&request, server),
        Err(reply) => reply,
    };
    write_reply(stream, reply)
}

fn bad(status: u16, reason: impl std::fmt::Display) -> Reply {
    let body = json!({ "error": reason.to_string() }).to_string();
    (status, "application/json", body.into_bytes())
}

fn read_request(reader: &mut impl BufRead) -> Result<Request, Reply> {
    let mut head = Vec::new();
    loop {
        let mut line = Vec::new();
        let read = reader
            .take((MAX_HEAD - head.len()) as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| bad(408, format!("the request could not be read: {e}")))?;
        if read == 0 || head.len() + line.len() > MAX_HEAD {
            return Err(bad(
                431,
                format!("the request's head is over {MAX_HEAD} bytes or cut short"),
            ));
        }
        head.extend_from_slice(&line);
        if line == b"\r\n" || line == b"\n" {
            break;
        }
    }
    let head = String::from_utf8(head).map_err(|_| bad(400, "the request's head is not UTF-8"))?;
    let mut lines = head.lines();
    let first = lines.next().unwrap_or_default();
    let mut words = first.split(' ');
    let (method, path) = (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    );
    let mut length = 0usize;
    for line in lines {
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value
                .trim()
                .parse()
                .map_err(|_| bad(400, "a bad Content-Length"))?;
        }
    }
    if length > MAX_BODY {
        return Err(bad(413, format!("the body is over {MAX_BODY} bytes")));
    }
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .map_err(|e| bad(400, format!("the body could not be read: {e}")))?;
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        body,
    })
}

/// `POST /api/position`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PositionQuery {
    /// The start, in the game's log JSON; the game's usual start when absent.
    start: Option<Value>,
    /// The moves from it, in the game's notation.
    #[serde(default)]
    moves: Vec<String>,
    /// Whether the optimal line is wanted.
    #[serde(default)]
    line: bool,
}

fn route(request: &Request, server: &Arc<Server>) -> Reply {
    // The query string (the page's own state) is the page's business, not the server's.
    let path = request.path.split(['?', '#']).next().unwrap_or_default();
    let deadline = Instant::now() + server.time_limit;
    match (request.method.as_str(), path) {
        ("GET", "/") => (200, "text/html; charset=utf-8", PAGE.as_bytes().to_vec()),
        ("GET", "/api/game") => ok(&json!({
            "game": server.game,
            "log_games": server.log.len(),
            "time_limit_s": server.time_limit.as_secs_f64(),
            "players": server.players,
            "variants": server.analyst.variant_fields(),
            "board_syntax": server.analyst.board_syntax(),
        })),
        ("POST", "/api/setup") => setup(&request.body, server),
        ("POST", "/api/variant") => {
            let params: Value = match serde_json::from_slice(&request.body) {
                Ok(params) => params,
                Err(e) => return bad(400, format!("not a variant's parameters: {e}")),
            };
            match server.analyst.variant(&params) {
                Ok(start) => ok(&json!({ "start": start })),
                Err(e) => bad(422, e),
            }
        }
        ("POST", "/api/reply") => reply(&request.body, server),
        ("POST", "/api/position") => {
            let query: PositionQuery = match serde_json::from_slice(&request.body) {
                Ok(query) => query,
                Err(e) => return bad(400, format!("not a position request: {e}")),
            };
            let found =
                server
                    .analyst
                    .position(query.start.as_ref(), &query.moves, query.line, deadline);
            match found {
                Ok(found) => ok(&found),
                Err(e) => bad(422, e),
            }
        }
        ("POST", "/api/analyze") => analyze(&request.body, server, deadline),
        ("GET", p) if p.starts_with("/api/log/") => {
            let k: Option<usize> = p["/api/log/".len()..].parse().ok();
            match k.and_then(|k| server.log.get(k)) {
                Some(line) => analyze(line.as_bytes(), server, deadline),
                None => bad(
                    404,
                    format!("no game {} in the log", &p["/api/log/".len()..]),
                ),
            }
        }
        ("GET" | "POST", _) => bad(404, "no such page"),
        _ => bad(405, "only GET and POST"),
    }
}

/// `POST /api/setup`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetupQuery {
    /// The board, as `tabula query GAME` reads it.
    board: String,
    /// The variant's parameters (as `POST /api/variant` takes them); the usual one when absent.
    variant: Option<Value>,
}

/// The start of a board typed in the game's board syntax; a board that does
/// not read is a bad request, named.
fn setup(body: &[u8], server: &Server) -> Reply {
    let query: SetupQuery = match serde_json::from_slice(body) {
        Ok(query) => query,
        Err(e) => return bad(400, format!("not a set-up request: {e}")),
    };
    match server.analyst.setup(&query.board, query.variant.as_ref()) {
        Ok(start) => ok(&json!({ "start": start })),
        // One line: a board's reason may quote a line break it was sent.
        Err(e) => bad(400, e.to_string().replace(['\n', '\r'], " ")),
    }
}

/// `POST /api/reply`'s body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplyQuery {
    /// The start, as in a position request.
    start: Option<Value>,
    /// The moves from it.
    #[serde(default)]
    moves: Vec<String>,
    /// The built-in player.
    player: String,
    /// Its random choices' seed.
    #[serde(default)]
    seed: u64,
}

/// Players choosing at once, at most, by default: one per worker, and two
/// more that run on past their request's time limit.
pub const CHOOSING: usize = WORKERS + 2;

/// The move a built-in player plays. It chooses on a thread of its own, so
/// that the answer waits no longer than the time limit even for a player
/// that takes longer; at most `max_choosing` ([`CHOOSING`]) such threads run at once.
fn reply(body: &[u8], server: &Arc<Server>) -> Reply {
    let query: ReplyQuery = match serde_json::from_slice(body) {
        Ok(query) => query,
        Err(e) => return bad(400, format!("not a reply request: {e}")),
    };
    if server.choosing.fetch_add(1, Ordering::SeqCst) >= server.max_choosing {
        server.choosing.fetch_sub(1, Ordering::SeqCst);
        return bad(
            503,
            "players are still choosing past the time limit; try later",
        );
    }
    let deadline = Instant::now() + server.time_limit;
    let (send, receive) = sync_channel(1);
    let (thread_server, player) = (server.clone(), query.player.clone());
    std::thread::spawn(move || {
        let found = thread_server.analyst.reply(
            query.start.as_ref(),
            &query.moves,
            (&query.player, query.seed),
            deadline,
        );
        let _ = send.send(found);
        thread_server.choosing.fetch_sub(1, Ordering::SeqCst);
    });
    match receive.recv_timeout(server.time_limit + REPLY_SLACK) {
        Ok(Ok(mv)) => ok(&json!({ "mv": mv, "player": player })),
        Ok(Err(e)) => bad(422, e),
        Err(_) => bad(
            503,
            format!(
                "player {} did not choose within the time limit",
                tabula_verify::wire::short(&player)
            ),
        ),
    }
}

/// What a reply may take past the time limit (the thread's start, the answer's walk).
const REPLY_SLACK: Duration = Duration::from_millis(200);

/// A logged game (one line of a log) with analyze's marks, its start and moves.
fn analyze(body: &[u8], server: &Server, deadline: Instant) -> Reply {
    let line: tabula_verify::record::GameLine = match serde_json::from_slice(body) {
        Ok(line) => line,
        Err(e) => return bad(400, format!("not a game log line: {e}")),
    };
    if line.game != server.game {
        return bad(
            422,
            format!(
                "a game of {}, not of {}",
                tabula_verify::wire::short(&line.game),
                server.game
            ),
        );
    }
    match server.analyst.game(&line, deadline) {
        Ok(analysis) => {
            let moves: Vec<&str> = line.moves.iter().map(|m| m.mv.as_str()).collect();
            ok(&json!({ "start": line.start, "moves": moves, "analysis": analysis }))
        }
        Err(e) => bad(422, e),
    }
}

fn ok(value: &impl serde::Serialize) -> Reply {
    let body = serde_json::to_vec(value).expect("answers serialize");
    (200, "application/json", body)
}

fn write_reply(mut stream: TcpStream, (status, kind, body): Reply) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(&body)?;
    stream.flush()?;
    // What the client still sends (a body refused unread) is drained, up to a
    // bound: closing with unread input would reset the connection, and the
    // client might lose the answer.
    stream.shutdown(std::net::Shutdown::Write)?;
    std::io::copy(&mut (&stream).take(MAX_DRAIN), &mut std::io::sink())?;
    Ok(())
}

/// The most bytes drained after an answer.
const MAX_DRAIN: u64 = 4 << 20;
