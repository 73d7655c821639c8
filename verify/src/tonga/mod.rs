//! PseudoTonga: the built-in players ([`players`]), the line protocol ([`wire`]),
//! the game against the server with the TopCoder scoring (here) and the verify
//! report ([`report`]).
//!
//! A game against the server: a coin says who starts (the starter plays Black);
//! the server is an in-process seat playing its exact policy with seeded
//! tie-breaks; a player that faults (bad answer, crash, time) loses the rest of
//! the game: the server fills every empty square. The case score is the
//! player's points minus the server's; the overall score sums their signed
//! square roots.
//!
//! Every random draw comes from a named stream of [`tournament::stream`], with
//! the board side N as the case and the game's number as the game: the coin
//! from (setup, N, game, 0), the server's tie-breaks from (chance, N, game, 0)
//! and, in `verify tonga`, a player's own choices from (agent, N, game, 0)
//! ([`agent_rng`]; the referee's `--agent` draws as `serve --seed` does,
//! [`tournament::served_rng`]). Every player meets the same coins and the same
//! server.

pub mod analysis;
pub mod contest;
pub mod draw;
pub mod notation;
pub mod players;
pub mod report;
pub mod terminal;
pub mod wire;

pub use contest::TongaContest;
pub use players::{BestAgent, BestSettings, GreedyAgent, ServerAgent, agent, timed_agent};
pub use report::{PlayerResult, Report, SizeResult, verify};
pub use wire::{TongaWire, parse_answer};

use std::time::Duration;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::tonga::Position;
use tabula_solver::{Seat, Turn};

use crate::agent::Agent;
use crate::arena::{self, GameRecord};
use crate::process::Peer;
use crate::report::{RefereeReport, RefereedCase, fault_fields};
use crate::seat::{Clock, FaultKind, Limits, Local, Player, Remote, Transcript};
use crate::tournament::{self, Purpose};

/// Names of the built-in players.
pub const AGENTS: [&str; 4] = ["random", "greedy", "server", "best"];

/// The statement's time limit for the player's whole game (only the time the
/// referee waits for its answers counts).
pub const GAME_TIME: Duration = Duration::from_secs(20);

/// Signed square root: the overall score adds these over the test cases.
pub fn signed_sqrt(x: i64) -> f64 {
    let r = (x.unsigned_abs() as f64).sqrt();
    if x < 0 { -r } else { r }
}

/// Whether the player starts game `game` of side `n` (the coin).
pub fn player_starts(seed: u64, n: usize, game: usize) -> bool {
    tournament::stream(seed, Purpose::Setup, n as u64, game as u64, 0).random_range(0..2) == 0
}

/// The server's tie-breaks in game `game` of side `n`.
pub fn server_rng(seed: u64, n: usize, game: usize) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Chance, n as u64, game as u64, 0)
}

/// The chance stream of game `game` of side `n` (the game has no chance
/// moves: the match loop's stream is never drawn from).
pub fn chance_rng(seed: u64, n: usize, game: usize) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Chance, n as u64, game as u64, 1)
}

/// The player's own random choices in game `game` of side `n`.
pub fn agent_rng(seed: u64, n: usize, game: usize) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Agent, n as u64, game as u64, 0)
}

/// A finished game against the server: a test case of the referee's run.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GameResult {
    /// Board side.
    pub n: usize,
    /// Whether the player started (and was Black).
    pub player_first: bool,
    /// The player's points.
    pub player_points: u32,
    /// The server's points.
    pub server_points: u32,
    /// The game's part of the overall score: the signed square root of the case score.
    pub score: f64,
    /// Why the game ended early, if it did (the server then filled the board).
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
    /// Every stone in order as (colour letter, row, col); the filler stones are not listed.
    pub moves: Vec<(char, usize, usize)>,
}

impl GameResult {
    /// The result of `record`, the player sitting in `player`.
    pub fn new(player: Seat, record: &GameRecord<Position>) -> GameResult {
        let board = &record.end.board;
        let moves = record
            .plies
            .iter()
            .map(|ply| {
                let letter = match ply.turn {
                    Turn::Seat(0) => 'B',
                    _ => 'W',
                };
                let (r, c) = board.row_col(ply.mv);
                (letter, r, c)
            })
            .collect();
        let player_points = record.scores[player] as u32;
        let server_points = record.scores[1 - player] as u32;
        let (fault, fault_kind) = fault_fields(record.fault.as_ref());
        GameResult {
            n: board.n(),
            player_first: player == 0,
            player_points,
            server_points,
            score: signed_sqrt(i64::from(player_points) - i64::from(server_points)),
            fault,
            fault_kind,
            moves,
        }
    }

    /// The test-case score: the player's points minus the server's.
    pub fn case_score(&self) -> i64 {
        i64::from(self.player_points) - i64::from(self.server_points)
    }
}

impl RefereedCase for GameResult {
    fn score(&self) -> f64 {
        self.score
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }

    /// `result N <player points> <server points> <case score> [reason]`.
    fn line(&self) -> String {
        let line = format!(
            "result {} {} {} {}",
            self.n,
            self.player_points,
            self.server_points,
            self.case_score()
        );
        crate::report::with_fault(line, self.fault.as_deref())
    }

    /// `overall SCORE over GAMES games`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        format!(
            "overall {:.3} over {} games",
            report.total,
            report.cases.len()
        )
    }
}

/// Plays game `game` of side `n` between `player` and the server, on the
/// shared match loop; returns the record and the player's seat.
///
/// `limits` bind the player only (the statement: 20 s for the whole game).
pub fn play_against_server(
    n: usize,
    game: usize,
    seed: u64,
    player: &mut dyn Player<Position>,
    limits: Limits,
) -> (GameRecord<Position>, Seat) {
    let start = Position::start(n).expect("a valid board side");
    let mut server = Local(ServerAgent::new(server_rng(seed, n, game)));
    let (seating, seat) = if player_starts(seed, n, game) {
        ([0, 1], 0)
    } else {
        ([1, 0], 1)
    };
    let mut clocks = [Clock::new(limits), Clock::default()];
    let mut players: [&mut dyn Player<Position>; 2] = [player, &mut server];
    let mut chance = chance_rng(seed, n, game);
    let record = arena::play_game(start, &mut players, &seating, &mut clocks, &mut chance);
    (record, seat)
}

/// Plays a built-in agent against the server (no time limit).
pub fn play_agent(n: usize, game: usize, seed: u64, agent: Box<dyn Agent<Position>>) -> GameResult {
    let (record, seat) = play_against_server(n, game, seed, &mut Local(agent), Limits::default());
    GameResult::new(seat, &record)
}

/// Referees one game against a player at the other end of `peer`.
///
/// Every line sent or received goes to `transcript` (`>` to the player, `<`
/// from it). An invalid answer, a crash, a closed pipe or running out of
/// `per_game` (the player's time for the whole game, counted only while the
/// referee waits for its answers) ends the game: the server fills the board
/// and the reason is kept.
pub fn referee_game(
    n: usize,
    game: usize,
    seed: u64,
    peer: Box<dyn Peer + Send>,
    per_game: Option<Duration>,
    transcript: Option<Transcript>,
) -> GameResult {
    let mut remote = Remote::new("player", peer, TongaWire::default());
    if let Some(t) = transcript {
        remote = remote.with_transcript(t);
    }
    let limits = Limits {
        per_game,
        ..Limits::default()
    };
    let (record, seat) = play_against_server(n, game, seed, &mut remote, limits);
    GameResult::new(seat, &record)
}

#[cfg(test)]
mod tests;
