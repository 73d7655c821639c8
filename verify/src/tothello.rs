//! Tothello: the `bestMove` request handler of the line protocol, the built-in
//! players and their tournament.

use std::time::{Duration, Instant};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tabula_solver::ZeroSum;
use tabula_solver::tothello::rules::{best_move_bits, sandwiched};
use tabula_solver::tothello::{
    Board, Color, Move, Position, Solver, TothelloError, best_move, square_name,
};

use crate::old_agent::Agent;
use crate::process::Peer;
use crate::protocol::{ProtocolError, Request, excerpt};
use crate::report::Table;
use crate::stats::{Mean, Wdl};
use crate::tournament::{self, Progress};

/// Why a request line got no answer.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The line does not fit the method's arguments.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// A square, the board or the turn is wrong.
    #[error(transparent)]
    Rules(#[from] TothelloError),
    /// The method is not one of Tothello's.
    #[error("unknown method '{0}' (Tothello answers bestMove)")]
    UnknownMethod(String),
}

/// Answers one request line: `bestMove <redPieces> <blackPieces> <whoseTurn>`.
///
/// Boards the statement calls invalid because a piece already lies between two
/// of the other colour are answered by the rule as written: such pieces change
/// colour with the mover's placement. More than 50 pieces of a colour are
/// accepted too (the game reaches such boards).
pub fn answer(line: &str) -> Result<String, String> {
    answer_request(line).map_err(|e| e.to_string())
}

/// [`answer`] with a typed error.
pub fn answer_request(line: &str) -> Result<String, RequestError> {
    let mut req = Request::parse(line)?;
    match req.method {
        "bestMove" => {
            let red = req.strings("redPieces")?;
            let black = req.strings("blackPieces")?;
            let turn = req.string("whoseTurn")?;
            req.finish()?;
            let board = Board::from_squares(&red, &black)?;
            let turn: Color = turn.parse()?;
            Ok(best_move(&board, turn)?.pieces.to_string())
        }
        other => Err(RequestError::UnknownMethod(excerpt(other))),
    }
}

/// The built-in players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Player {
    /// A uniformly random empty square (never passes).
    Random,
    /// `bestMove`'s choice: the most pieces right away, ties broken at random.
    Greedy,
    /// The solver: `depth` plies of heuristic search, exact at `exact` empties or fewer.
    Solver {
        /// Plies searched before the exact endgame.
        depth: u8,
        /// Empty squares from which the rest of the game is solved exactly.
        exact: u32,
    },
}

impl Player {
    /// Short name used in reports: `random`, `greedy`, `solver-d3`.
    pub fn name(&self) -> String {
        match self {
            Player::Random => "random".into(),
            Player::Greedy => "greedy".into(),
            Player::Solver { depth, exact } => format!("solver-d{depth}-e{exact}"),
        }
    }

    /// The agent of this player, drawing its random choices from `rng`.
    pub fn agent(&self, rng: ChaCha8Rng, table_bits: u32) -> TothelloAgent {
        TothelloAgent {
            player: *self,
            rng,
            solver: match self {
                Player::Solver { .. } => Some(Solver::new(table_bits)),
                _ => None,
            },
        }
    }
}

/// A built-in player ready to play.
pub struct TothelloAgent {
    player: Player,
    rng: ChaCha8Rng,
    solver: Option<Solver>,
}

/// A random square of a non-empty mask.
fn random_square(mask: u64, rng: &mut ChaCha8Rng) -> u8 {
    let mut bits = mask;
    for _ in 0..rng.random_range(0..mask.count_ones()) {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as u8
}

impl Agent<Position> for TothelloAgent {
    fn name(&self) -> String {
        self.player.name()
    }

    fn choose(&mut self, pos: &Position) -> Move {
        match self.player {
            Player::Random => Move::Place(random_square(pos.board.empty(), &mut self.rng)),
            Player::Greedy => {
                let best =
                    best_move_bits(pos.mover(), pos.opponent()).expect("the game is not over");
                Move::Place(random_square(best.squares, &mut self.rng))
            }
            Player::Solver { depth, exact } => self
                .solver
                .as_mut()
                .expect("solver agents own a solver")
                .choose(pos, depth, exact)
                .expect("the game is not over"),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The moves played, Black first.
    pub moves: Vec<Move>,
    /// The final position.
    pub end: Position,
}

impl GameRecord {
    /// Black's pieces minus Red's at the end.
    pub fn black_minus_red(&self) -> i32 {
        self.end.board.black.count_ones() as i32 - self.end.board.red.count_ones() as i32
    }
}

/// Plays a game from `start` to its end.
pub fn play_game(
    start: Position,
    black: &mut dyn Agent<Position>,
    red: &mut dyn Agent<Position>,
) -> GameRecord {
    let mut pos = start;
    let mut moves = Vec::new();
    while !pos.is_over() {
        let agent: &mut dyn Agent<Position> = match pos.to_move {
            Color::Black => &mut *black,
            Color::Red => &mut *red,
        };
        let mv = agent.choose(&pos);
        pos.try_apply(mv)
            .unwrap_or_else(|e| panic!("{} chose {mv}: {e}", agent.name()));
        moves.push(mv);
    }
    GameRecord { moves, end: pos }
}

/// A seeded random opening: `plies` random placements from the standard start.
pub fn opening(seed: u64, index: u64, plies: usize) -> Position {
    let mut rng = tournament::rng(seed ^ 0x0DE7_0DE7, index);
    let mut pos = Position::start();
    for _ in 0..plies {
        if pos.is_over() {
            break;
        }
        pos.apply(Move::Place(random_square(pos.board.empty(), &mut rng)));
    }
    pos
}

/// How a tournament is run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentConfig {
    /// The players; every pair meets.
    pub players: Vec<Player>,
    /// Openings per pair; each is played twice, colours swapped.
    pub openings: usize,
    /// Random placements in each opening.
    pub opening_plies: usize,
    /// Seed of the openings and of the players' random choices.
    pub seed: u64,
    /// Transposition table size of each solver, as a power of two.
    pub table_bits: u32,
}

/// One pair's results, from the first player's side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairResult {
    /// The first player.
    pub first: String,
    /// The second player.
    pub second: String,
    /// Wins, draws and losses of the first player.
    pub wdl: Wdl,
    /// Win rate of the first player.
    pub win_rate: f64,
    /// Draw rate.
    pub draw_rate: f64,
    /// Loss rate of the first player.
    pub loss_rate: f64,
    /// Wilson 95% interval of the first player's win rate.
    pub win_rate_ci95: (f64, f64),
    /// Final piece difference, first player minus second, with its 95% interval.
    pub difference: Mean,
}

/// A tournament's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentReport {
    /// How it was run.
    pub config: TournamentConfig,
    /// Every pair, in the order (0,1), (0,2), ..., (1,2), ...
    pub pairs: Vec<PairResult>,
}

/// Plays every pair of players on the same seeded openings, both colours.
///
/// Game `g` draws from stream `g` of the seed, so the same configuration gives
/// the same report whatever the thread count.
pub fn run_tournament(config: &TournamentConfig, progress: Progress<'_>) -> TournamentReport {
    let n = config.players.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let per_pair = 2 * config.openings;
    let differences = tournament::run(pairs.len() * per_pair, progress, |game| {
        let (i, j) = pairs[game / per_pair];
        let k = game % per_pair;
        let start = opening(config.seed, (k / 2) as u64, config.opening_plies);
        let rng = |salt: u64| tournament::rng(config.seed, (game as u64) << 1 | salt);
        let mut first = config.players[i].agent(rng(0), config.table_bits);
        let mut second = config.players[j].agent(rng(1), config.table_bits);
        // Even games: the first player takes the opening's side to move (Black).
        if k.is_multiple_of(2) {
            play_game(start, &mut first, &mut second).black_minus_red()
        } else {
            -play_game(start, &mut second, &mut first).black_minus_red()
        }
    });
    let pairs = pairs
        .iter()
        .enumerate()
        .map(|(p, &(i, j))| {
            let games = &differences[p * per_pair..(p + 1) * per_pair];
            let mut wdl = Wdl::default();
            for &d in games {
                wdl.add(d.into());
            }
            let sample: Vec<f64> = games.iter().map(|&d| f64::from(d)).collect();
            PairResult {
                first: config.players[i].name(),
                second: config.players[j].name(),
                wdl,
                win_rate: wdl.win_rate(),
                draw_rate: wdl.draw_rate(),
                loss_rate: wdl.loss_rate(),
                win_rate_ci95: wdl.win_rate_ci95(),
                difference: Mean::of(&sample),
            }
        })
        .collect();
    TournamentReport {
        config: config.clone(),
        pairs,
    }
}

impl TournamentReport {
    /// The report as a Markdown table, one row per pair.
    pub fn to_markdown(&self) -> String {
        let mut table = Table::new(&[
            "first",
            "second",
            "games",
            "W/D/L",
            "win",
            "draw",
            "loss",
            "win 95% CI",
            "pieces (first - second)",
        ]);
        for pair in &self.pairs {
            let w = &pair.wdl;
            table.row(&[
                pair.first.clone(),
                pair.second.clone(),
                w.games().to_string(),
                format!("{}/{}/{}", w.wins, w.draws, w.losses),
                format!("{:.3}", pair.win_rate),
                format!("{:.3}", pair.draw_rate),
                format!("{:.3}", pair.loss_rate),
                format!("[{:.3}, {:.3}]", pair.win_rate_ci95.0, pair.win_rate_ci95.1),
                pair.difference.display(1),
            ]);
        }
        table.to_markdown()
    }
}

/// One `bestMove` test: the request line and the right answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Case {
    /// The request line.
    pub request: String,
    /// The right answer.
    pub expected: u32,
}

/// The request line of `bestMove` for a board and the player to move.
pub fn request_line(board: &Board, turn: Color) -> String {
    let list = |mask: u64| -> String {
        let mut text = mask.count_ones().to_string();
        for square in (0..64u8).filter(|&s| mask >> s & 1 == 1) {
            text.push(' ');
            text.push_str(&square_name(square));
        }
        text
    };
    format!(
        "bestMove {} {} {}",
        list(board.red),
        list(board.black),
        turn.name()
    )
}

/// A random board the statement calls valid: at most 50 pieces of a colour,
/// no piece between two of the other colour, at least one empty square.
pub fn random_valid_board(rng: &mut ChaCha8Rng) -> Board {
    let fill = rng.random_range(0.0..0.95);
    let share = rng.random_range(0.2..0.8);
    let mut board = Board::default();
    for square in 0..64 {
        if rng.random_bool(fill) {
            if rng.random_bool(share) {
                board.red |= 1 << square;
            } else {
                board.black |= 1 << square;
            }
        }
    }
    // Emptying a caught piece can only free others, so this ends.
    loop {
        let caught = sandwiched(board.red, board.black) | sandwiched(board.black, board.red);
        if caught == 0 {
            break;
        }
        board.red &= !caught;
        board.black &= !caught;
    }
    for _ in 0..2 {
        while board.red.count_ones() > 50 {
            board.red &= board.red - 1;
        }
        while board.black.count_ones() > 50 {
            board.black &= board.black - 1;
        }
        // Removing pieces never catches one, but keep a square empty.
        if board.empty() == 0 {
            board.red &= board.red - 1;
        }
    }
    board
}

/// The statement's two examples, then `random` seeded random valid boards.
pub fn test_cases(random: usize, seed: u64) -> Vec<Case> {
    let examples = [
        (
            &[
                "C2", "C3", "C4", "C5", "D4", "E4", "F2", "F3", "F4", "F5", "G6",
            ][..],
            &["B1", "E1", "G1", "C6", "H7", "G4"][..],
            Color::Black,
        ),
        (
            &["A1", "B8", "C6", "C8", "D8"][..],
            &["B2", "C2", "C3", "C4", "C5"][..],
            Color::Red,
        ),
    ];
    let mut cases: Vec<Case> = examples
        .iter()
        .map(|(red, black, turn)| {
            let board = Board::from_squares(red, black).expect("valid example");
            case(&board, *turn)
        })
        .collect();
    for i in 0..random {
        let mut rng = tournament::rng(seed, i as u64);
        let board = random_valid_board(&mut rng);
        let turn = if rng.random_bool(0.5) {
            Color::Red
        } else {
            Color::Black
        };
        cases.push(case(&board, turn));
    }
    cases
}

fn case(board: &Board, turn: Color) -> Case {
    Case {
        request: request_line(board, turn),
        expected: best_move(board, turn).expect("a square is empty").pieces,
    }
}

/// A wrong or missing answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The request line.
    pub request: String,
    /// The right answer.
    pub expected: u32,
    /// What came back.
    pub got: String,
}

/// How a `bestMove` program fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Cases sent.
    pub cases: usize,
    /// Cases answered right.
    pub passed: usize,
    /// Cases answered wrong.
    pub failures: Vec<Failure>,
    /// Why the dialogue stopped early, if it did.
    pub fault: Option<String>,
}

/// Sends every case to `peer` and compares its answers with ours.
///
/// Each request must be taken and answered within `timeout` of its sending. Every line is passed
/// to `log` (`>` sent, `<` received), and `progress` hears how many cases are
/// done. A dead or silent peer stops the check.
pub fn referee_best_move(
    cases: &[Case],
    peer: &mut dyn Peer,
    timeout: Option<Duration>,
    log: &mut dyn FnMut(&str),
    progress: Progress<'_>,
) -> CheckReport {
    let mut report = CheckReport {
        cases: cases.len(),
        passed: 0,
        failures: Vec::new(),
        fault: None,
    };
    for (done, case) in cases.iter().enumerate() {
        progress(done);
        log(&format!("> {}", case.request));
        // Taking the request counts in the answer's time.
        let deadline = timeout.map(|t| Instant::now() + t);
        if let Err(e) = peer.send_line_by(&case.request, deadline) {
            report.fault = Some(format!("could not send a request: {e}"));
            break;
        }
        let line = match peer.recv_line(deadline) {
            Ok(line) => line,
            Err(e) => {
                report.fault = Some(format!("no answer to '{}': {e}", case.request));
                break;
            }
        };
        log(&format!("< {line}"));
        if line.trim() == case.expected.to_string() {
            report.passed += 1;
        } else {
            report.failures.push(Failure {
                request: case.request.clone(),
                expected: case.expected,
                got: line.trim().to_string(),
            });
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::serve;

    #[test]
    fn serves_good_and_bad_lines() {
        let cases = [
            (
                "bestMove 11 C2 C3 C4 C5 D4 E4 F2 F3 F4 F5 G6 6 B1 E1 G1 C6 H7 G4 Black",
                "16",
            ),
            ("bestMove 5 A1 B8 C6 C8 D8 5 B2 C2 C3 C4 C5 Red", "11"),
            ("bestMove 0 0 Red", "1"),
            ("bestMove 1 A1 0 Red", "2"),
            ("bestMove 1 A1 0 Black", "1"),
            ("bestMoves 0 0 Red", "error: unknown method 'bestMoves'"),
            ("bestMove 1 I9 0 Red", "error: 'I9' is not a square"),
            ("bestMove 1 c4 0 Red", "error: 'c4' is not a square"),
            (
                "bestMove 5 A1 B2 0 Red",
                "error: argument redPieces: bad array length '5'",
            ),
            (
                "bestMove 3 A1 B2 0 Red",
                "error: argument blackPieces: bad array length 'Red'",
            ),
            (
                "bestMove 2 A1 B2 0 Red extra",
                "error: unexpected extra argument 'extra'",
            ),
            ("bestMove 1 A1 0", "error: missing argument whoseTurn"),
            (
                "bestMove 2 A1 A1 0 Red",
                "error: square A1 is listed twice among the Red pieces",
            ),
            (
                "bestMove 1 A1 1 A1 Red",
                "error: square A1 is listed as both Red and Black",
            ),
            ("bestMove 0 0 red", "error: 'red' is not a player"),
            (
                "bestMove x 0 Red",
                "error: argument redPieces: bad array length 'x'",
            ),
            ("bestMove 1 A1 0 Red", "2"),
        ];
        let mut input: String = cases.iter().map(|(line, _)| format!("{line}\n")).collect();
        // A full board: 32 pieces each.
        let squares = |from: u8| -> Vec<String> {
            (from..from + 32)
                .map(tabula_solver::tothello::square_name)
                .collect()
        };
        input.push_str(&format!(
            "bestMove 32 {} 32 {} Red\n",
            squares(0).join(" "),
            squares(32).join(" ")
        ));
        let mut output = Vec::new();
        serve(input.as_bytes(), &mut output, answer).unwrap();
        let text = String::from_utf8(output).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), cases.len() + 1, "{text}");
        for ((request, expected), got) in cases.iter().zip(&lines) {
            assert!(
                got.starts_with(expected),
                "{request}: got '{got}', want '{expected}'"
            );
            if !expected.starts_with("error:") {
                assert_eq!(got, expected, "{request}");
            }
        }
        assert_eq!(
            lines[cases.len()],
            "error: the board is full: there is no empty square to play"
        );
    }

    fn small_config(players: Vec<Player>, seed: u64) -> TournamentConfig {
        TournamentConfig {
            players,
            openings: 3,
            opening_plies: 4,
            seed,
            table_bits: 14,
        }
    }

    #[test]
    fn same_seed_same_report() {
        let players = vec![Player::Random, Player::Greedy];
        let a = run_tournament(&small_config(players.clone(), 5), &|_| {});
        let b = run_tournament(&small_config(players.clone(), 5), &|_| {});
        assert_eq!(a, b);
        let c = run_tournament(&small_config(players, 6), &|_| {});
        assert_ne!(a, c);
        assert_eq!(a.pairs.len(), 1);
        assert_eq!(a.pairs[0].wdl.games(), 6);
        let w = &a.pairs[0].wdl;
        let cell = format!("| {}/{}/{} ", w.wins, w.draws, w.losses);
        assert!(a.to_markdown().contains(&cell), "{}", a.to_markdown());
    }

    #[test]
    fn stronger_players_beat_random_play() {
        let players = vec![
            Player::Random,
            Player::Greedy,
            Player::Solver { depth: 2, exact: 8 },
        ];
        let report = run_tournament(&small_config(players, 9), &|_| {});
        let table = report.to_markdown();
        let [random_greedy, random_solver, greedy_solver] = &report.pairs[..] else {
            panic!("three pairs expected: {table}");
        };
        assert!(random_greedy.difference.mean < 0.0, "{table}");
        // The solver wins every game against both.
        assert_eq!(random_solver.wdl.losses, 6, "{table}");
        assert_eq!(greedy_solver.wdl.losses, 6, "{table}");
    }

    #[test]
    fn games_end_full_or_after_two_passes_and_moves_replay() {
        let mut black = Player::Solver { depth: 1, exact: 6 }.agent(tournament::rng(1, 0), 12);
        let mut red = Player::Greedy.agent(tournament::rng(1, 1), 12);
        let start = opening(1, 0, 6);
        let record = play_game(start, &mut black, &mut red);
        assert!(record.end.is_over());
        let mut pos = start;
        for &mv in &record.moves {
            pos.try_apply(mv).unwrap();
        }
        assert_eq!(pos, record.end);
    }
    /// A peer answering with `answer`, optionally wrong on one request.
    struct InProcess {
        pending: Option<String>,
        wrong_on: Option<usize>,
        seen: usize,
    }

    impl Peer for InProcess {
        fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
            let mut reply = answer(line).unwrap_or_else(|e| format!("error: {e}"));
            if self.wrong_on == Some(self.seen) {
                reply = "0".into();
            }
            self.seen += 1;
            self.pending = Some(reply);
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            self.pending
                .take()
                .ok_or(crate::process::PlayerError::ClosedOutput)
        }
    }

    #[test]
    fn random_cases_are_valid_statement_boards() {
        let cases = test_cases(300, 3);
        assert_eq!(cases.len(), 302);
        assert_eq!(cases[0].expected, 16);
        assert_eq!(cases[1].expected, 11);
        let mut sizes = std::collections::BTreeSet::new();
        for i in 0..300 {
            let board = random_valid_board(&mut tournament::rng(3, i));
            assert_eq!(sandwiched(board.red, board.black), 0);
            assert_eq!(sandwiched(board.black, board.red), 0);
            assert!(board.red.count_ones() <= 50 && board.black.count_ones() <= 50);
            assert_ne!(board.empty(), 0);
            sizes.insert((board.red | board.black).count_ones() / 8);
        }
        // Sparse and dense boards alike.
        assert!(sizes.len() >= 6, "{sizes:?}");
        assert_eq!(test_cases(300, 3), cases);
    }

    #[test]
    fn referee_counts_right_and_wrong_answers() {
        let cases = test_cases(50, 1);
        let mut lines = 0;
        let mut good = InProcess {
            pending: None,
            wrong_on: None,
            seen: 0,
        };
        let report = referee_best_move(&cases, &mut good, None, &mut |_| lines += 1, &|_| {});
        assert_eq!((report.passed, report.failures.len()), (52, 0));
        assert_eq!(lines, 104);
        let mut bad = InProcess {
            pending: None,
            wrong_on: Some(7),
            seen: 0,
        };
        let report = referee_best_move(&cases, &mut bad, None, &mut |_| {}, &|_| {});
        assert_eq!(report.passed, 51);
        assert_eq!(report.failures[0].request, cases[7].request);
        assert_eq!(report.failures[0].got, "0");
    }
}
