use std::sync::{Arc, Mutex};
use std::time::Instant;

use tabula_solver::tonga::{Board, Cell, Colour};

use super::*;
use crate::process::PlayerError;
use crate::protocol::Reply;
use crate::wire::Session;

#[test]
fn signed_square_roots() {
    let total: f64 = [3, -4, 0, -1, 8].iter().map(|&x| signed_sqrt(x)).sum();
    let expected = 3f64.sqrt() - 2.0 + 0.0 - 1.0 + 8f64.sqrt();
    assert!((total - expected).abs() < 1e-12);
}

#[test]
fn games_fill_the_board_and_score_it() {
    for n in [6, 8] {
        for g in 0..4 {
            let greedy = Box::new(GreedyAgent::new(agent_rng(1, n, g)));
            let result = play_agent(n, g, 1, greedy);
            assert_eq!(result.moves.len(), n * n);
            assert_eq!(result.fault, None);
            let mut board = Board::new(n).unwrap();
            for &(colour, r, c) in &result.moves {
                let colour = Colour::from_letter(&colour.to_string()).unwrap();
                board.place(board.cell(r, c), colour);
            }
            let player = if result.player_first {
                Colour::Black
            } else {
                Colour::White
            };
            assert_eq!(result.player_points, board.points(player));
            assert_eq!(result.server_points, board.points(player.other()));
            assert_eq!(result.moves[0].0, 'B');
        }
    }
}

#[test]
fn same_seed_same_report() {
    let a = verify(
        &["random", "greedy"],
        &[6],
        3,
        9,
        &|_| {},
        &crate::record::GameLog::off(),
    );
    let b = verify(
        &["random", "greedy"],
        &[6],
        3,
        9,
        &|_| {},
        &crate::record::GameLog::off(),
    );
    assert_eq!(a.to_markdown(), b.to_markdown());
    assert_eq!(a.players[0].sizes[0].case_score.n, 3);
}

#[test]
fn the_server_baseline_and_best_play_whole_games() {
    let server = Box::new(ServerAgent::new(agent_rng(2, 6, 0)));
    let r = play_agent(6, 0, 2, server);
    assert_eq!(r.moves.len(), 36);
    let best = Box::new(BestAgent::new(BestSettings::default()));
    let r = play_agent(8, 0, 2, best);
    assert_eq!(r.moves.len(), 64);
    assert_eq!(r.fault, None);
}

/// A scripted peer: answers from a list, then closes.
struct Script {
    answers: Vec<String>,
    sent: Arc<Mutex<Vec<String>>>,
}

impl Script {
    fn new(answers: &[&str]) -> (Script, Arc<Mutex<Vec<String>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let script = Script {
            answers: answers.iter().map(|a| a.to_string()).collect(),
            sent: Arc::clone(&sent),
        };
        (script, sent)
    }
}

impl Peer for Script {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        self.sent.lock().unwrap().push(line.to_string());
        Ok(())
    }

    fn recv_line(&mut self, _deadline: Option<Instant>) -> Result<String, PlayerError> {
        if self.answers.is_empty() {
            return Err(PlayerError::ClosedOutput);
        }
        Ok(self.answers.remove(0))
    }
}

fn seed_where_player_starts(first: bool) -> u64 {
    (0..100).find(|&s| player_starts(s, 6, 0) == first).unwrap()
}

#[test]
fn invalid_answers_fill_the_board_for_the_server() {
    for (answer, why) in [
        ("7 0", "off the 6x6 board"),
        ("banana", "expected 'row col'"),
        ("1 x", "expected two numbers"),
    ] {
        let seed = seed_where_player_starts(true);
        let (peer, sent) = Script::new(&[answer]);
        let r = referee_game(6, 0, seed, Box::new(peer), None, None);
        assert!(r.fault.as_deref().unwrap().contains(why), "{:?}", r.fault);
        assert_eq!(r.player_points, 0);
        assert_eq!(r.server_points, 36 * 36);
        assert_eq!(*sent.lock().unwrap(), vec!["init 6 -1 -1", "end"]);
    }
    // An occupied square after the server started.
    let seed = seed_where_player_starts(false);
    let (peer, sent) = Script::new(&[]);
    let r = referee_game(6, 0, seed, Box::new(peer), None, None);
    // The shared seat says what it was doing: `waiting for an answer to '…': …`.
    assert!(
        r.fault
            .as_deref()
            .unwrap()
            .ends_with("player closed its output"),
        "{:?}",
        r.fault
    );
    let first = sent.lock().unwrap()[0].clone();
    let words: Vec<&str> = first.split(' ').collect();
    let occupied = format!("{} {}", words[2], words[3]);
    let (peer, _) = Script::new(&[&occupied]);
    let r = referee_game(6, 0, seed, Box::new(peer), None, None);
    assert!(r.fault.as_deref().unwrap().contains("occupied"));
    // The server's stone plus 35 filler stones make one isle.
    assert_eq!(r.server_points, 36 * 36);
}

/// Answers at once with the first empty square, unless the deadline has passed.
struct Punctual(Board);

impl Peer for Punctual {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        let words: Vec<&str> = line.split(' ').collect();
        match words[0] {
            "init" => {
                self.0 = Board::new(words[1].parse().unwrap()).unwrap();
                if words[2] != "-1" {
                    let cell = self
                        .0
                        .cell(words[2].parse().unwrap(), words[3].parse().unwrap());
                    self.0.place(cell, Colour::Black);
                }
            }
            "move" => {
                let cell = self
                    .0
                    .cell(words[1].parse().unwrap(), words[2].parse().unwrap());
                self.0.place(cell, Colour::White);
            }
            _ => {}
        }
        Ok(())
    }

    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(PlayerError::TimedOut);
        }
        let cell = self.0.empty().iter().next().unwrap() as Cell;
        // The colour does not matter to this peer: it only needs empty squares.
        self.0.place(cell, Colour::Black);
        let (r, c) = self.0.row_col(cell);
        Ok(format!("{r} {c}"))
    }
}

#[test]
fn the_time_budget_is_the_players_whole_game() {
    let peer = Punctual(Board::new(6).unwrap());
    let r = referee_game(6, 0, 4, Box::new(peer), Some(Duration::ZERO), None);
    // The shared seat adds context and the limit.
    assert!(
        r.fault
            .as_deref()
            .unwrap()
            .ends_with("player timed out (game limit of 0 s)"),
        "{:?}",
        r.fault
    );
    let peer = Punctual(Board::new(6).unwrap());
    let budget = Some(Duration::from_secs(600));
    let r = referee_game(6, 0, 4, Box::new(peer), budget, None);
    assert_eq!(r.fault, None);
    assert_eq!(r.moves.len(), 36);
}

type Served = Session<Position, TongaWire, Box<dyn Agent<Position>>>;

fn served(name: &str, rng: ChaCha8Rng) -> Served {
    Session::new(TongaWire::default(), agent(name, rng).unwrap())
}

/// One request to a session, its answer as text (silence is an error here).
fn ask(session: &mut Served, line: &str) -> Result<String, String> {
    match session.handle(line)? {
        Reply::Line(answer) | Reply::Last(Some(answer)) => Ok(answer),
        other => Err(format!("no answer: {other:?}")),
    }
}

#[test]
fn serve_session_plays_both_colours_and_rejects_nonsense() {
    let mut s = served("greedy", agent_rng(0, 6, 0));
    let first = ask(&mut s, "init 6 -1 -1").unwrap();
    let words: Vec<usize> = first.split(' ').map(|w| w.parse().unwrap()).collect();
    assert_eq!(words.len(), 2);
    assert!(
        ask(&mut s, &format!("move {first}"))
            .unwrap_err()
            .contains("occupied")
    );
    assert!(ask(&mut s, "move 9 9").is_err());
    assert!(ask(&mut s, "jump").is_err());
    assert_eq!(ask(&mut s, "end").unwrap(), "ok");
    assert!(ask(&mut s, "move 0 0").unwrap_err().contains("before init"));
    assert!(ask(&mut s, "init 7 -1 -1").is_err());
    ask(&mut s, "init 6 2 2").unwrap();
}

/// A served agent in memory: each request is handled at once and its answer
/// queued for the referee to read.
struct InMemory(Served, Vec<String>);

impl Peer for InMemory {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        let answer = ask(&mut self.0, line).expect("valid request");
        // `end` is answered `ok`, which the referee does not read.
        if line != "end" {
            self.1.push(answer);
        }
        Ok(())
    }

    fn recv_line(&mut self, _deadline: Option<Instant>) -> Result<String, PlayerError> {
        self.1.pop().ok_or(PlayerError::ClosedOutput)
    }
}

#[test]
fn serve_session_against_the_referee() {
    // The wire round trip: `Remote` (referee side of `TongaWire`) talking to
    // `Session` (player side of the same wire) plays the in-process game.
    for name in ["server", "greedy", "best"] {
        for g in 0..4 {
            let peer = InMemory(served(name, agent_rng(3, 6, g)), Vec::new());
            let log = Arc::new(Mutex::new(Vec::new()));
            let sink = Arc::clone(&log);
            let transcript: Transcript =
                Box::new(move |l| sink.lock().unwrap().push(l.to_string()));
            let remote = referee_game(6, g, 3, Box::new(peer), None, Some(transcript));
            assert_eq!(remote.fault, None);
            // The same game in process gives the same result.
            let direct = play_agent(6, g, 3, agent(name, agent_rng(3, 6, g)).unwrap());
            assert_eq!(remote, direct);
            let log = log.lock().unwrap();
            assert_eq!(log.last().map(String::as_str), Some("> end"));
            // The server has 18 stones: when it started, the first goes in
            // `init`; when the player started, the last (filling) one is not sent.
            let sent_moves = log.iter().filter(|l| l.starts_with("> move")).count();
            assert_eq!(sent_moves, 17);
            let init_has_move = !log[0].ends_with("-1 -1");
            assert_eq!(init_has_move, !direct.player_first);
        }
    }
}
