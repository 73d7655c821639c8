//! Kalah's [`Notation`]: how its moves, start and parameters read in a game log.

use serde_json::{Value, json};
use tabula_solver::kalah::{self, Capture, Ending, Kalah};

use crate::notation::{field, text, uint};
use crate::record::Notation;

/// Kalah's rules as JSON, spelt as on the command line (`--ending mover-stuck`).
fn kalah_rules_json(rules: &kalah::Rules) -> Value {
    json!({
        "pits": rules.pits,
        "seeds": rules.seeds,
        "capture": rules.capture.name(),
        "ending": rules.ending.name(),
    })
}

/// The rules a log's `rules` (or a variant's parameters) name.
pub(crate) fn kalah_rules(value: &Value) -> Result<kalah::Rules, String> {
    let small = |name: &str| -> Result<u8, String> {
        u8::try_from(uint(value, name)?).map_err(|_| format!("'{name}' is out of range"))
    };
    let capture = text(value, "capture")?;
    let capture =
        Capture::from_name(capture).ok_or_else(|| format!("no capture rule '{capture}'"))?;
    let ending = text(value, "ending")?;
    let ending = Ending::from_name(ending).ok_or_else(|| format!("no end rule '{ending}'"))?;
    Ok(kalah::Rules::new(small("pits")?, small("seeds")?)
        .map_err(|e| e.to_string())?
        .with_capture(capture)
        .with_ending(ending))
}

/// Kalah: a move is the pit's label `1..m`, as in `tabula play kalah`'s
/// dialogue. The start gives the board by seat (seat 0's pits / seat 1's, each
/// in sowing order), not from the mover's side as the solver holds it, so that
/// a log reads the same whoever is to move.
impl Notation for kalah::Match {
    const NAME: &'static str = "kalah";

    fn params_json(rules: &kalah::Rules) -> Value {
        kalah_rules_json(rules)
    }

    fn start_json(&self) -> Value {
        let by_seat = match self.mover {
            0 => self.position,
            _ => self.position.flipped(),
        };
        json!({
            "rules": kalah_rules_json(&self.position.rules()),
            "board": by_seat.to_string(),
            "mover": self.mover,
            "stores": self.stores,
        })
    }

    fn from_start_json(value: &Value) -> Result<kalah::Match, String> {
        let rules = kalah_rules(field(value, "rules")?)?;
        let board = text(value, "board")?;
        let [seat0, seat1] =
            kalah::parse_sides(board, &rules).map_err(|e| format!("board '{board}': {e}"))?;
        let mover = uint(value, "mover")?;
        let stores: [u32; 2] = serde_json::from_value(field(value, "stores")?.clone())
            .map_err(|e| format!("stores: {e}"))?;
        let on_board: u64 = seat0.iter().chain(&seat1).map(|&s| u64::from(s)).sum();
        let seeds = on_board + u64::from(stores[0]) + u64::from(stores[1]);
        if seeds != u64::from(rules.total_seeds()) {
            return Err(format!(
                "{seeds} seeds, the game has {}",
                rules.total_seeds()
            ));
        }
        let position = match mover {
            0 => Kalah::from_pits(rules, &seat0, &seat1),
            1 => Kalah::from_pits(rules, &seat1, &seat0),
            _ => return Err(format!("no seat {mover}")),
        };
        if !position.arises() {
            return Err(format!(
                "'{board}' ended the game already (a side is empty)"
            ));
        }
        Ok(kalah::Match {
            position,
            mover: mover as usize,
            stores,
        })
    }

    fn move_text(&self, pit: kalah::Pit) -> String {
        (pit + 1).to_string()
    }

    fn parse_move(&self, text: &str) -> Result<kalah::Pit, String> {
        kalah::parse_label(text, &self.position.rules()).map_err(|e| e.to_string())
    }

    fn check_params(&self, params: &Value) -> Result<(), String> {
        let rules = kalah_rules(params)?;
        match rules == self.position.rules() {
            true => Ok(()),
            false => Err(format!(
                "the start's rules are not the case's {}",
                kalah_rules_json(&rules)
            )),
        }
    }
}
