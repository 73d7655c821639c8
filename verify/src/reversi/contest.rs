//! The referee's contest: a case is one game of the tested player (seat 0)
//! against P−1 opponents evolved for the case, a fresh player each case.

use tabula_solver::reversi::{Board, Rule};

use super::referee::{CaseResult, game_line, referee_case};
use super::report::{CaseOpponents, case_label};
use super::{Opponent, REFERENCE_AGENTS};
use crate::arena::GameRecord;
use crate::referee::{Case, Contest, Games, Starts};
use crate::seat::Limits;

/// `tabula referee reversi`: one game per case against its evolved opponents.
pub struct ReversiContest {
    /// The cases, in the order played: (side, case index of that side).
    pub cases: Vec<(usize, usize)>,
    /// Each case's opponents and their indices in its final population.
    pub opponents: Vec<CaseOpponents>,
    /// The opponents' corner cases.
    pub rule: Rule,
    /// The run's seed.
    pub seed: u64,
    /// The tested built-in agent's name, if one was given.
    pub tested_agent: Option<String>,
    /// The tested player's limits.
    pub limits: Limits,
}

impl ReversiContest {
    /// The opponents of `case`, as the players that read them see them.
    pub fn case_opponents(&self, case: &Case<usize>) -> Vec<Opponent> {
        let (weights, _) = &self.opponents[case.index];
        let rule = self.rule;
        weights
            .iter()
            .map(|&weights| Opponent { weights, rule })
            .collect()
    }
}

impl Contest for ReversiContest {
    type Game = Board;
    type Result = CaseResult;

    fn cases(&self) -> Vec<Case<usize>> {
        let cases = self.cases.iter().enumerate();
        cases
            .map(|(index, &(n, k))| Case {
                index,
                params: n,
                name: case_label(n, k),
                games: 1,
            })
            .collect()
    }

    // A fresh player per case: one game per process, as in the contest.
    fn starts(&self) -> Starts {
        Starts::EachGame
    }

    fn heading(&self, case: &Case<usize>, _game: usize) -> Option<String> {
        let (n, k) = self.cases[case.index];
        let indices = &self.opponents[case.index].1;
        Some(format!(
            "# case {n} index {k} seed {}: opponents {indices:?} of the final population",
            self.seed
        ))
    }

    fn play(&self, case: &Case<usize>, games: Games<'_, Board>) {
        let weights = &self.opponents[case.index].0;
        games.one_by_one(|_, tested| {
            let (_, record) = referee_case(case.params, weights, self.rule, tested, self.limits);
            record
        });
    }

    fn result(&self, case: &Case<usize>, _game: usize, record: &GameRecord<Board>) -> CaseResult {
        CaseResult::of_game(case.params, record)
    }

    fn opening(&self) -> Vec<String> {
        let reference = self.tested_agent.as_deref();
        let reference = reference.filter(|name| REFERENCE_AGENTS.contains(name));
        reference
            .map(|name| {
                format!(
                    "note: {name} knows the opponents' weights: a reference ceiling, not a contest score"
                )
            })
            .into_iter()
            .collect()
    }

    fn game_notes(
        &self,
        _case: &Case<usize>,
        _game: usize,
        record: &GameRecord<Board>,
    ) -> Vec<String> {
        vec![game_line(record)]
    }
}
