//! How a state of Nim is drawn on the replay page ([`Draw`]).

use tabula_solver::nim::Nim;

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<Nim>(line)
}

impl Draw for Nim {
    fn board(&self) -> Vec<Vec<String>> {
        vec![vec![self.heap.to_string()]]
    }
    fn notes(&self) -> Vec<String> {
        vec![format!("heap {}, seat {} to move", self.heap, self.mover)]
    }
}
