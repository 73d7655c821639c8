//! Endgame tables probed by the search: the alpha-beta takes the value of a
//! position with few enough seeds from a table of every such board (of any
//! seeds a pit at the start: the value of a board, the margin still to be won,
//! does not depend on it), and searches nothing below it.

use std::sync::Arc;

use super::{Candidate, Capture, Ending, Kalah, MAX_PITS, Pit};
use crate::MoveList;
use crate::alphabeta::{Searchable, Transition};

/// The values of every board of some pit count and rules with at most
/// [`EndgameValues::max_seeds`] seeds in the pits, by [`Kalah::index`].
pub trait EndgameValues: Send + Sync {
    /// Pits a side of the boards.
    fn pits(&self) -> u8;
    /// The capture rule the values were solved under.
    fn capture(&self) -> Capture;
    /// The end rule the values were solved under.
    fn ending(&self) -> Ending;
    /// The most seeds a board of the table holds.
    fn max_seeds(&self) -> u32;
    /// The value for the mover of the board of `index` (one that arises in play).
    fn value(&self, index: u64) -> i32;
}

/// A shared endgame table.
pub type Endgame = Arc<dyn EndgameValues>;

/// Why an endgame table does not serve a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the endgame table is of {table}, the game is {game}")]
pub struct OtherEndgame {
    /// What the table holds (`6 pits, capture always, end after-any-move`).
    pub table: String,
    /// What the game is.
    pub game: String,
}

/// Fails unless `endgame` holds boards of the pits and rules of `rules`.
pub fn check_endgame(
    endgame: &dyn EndgameValues,
    rules: &super::Rules,
) -> Result<(), OtherEndgame> {
    let name = |pits: u8, capture: Capture, ending: Ending| {
        format!(
            "{pits} pits a side, capture {}, end {}",
            capture.name(),
            ending.name()
        )
    };
    let table = name(endgame.pits(), endgame.capture(), endgame.ending());
    let game = name(rules.pits, rules.capture, rules.ending);
    match table == game {
        true => Ok(()),
        false => Err(OtherEndgame { table, game }),
    }
}

/// A Kalah position as the search sees it: the game ends for the search at
/// the first position the endgame table (if any) holds.
#[derive(Clone, Copy)]
pub struct Probed<'e> {
    /// The position.
    pub position: Kalah,
    /// The table, of the position's pits and rules.
    endgame: Option<&'e dyn EndgameValues>,
    /// The table's most seeds (0 without one: an empty board is over anyway).
    max_seeds: u32,
}

impl<'e> Probed<'e> {
    /// `position`, searched without a table.
    pub fn plain(position: Kalah) -> Probed<'static> {
        Probed {
            position,
            endgame: None,
            max_seeds: 0,
        }
    }

    /// `position`, its value taken from `endgame` as soon as its seeds fit
    /// (the table must be of the position's pits and rules: [`check_endgame`]).
    pub fn with(position: Kalah, endgame: Option<&'e dyn EndgameValues>) -> Probed<'e> {
        Probed {
            position,
            endgame,
            max_seeds: endgame.map_or(0, |e| e.max_seeds()),
        }
    }

    /// The same table at another position.
    fn at(&self, position: Kalah) -> Probed<'e> {
        Probed { position, ..*self }
    }
}

impl Searchable for Probed<'_> {
    type Move = Pit;
    type Candidate = Candidate;
    type Candidates = MoveList<Candidate, MAX_PITS>;
    type Key = u64;

    #[inline]
    fn terminal(&self) -> Option<i32> {
        let terminal = self.position.terminal();
        if terminal.is_some() {
            return terminal;
        }
        match self.endgame {
            Some(endgame) if self.position.seeds() <= self.max_seeds => {
                Some(endgame.value(self.position.index()))
            }
            _ => None,
        }
    }

    fn evaluate(&self) -> i32 {
        self.position.evaluate()
    }

    #[inline]
    fn key(&self) -> u64 {
        self.position.index()
    }

    #[inline]
    fn generate(&self, out: &mut Self::Candidates) {
        self.position.generate(out);
    }

    #[inline]
    fn move_of(&self, candidate: &Candidate) -> Pit {
        candidate.pit
    }

    #[inline]
    fn play(&self, candidate: &Candidate) -> Self {
        self.at(candidate.child)
    }

    #[inline]
    fn order(&self, moves: &mut [Candidate], table_move: Option<Pit>) {
        self.position.order(moves, table_move);
    }

    #[inline]
    fn transition(&self, candidate: &Candidate) -> Transition {
        self.position.transition(candidate)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::kalah::{ExactSolver, KalahSpace, Rules, SearchOptions};
    use crate::retrograde::{self, StateSpace};
    use crate::search::memo_negamax;

    /// An endgame table solved in memory by the retrograde solver.
    struct InMemory {
        rules: Rules,
        max_seeds: u32,
        values: Vec<i16>,
    }

    impl InMemory {
        fn solve(rules: Rules, max_seeds: u32) -> InMemory {
            let space = KalahSpace::endgame(rules, max_seeds);
            let solution = retrograde::solve(&space, false, &|_| {}).unwrap();
            InMemory {
                rules,
                max_seeds,
                values: solution.values.clone(),
            }
        }
    }

    impl EndgameValues for InMemory {
        fn pits(&self) -> u8 {
            self.rules.pits
        }
        fn capture(&self) -> Capture {
            self.rules.capture
        }
        fn ending(&self) -> Ending {
            self.rules.ending
        }
        fn max_seeds(&self) -> u32 {
            self.max_seeds
        }
        fn value(&self, index: u64) -> i32 {
            i32::from(self.values[index as usize])
        }
    }

    /// Kalah(m, n) of each of `games` under every capture and end rule.
    pub(in crate::kalah) fn every_rule(games: &[(u8, u8)]) -> Vec<Rules> {
        let mut all = Vec::new();
        for &(m, n) in games {
            for capture in [Capture::Always, Capture::NonEmpty] {
                for ending in [Ending::AfterAnyMove, Ending::MoverStuck] {
                    let rules = Rules::new(m, n).unwrap();
                    all.push(rules.with_capture(capture).with_ending(ending));
                }
            }
        }
        all
    }

    fn variants() -> Vec<Rules> {
        every_rule(&[(2, 3), (3, 2), (3, 3)])
    }

    /// The endgame table of a game of n seeds a pit holds, for every board
    /// it covers, the value the game's full table has: the value of a board
    /// does not depend on the seeds the game started with.
    #[test]
    fn an_endgame_table_agrees_with_the_full_table_of_any_seed_count() {
        for rules in variants() {
            let full = retrograde::solve(&KalahSpace::new(rules), false, &|_| {}).unwrap();
            let endgame = InMemory::solve(Rules { seeds: 1, ..rules }, 7);
            let space = KalahSpace::endgame(rules, 7);
            for index in 0..space.len().min(full.values.len() as u64) {
                if space.is_state(index) {
                    assert_eq!(
                        endgame.value(index),
                        i32::from(full.values[index as usize]),
                        "{rules:?} {}",
                        space.position(index)
                    );
                }
            }
        }
    }

    /// The probed search gives the value of the plain memoized recursion
    /// from the start and from a sample of the positions it meets, with a
    /// table of too few seeds for most of them.
    #[test]
    fn the_probed_search_agrees_with_the_plain_recursion() {
        for rules in variants() {
            let mut memo = HashMap::new();
            let start = rules.start();
            let expected = memo_negamax(&start, &mut memo);
            for max_seeds in [0, 3, 6, 9] {
                let table: Endgame = Arc::new(InMemory::solve(rules, max_seeds));
                // The search before issue 49's changes and the default one.
                for options in [SearchOptions::GENERIC, SearchOptions::default()] {
                    let mut probed =
                        ExactSolver::with_options(10, options).with_endgame(Some(table.clone()));
                    assert_eq!(probed.value(&start), expected, "{rules:?} S={max_seeds}");
                    for (position, &value) in memo.iter().step_by(5) {
                        assert_eq!(probed.value(position), value, "{position} S={max_seeds}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_table_of_other_pits_or_rules_is_refused_naming_both() {
        let rules = Rules::new(3, 3).unwrap();
        let table = InMemory::solve(rules, 2);
        assert!(check_endgame(&table, &rules).is_ok());
        assert!(check_endgame(&table, &Rules::new(3, 5).unwrap()).is_ok());
        let other = rules.with_capture(Capture::NonEmpty);
        let error = check_endgame(&table, &other).unwrap_err().to_string();
        assert_eq!(
            error,
            "the endgame table is of 3 pits a side, capture always, end after-any-move, \
             the game is 3 pits a side, capture non-empty, end after-any-move"
        );
        let error = check_endgame(&table, &Rules::new(4, 3).unwrap()).unwrap_err();
        assert!(error.to_string().contains("the game is 4 pits"), "{error}");
    }
}
