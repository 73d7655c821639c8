//! MultiplayerReversi's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::reversi::Board as ReversiBoard;

use crate::notation::{field, strings, uint};
use crate::record::Notation;

/// MultiplayerReversi: a move is `col row` from 0, as on the wire.
impl Notation for ReversiBoard {
    const NAME: &'static str = "reversi";

    fn params_json(n: &usize) -> Value {
        json!({ "n": n })
    }

    fn start_json(&self) -> Value {
        json!({ "n": self.n(), "rows": self.rows(), "mover": self.mover() })
    }

    fn from_start_json(value: &Value) -> Result<ReversiBoard, String> {
        let rows = strings(value, "rows")?;
        if uint(value, "n")? as usize != rows.len() {
            return Err("'n' is not the number of rows".into());
        }
        // `null` once nobody can move (the game is over).
        let given = match field(value, "mover")? {
            Value::Null => None,
            m => Some(m.as_u64().ok_or("'mover' is not a seat")? as usize),
        };
        let players = ReversiBoard::players_for(rows.len());
        if let Some(seat) = given.filter(|&seat| seat >= players) {
            return Err(format!("no seat {seat} in a game of {players} players"));
        }
        let board =
            ReversiBoard::from_rows(&rows, given.unwrap_or(0)).map_err(|e| e.to_string())?;
        match (given, board.mover()) {
            (Some(seat), None) => Err(format!(
                "seat {seat} is to move, but nobody can move on this board ('mover' is null then)"
            )),
            (None, Some(seat)) => Err(format!("'mover' is null, but seat {seat} can move")),
            (Some(seat), Some(other)) if seat != other => Err(format!(
                "seat {seat} has no move on this board (seat {other} has)"
            )),
            _ => Ok(board),
        }
    }

    fn move_text(&self, square: tabula_solver::grid::Square) -> String {
        crate::reversi::wire::answer_text(self, square)
    }

    fn parse_move(&self, text: &str) -> Result<tabula_solver::grid::Square, String> {
        crate::reversi::wire::parse_answer(self, text)
    }
}
