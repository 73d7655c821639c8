//! PseudoTonga's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::tonga::{self, Board as TongaBoard, Colour};

use crate::notation::{strings, text, uint};
use crate::record::Notation;

/// PseudoTonga: a move is `row col` from 0, as on the wire.
impl Notation for tonga::Position {
    const NAME: &'static str = "tonga";

    fn params_json(n: &usize) -> Value {
        json!({ "n": n })
    }

    fn start_json(&self) -> Value {
        let b = &self.board;
        let rows: Vec<String> = (0..b.n())
            .map(|r| {
                (0..b.n())
                    .map(|c| b.at(b.cell(r, c)).map_or('.', Colour::letter))
                    .collect()
            })
            .collect();
        json!({ "n": b.n(), "rows": rows, "to_move": self.to_move.letter().to_string() })
    }

    fn from_start_json(value: &Value) -> Result<tonga::Position, String> {
        let n = uint(value, "n")?;
        let rows = strings(value, "rows")?;
        let board =
            TongaBoard::parse(&format!("{n}\n{}", rows.join("\n"))).map_err(|e| e.to_string())?;
        let to_move = text(value, "to_move")?;
        let to_move = Colour::from_letter(to_move).ok_or_else(|| format!("no colour {to_move}"))?;
        // Black moves first and turns alternate: the counts say who moves.
        board.check_counts().map_err(|e| e.to_string())?;
        if to_move != board.to_move() {
            return Err(format!(
                "'to_move' is {}, but with these stone counts {} moves (Black moves first)",
                to_move.letter(),
                board.to_move().letter()
            ));
        }
        Ok(tonga::Position { board, to_move })
    }

    fn move_text(&self, cell: tonga::Cell) -> String {
        let (r, c) = self.board.row_col(cell);
        format!("{r} {c}")
    }

    fn parse_move(&self, text: &str) -> Result<tonga::Cell, String> {
        crate::tonga::wire::parse_answer(&self.board, text)
    }
}
