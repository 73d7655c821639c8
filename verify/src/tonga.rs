//! PseudoTonga: players, the game against the server with the TopCoder scoring,
//! the referee of the line protocol, the `serve` handler and the verify report.
//!
//! The line protocol: the tester writes `init N row col` (`-1 -1` when the player
//! starts) and the player answers `row col`; then `move row col` for each server
//! stone, answered `row col`. The server's stone that fills the board is not
//! sent. The tester writes `end` when the game is over.

use std::time::{Duration, Instant};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::tonga::endgame::Endgame;
use tabula_solver::tonga::server::{self, Geometry};
use tabula_solver::tonga::{Board, Cell, Colour, Position};

use crate::old_agent::{Agent, RandomAgent};
use crate::process::Peer;
use crate::protocol::{Request, excerpt};
use crate::report;
use crate::stats::Mean;
use crate::tournament::{self, Progress};

/// Names of the built-in players.
pub const AGENTS: [&str; 4] = ["random", "greedy", "server", "best"];

/// Board sides of the contest.
pub const SIZES: [usize; 6] = [6, 8, 10, 12, 14, 16];

/// Signed square root: the overall score adds these over the test cases.
pub fn signed_sqrt(x: i64) -> f64 {
    let r = (x.unsigned_abs() as f64).sqrt();
    if x < 0 { -r } else { r }
}

/// Geometry of the last board side seen, rebuilt when the side changes.
#[derive(Default)]
struct GeoCache(Option<Geometry>);

impl GeoCache {
    fn get(&mut self, n: usize) -> &Geometry {
        if self.0.as_ref().is_none_or(|g| g.n() != n) {
            self.0 = Some(Geometry::new(n));
        }
        self.0.as_ref().expect("just set")
    }
}

fn pick(rng: &mut ChaCha8Rng, cells: &[Cell]) -> Cell {
    cells[rng.random_range(0..cells.len())]
}

/// One ply: a square that raises the mover's points the most; seeded ties.
pub struct GreedyAgent {
    rng: ChaCha8Rng,
    geo: GeoCache,
}

impl GreedyAgent {
    /// A greedy player breaking ties with `rng`.
    pub fn new(rng: ChaCha8Rng) -> GreedyAgent {
        GreedyAgent {
            rng,
            geo: GeoCache::default(),
        }
    }
}

impl Agent<Position> for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let choices = server::greedy_choices(self.geo.get(pos.board.n()), &pos.board, pos.to_move);
        pick(&mut self.rng, &choices)
    }
}

/// The server's own policy playing for the player: the baseline.
pub struct ServerAgent {
    rng: ChaCha8Rng,
    geo: GeoCache,
}

impl ServerAgent {
    /// The server's policy breaking ties with `rng`.
    pub fn new(rng: ChaCha8Rng) -> ServerAgent {
        ServerAgent {
            rng,
            geo: GeoCache::default(),
        }
    }
}

impl Agent<Position> for ServerAgent {
    fn name(&self) -> String {
        "server".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let geo = self.geo.get(pos.board.n());
        let choices = server::choices(geo, &pos.board, pos.to_move).expect("board not full");
        pick(&mut self.rng, &choices.cells)
    }
}

/// Settings of the strong player.
#[derive(Clone, Copy, Debug)]
pub struct BestSettings {
    /// Expectimax against the server's policy at or below this many empties.
    pub expectimax_at: usize,
    /// The same on boards of at most 64 squares, where the server's search is cheaper.
    pub expectimax_small_at: usize,
    /// Exact perfect-play solve at or below this many empties.
    pub exact_at: usize,
    /// Own candidate squares examined against the server's reply in the midgame.
    pub candidates: usize,
    /// Server tie-breaks averaged per candidate.
    pub ties: usize,
    /// Rounds (own move, server reply) looked ahead before the leaf evaluation.
    pub rounds: usize,
    /// Above this many empties only one round is searched (time at N=14, 16).
    pub deep_at: usize,
}

impl Default for BestSettings {
    fn default() -> BestSettings {
        BestSettings {
            expectimax_at: 12,
            expectimax_small_at: 15,
            exact_at: 16,
            candidates: 6,
            ties: 2,
            rounds: 2,
            deep_at: 160,
        }
    }
}

/// The strong player: searches against the known server policy in the
/// midgame, then plays the endgame exactly.
///
/// Midgame: the best few squares by the server's own 3-ply evaluation (seen
/// from the player's side) are each answered by the server's exact policy,
/// averaging over some of its tied squares, then by the player's own 3-ply
/// choice and the server's answer again; the positions reached are scored by
/// the player's own 3-ply value. Endgame: perfect play from 16 empties, and
/// the expectimax against the server's policy (uniform tie-breaks) from 12
/// (15 on boards up to 8×8). Deterministic: no clock is read.
pub struct BestAgent {
    settings: BestSettings,
    geo: GeoCache,
}

impl BestAgent {
    /// The strong player with the given settings.
    pub fn new(settings: BestSettings) -> BestAgent {
        BestAgent {
            settings,
            geo: GeoCache::default(),
        }
    }
}

/// Final-score difference for `me` on a full board.
fn points_difference(board: &Board, me: Colour) -> i64 {
    i64::from(board.points(me)) - i64::from(board.points(me.other()))
}

impl Agent<Position> for BestAgent {
    fn name(&self) -> String {
        "best".into()
    }

    fn choose(&mut self, pos: &Position) -> Cell {
        let board = pos.board;
        let me = pos.to_move;
        let empties = board.empties();
        let s = self.settings;
        if board.occupied().is_empty() {
            return server::middle_squares(&board)[0];
        }
        if empties <= s.exact_at {
            let mut game = Endgame::new(&board).expect("few empties");
            let limit = if board.cells() <= 64 {
                s.expectimax_small_at
            } else {
                s.expectimax_at
            };
            let best = if empties <= limit {
                game.against_server(me, me).1
            } else {
                game.solve_with_move(me).1
            };
            return best.expect("board not full");
        }
        let geo = self.geo.get(board.n());
        let mut ranked = server::all_values(geo, &board, me);
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut best: Option<(f64, Cell)> = None;
        for &(cell, _) in ranked.iter().take(s.candidates.max(1)) {
            let mut b1 = board;
            b1.place(cell, me);
            let rounds = if empties > s.deep_at { 1 } else { s.rounds };
            let value = lookahead(geo, &b1, me, rounds, s.ties);
            if best.is_none_or(|(v, _)| value > v) {
                best = Some((value, cell));
            }
        }
        best.expect("a candidate").1
    }
}

/// Expected leaf value for `me` after its move led to `board`: the server
/// answers by its exact policy (averaged over up to `ties` of its tied squares),
/// then `me` plays its own 3-ply best square, for `rounds` rounds; the leaf is
/// `me`'s 3-ply value (the final points difference on a full board).
fn lookahead(geo: &Geometry, board: &Board, me: Colour, rounds: usize, ties: usize) -> f64 {
    let Some(replies) = server::choices(geo, board, me.other()) else {
        return points_difference(board, me) as f64;
    };
    // Evenly spread tie-breaks, so the choice stays deterministic.
    let step = replies.cells.len().div_ceil(ties.max(1));
    let mut sum = 0.0;
    let mut count = 0;
    for &reply in replies.cells.iter().step_by(step) {
        let mut b2 = *board;
        b2.place(reply, me.other());
        sum += match server::choices(geo, &b2, me) {
            None => points_difference(&b2, me) as f64,
            Some(mine) if rounds <= 1 => mine.value as f64,
            Some(mine) => {
                let mut b3 = b2;
                b3.place(mine.cells[0], me);
                lookahead(geo, &b3, me, rounds - 1, ties)
            }
        };
        count += 1;
    }
    sum / f64::from(count)
}

/// The built-in player called `name`, drawing its random choices from `rng`.
pub fn agent(name: &str, rng: ChaCha8Rng) -> Option<Box<dyn Agent<Position> + Send>> {
    Some(match name {
        "random" => Box::new(RandomAgent::new(rng)),
        "greedy" => Box::new(GreedyAgent::new(rng)),
        "server" => Box::new(ServerAgent::new(rng)),
        "best" => Box::new(BestAgent::new(BestSettings::default())),
        _ => return None,
    })
}

/// A finished game against the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameResult {
    /// Board side.
    pub n: usize,
    /// Whether the player started (and was Black).
    pub player_first: bool,
    /// The player's points.
    pub player_points: u32,
    /// The server's points.
    pub server_points: u32,
    /// Why the game ended early, if it did (the server then filled the board).
    pub reason: Option<String>,
    /// Every stone in order as (colour letter, row, col); the filler stones are not listed.
    pub moves: Vec<(char, usize, usize)>,
}

impl GameResult {
    /// The test-case score: the player's points minus the server's.
    pub fn case_score(&self) -> i64 {
        i64::from(self.player_points) - i64::from(self.server_points)
    }

    /// `result N <player points> <server points> <case score> [reason]`.
    pub fn line(&self) -> String {
        let mut line = format!(
            "result {} {} {} {}",
            self.n,
            self.player_points,
            self.server_points,
            self.case_score()
        );
        if let Some(reason) = &self.reason {
            line.push(' ');
            line.push_str(reason);
        }
        line
    }
}

/// What the game loop asks of the player: the message it is sent, its answer.
trait Side {
    /// The player's square after `message` (`init …` or `move …`).
    fn answer(&mut self, pos: &Position, message: &str) -> Result<Cell, String>;
    /// The game is over.
    fn end(&mut self);
}

struct InProcess<'a>(&'a mut dyn Agent<Position>);

impl Side for InProcess<'_> {
    fn answer(&mut self, pos: &Position, _message: &str) -> Result<Cell, String> {
        let cell = self.0.choose(pos);
        match pos.board.at(cell) {
            None if (cell as usize) < pos.board.cells() => Ok(cell),
            _ => Err(format!("agent played an unavailable square {cell}")),
        }
    }

    fn end(&mut self) {}
}

struct Remote<'a> {
    peer: &'a mut dyn Peer,
    /// The player's time left for the game; the server's thinking is not charged.
    budget: Option<Duration>,
    log: &'a mut dyn FnMut(&str),
}

/// Parses a player's answer `row col` into a square of `board`.
pub fn parse_answer(board: &Board, line: &str) -> Result<Cell, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [row, col] = words[..] else {
        return Err(format!(
            "invalid answer '{}': expected 'row col'",
            line.trim()
        ));
    };
    let (Ok(row), Ok(col)) = (row.parse::<i64>(), col.parse::<i64>()) else {
        return Err(format!(
            "invalid answer '{}': expected two numbers",
            line.trim()
        ));
    };
    board
        .check_move(row, col)
        .map_err(|e| format!("invalid move: {e}"))
}

impl Side for Remote<'_> {
    fn answer(&mut self, pos: &Position, message: &str) -> Result<Cell, String> {
        (self.log)(&format!("> {message}"));
        // A player too slow to take the message is charged like one slow to answer.
        let started = Instant::now();
        let deadline = self.budget.map(|b| started + b);
        let received = self
            .peer
            .send_line_by(message, deadline)
            .and_then(|()| self.peer.recv_line(deadline));
        if let Some(budget) = self.budget.as_mut() {
            *budget = budget.saturating_sub(started.elapsed());
        }
        let line = received.map_err(|e| e.to_string())?;
        (self.log)(&format!("< {line}"));
        parse_answer(&pos.board, &line)
    }

    fn end(&mut self) {
        (self.log)("> end");
        // The player may already be gone; the game is scored anyway.
        let deadline = self.budget.map(|b| Instant::now() + b);
        let _ = self.peer.send_line_by("end", deadline);
    }
}

/// The game loop: coin, server moves, the player's answers, the filling on a fault.
fn run_game(n: usize, rng: &mut ChaCha8Rng, side: &mut dyn Side) -> GameResult {
    let mut board = Board::new(n).expect("valid side");
    let geo = Geometry::new(n);
    let player_first = rng.random_range(0..2) == 0;
    let (player, server_colour) = if player_first {
        (Colour::Black, Colour::White)
    } else {
        (Colour::White, Colour::Black)
    };
    let mut moves = Vec::new();
    let mut record = |board: &Board, colour: Colour, cell: Cell| {
        let (r, c) = board.row_col(cell);
        moves.push((colour.letter(), r, c));
    };
    let mut message = if player_first {
        format!("init {n} -1 -1")
    } else {
        let cell = pick(rng, &server::middle_squares(&board));
        board.place(cell, server_colour);
        record(&board, server_colour, cell);
        let (r, c) = board.row_col(cell);
        format!("init {n} {r} {c}")
    };
    let mut reason = None;
    loop {
        let pos = Position {
            board,
            to_move: player,
        };
        match side.answer(&pos, &message) {
            Ok(cell) => {
                board.place(cell, player);
                record(&board, player, cell);
            }
            Err(why) => {
                // A fault: every empty square gets a server stone.
                for cell in board.empty().iter() {
                    board.place(cell as Cell, server_colour);
                }
                reason = Some(why);
                break;
            }
        }
        if board.is_full() {
            break;
        }
        let choices = server::choices(&geo, &board, server_colour).expect("board not full");
        let cell = pick(rng, &choices.cells);
        board.place(cell, server_colour);
        record(&board, server_colour, cell);
        if board.is_full() {
            break;
        }
        let (r, c) = board.row_col(cell);
        message = format!("move {r} {c}");
    }
    side.end();
    GameResult {
        n,
        player_first,
        player_points: board.points(player),
        server_points: board.points(server_colour),
        reason,
        moves,
    }
}

/// Plays a built-in agent against the server; `rng` draws the coin and the
/// server's choices.
pub fn play_game(n: usize, agent: &mut dyn Agent<Position>, rng: &mut ChaCha8Rng) -> GameResult {
    run_game(n, rng, &mut InProcess(agent))
}

/// Referees one game against a player at the other end of `peer`.
///
/// Every line sent or received goes to `log` (`>` to the player, `<` from it).
/// An invalid answer, a crash, a closed pipe or running out of `budget` (the
/// player's time for the whole game, counted only while the referee waits for
/// it to take a message and answer it) ends the game: the server fills the board and the reason is kept.
pub fn referee_game(
    n: usize,
    peer: &mut dyn Peer,
    budget: Option<Duration>,
    rng: &mut ChaCha8Rng,
    log: &mut dyn FnMut(&str),
) -> GameResult {
    run_game(n, rng, &mut Remote { peer, budget, log })
}

/// The random stream of game `game` of size `n` in a run seeded `seed`.
pub fn game_rng(seed: u64, n: usize, game: usize) -> ChaCha8Rng {
    tournament::rng(seed, (n as u64) << 32 | game as u64)
}

/// The random stream of the player in that game (separate from the server's).
pub fn agent_rng(seed: u64, n: usize, game: usize) -> ChaCha8Rng {
    tournament::rng(seed ^ 0x5EED_A6E7, (n as u64) << 32 | game as u64)
}

/// The state of `tabula serve tonga`: one game at a time, driven by requests.
pub struct ServeSession {
    agent: Box<dyn Agent<Position> + Send>,
    game: Option<Position>,
}

impl ServeSession {
    /// A session answering with `agent`.
    pub fn new(agent: Box<dyn Agent<Position> + Send>) -> ServeSession {
        ServeSession { agent, game: None }
    }

    /// Answers one request line: `init N row col`, `move row col` or `end`.
    pub fn handle(&mut self, line: &str) -> Result<String, String> {
        let mut req = Request::parse(line).map_err(|e| e.to_string())?;
        match req.method {
            "init" => {
                let n = req.int("N").map_err(|e| e.to_string())?;
                let row = req.int("row").map_err(|e| e.to_string())?;
                let col = req.int("col").map_err(|e| e.to_string())?;
                req.finish().map_err(|e| e.to_string())?;
                let side = usize::try_from(n).map_err(|_| format!("bad board size {n}"))?;
                let mut board = Board::new(side).map_err(|e| e.to_string())?;
                let me = if (row, col) == (-1, -1) {
                    Colour::Black
                } else {
                    let cell = board.check_move(row, col).map_err(|e| e.to_string())?;
                    board.place(cell, Colour::Black);
                    Colour::White
                };
                self.game = Some(Position { board, to_move: me });
                self.reply()
            }
            "move" => {
                let row = req.int("row").map_err(|e| e.to_string())?;
                let col = req.int("col").map_err(|e| e.to_string())?;
                req.finish().map_err(|e| e.to_string())?;
                let game = self.game.as_mut().ok_or("move before init")?;
                let cell = game.board.check_move(row, col).map_err(|e| e.to_string())?;
                game.board.place(cell, game.to_move.other());
                self.reply()
            }
            "end" => {
                req.finish().map_err(|e| e.to_string())?;
                self.game = None;
                Ok("ok".into())
            }
            other => Err(format!("unknown request '{}'", excerpt(other))),
        }
    }

    fn reply(&mut self) -> Result<String, String> {
        let game = self.game.as_mut().expect("a game");
        if game.board.is_full() {
            self.game = None;
            return Err("the board is full".into());
        }
        let cell = self.agent.choose(game);
        game.board.place(cell, game.to_move);
        let (r, c) = game.board.row_col(cell);
        Ok(format!("{r} {c}"))
    }
}

/// One player's results on one board size.
#[derive(Clone, Debug, Serialize)]
pub struct SizeResult {
    /// Board side.
    pub n: usize,
    /// Mean case score with its 95% interval.
    pub case_score: Mean,
    /// Sum of the signed square roots of the case scores.
    pub sqrt_score: f64,
    /// Games the player did not lose (case score ≥ 0).
    pub non_negative: usize,
}

/// One player's line of the report.
#[derive(Clone, Debug, Serialize)]
pub struct AgentResult {
    /// Player name.
    pub agent: String,
    /// Per board size.
    pub sizes: Vec<SizeResult>,
    /// Overall score: the sum of signed square roots over every game.
    pub overall: f64,
}

/// The verify report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Seed of the run.
    pub seed: u64,
    /// Games per size and player.
    pub games: usize,
    /// Every player's results.
    pub agents: Vec<AgentResult>,
}

/// Plays `games` seeded games per size for each named agent against the server.
///
/// Game `i` of size `n` uses the same coin and server stream for every agent.
pub fn verify(
    agents: &[&str],
    sizes: &[usize],
    games: usize,
    seed: u64,
    progress: Progress<'_>,
) -> Report {
    let jobs: Vec<(usize, usize, usize)> = (0..agents.len())
        .flat_map(|a| {
            sizes
                .iter()
                .flat_map(move |&n| (0..games).map(move |g| (a, n, g)))
        })
        .collect();
    let scores = tournament::run(jobs.len(), progress, |j| {
        let (a, n, g) = jobs[j];
        let mut agent = agent(agents[a], agent_rng(seed, n, g)).expect("known agent");
        play_game(n, agent.as_mut(), &mut game_rng(seed, n, g)).case_score()
    });
    let mut results = Vec::new();
    for (a, name) in agents.iter().enumerate() {
        let mut sizes_out = Vec::new();
        let mut overall = 0.0;
        for &n in sizes {
            let sample: Vec<i64> = jobs
                .iter()
                .zip(&scores)
                .filter(|((ja, jn, _), _)| *ja == a && *jn == n)
                .map(|(_, &s)| s)
                .collect();
            let sqrt_score: f64 = sample.iter().map(|&s| signed_sqrt(s)).sum();
            overall += sqrt_score;
            let floats: Vec<f64> = sample.iter().map(|&s| s as f64).collect();
            sizes_out.push(SizeResult {
                n,
                case_score: Mean::of(&floats),
                sqrt_score,
                non_negative: sample.iter().filter(|&&s| s >= 0).count(),
            });
        }
        results.push(AgentResult {
            agent: name.to_string(),
            sizes: sizes_out,
            overall,
        });
    }
    Report {
        seed,
        games,
        agents: results,
    }
}

impl Report {
    /// Markdown: mean case score ± 95% interval per size, then the overall score.
    pub fn to_markdown(&self) -> String {
        let mut headers = vec!["player".to_string()];
        if let Some(first) = self.agents.first() {
            headers.extend(first.sizes.iter().map(|s| format!("N={}", s.n)));
        }
        headers.push("overall Σ±√".into());
        let mut table = report::Table::new(&headers);
        for a in &self.agents {
            let mut row = vec![a.agent.clone()];
            row.extend(a.sizes.iter().map(|s| s.case_score.display(1)));
            row.push(format!("{:.1}", a.overall));
            table.row(&row);
        }
        format!(
            "{} seeded games per size (seed {}); cells are the mean case score \
             (player − server points) ± 95% CI.\n\n{}",
            self.games,
            self.seed,
            table.to_markdown()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                let mut agent = GreedyAgent::new(agent_rng(1, n, g));
                let result = play_game(n, &mut agent, &mut game_rng(1, n, g));
                assert_eq!(result.moves.len(), n * n);
                assert_eq!(result.reason, None);
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
        let a = verify(&["random", "greedy"], &[6], 3, 9, &|_| {});
        let b = verify(&["random", "greedy"], &[6], 3, 9, &|_| {});
        assert_eq!(a.to_markdown(), b.to_markdown());
        assert_eq!(a.agents[0].sizes[0].case_score.n, 3);
    }

    #[test]
    fn the_server_baseline_and_best_play_whole_games() {
        let mut server = ServerAgent::new(agent_rng(2, 6, 0));
        let r = play_game(6, &mut server, &mut game_rng(2, 6, 0));
        assert_eq!(r.moves.len(), 36);
        let mut best = BestAgent::new(BestSettings::default());
        let r = play_game(8, &mut best, &mut game_rng(2, 8, 0));
        assert_eq!(r.moves.len(), 64);
        assert_eq!(r.reason, None);
    }

    /// A scripted peer: answers from a list, then closes.
    struct Script {
        answers: Vec<String>,
        sent: Vec<String>,
    }

    impl Peer for Script {
        fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
            self.sent.push(line.to_string());
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            if self.answers.is_empty() {
                return Err(crate::process::PlayerError::ClosedOutput);
            }
            Ok(self.answers.remove(0))
        }
    }

    fn seed_where_player_starts(first: bool) -> u64 {
        (0..100)
            .find(|&s| (game_rng(s, 6, 0).random_range(0..2) == 0) == first)
            .unwrap()
    }

    #[test]
    fn invalid_answers_fill_the_board_for_the_server() {
        for (answer, why) in [
            ("7 0", "off the 6x6 board"),
            ("banana", "expected 'row col'"),
            ("1 x", "expected two numbers"),
        ] {
            let seed = seed_where_player_starts(true);
            let mut peer = Script {
                answers: vec![answer.into()],
                sent: Vec::new(),
            };
            let r = referee_game(6, &mut peer, None, &mut game_rng(seed, 6, 0), &mut |_| {});
            assert!(r.reason.as_deref().unwrap().contains(why), "{:?}", r.reason);
            assert_eq!(r.player_points, 0);
            assert_eq!(r.server_points, 36 * 36);
            assert_eq!(peer.sent, vec!["init 6 -1 -1", "end"]);
        }
        // An occupied square after the server started.
        let seed = seed_where_player_starts(false);
        let mut rng = game_rng(seed, 6, 0);
        let mut peer = Script {
            answers: vec![],
            sent: Vec::new(),
        };
        let r = referee_game(6, &mut peer, None, &mut rng, &mut |_| {});
        assert_eq!(r.reason.as_deref(), Some("player closed its output"));
        let first = &peer.sent[0];
        let words: Vec<&str> = first.split(' ').collect();
        let occupied = format!("{} {}", words[2], words[3]);
        let mut peer = Script {
            answers: vec![occupied],
            sent: Vec::new(),
        };
        let r = referee_game(6, &mut peer, None, &mut game_rng(seed, 6, 0), &mut |_| {});
        assert!(r.reason.as_deref().unwrap().contains("occupied"));
        // The server's stone plus 35 filler stones make one isle.
        assert_eq!(r.server_points, 36 * 36);
    }

    /// Answers at once with the first empty square, unless the deadline has passed.
    struct Punctual(Board);

    impl Peer for Punctual {
        fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
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

        fn recv_line(
            &mut self,
            deadline: Option<Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(crate::process::PlayerError::TimedOut);
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
        let mut peer = Punctual(Board::new(6).unwrap());
        let r = referee_game(
            6,
            &mut peer,
            Some(Duration::ZERO),
            &mut game_rng(4, 6, 0),
            &mut |_| {},
        );
        assert_eq!(r.reason.as_deref(), Some("player timed out"));
        let mut peer = Punctual(Board::new(6).unwrap());
        let budget = Some(Duration::from_secs(600));
        let r = referee_game(6, &mut peer, budget, &mut game_rng(4, 6, 0), &mut |_| {});
        assert_eq!(r.reason, None);
        assert_eq!(r.moves.len(), 36);
    }

    #[test]
    fn serve_session_plays_both_colours_and_rejects_nonsense() {
        let mut s = ServeSession::new(agent("greedy", agent_rng(0, 6, 0)).unwrap());
        let first = s.handle("init 6 -1 -1").unwrap();
        let words: Vec<usize> = first.split(' ').map(|w| w.parse().unwrap()).collect();
        assert_eq!(words.len(), 2);
        assert!(
            s.handle(&format!("move {first}"))
                .unwrap_err()
                .contains("occupied")
        );
        assert!(s.handle("move 9 9").is_err());
        assert!(s.handle("jump").is_err());
        assert_eq!(s.handle("end").unwrap(), "ok");
        assert!(s.handle("move 0 0").unwrap_err().contains("before init"));
        assert!(s.handle("init 7 -1 -1").is_err());
        s.handle("init 6 2 2").unwrap();
    }

    #[test]
    fn serve_session_against_the_referee() {
        // The referee talks to a served agent: each message is handled at once
        // and its answer queued for the referee to read.
        struct Served(ServeSession, Vec<String>);
        impl Peer for Served {
            fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
                let answer = self.0.handle(line).expect("valid request");
                if line != "end" {
                    self.1.push(answer);
                }
                Ok(())
            }
            fn recv_line(
                &mut self,
                _deadline: Option<Instant>,
            ) -> Result<String, crate::process::PlayerError> {
                self.1
                    .pop()
                    .ok_or(crate::process::PlayerError::ClosedOutput)
            }
        }
        for g in 0..4 {
            let mut peer = Served(
                ServeSession::new(agent("server", agent_rng(3, 6, g)).unwrap()),
                Vec::new(),
            );
            let mut log = Vec::new();
            let remote = referee_game(6, &mut peer, None, &mut game_rng(3, 6, g), &mut |l| {
                log.push(l.to_string())
            });
            assert_eq!(remote.reason, None);
            // The same game in process gives the same result.
            let mut local = agent("server", agent_rng(3, 6, g)).unwrap();
            let direct = play_game(6, local.as_mut(), &mut game_rng(3, 6, g));
            assert_eq!(remote, direct);
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
