//! `tabula explore`: the API on loopback answers 64 clients at once, bad
//! requests get a 4xx with a one-line reason, and it goes on serving.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::tabula;
use serde_json::Value;

fn start(args: &[&str]) -> common::Explorer {
    common::explore(args)
}

/// Sends `request` raw; returns the status and the body.
fn send(address: &str, request: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_string();
    (status, body)
}

fn post(address: &str, path: &str, body: &str) -> (u16, String) {
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    send(address, request.as_bytes())
}

#[test]
fn sixty_four_clients_at_once_and_bad_requests_get_4xx() {
    let server = start(&["ioiwari"]);
    let address = server.1.clone();
    let clients: Vec<_> = (0..64)
        .map(|k| {
            let address = address.clone();
            std::thread::spawn(move || {
                let moves = ["3", "4", "7"][..k % 4].iter().map(|m| format!("\"{m}\""));
                let body = format!("{{\"moves\":[{}]}}", moves.collect::<Vec<_>>().join(","));
                let (status, body) = post(&address, "/api/position", &body);
                assert_eq!(status, 200, "{body}");
                let found: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(found["history"].as_array().unwrap().len(), k % 4 + 1);
                assert!(found["value"].is_i64(), "{body}");
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let one_line = |(status, body): (u16, String), want: u16| {
        assert_eq!(status, want, "{body}");
        let reason: Value = serde_json::from_str(&body).unwrap();
        assert!(!reason["error"].as_str().unwrap().contains('\n'), "{body}");
    };
    one_line(post(&address, "/api/position", "{\"moves\":[\"9\"]}"), 422);
    one_line(post(&address, "/api/position", "not json"), 400);
    one_line(post(&address, "/api/nothing", "{}"), 404);
    let huge = format!("{{\"moves\":[\"{}\"]}}", "1".repeat(300 << 10));
    one_line(post(&address, "/api/position", &huge), 413);
    let long_head = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(10 << 10));
    one_line(send(&address, long_head.as_bytes()), 431);
    // It reads no path it is sent.
    one_line(
        send(&address, b"GET /../../etc/passwd HTTP/1.1\r\n\r\n"),
        404,
    );
    one_line(send(&address, b"DELETE / HTTP/1.1\r\n\r\n"), 405);
    // And still serves the page, with nothing fetched from elsewhere.
    let (status, page) = send(&address, b"GET / HTTP/1.1\r\n\r\n");
    assert_eq!(status, 200);
    assert!(page.contains("<script>") && !page.contains("http://") && !page.contains("https://"));
}

#[test]
fn a_logged_game_opens_with_its_marks() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let out = tabula()
        .args([
            "referee", "nim", "--agent", "random", "--heaps", "5,6", "--games", "1", "--log",
        ])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success());
    let server = start(&["nim", "--log", log.to_str().unwrap()]);
    let (status, body) = send(&server.1, b"GET /api/log/1 HTTP/1.1\r\n\r\n");
    assert_eq!(status, 200, "{body}");
    let game: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(game["start"]["heap"], 6);
    assert_eq!(game["analysis"]["marks"][0]["before"], 1);
    let (status, _) = send(&server.1, b"GET /api/log/2 HTTP/1.1\r\n\r\n");
    assert_eq!(status, 404);
}

fn get(address: &str, path: &str) -> (u16, String) {
    send(address, format!("GET {path} HTTP/1.1\r\n\r\n").as_bytes())
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap()
}

/// The string `field` of each object of the list `list`.
fn strings<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    let list = list.as_array().unwrap().iter();
    list.map(|item| item[field].as_str().unwrap()).collect()
}

#[test]
fn a_kalah_variant_is_chosen_and_the_optimal_player_replies() {
    let server = start(&["kalah"]);
    let (status, body) = get(&server.1, "/api/game");
    assert_eq!(status, 200, "{body}");
    let game = json(&body);
    let names = strings(&game["variants"], "name");
    assert_eq!(names, ["pits", "seeds", "capture", "ending"]);
    assert!(
        game["players"]
            .as_array()
            .unwrap()
            .contains(&"optimal".into())
    );
    let params = r#"{"pits":3,"seeds":2,"capture":"non-empty","ending":"mover-stuck"}"#;
    let (status, body) = post(&server.1, "/api/variant", params);
    assert_eq!(status, 200, "{body}");
    let start = json(&body)["start"].clone();
    assert_eq!(start["rules"]["capture"], "non-empty");
    assert_eq!(start["rules"]["pits"], 3);
    let ask = serde_json::json!({ "start": start, "moves": [] }).to_string();
    let (status, body) = post(&server.1, "/api/position", &ask);
    assert_eq!(status, 200, "{body}");
    let position = json(&body);
    let value = position["value"].as_i64().unwrap();
    let best: Vec<&str> = position["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["value"].as_i64() == Some(value))
        .map(|m| m["mv"].as_str().unwrap())
        .collect();
    let ask = serde_json::json!({ "start": start, "player": "optimal" }).to_string();
    let (status, body) = post(&server.1, "/api/reply", &ask);
    assert_eq!(status, 200, "{body}");
    assert_eq!(json(&body)["mv"].as_str(), best.first().copied(), "{body}");
    let ask = serde_json::json!({ "start": start, "player": "greedy", "seed": 3 }).to_string();
    let (status, body) = post(&server.1, "/api/reply", &ask);
    assert_eq!(status, 200, "{body}");
    // A player the game has not, and a variant it has not, get one line.
    let ask = serde_json::json!({ "start": start, "player": "nobody" }).to_string();
    let (status, body) = post(&server.1, "/api/reply", &ask);
    assert_eq!(status, 422, "{body}");
    assert!(
        json(&body)["error"]
            .as_str()
            .unwrap()
            .contains("no built-in player 'nobody'")
    );
    let (status, body) = post(&server.1, "/api/variant", r#"{"pits":3,"seeds":2}"#);
    assert_eq!(status, 422, "{body}");
}

#[test]
fn reversi_positions_show_what_the_built_in_players_play() {
    let server = start(&["reversi"]);
    let board = tabula_solver::reversi::Board::start(7).unwrap();
    let start = serde_json::json!({ "n": 7, "rows": board.rows(), "mover": 0 });
    let ask = serde_json::json!({ "start": start }).to_string();
    let (status, body) = post(&server.1, "/api/position", &ask);
    assert_eq!(status, 200, "{body}");
    let position = json(&body);
    let legal = strings(&position["legal"], "mv");
    let hints = &position["hints"];
    let rated = strings(&hints["moves"], "mv");
    assert_eq!(rated, legal, "{body}");
    let players = hints["players"].as_array().unwrap();
    assert_eq!(players.len(), 5, "{body}");
    for player in players {
        assert!(legal.contains(&player["mv"].as_str().unwrap()), "{player}");
    }
    // Any built-in player can be played against.
    let ask = serde_json::json!({ "start": start, "player": "brs" }).to_string();
    let (status, body) = post(&server.1, "/api/reply", &ask);
    assert_eq!(status, 200, "{body}");
    let brs = players.iter().find(|p| p["player"] == "brs").unwrap();
    assert_eq!(json(&body)["mv"], brs["mv"]);
}

/// `POST /api/setup` of `board`, in the variant `variant` when given.
fn setup(address: &str, board: &str, variant: Option<Value>) -> (u16, Value) {
    let mut ask = serde_json::json!({ "board": board });
    if let Some(variant) = variant {
        ask["variant"] = variant;
    }
    let (status, body) = post(address, "/api/setup", &ask.to_string());
    (status, json(&body))
}

/// The position of `start` as the API values it.
fn position_of(address: &str, start: &Value) -> Value {
    let ask = serde_json::json!({ "start": start }).to_string();
    let (status, body) = post(address, "/api/position", &ask);
    assert_eq!(status, 200, "{body}");
    json(&body)
}

/// `tabula query ARGS --batch` of one board: its value.
fn query_value(args: &[&str], board: &str) -> Value {
    let out = common::run_with_input(args, &format!("{board}\n"));
    assert!(out.status.success(), "{}", common::stderr(&out));
    json(common::stdout(&out).lines().next().unwrap())["value"].clone()
}

#[test]
fn a_board_typed_in_each_games_query_syntax_sets_up_its_position() {
    let reversi = tabula_solver::reversi::Board::start(7)
        .unwrap()
        .rows()
        .join("/");
    // The game, a good board, a malformed one and what its reason names.
    let cases = [
        (
            "kalah",
            "3 0 3 3 / 3 3 3 0",
            "3 3 3 / 3 3 3",
            "bad board '3 3 3 / 3 3 3'",
        ),
        ("ioiwari", "3 3 3 3 3 3 2", "3 3 x", "bad board '3 3 x'"),
        (
            "tothello",
            "D4 E5 / D5 E4 / Red",
            "D4 / Red",
            "expected RED / BLACK / TURN",
        ),
        (
            "tonga",
            ".... / .BW. / .WB. / ....",
            ".... / / .... / ....",
            "row 2 of 4 is empty",
        ),
        ("reversi", reversi.as_str(), "..1/...", "bad board"),
    ];
    for (game, good, malformed, named) in cases {
        let server = start(&[game]);
        let info = json(&get(&server.1, "/api/game").1);
        assert!(info["board_syntax"].is_string(), "{game}: {info}");
        let (status, answer) = setup(&server.1, good, None);
        assert_eq!(status, 200, "{game}: {answer}");
        let position = position_of(&server.1, &answer["start"]);
        assert!(!position["legal"].as_array().unwrap().is_empty(), "{game}");
        let (status, answer) = setup(&server.1, malformed, None);
        assert_eq!(status, 400, "{game}: {answer}");
        let reason = answer["error"].as_str().unwrap();
        assert!(
            reason.contains(named) && !reason.contains('\n'),
            "{game}: {reason}"
        );
    }
    // Kalah and Ioiwari boards are valued as `tabula query` values them.
    let server = start(&["kalah"]);
    let (_, answer) = setup(&server.1, "3 0 3 3 / 3 3 3 0", None);
    let position = position_of(&server.1, &answer["start"]);
    let want = query_value(
        &["query", "kalah", "--batch", "--pits", "4"],
        "3 0 3 3 / 3 3 3 0",
    );
    assert_eq!(position["value"], want, "{position}");
    // In a variant the page names: its pits and rules.
    let variant = serde_json::json!({"pits": 3, "seeds": 2, "capture": "non-empty", "ending": "after-any-move"});
    let (status, answer) = setup(&server.1, "2 0 3 / 2 2 1", Some(variant));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["start"]["rules"]["pits"], 3);
    let server = start(&["ioiwari"]);
    let (_, answer) = setup(&server.1, "3 3 3 3 3 3 2", None);
    let position = position_of(&server.1, &answer["start"]);
    let want = query_value(&["query", "ioiwari", "--batch"], "3 3 3 3 3 3 2");
    assert_eq!(position["value"], want, "{position}");
    let ring = serde_json::json!({"board": "3 0 2 1 3", "cap": 3});
    let (status, answer) = setup(&server.1, "3 0 2 1 3", Some(ring));
    assert_eq!(
        (status, &answer["start"]["cap"]),
        (200, &3.into()),
        "{answer}"
    );
    // A game whose query reads no board says so.
    for game in ["nim", "dominoes"] {
        let server = start(&[game]);
        assert!(json(&get(&server.1, "/api/game").1)["board_syntax"].is_null());
        let (status, answer) = setup(&server.1, "5", None);
        assert_eq!(status, 400, "{answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("no board syntax")
        );
    }
}

#[test]
fn a_reply_when_every_player_is_busy_gets_a_503_and_the_server_goes_on() {
    // No player may choose at all: every reply finds them all busy, at once.
    let server = start(&["nim", "--max-choosing", "0"]);
    let (status, body) = post(&server.1, "/api/reply", r#"{"player":"optimal"}"#);
    assert_eq!(status, 503, "{body}");
    let reason = json(&body)["error"].as_str().unwrap().to_string();
    assert!(
        reason.contains("try later") && !reason.contains('\n'),
        "{reason}"
    );
    let (status, body) = post(&server.1, "/api/position", "{}");
    assert_eq!(status, 200, "{body}");
}
