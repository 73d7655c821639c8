//! How a state of Tothello is drawn on the replay page ([`Draw`]).

use tabula_solver::tothello::{self, Color};

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, disc, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<tothello::Position>(line)
}

impl Draw for tothello::Position {
    fn board(&self) -> Vec<Vec<String>> {
        (0..8u8)
            .map(|r| {
                (0..8u8)
                    .map(|c| match self.board.at(r * 8 + c) {
                        Some(Color::Red) => disc("R"),
                        Some(Color::Black) => disc("B"),
                        None => ".".into(),
                    })
                    .collect()
            })
            .collect()
    }
    fn notes(&self) -> Vec<String> {
        vec![
            "rows 1 to 8 from the top, columns A to H".into(),
            if self.is_finished() {
                "game over".into()
            } else {
                format!("{} to move", self.to_move.name())
            },
        ]
    }
}
