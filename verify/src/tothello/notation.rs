//! Tothello's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::tothello;

use crate::notation::{text, uint};
use crate::record::Notation;

/// Tothello: a move is a square like `C4` or `pass`.
impl Notation for tothello::Position {
    const NAME: &'static str = "tothello";

    fn params_json(opening: &tothello::Position) -> Value {
        json!({ "opening": crate::tothello::wire::request_line(&opening.board, opening.to_move) })
    }

    fn start_json(&self) -> Value {
        // The bestMove request's arguments: red pieces, black pieces, whose turn.
        json!({
            "position": crate::tothello::wire::request_line(&self.board, self.to_move),
            "passes": self.passes,
        })
    }

    fn from_start_json(value: &Value) -> Result<tothello::Position, String> {
        let (board, to_move) = crate::tothello::wire::decode_request(text(value, "position")?)
            .map_err(|e| e.to_string())?;
        let passes = uint(value, "passes")?;
        if passes > 2 {
            return Err(format!("{passes} passes"));
        }
        Ok(tothello::Position {
            board,
            to_move,
            passes: passes as u8,
        })
    }

    fn move_text(&self, mv: tothello::Move) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<tothello::Move, String> {
        text.parse()
            .map_err(|e: tothello::TothelloError| e.to_string())
    }
}
