//! The referee's contest: the optimal player 2 against player 1, one game a
//! starting board, on the IOI game or a variant's ring.

use std::sync::Arc;

use tabula_solver::ioiwari::BankMatch;
use tabula_tables::TypedTable;

use super::{IoiBoard, OptimalAgent, RefereedGame};
use crate::arena::{GameRecord, play_case};
use crate::record::Notation;
use crate::referee::{Case, Contest, Games, Starts, TotalLines};
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

    fn play(&self, case: &Case<B>, games: Games<'_, BankMatch<B>>) {
        let (seed, board) = (self.seed, case.params);
        games.one_by_one(|_, tested| {
            let mut optimal = Local(OptimalAgent::new(self.table.clone()));
            let mut players: Vec<&mut dyn Player<BankMatch<B>>> = vec![tested, &mut optimal];
            let mut clocks = vec![Clock::new(self.limits), Clock::default()];
            let mut records = play_case(&board, 1, &mut players, &mut clocks, |played| {
                let chance = stream(seed, Purpose::Chance, case.index as u64, played as u64, 0);
                (BankMatch::new(board), chance, vec![0, 1])
            });
            records.pop().expect("one game")
        });
    }

    fn result(
        &self,
        _case: &Case<B>,
        _game: usize,
        record: &GameRecord<BankMatch<B>>,
    ) -> RefereedGame {
        RefereedGame::new(record)
    }

    // Over many boards, stdout names each line's board (the transcript has
    // it in the game's heading).
    fn shown_line(&self, case: &Case<B>, line: &str) -> Option<String> {
        self.many().then(|| format!("{}: {line}", case.name))
    }

    // One game has no tally, and the transcript never ends with it (it is
    // the task's `ioiwari.out`).
    fn total_shown(&self, report: &RefereeReport<RefereedGame>) -> TotalLines {
        TotalLines {
            transcript: None,
            // The task's scoring over many boards: 4 points a win, 2 a draw.
            stdout: self.many().then(|| report.total_line()),
        }
    }
}

#[cfg(test)]
mod tests {
    use tabula_solver::ioiwari::Board;
    use tabula_tables::ioiwari::IoiwariTable;

    use super::*;
    use crate::referee::run;
    use crate::referee::tests::Written;

    /// The optimal player 1 refereed on `boards`: how often it was started,
    /// what the run wrote, and the total's lines.
    fn referee(boards: &[&str]) -> (usize, Vec<String>, TotalLines) {
        let table = Arc::new(IoiwariTable::in_memory());
        let contest = IoiwariContest {
            boards: boards.iter().map(|b| b.parse::<Board>().unwrap()).collect(),
            table: table.clone(),
            seed: 1,
            limits: Limits::default(),
        };
        let written = Written::default();
        let mut starts = 0;
        let mut start =
            |_: Option<&Case<Board>>| -> Result<Box<dyn Player<BankMatch<Board>>>, std::io::Error> {
                starts += 1;
                Ok(Box::new(Local(OptimalAgent::new(table.clone()))))
            };
        let results = run(&contest, 1, &mut start, &written).unwrap();
        let total = contest.total_shown(&RefereeReport::new(results));
        (starts, written.0.into_inner(), total)
    }

    #[test]
    fn one_board_says_its_line_and_has_no_total() {
        let (starts, written, total) = referee(&["4 3 2 4 2 3 2"]);
        assert_eq!(starts, 1);
        assert_eq!(written.len(), 3);
        assert_eq!(written[0], "transcript # game 4 3 2 4 2 3 2");
        assert_eq!(written[1], "game 4 3 2 4 2 3 2 case 0 game 0");
        assert!(written[2].starts_with("say result "), "{}", written[2]);
        assert_eq!(total, TotalLines::default());
    }

    #[test]
    fn many_boards_name_their_board_on_stdout_and_end_with_the_tally() {
        let boards = ["4 3 2 4 2 3 2", "2 2 2 2 4 4 4"];
        let (starts, written, total) = referee(&boards);
        assert_eq!(starts, 2);
        assert_eq!(written.len(), 8);
        for (i, board) in boards.iter().enumerate() {
            let game = &written[4 * i..4 * i + 4];
            assert_eq!(game[0], format!("transcript # game {board}"));
            assert_eq!(game[1], format!("game {board} case {i} game 0"));
            // The transcript has the bare line; stdout names the board.
            let line = game[2].strip_prefix("transcript ").unwrap();
            assert!(line.starts_with("result "), "{line}");
            assert_eq!(game[3], format!("show {board}: {line}"));
        }
        assert_eq!(total.transcript, None);
        let tally = total.stdout.unwrap();
        assert!(tally.starts_with("tally: "), "{tally}");
        assert!(tally.ends_with(" IOI points of 8"), "{tally}");
    }
}
