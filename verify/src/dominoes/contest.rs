//! The referee's contest: the tested player against a built-in opponent on
//! the (N, H) cases, each case scored as a whole (wins + ties/2).

use tabula_solver::dominoes::{Match, Rules};

use super::referee::{CaseResult, CaseSetup, draws_name, game_line, opponent_rng, referee_case};
use super::report::case_name;
use super::{agent, sees_open_hand};
use crate::arena::GameRecord;
use crate::record::At;
use crate::referee::{Case, Contest, Games, Starts, Tally};
use crate::seat::{Limits, Local};

/// `tabula referee dominoes`: each (N, H) a case of games against `opponent`.
pub struct DominoesContest {
    /// The cases, in the order played.
    pub cases: Vec<Rules>,
    /// How each case's games are dealt and seated.
    pub setup: CaseSetup,
    /// The built-in opponent's name (checked before the run).
    pub opponent: String,
    /// The tested built-in agent's name, if the tested player is one.
    pub tested_agent: Option<String>,
    /// The tested player's limits.
    pub limits: Limits,
}

impl DominoesContest {
    /// The contest of `cases`, `games` each (`paired`: each deal twice),
    /// against `opponent`; the players that see the other hand are given it.
    pub fn new(
        cases: Vec<Rules>,
        seed: u64,
        (games, paired): (usize, bool),
        opponent: String,
        tested_agent: Option<String>,
        limits: Limits,
    ) -> DominoesContest {
        let tested_open = tested_agent.as_deref().is_some_and(sees_open_hand);
        let setup = CaseSetup {
            seed,
            games,
            paired,
            open_hand: [tested_open, sees_open_hand(&opponent)],
        };
        DominoesContest {
            cases,
            setup,
            opponent,
            tested_agent,
            limits,
        }
    }
}

impl Contest for DominoesContest {
    type Game = Match;
    type Result = CaseResult;

    fn cases(&self) -> Vec<Case<Rules>> {
        Case::each(&self.cases, case_name, self.setup.games)
    }

    // One player for the run; after a fault its program is started afresh.
    fn starts(&self) -> Starts {
        Starts::OncePerRun
    }

    fn play(&self, case: &Case<Rules>, games: Games<'_, Match>) {
        debug_assert_eq!(games.range, 0..self.setup.games, "a case is played whole");
        let rules = case.params;
        let rng = opponent_rng(self.setup.seed, rules);
        let mut opponent = Local(agent(&self.opponent, rng).expect("a checked agent"));
        // The case's tally is the run's to make, from each game's result.
        let (tested, each) = (games.tested, games.each);
        referee_case(rules, &self.setup, tested, &mut opponent, self.limits, each);
    }

    fn result(&self, case: &Case<Rules>, game: usize, record: &GameRecord<Match>) -> CaseResult {
        CaseResult::of_game(case.params, game, record)
    }

    fn opening(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(name) = self
            .tested_agent
            .as_deref()
            .filter(|_| self.setup.open_hand[0])
        {
            notes.push(format!(
                "note: {name} sees the other hand: a reference ceiling, not a contest score"
            ));
        }
        if self.setup.open_hand[1] {
            notes.push(format!(
                "note: the opponent {} sees the tested player's hand: an opponent the contest never had",
                self.opponent
            ));
        }
        notes
    }

    fn case_heading(&self, case: &Case<Rules>) -> Option<String> {
        let rules = case.params;
        Some(format!(
            "# case {} {} seed {} opponent {}",
            rules.numbers, rules.hand, self.setup.seed, self.opponent
        ))
    }

    // A game's draws come from its deal's stream, keyed by the case's (N, H).
    fn at(&self, seed: u64, case: &Case<Rules>, game: usize) -> At {
        let draws = draws_name(case.params, self.setup.deal_index(game));
        At::new(seed, case.index, &*case.name, game).with_stream(draws)
    }

    fn game_notes(
        &self,
        _case: &Case<Rules>,
        game: usize,
        record: &GameRecord<Match>,
    ) -> Vec<String> {
        vec![game_line(game, &self.setup, record)]
    }

    fn tally(&self) -> Tally {
        Tally::EachCase
    }

    fn case_results(&self, case: &Case<Rules>, games: Vec<CaseResult>) -> Vec<CaseResult> {
        let mut total = CaseResult::new(case.params);
        for game in games {
            total.add(game);
        }
        vec![total]
    }
}
