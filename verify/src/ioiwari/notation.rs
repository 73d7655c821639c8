//! Ioiwari's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::ioiwari::{self, Board as IoiBoard, Params, Ring, parse_label};

use crate::notation::{field, text, uint};
use crate::record::Notation;

/// Ioiwari: a move is the pit's label 1..7, as in the IOI dialogue.
impl Notation for ioiwari::Match {
    const NAME: &'static str = "ioiwari";

    fn params_json(board: &IoiBoard) -> Value {
        json!({ "board": board.to_string() })
    }

    fn start_json(&self) -> Value {
        json!({ "board": self.board.to_string(), "mover": self.mover, "banks": self.banks })
    }

    fn from_start_json(value: &Value) -> Result<ioiwari::Match, String> {
        let board: IoiBoard = text(value, "board")?
            .parse()
            .map_err(|e: ioiwari::IoiwariError| e.to_string())?;
        let mover = uint(value, "mover")?;
        let most = ioiwari::PITS as u32 * u32::from(ioiwari::MAX_BEADS);
        let banks = banks(value, board.beads(), most)?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(ioiwari::Match {
            board,
            mover: mover as usize,
            banks,
        })
    }

    fn move_text(&self, pit: u8) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        parse_label(text).map_err(|e| e.to_string())
    }
}

/// An Ioiwari variant: as the IOI game, with the capacity in the start (a
/// variant's pits are the board's words); the IOI game's logs have none.
impl Notation for ioiwari::RingMatch {
    const NAME: &'static str = "ioiwari";

    fn params_json(ring: &Ring) -> Value {
        json!({ "board": ring.to_string() })
    }

    fn start_json(&self) -> Value {
        json!({
            "board": self.board.to_string(),
            "cap": self.board.cap(),
            "mover": self.mover,
            "banks": self.banks,
        })
    }

    fn from_start_json(value: &Value) -> Result<ioiwari::RingMatch, String> {
        let board = text(value, "board")?;
        let cap = u8::try_from(uint(value, "cap")?).map_err(|e| format!("cap: {e}"))?;
        let pits = u8::try_from(board.split_whitespace().count()).unwrap_or(u8::MAX);
        // Any starting range will do: only the ring's pits and capacity matter here.
        let params = Params::new(pits, cap, 0, 0, cap).map_err(|e| e.to_string())?;
        let ring = Ring::parse(&params, board).map_err(|e| e.to_string())?;
        let mover = uint(value, "mover")?;
        let banks = banks(value, ring.beads(), u32::from(pits) * u32::from(cap))?;
        if mover > 1 {
            return Err(format!("no seat {mover}"));
        }
        Ok(ioiwari::RingMatch {
            board: ring,
            mover: mover as usize,
            banks,
        })
    }

    fn move_text(&self, pit: u8) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, String> {
        crate::ioiwari::Banked::parse_pit(self, text)
    }
}

/// A Mancala ring's banks as a log's start reads them: at most the beads
/// the ring can hold (`most`) in all, counting those on the board, so that
/// no sum of them can overflow.
fn banks(value: &Value, on_board: u32, most: u32) -> Result<[u32; 2], String> {
    let banks: [u32; 2] = serde_json::from_value(field(value, "banks")?.clone())
        .map_err(|e| format!("banks: {e}"))?;
    let total = u64::from(banks[0]) + u64::from(banks[1]) + u64::from(on_board);
    if total > u64::from(most) {
        return Err(format!(
            "banks {} and {} and {on_board} beads on the board: more than the {most} beads the ring holds",
            banks[0], banks[1]
        ));
    }
    Ok(banks)
}
