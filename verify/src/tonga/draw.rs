//! How a state of PseudoTonga is drawn on the replay page ([`Draw`]).

use tabula_solver::tonga::{self, Colour};

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<tonga::Position>(line)
}

impl Draw for tonga::Position {
    fn board(&self) -> Vec<Vec<String>> {
        let b = &self.board;
        let isles = b.isles();
        (0..b.n())
            .map(|r| {
                (0..b.n())
                    .map(|c| {
                        let cell = b.cell(r, c);
                        match b.at(cell) {
                            Some(colour) => {
                                let size = isles
                                    .iter()
                                    .find(|i| i.cells.has(usize::from(cell)))
                                    .map_or(1, |i| i.area());
                                format!("@{}/{size}", colour.letter())
                            }
                            None => ".".into(),
                        }
                    })
                    .collect()
            })
            .collect()
    }
    fn notes(&self) -> Vec<String> {
        let isles = |colour: Colour| -> String {
            let mut sizes: Vec<u32> = self
                .board
                .isles()
                .iter()
                .filter(|i| i.colour == colour)
                .map(|i| i.area())
                .collect();
            sizes.sort_unstable_by(|a, b| b.cmp(a));
            format!("{sizes:?}")
        };
        vec![
            format!("Black isles {}", isles(Colour::Black)),
            format!("White isles {}", isles(Colour::White)),
            if self.board.is_full() {
                "game over".into()
            } else {
                format!("{} to move", self.to_move.letter())
            },
        ]
    }
}
