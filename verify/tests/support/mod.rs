//! What the contract test and the golden playthroughs share: the one list of
//! games ([`for_each_game`]), how a test starts each of them ([`Subject`]),
//! and seeded random playouts.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabula_solver::dominoes::{self, Deal};
use tabula_solver::game::Determinize;
use tabula_solver::ioiwari::{self, Params as RingParams};
use tabula_solver::kalah::{self, Capture, Ending};
use tabula_solver::nim::Nim;
use tabula_solver::reversi::Board as ReversiBoard;
use tabula_solver::{Game, Seat, Turn, tonga, tothello};
use tabula_verify::arena::{GameRecord, Ply};
use tabula_verify::record::Notation;
use tabula_verify::terminal::Terminal;

/// Every game the tests hold to the contract, one line each: the name of its
/// tests and its state type. `$each!(name, Type)` is invoked once per game, so a
/// new game gets every check and a playthrough by being added here (and
/// implementing [`Subject`]).
#[macro_export]
macro_rules! for_each_game {
    ($each:ident) => {
        $each!(nim, tabula_solver::nim::Nim);
        $each!(ioiwari, tabula_solver::ioiwari::Match);
        $each!(ioiwari_ring, tabula_solver::ioiwari::RingMatch);
        $each!(kalah, tabula_solver::kalah::Match);
        $each!(tonga, tabula_solver::tonga::Position);
        $each!(tothello, tabula_solver::tothello::Position);
        $each!(reversi, tabula_solver::reversi::Board);
        $each!(dominoes, tabula_solver::dominoes::Match);
    };
}

/// A game as the tests start and bound it.
pub trait Subject: Notation + Determinize {
    /// A small case of the game drawn from `rng`: its start and its parameters.
    fn start(rng: &mut ChaCha8Rng) -> (Self, Self::Params);

    /// More plies than any game of this case can last.
    fn max_plies(&self) -> usize;

    /// Moves that are never legal here although the move type can spell
    /// them (out of range); none when the type cannot.
    fn off_moves(&self) -> Vec<Self::Move> {
        Vec::new()
    }

    /// How a playthrough shows `view`: its `Debug` unless that is unreadable.
    fn render(view: &Self::View) -> String {
        format!("{view:?}")
    }

    /// What the chance weights of this state sum to, when the game says.
    fn chance_total(&self) -> Option<f64> {
        None
    }
}

/// Pit labels past the board's last pit and far past it.
fn past(count: usize) -> Vec<u8> {
    vec![count as u8, u8::MAX]
}

impl Subject for Nim {
    fn start(rng: &mut ChaCha8Rng) -> (Nim, u32) {
        let heap = rng.random_range(1..=25);
        (Nim::new(heap), heap)
    }

    fn max_plies(&self) -> usize {
        self.heap as usize
    }

    fn off_moves(&self) -> Vec<u8> {
        vec![0, tabula_solver::nim::MAX_TAKE + 1, u8::MAX]
    }
}

impl Subject for ioiwari::Match {
    fn start(rng: &mut ChaCha8Rng) -> (ioiwari::Match, ioiwari::Board) {
        let boards = ioiwari::starting_boards();
        let board = boards[rng.random_range(0..boards.len())];
        (ioiwari::Match::new(board), board)
    }

    fn max_plies(&self) -> usize {
        // Every sowing empties its pit and fills later ones: a generous bound.
        2_000
    }

    fn off_moves(&self) -> Vec<u8> {
        past(ioiwari::PITS)
    }
}

impl Subject for ioiwari::RingMatch {
    fn start(rng: &mut ChaCha8Rng) -> (ioiwari::RingMatch, ioiwari::Ring) {
        // Small rings of the variant family, the IOI table's shape excluded.
        let (pits, cap, beads, low, high) =
            [(3, 3, 6, 1, 3), (4, 4, 10, 2, 3), (5, 5, 12, 2, 3)][rng.random_range(0..3)];
        let params = RingParams::new(pits, cap, beads, low, high).expect("valid ring parameters");
        let rings = params.starting_rings();
        let ring = rings[rng.random_range(0..rings.len())];
        (ioiwari::RingMatch::new(ring), ring)
    }

    fn max_plies(&self) -> usize {
        2_000
    }

    fn off_moves(&self) -> Vec<u8> {
        past(self.board.pits().len())
    }
}

impl Subject for kalah::Match {
    fn start(rng: &mut ChaCha8Rng) -> (kalah::Match, kalah::Rules) {
        let capture = [Capture::Always, Capture::NonEmpty][rng.random_range(0..2)];
        let ending = [Ending::AfterAnyMove, Ending::MoverStuck][rng.random_range(0..2)];
        let rules = kalah::Rules::new(rng.random_range(1..=4), rng.random_range(1..=4))
            .expect("a small Kalah")
            .with_capture(capture)
            .with_ending(ending);
        (kalah::Match::new(rules), rules)
    }

    fn max_plies(&self) -> usize {
        2_000
    }

    fn off_moves(&self) -> Vec<u8> {
        past(usize::from(self.position.rules().pits))
    }
}

impl Subject for tonga::Position {
    fn render(view: &tonga::Position) -> String {
        <Self as Terminal>::draw(view)
    }

    fn start(rng: &mut ChaCha8Rng) -> (tonga::Position, usize) {
        let n = [4, 6][rng.random_range(0..2)];
        (
            tonga::Position::start(n).expect("a board side of the game"),
            n,
        )
    }

    fn max_plies(&self) -> usize {
        self.board.cells()
    }

    fn off_moves(&self) -> Vec<u8> {
        past(self.board.cells())
    }
}

impl Subject for tothello::Position {
    fn render(view: &tothello::Position) -> String {
        <Self as Terminal>::draw(view)
    }

    fn start(_rng: &mut ChaCha8Rng) -> (tothello::Position, tothello::Position) {
        let start = tothello::Position::start();
        (start, start)
    }

    fn max_plies(&self) -> usize {
        // 60 placements and at most one pass before each.
        120
    }
}

impl Subject for ReversiBoard {
    fn start(rng: &mut ChaCha8Rng) -> (ReversiBoard, usize) {
        let n = rng.random_range(7..=8);
        (ReversiBoard::start(n).expect("a board side of the game"), n)
    }

    fn max_plies(&self) -> usize {
        // A seat without a move is skipped, not asked: one ply per placement.
        self.n() * self.n()
    }

    fn off_moves(&self) -> Vec<u8> {
        past(self.n() * self.n())
    }
}

impl Subject for dominoes::Match {
    fn start(rng: &mut ChaCha8Rng) -> (dominoes::Match, dominoes::Rules) {
        let cases: Vec<dominoes::Rules> = dominoes::Rules::all().collect();
        let rules = cases[rng.random_range(0..cases.len())];
        (dominoes::Match::new(&Deal::random(rules, rng)), rules)
    }

    fn max_plies(&self) -> usize {
        // Per tile at most: a draw, its outcome, its placing and a pass.
        4 * self.rules().tile_count() as usize
    }

    fn chance_total(&self) -> Option<f64> {
        // Every tile of the stock is equally likely.
        (self.turn() == Turn::Chance).then(|| f64::from(self.stock().len()))
    }
}

/// A seeded random playout: its start, its parameters and every ply.
pub struct Playout<G: Game> {
    /// The case's parameters.
    pub params: G::Params,
    /// The states from the start to the end, one more than the moves.
    pub states: Vec<G>,
    /// The moves, with the turn each was made in.
    pub moves: Vec<(Turn, G::Move)>,
}

/// A random game from a random start, both drawn from `seed`: seats pick
/// uniformly among their legal moves, chance by its weights. Stops after
/// `max_plies + 1` plies, so that a game that does not end shows as too long.
pub fn playout<G: Subject>(seed: u64) -> Playout<G> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (start, params) = G::start(&mut rng);
    let limit = start.max_plies() + 1;
    let mut states = vec![start];
    let mut moves = Vec::new();
    while moves.len() < limit {
        let state = states.last().expect("a start");
        let turn = state.turn();
        let mv = match turn {
            Turn::Over => break,
            Turn::Chance => state.sample_chance(&mut rng),
            Turn::Seat(_) => {
                let legal = state.moves();
                legal[rng.random_range(0..legal.len())]
            }
        };
        let mut next = state.clone();
        next.apply(mv);
        moves.push((turn, mv));
        states.push(next);
    }
    Playout {
        params,
        states,
        moves,
    }
}

/// The playout's moves up to `plies` as the match loop records a game, with
/// `fault` the seat whose fault ended it there, if any.
pub fn record<G: Game>(playout: &Playout<G>, plies: usize, fault: Option<Seat>) -> GameRecord<G> {
    let mut end = playout.states[plies].clone();
    if let Some(seat) = fault {
        end.forfeit(seat);
    }
    let seats = end.seats();
    GameRecord {
        players: (0..seats).map(|s| format!("random-{s}")).collect(),
        plies: playout.moves[..plies]
            .iter()
            .map(|&(turn, mv)| Ply {
                turn,
                mv,
                time: Duration::ZERO,
            })
            .collect(),
        scores: end.scores(),
        fault: fault.map(|seat| tabula_verify::seat::Fault {
            seat,
            kind: tabula_verify::seat::FaultKind::IllegalMove,
            reason: "a fault for the test".into(),
            ends_case: false,
        }),
        time_used: vec![Duration::ZERO; seats],
        start: playout.states[0].clone(),
        end,
    }
}
