//! Nim's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::nim::Nim;

use crate::notation::uint;
use crate::record::Notation;

/// Nim: a move is the count taken, as on the wire.
impl Notation for Nim {
    const NAME: &'static str = "nim";

    fn params_json(heap: &u32) -> Value {
        json!({ "heap": heap })
    }

    fn start_json(&self) -> Value {
        json!({ "heap": self.heap, "mover": self.mover })
    }

    fn from_start_json(value: &Value) -> Result<Nim, String> {
        let heap = u32::try_from(uint(value, "heap")?).map_err(|e| e.to_string())?;
        let mover = uint(value, "mover")?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(Nim {
            heap,
            mover: mover as usize,
        })
    }

    fn move_text(&self, mv: u8) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        text.parse().map_err(|_| format!("'{text}' is not a count"))
    }
}
