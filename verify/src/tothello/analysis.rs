//! Tothello's exact values ([`Valuer`]): the solver's exact endgame search,
//! from [`EXACT_EMPTIES`] empty squares down, giving up at the deadline (and
//! then saying nothing). Earlier positions are drawn and listed, unvalued.

use std::path::PathBuf;
use std::time::Instant;

use rand_chacha::ChaCha8Rng;
use tabula_solver::tothello::{Board, Color, Position, Solver};

use super::players::AgentKind;
use crate::agent::Agent;

use crate::analysis::{AnalysisError, Analyst, DefaultStart, Pool, Valuer, untabled};

/// The most empty squares of a position valued: the exact search of 14
/// empties takes well under a second, one more empty square multiplies it.
pub const EXACT_EMPTIES: u32 = 14;

/// Slots of each solver's table (24 bytes each).
const SOLVER_BITS: u32 = 18;

/// Tothello's values, by the exact endgame search.
pub struct TothelloValues(Pool<Solver>);

impl Default for TothelloValues {
    fn default() -> Self {
        TothelloValues(Pool::new(|| Solver::new(SOLVER_BITS)))
    }
}

impl Valuer for TothelloValues {
    type Game = Position;
    fn value(&self, state: &Position, deadline: Instant) -> Option<i32> {
        if state.empties() > EXACT_EMPTIES {
            return None;
        }
        let for_mover = self
            .0
            .with(|solver| solver.solve_until(state, deadline))?
            .value;
        // Black is seat 0.
        Some(match state.to_move {
            Color::Black => for_mover,
            Color::Red => -for_mover,
        })
    }

    /// `random`, `greedy` and `solver-dD-eE` (up to depth 8 and 14 exact empties).
    fn agent(
        &self,
        name: &str,
        _state: &Position,
        rng: ChaCha8Rng,
    ) -> Option<Box<dyn Agent<Position>>> {
        let kind = AgentKind::parse(name)?;
        // A deeper search would take the server past its time limit.
        if let AgentKind::Solver { depth, exact } = kind
            && (depth > 8 || exact > EXACT_EMPTIES)
        {
            return None;
        }
        Some(Box::new(kind.agent(rng, SOLVER_BITS)))
    }
}

impl DefaultStart for Position {
    fn default_start() -> Option<Position> {
        Some(Position::start())
    }

    fn board_syntax() -> Option<&'static str> {
        Some(
            "D4 E5 / D5 E4 / Black (red's squares / black's / the mover, then / passed after a pass)",
        )
    }

    fn from_board(text: &str, _params: Option<&serde_json::Value>) -> Result<Position, String> {
        parse_line(text)
    }

    /// A placement's square (a pass is a button only).
    fn move_cell(&self, mv: tabula_solver::tothello::Move) -> Option<[usize; 2]> {
        match mv {
            tabula_solver::tothello::Move::Place(square) => {
                Some([usize::from(square / 8), usize::from(square % 8)])
            }
            tabula_solver::tothello::Move::Pass => None,
        }
    }
}

/// A position on one line, `RED / BLACK / TURN`, then `/ passed` after a
/// pass (`D4 E5 / D5 E4 / Red`), as `tabula query tothello --batch` reads it.
pub fn parse_line(line: &str) -> Result<Position, String> {
    let fields: Vec<&str> = line.split('/').map(str::trim).collect();
    let expected = "expected RED / BLACK / TURN, then `/ passed` or nothing";
    let passed = match fields.get(3) {
        None => false,
        Some(&"passed") if fields.len() == 4 => true,
        Some(_) => return Err(expected.into()),
    };
    let [red, black, turn] = fields[..fields.len().min(3)] else {
        return Err(expected.into());
    };
    let board = Board::from_squares(&square_list(red), &square_list(black))
        .map_err(|e| format!("bad position: {e}"))?;
    let turn = parse_color(turn).map_err(|e| format!("bad turn: {e}"))?;
    let mut pos = Position::new(board, turn);
    pos.passes = u8::from(passed);
    Ok(pos)
}

/// A colour on the command line: `Red` or `Black` in any case (the protocol
/// itself keeps the statement's exact spelling).
pub fn parse_color(text: &str) -> Result<Color, tabula_solver::tothello::TothelloError> {
    if text.eq_ignore_ascii_case("red") {
        Ok(Color::Red)
    } else if text.eq_ignore_ascii_case("black") {
        Ok(Color::Black)
    } else {
        text.parse()
    }
}

/// Squares separated by commas or spaces (`D4,E5` or `D4 E5`).
pub fn square_list(text: &str) -> Vec<String> {
    text.split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Tothello's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    untabled(tables, TothelloValues::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::reference::{plain_minimax, play_at_random};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;
    use std::time::Duration;
    use tabula_solver::Game;

    /// Black's pieces less Red's.
    fn margin(state: &Position) -> i32 {
        let scores = state.scores();
        (scores[0] - scores[1]) as i32
    }

    /// A position with `empties` empty squares after random placements from the start.
    fn random_position(rng: &mut ChaCha8Rng, empties: u32) -> Position {
        // Placements only (the pass is listed last): the board fills.
        play_at_random(Position::start(), rng, |s| s.empties() > empties, |n| n - 1)
    }

    #[test]
    fn values_match_plain_minimax_on_small_endgames() {
        let far = Instant::now() + Duration::from_secs(60);
        let values = TothelloValues::default();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut memo = HashMap::new();
        for k in 0..12 {
            let mut state = random_position(&mut rng, 4 + k % 4);
            if k % 3 == 0 {
                // After a pass: passing again ends the game.
                state.apply(tabula_solver::tothello::Move::Pass);
            }
            let plain = plain_minimax(&state, margin, &mut memo);
            assert_eq!(values.value(&state, far), Some(plain), "{state}");
        }
    }

    #[test]
    fn positions_before_the_endgame_or_past_the_deadline_have_no_value() {
        let values = TothelloValues::default();
        let far = Instant::now() + Duration::from_secs(60);
        assert_eq!(values.value(&Position::start(), far), None);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let state = random_position(&mut rng, EXACT_EMPTIES);
        assert_eq!(values.value(&state, Instant::now()), None);
    }
}
