//! The referee's contest: the tested player against a built-in opponent, a case per heap.

use tabula_solver::nim::Nim;

use super::{RefereedGame, agent, case_name};
use crate::arena::{GameRecord, play_case_each};
use crate::referee::{Case, Contest, Games, Starts};
use crate::seat::{Clock, Limits, Local, Player};
use crate::tournament::{Purpose, stream};

/// `tabula referee nim`: each heap a case of `games` games against `opponent`.
pub struct NimContest {
    /// Heap sizes, one case each.
    pub heaps: Vec<u32>,
    /// Games per case.
    pub games: usize,
    /// The built-in opponent's name (checked before the run).
    pub opponent: String,
    /// The run's seed.
    pub seed: u64,
    /// The tested player's limits.
    pub limits: Limits,
}

impl Contest for NimContest {
    type Game = Nim;
    type Result = RefereedGame;

    fn cases(&self) -> Vec<Case<u32>> {
        Case::each(&self.heaps, case_name, self.games)
    }

    fn starts(&self) -> Starts {
        Starts::OncePerRun
    }

    fn play(&self, case: &Case<u32>, games: Games<'_, Nim>) {
        let (seed, heap) = (self.seed, case.params);
        let rng = stream(seed, Purpose::Agent, case.index as u64, 0, 1);
        let mut opponent = Local(agent(&self.opponent, rng).expect("a checked agent"));
        let mut players: Vec<&mut dyn Player<Nim>> = vec![games.tested, &mut opponent];
        let mut clocks = vec![Clock::new(self.limits), Clock::default()];
        // `play_case_each` counts the games from 0; the run counts from `games.start`.
        let first = games.range.start;
        let setup = |game: usize| {
            let game = first + game;
            let chance = stream(seed, Purpose::Chance, case.index as u64, game as u64, 0);
            // The tested player moves first in even games, second in odd ones.
            let seating = if game.is_multiple_of(2) {
                vec![0, 1]
            } else {
                vec![1, 0]
            };
            (Nim::new(heap), chance, seating)
        };
        let mut each = |game: usize, record: &GameRecord<Nim>| (games.each)(first + game, record);
        play_case_each(
            &heap,
            games.range.len(),
            &mut players,
            &mut clocks,
            setup,
            &mut each,
        );
    }

    fn result(&self, case: &Case<u32>, game: usize, record: &GameRecord<Nim>) -> RefereedGame {
        RefereedGame::new(case.params, record, game % 2)
    }
}
