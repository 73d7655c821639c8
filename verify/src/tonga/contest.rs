//! The referee's contest: the tested player against the statement's server, a case per board side.

use tabula_solver::tonga::Position;

use super::report::case_name;
use super::{GameResult, play_against_server, player_starts};
use crate::arena::GameRecord;
use crate::referee::{Case, Contest, Games, Starts};
use crate::seat::Limits;

/// `tabula referee tonga`: each board side a case of `games` games against the server.
pub struct TongaContest {
    /// Board sides, one case each.
    pub sizes: Vec<usize>,
    /// Games per case.
    pub games: usize,
    /// The run's seed.
    pub seed: u64,
    /// The tested player's limits.
    pub limits: Limits,
}

impl Contest for TongaContest {
    type Game = Position;
    type Result = GameResult;

    fn cases(&self) -> Vec<Case<usize>> {
        Case::each(&self.sizes, case_name, self.games)
    }

    // A fresh run of the player for every game, as the statement's tester does.
    fn starts(&self) -> Starts {
        Starts::EachGame
    }

    fn heading(&self, case: &Case<usize>, game: usize) -> Option<String> {
        Some(format!(
            "# game {game} N {} seed {}",
            case.params, self.seed
        ))
    }

    fn play(&self, case: &Case<usize>, games: Games<'_, Position>) {
        games.one_by_one(|game, tested| {
            let (record, _) =
                play_against_server(case.params, game, self.seed, tested, self.limits);
            record
        });
    }

    fn result(&self, case: &Case<usize>, game: usize, record: &GameRecord<Position>) -> GameResult {
        // The seat `play_against_server` gave the tested player.
        let seat = if player_starts(self.seed, case.params, game) {
            0
        } else {
            1
        };
        GameResult::new(seat, record)
    }

    fn notes(&self, result: &GameResult) -> Vec<String> {
        let moves: Vec<String> = result
            .moves
            .iter()
            .map(|(c, r, col)| format!("{c}{r},{col}"))
            .collect();
        vec![format!("moves {}", moves.join(" "))]
    }
}
