//! How a state of Ioiwari is drawn on the replay page ([`Draw`]).

use tabula_solver::ioiwari;

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, pits_then_banks, seat_to_move, shown};

/// A logged game as the replay page shows it: a variant's start names its
/// capacity; the IOI game's does not.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    match line.start.get("cap") {
        Some(_) => shown::<ioiwari::RingMatch>(line),
        None => shown::<ioiwari::Match>(line),
    }
}

impl Draw for ioiwari::Match {
    fn board(&self) -> Vec<Vec<String>> {
        pits_then_banks(&self.board.pits(), &self.banks)
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "pits 1 to 7, then the banks [seat 0] [seat 1]".into(),
            seat_to_move(tabula_solver::Game::is_over(self), self.mover),
        ]
    }
}

impl Draw for ioiwari::RingMatch {
    fn board(&self) -> Vec<Vec<String>> {
        pits_then_banks(self.board.pits(), &self.banks)
    }
    fn notes(&self) -> Vec<String> {
        vec![
            format!(
                "pits 1 to {} (at most {} beads each), then the banks [seat 0] [seat 1]",
                self.board.pits().len(),
                self.board.cap()
            ),
            seat_to_move(tabula_solver::Game::is_over(self), self.mover),
        ]
    }
}
