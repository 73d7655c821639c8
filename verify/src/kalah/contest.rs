//! The referee's contest: two games against a built-in opponent, the tested player first, then second.

use std::sync::Arc;

use tabula_solver::kalah::{Match, Rules};
use tabula_tables::kalah::KalahTable;

use super::{RefereedGame, SearchProgress, agent, case_name};
use crate::arena::{GameRecord, play_case};
use crate::referee::{Case, Contest, Games, Starts};
use crate::seat::{Clock, Limits, Local, Player};
use crate::tournament::{Purpose, stream};

/// `tabula referee kalah`: one case of two games, the tested player in seat 0, then in seat 1.
pub struct KalahContest {
    /// The rules played.
    pub rules: Rules,
    /// The opponent's tables (none: it searches).
    pub tables: Vec<Arc<KalahTable>>,
    /// The built-in opponent's name (checked before the run).
    pub opponent: String,
    /// What the searching opponent tells of its search.
    pub progress: Option<SearchProgress>,
    /// The run's seed.
    pub seed: u64,
    /// The tested player's limits.
    pub limits: Limits,
}

impl Contest for KalahContest {
    type Game = Match;
    type Result = RefereedGame;

    fn cases(&self) -> Vec<Case<Rules>> {
        vec![Case {
            index: 0,
            params: self.rules,
            name: case_name(&self.rules),
            games: 2,
        }]
    }

    // A new process per game, so that a crash loses only that game.
    fn starts(&self) -> Starts {
        Starts::EachGame
    }

    fn heading(&self, _case: &Case<Rules>, game: usize) -> Option<String> {
        Some(format!(
            "# game {} (the player is player {})",
            game + 1,
            game + 1
        ))
    }

    fn play(&self, case: &Case<Rules>, games: Games<'_, Match>) {
        let (seed, rules) = (self.seed, case.params);
        games.one_by_one(|seat, tested| {
            let rng = stream(seed, Purpose::Agent, 0, seat as u64, 1);
            let progress = self.progress.clone();
            let opponent = agent(&self.opponent, &self.tables, rng, progress, None, None);
            let mut opponent = Local(opponent.expect("a checked agent"));
            let mut players: Vec<&mut dyn Player<Match>> = vec![tested, &mut opponent];
            let mut clocks = vec![Clock::new(self.limits), Clock::default()];
            let seating = if seat == 0 { vec![0, 1] } else { vec![1, 0] };
            let mut records = play_case(&rules, 1, &mut players, &mut clocks, |_| {
                // No chance in Kalah; the stream is only the loop's argument.
                let chance = stream(seed, Purpose::Chance, 0, seat as u64, 0);
                (Match::new(rules), chance, seating.clone())
            });
            records.pop().expect("one game")
        });
    }

    fn result(&self, _case: &Case<Rules>, game: usize, record: &GameRecord<Match>) -> RefereedGame {
        RefereedGame::new(record, game)
    }
}
