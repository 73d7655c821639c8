//! How a state of MultiplayerReversi is drawn on the replay page ([`Draw`]).

use tabula_solver::reversi::Board as ReversiBoard;

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, disc, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<ReversiBoard>(line)
}

impl Draw for ReversiBoard {
    fn board(&self) -> Vec<Vec<String>> {
        self.rows()
            .iter()
            .map(|row| {
                row.chars()
                    .map(|ch| {
                        if ch == '.' {
                            ".".into()
                        } else {
                            disc(&ch.to_string())
                        }
                    })
                    .collect()
            })
            .collect()
    }
    fn notes(&self) -> Vec<String> {
        let counts: Vec<String> = (0..self.players())
            .map(|s| {
                // The page's colours of discs 1 to 4.
                let colour = ["red", "blue", "yellow", "white"][s];
                format!("seat {s} ({colour}): {}", self.pieces(s).count())
            })
            .collect();
        vec![
            counts.join(", "),
            match self.mover() {
                Some(s) => format!("seat {s} to move"),
                None => "game over".into(),
            },
        ]
    }
}
