//! How a state of Kalah is drawn on the replay page ([`Draw`]).

use tabula_solver::kalah;

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, seat_to_move, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<kalah::Match>(line)
}

impl Draw for kalah::Match {
    fn board(&self) -> Vec<Vec<String>> {
        // As the board lies between the players: seat 1's pits right to left
        // above seat 0's left to right, each store at its owner's right.
        let m = usize::from(self.position.rules().pits);
        let pits = self.position.pits();
        let (mine, theirs) = (&pits[..m], &pits[m..2 * m]);
        let (seat0, seat1) = match self.mover {
            0 => (mine, theirs),
            _ => (theirs, mine),
        };
        let mut top = vec![format!("[{}]", self.stores[1])];
        top.extend(seat1.iter().rev().map(u8::to_string));
        top.push(".".into());
        let mut bottom = vec![".".to_string()];
        bottom.extend(seat0.iter().map(u8::to_string));
        bottom.push(format!("[{}]", self.stores[0]));
        vec![top, bottom]
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "seat 0's pits below, left to right; seat 1's above, right to left; \
             stores [in brackets]"
                .into(),
            seat_to_move(tabula_solver::Game::is_over(self), self.mover),
        ]
    }
}
