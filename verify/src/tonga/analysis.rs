//! PseudoTonga's exact values ([`Valuer`]): the endgame solver's perfect
//! play by both seats, from [`MAX_EMPTIES`] empty squares down, giving up at
//! the deadline (and then saying nothing). Earlier positions are drawn and
//! listed, unvalued.

use std::path::PathBuf;
use std::time::Instant;

use tabula_solver::tonga::endgame::{Endgame, MAX_EMPTIES};
use tabula_solver::tonga::{Board, Colour, Position};

use crate::analysis::{AgentFn, AnalysisError, Analyst, DefaultStart, Valuer, untabled};

/// PseudoTonga's values, by the exact endgame search.
pub struct TongaValues;

impl Valuer for TongaValues {
    type Game = Position;
    const AGENTS: Option<AgentFn<Position>> = Some(crate::tonga::players::agent);
    fn value(&self, state: &Position, deadline: Instant) -> Option<i32> {
        let black = |for_mover: i32| match state.to_move {
            Colour::Black => for_mover,
            Colour::White => -for_mover,
        };
        if state.board.is_full() {
            return Some(black(state.difference()));
        }
        if state.board.empties() > MAX_EMPTIES {
            return None;
        }
        // The reduced board is the search's own; it is made anew each time.
        let mut endgame = Endgame::new(&state.board).ok()?;
        endgame.solve_until(state.to_move, deadline).map(black)
    }
}

impl DefaultStart for Position {
    fn board_syntax() -> Option<&'static str> {
        Some("B.W. / .... / .WB. / .... (the rows split by /; B, W or . a cell)")
    }

    /// The board `tabula query tonga --batch` reads; the counts say who moves.
    fn from_board(text: &str, _params: Option<&serde_json::Value>) -> Result<Position, String> {
        parse_rows(text).map(Position::from_board)
    }

    fn move_cell(&self, cell: tabula_solver::tonga::Cell) -> Option<[usize; 2]> {
        let (row, col) = self.board.row_col(cell);
        Some([row, col])
    }
}

/// A board on one line, its rows split by `/` (the board text `score` reads,
/// as `tabula query tonga --batch` reads a line).
pub fn parse_rows(line: &str) -> Result<Board, String> {
    let rows: Vec<&str> = line.split('/').collect();
    // A row left out between slashes would otherwise be passed over as a blank line.
    if let Some(i) = rows.iter().position(|r| r.trim().is_empty()) {
        return Err(format!("row {} of {} is empty", i + 1, rows.len()));
    }
    let text = format!("{}\n{}", rows.len(), rows.join("\n"));
    Board::parse(&text).map_err(|e| e.to_string())
}

/// PseudoTonga's analyst (it reads no tables).
pub fn analyst(tables: &[PathBuf]) -> Result<Box<dyn Analyst>, AnalysisError> {
    untabled(tables, TongaValues)
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

    /// Black's points less White's.
    fn margin(state: &Position) -> i32 {
        let scores = state.scores();
        (scores[0] - scores[1]) as i32
    }

    /// A game of side `n` played at random down to `empties` empty squares.
    fn random_position(rng: &mut ChaCha8Rng, n: usize, empties: usize) -> Position {
        let start = Position::start(n).expect("a side of the game");
        play_at_random(start, rng, |s| s.board.empties() > empties, |n| n)
    }

    #[test]
    fn values_match_plain_minimax_on_small_endgames() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for k in 0..12 {
            let (n, empties) = if k % 2 == 0 {
                (4, 7 + k % 3)
            } else {
                (6, 6 + k % 3)
            };
            let state = random_position(&mut rng, n, empties);
            let plain = plain_minimax(&state, margin, &mut HashMap::new());
            assert_eq!(TongaValues.value(&state, far), Some(plain), "{state:?}");
        }
        let over = random_position(&mut rng, 4, 0);
        assert_eq!(TongaValues.value(&over, far), Some(margin(&over)));
    }

    #[test]
    fn positions_before_the_endgame_or_past_the_deadline_have_no_value() {
        let far = Instant::now() + Duration::from_secs(60);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let early = random_position(&mut rng, 8, MAX_EMPTIES + 1);
        assert_eq!(TongaValues.value(&early, far), None);
        let late = random_position(&mut rng, 8, MAX_EMPTIES);
        assert_eq!(TongaValues.value(&late, Instant::now()), None);
    }
}
