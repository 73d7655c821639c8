//! The referee's contest: the optimal player 2 against player 1, one game a
//! starting board, on the IOI game or a variant's ring.

use std::ops::Range;
use std::sync::Arc;

use tabula_solver::ioiwari::BankMatch;
use tabula_tables::TypedTable;

use super::{IoiBoard, OptimalAgent, RefereedGame};
use crate::arena::{GameRecord, play_case};
use crate::record::Notation;
use crate::referee::{Case, Contest, Starts, TotalLines};
use crate::report::RefereeReport;
use crate::seat::{Clock, Limits, Local, Player};
use crate::tournament::{Purpose, stream};

/// `tabula referee ioiwari`: a case of one game for each starting board,
/// player 1 (the tested player) against the optimal player 2.
pub struct IoiwariContest<B: IoiBoard> {
    /// The starting boards, in the order they are played.
    pub boards: Vec<B>,
    /// The optimal player 2's table.
    pub table: Arc<TypedTable<B::Table>>,
    /// The run's seed.
    pub seed: u64,
    /// The tested player's limits.
    pub limits: Limits,
}

impl<B: IoiBoard> IoiwariContest<B> {
    /// Whether the run plays more than one board: its result lines then name
    /// their board on stdout, and it ends with the tally.
    fn many(&self) -> bool {
        self.boards.len() > 1
    }
}

impl<B> Contest for IoiwariContest<B>
where
    B: IoiBoard,
    BankMatch<B>: Notation<Params = B>,
    OptimalAgent<B::Table>: crate::agent::Agent<BankMatch<B>>,
{
    type Game = BankMatch<B>;
    type Result = RefereedGame;

    fn cases(&self) -> Vec<Case<B>> {
        Case::each(&self.boards, |board| board.to_string(), 1)
    }

    // A new player 1 per game, so that a crash loses only that game.
    fn starts(&self) -> Starts {
        Starts::EachGame
    }

    fn heading(&self, case: &Case<B>, _game: usize) -> Option<String> {
        Some(format!("# game {}", case.name))
    }

    fn play(
        &self,
        case: &Case<B>,
        games: Range<usize>,
        tested: &mut dyn Player<BankMatch<B>>,
        each: &mut dyn FnMut(usize, &GameRecord<BankMatch<B>>),
    ) {
        let (seed, board) = (self.seed, case.params);
        for game in games {
            let mut optimal = Local(OptimalAgent::new(self.table.clone()));
            let mut players: Vec<&mut dyn Player<BankMatch<B>>> = vec![&mut *tested, &mut optimal];
            let mut clocks = vec![Clock::new(self.limits), Clock::default()];
            let record = play_case(&board, 1, &mut players, &mut clocks, |played| {
                let chance = stream(seed, Purpose::Chance, case.index as u64, played as u64, 0);
                (BankMatch::new(board), chance, vec![0, 1])
            });
            each(game, &record[0]);
        }
    }

    fn result(
        &self,
        _case: &Case<B>,
        _game: usize,
        record: &GameRecord<BankMatch<B>>,
    ) -> RefereedGame {
        RefereedGame::new(record)
    }

    fn line(&self, result: &RefereedGame) -> String {
        result.line()
    }

    // Over many boards, stdout names each line's board (the transcript has
    // it in the game's heading).
    fn shown_line(&self, case: &Case<B>, line: &str) -> Option<String> {
        self.many().then(|| format!("{}: {line}", case.name))
    }

    // The task's scoring over many boards: 4 points a win, 2 a draw.
    fn total_line(&self, report: &RefereeReport<RefereedGame>) -> String {
        report.tally_line()
    }

    // One game has no tally, and the transcript never ends with it (it is
    // the task's `ioiwari.out`).
    fn total_shown(&self, report: &RefereeReport<RefereedGame>) -> TotalLines {
        TotalLines {
            transcript: None,
            stdout: self.many().then(|| self.total_line(report)),
        }
    }
}
