//! How a state of Dominoes is drawn on the replay page ([`Draw`]).

use tabula_solver::dominoes;

use crate::record::{GameLine, ReplayError};
use crate::replay::{Draw, Shown, shown};

/// A logged game as the replay page shows it.
pub fn show(line: &GameLine) -> Result<Shown, ReplayError> {
    shown::<dominoes::Match>(line)
}

impl Draw for dominoes::Match {
    fn board(&self) -> Vec<Vec<String>> {
        vec![
            self.line()
                .iter()
                .map(|(l, r)| format!("{l}|{r}"))
                .collect(),
        ]
    }
    fn notes(&self) -> Vec<String> {
        vec![
            format!("stock: {} tiles", self.stock().len()),
            format!("seat {} opened", self.opener()),
        ]
    }
    fn hands(&self) -> Vec<Vec<String>> {
        (0..2)
            .map(|seat| self.hand(seat).iter().map(|t| t.to_string()).collect())
            .collect()
    }
}
