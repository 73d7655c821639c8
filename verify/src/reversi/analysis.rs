//! MultiplayerReversi's analysis: a four-seat game has no exact two-player
//! value, so its moves are drawn and listed, unvalued; what the built-in
//! players would play there is [`super::query::analyse`]'s (`tabula explore`
//! shows it), and any of them can be played against.

use std::path::PathBuf;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use tabula_solver::grid::Square;
use tabula_solver::reversi::Board;
use tabula_solver::reversi::search::{Evaluation, Kind, decide};

use super::baselines::SEARCH_LIMITS;
use crate::record::Notation;

use crate::agent::Agent;
use crate::analysis::{AgentFn, AnalysisError, Analyst, DefaultStart, Valuer, untabled};

impl DefaultStart for Board {
    fn board_syntax() -> Option<&'static str> {
        Some(
            "......./......./..123../..231../..312../......./....... (the rows split by / or spaces; player 1 to move, or the next who can)",
        )
    }

    /// The board `tabula query reversi` reads, player 1 asked to move (its `--mover`'s default).
    fn from_board(text: &str, _params: Option<&Value>) -> Result<Board, String> {
        super::query::parse_board(text, 0).map_err(|e| format!("bad board: {e}"))
    }

    fn move_cell(&self, square: Square) -> Option<[usize; 2]> {
        let (row, col) = self.geometry().row_col(square);
        Some([row, col])
    }
}

/// No values, and the built-in players.
pub struct ReversiPlayers;

impl Valuer for ReversiPlayers {
    type Game = Board;
    const AGENTS: Option<AgentFn<Board>> = Some(super::agent);
    fn value(&self, _state: &Board, _deadline: Instant) -> Option<i32> {
        None
    }
    /// Each legal move's value on the `weights` player's positional table
    /// (own less the others' mean, times P−1), and the move each
    /// deterministic built-in player plays, with the searches' values (in
    /// pieces, from their deepest completed iteration).
    fn hints(&self, board: &Board) -> Option<Value> {
        let seat = board.mover()?;
        let eval = Evaluation::new(board.n());
        let others = board.players() as i32 - 1;
        let moves: Vec<Value> = board
            .moves_of(seat)
            .iter()
            .map(|square| {
                let mut next = *board;
                next.play(square as Square);
                let own = next.pieces(seat);
                let value =
                    others * eval.positional(own) - eval.positional(next.occupied().and_not(own));
                json!({ "mv": board.move_text(square as Square), "weights": value })
            })
            .collect();
        let mut players = Vec::new();
        for (name, kind) in [("paranoid", Kind::Paranoid), ("brs", Kind::BestReply)] {
            if let Some(found) = decide(kind, board, seat, &eval, SEARCH_LIMITS) {
                players.push(json!({
                    "player": name,
                    "mv": board.move_text(found.square),
                    "value": found.value,
                    "depth": found.depth,
                }));
            }
        }
        for name in ["greedy", "weights", "best"] {
            // A fixed stream: the same board gives the same answer.
            let mut agent = super::agent(name, ChaCha8Rng::seed_from_u64(0))?;
            agent.start_game(seat, board);
            let square = agent.choose(board);
            players.push(json!({ "player": name, "mv": board.move_text(square) }));
        }
        Some(json!({ "seat": seat, "moves": moves, "players": players }))
    }
}

/// MultiplayerReversi's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    untabled(tables, ReversiPlayers)
}
