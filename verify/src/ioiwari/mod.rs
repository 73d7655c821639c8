//! Ioiwari agents, the IOI dialogue as a wire, the referee's result line and
//! the official results table, all on the shared core, for the IOI game and
//! for any variant's ring alike ([`IoiBoard`]).

pub mod analysis;
pub mod contest;
pub mod draw;
pub mod notation;
pub mod players;
pub mod report;
pub mod sweep;
pub mod wire;

use tabula_solver::ioiwari::{Board, Pit, Ring, Sowable};
use tabula_tables::Tabulated;
use tabula_tables::ioiwari::{Ioiwari, Variant};

pub use contest::IoiwariContest;
pub use players::*;
pub use report::*;
pub use wire::*;

/// A board of an Ioiwari game as the agents, the referee and the results
/// table hold it: the IOI game's [`Board`] or a variant's [`Ring`].
pub trait IoiBoard: Sowable + std::fmt::Display + 'static {
    /// The tabulated game whose table holds these boards.
    type Table: Tabulated<Position = Self, Move = Pit, Space: Send + Sync> + Clone + Send + 'static;

    /// The pit counts, pit 1 first.
    fn counts(&self) -> Vec<u8>;
}

impl IoiBoard for Board {
    type Table = Ioiwari;

    fn counts(&self) -> Vec<u8> {
        self.pits().to_vec()
    }
}

impl IoiBoard for Ring {
    type Table = Variant;

    fn counts(&self) -> Vec<u8> {
        self.pits().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Agent;
    use crate::arena::GameRecord;
    use crate::arena::play_case;
    use crate::protocol::Reply;
    use crate::record::{At, GameLog};
    use crate::seat::{Clock, Local, Player};
    use crate::tournament::{Purpose, stream};
    use std::sync::Arc;
    use tabula_solver::ZeroSum;
    use tabula_solver::ioiwari::instances;
    use tabula_solver::ioiwari::{BankMatch, Board, Match, PITS, Params, Pit, Ring, RingMatch};
    use tabula_solver::{Game, Turn};
    use tabula_tables::TypedTable;
    use tabula_tables::ioiwari::IoiwariTable;

    fn built() -> Arc<IoiwariTable> {
        Arc::new(IoiwariTable::in_memory())
    }

    /// One game of `first` as player 1 against the optimal player 2, on the
    /// IOI board or a variant's ring.
    fn play<B: IoiBoard>(
        board: B,
        table: &Arc<TypedTable<B::Table>>,
        first: &mut dyn Player<BankMatch<B>>,
    ) -> GameRecord<BankMatch<B>> {
        let mut second = Local(OptimalAgent::new(table.clone()));
        let mut players: Vec<&mut dyn Player<BankMatch<B>>> = vec![first, &mut second];
        let mut clocks = vec![Clock::default(), Clock::default()];
        let chance = stream(0, Purpose::Chance, 0, 0, 0);
        play_case(&board, 1, &mut players, &mut clocks, |_| {
            (BankMatch::new(board), chance.clone(), vec![0, 1])
        })
        .pop()
        .expect("one game")
    }

    /// The lowest legal pit whose `score` is highest, by a plain scan.
    fn plain_argmax(board: &Board, score: impl Fn(Pit) -> i32) -> Option<(Pit, bool)> {
        let scores: Vec<(Pit, i32)> = (0..PITS as Pit)
            .filter(|&pit| board.pits()[usize::from(pit)] > 0)
            .map(|pit| (pit, score(pit)))
            .collect();
        let top = scores.iter().map(|&(_, s)| s).max()?;
        let tied = scores.iter().filter(|&&(_, s)| s == top).count() > 1;
        scores
            .iter()
            .find(|&&(_, s)| s == top)
            .map(|&(p, _)| (p, tied))
    }

    #[test]
    fn greedy_players_take_the_lowest_best_pit_on_every_board() {
        let (mut ties1, mut ties2, mut differ) = (0, 0, 0);
        for index in 0..6usize.pow(PITS as u32) {
            let board = Board::from_index(index);
            let gain = |b: &Board, pit: Pit| b.after(pit).1;
            let Some((g1, tied1)) = plain_argmax(&board, |pit| gain(&board, pit)) else {
                continue;
            };
            let (g2, tied2) = plain_argmax(&board, |pit| {
                let child = board.after(pit).0;
                let reply =
                    plain_argmax(&child, |q| gain(&child, q)).map_or(0, |(q, _)| gain(&child, q));
                gain(&board, pit) - reply
            })
            .expect("a legal move");
            let view = Match::new(board);
            assert_eq!(Greedy1.choose(&view), g1, "greedy1 on {board}");
            assert_eq!(Greedy2.choose(&view), g2, "greedy2 on {board}");
            ties1 += usize::from(tied1);
            ties2 += usize::from(tied2);
            differ += usize::from(g1 != g2);
        }
        // The tie rule and the second step are both exercised, many times.
        assert!(
            ties1 > 1000 && ties2 > 1000 && differ > 1000,
            "{ties1} {ties2} {differ}"
        );
    }

    #[test]
    fn optimal_player_1_attains_the_optimal_value_on_every_instance() {
        let table = built();
        for board in instances() {
            let record = play(board, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert_eq!(
                record.end.difference(),
                table.value(&board).unwrap(),
                "{board}"
            );
        }
    }

    #[test]
    fn official_totals_greedy1_wins_22_and_draws_7() {
        let table = built();
        let report = results_table(&instances(), &table, 20, 1, &|_| {}, &GameLog::off());
        assert_eq!(report.totals.instances, 51);
        assert_eq!(report.totals.optimal.wins, 51);
        assert_eq!(
            (report.totals.greedy1.wins, report.totals.greedy1.draws),
            (22, 7)
        );
        // Nobody beats the optimal value against the optimal player 2.
        for row in &report.instances {
            assert!(row.greedy1 <= row.optimal && row.greedy2 <= row.optimal);
            let rates = row.random_win + row.random_draw + row.random_loss;
            assert!((rates - 1.0).abs() < 1e-9);
        }
    }

    #[test]
    fn same_seed_same_report() {
        let table = built();
        let boards = &instances()[..5];
        let a = results_table(boards, &table, 50, 7, &|_| {}, &GameLog::off());
        let b = results_table(boards, &table, 50, 7, &|_| {}, &GameLog::off());
        assert_eq!(a, b);
        let c = results_table(boards, &table, 50, 8, &|_| {}, &GameLog::off());
        assert_ne!(a, c);
    }

    /// A peer that hands each request line straight to a player-side session.
    struct SessionPeer {
        session: crate::wire::Session<Match, IoiWire, OptimalAgent>,
        answers: std::collections::VecDeque<String>,
        over: bool,
        sent: Vec<String>,
    }

    impl crate::process::Peer for SessionPeer {
        fn send_line(&mut self, line: &str) -> Result<(), crate::process::PlayerError> {
            self.sent.push(line.to_string());
            if self.over {
                return Err(crate::process::PlayerError::ClosedInput);
            }
            match self.session.handle(line) {
                Ok(Reply::Line(answer)) => self.answers.push_back(answer),
                Ok(Reply::Silent) => {}
                Ok(Reply::Last(answer)) => {
                    self.answers.extend(answer);
                    self.over = true;
                }
                Err(e) => panic!("the session refused '{line}': {e}"),
            }
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<std::time::Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            self.answers
                .pop_front()
                .ok_or(crate::process::PlayerError::ClosedOutput)
        }
    }

    #[test]
    fn the_wire_round_trips_through_both_ends_on_every_instance() {
        use crate::seat::Remote;
        let table = built();
        for board in instances() {
            let peer = SessionPeer {
                session: crate::wire::Session::new(
                    IoiWire::default(),
                    OptimalAgent::new(table.clone()),
                ),
                answers: Default::default(),
                over: false,
                sent: Vec::new(),
            };
            let sent = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let log = sent.clone();
            let mut remote = Remote::new("session", Box::new(peer), IoiWire::default())
                .with_transcript(Box::new(move |l| log.lock().unwrap().push(l.to_string())));
            let over_wire = play(board, &table, &mut remote);
            let local = play(board, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert!(over_wire.fault.is_none(), "{board}: {:?}", over_wire.fault);
            let moves = |r: &GameRecord<Match>| r.plies.iter().map(|p| p.mv).collect::<Vec<_>>();
            assert_eq!(moves(&over_wire), moves(&local), "{board}");
            assert_eq!(over_wire.end, local.end, "{board}");
            assert_eq!(RefereedGame::new(&over_wire), RefereedGame::new(&local));
            // The dialogue: the board, then each of player 2's moves, the last one included.
            let lines = sent.lock().unwrap().clone();
            let to_player: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("> ")).collect();
            assert_eq!(to_player[0], board.to_string());
            let replies: Vec<String> = local
                .plies
                .iter()
                .filter(|p| p.turn == Turn::Seat(1))
                .map(|p| (p.mv + 1).to_string())
                .collect();
            assert_eq!(to_player[1..], replies[..], "{board}");
        }
    }

    /// A player that answers each request with `answer`, and has `waiting`
    /// lines already sent: from the start, or with its first answer.
    struct Scripted {
        answer: &'static str,
        waiting: std::collections::VecDeque<String>,
        from_the_start: bool,
        answered: bool,
    }

    impl crate::process::Peer for Scripted {
        fn send_line(&mut self, _line: &str) -> Result<(), crate::process::PlayerError> {
            Ok(())
        }

        fn recv_line(
            &mut self,
            _deadline: Option<std::time::Instant>,
        ) -> Result<String, crate::process::PlayerError> {
            self.answered = true;
            Ok(self.answer.to_string())
        }

        fn waiting_line(&mut self) -> Option<String> {
            (self.from_the_start || self.answered)
                .then(|| self.waiting.pop_front())
                .flatten()
        }
    }

    #[test]
    fn endless_blank_lines_and_lines_sent_with_an_answer_lose_the_game() {
        let table = built();
        let board: Board = "4 3 2 4 2 3 2".parse().unwrap();
        let fault_when = |answer, waiting: &[&str], from_the_start| {
            let peer = Scripted {
                answer,
                waiting: waiting.iter().map(|l| l.to_string()).collect(),
                from_the_start,
                answered: false,
            };
            let mut remote = crate::seat::Remote::new("p", Box::new(peer), IoiWire::default());
            let record = play(board, &table, &mut remote);
            record.fault.map(|f| f.reason).unwrap_or_default()
        };
        let fault = |answer, waiting: &[&str]| fault_when(answer, waiting, false);
        // Blank lines as fast as they are read: never a time-out, so a limit.
        assert_eq!(fault("", &[]), "wrote more than 64 blank lines");
        // Blank lines beside an answer are passed over (the answer is played,
        // and `2` again later is illegal); another line is not.
        assert_eq!(
            fault("2", &["", ""]),
            "illegal move: pit 2 is empty (answer '2' to '3')"
        );
        assert_eq!(
            fault("2", &["", "7"]),
            "wrote '7' with its answer '2' to '4 3 2 4 2 3 2': one line answers a request"
        );
        assert_eq!(fault("2", &[""; 70]), "wrote more than 64 blank lines");
        // A person may press Enter as often as they like.
        let typed = format!("{}2\n", "\n".repeat(70));
        let person = crate::process::StreamPeer::for_person(
            std::io::Cursor::new(typed.into_bytes()),
            std::io::sink(),
        );
        let mut remote = crate::seat::Remote::new("person", Box::new(person), IoiWire::default());
        let record = play(board, &table, &mut remote);
        assert_eq!(record.plies[0].mv, 1, "{:?}", record.fault);
        // A line already there before a request answers nothing either.
        assert_eq!(
            fault_when("2", &["", "hello"], true),
            "wrote 'hello' before it was asked '4 3 2 4 2 3 2': one line answers a request"
        );
    }

    #[test]
    fn the_player_side_refuses_bad_lines_and_ends_with_the_game() {
        let table = built();
        let session = |lines: &[&str]| {
            let mut s =
                crate::wire::Session::new(IoiWire::default(), OptimalAgent::new(table.clone()));
            let mut out = Vec::new();
            let input = lines.join("\n");
            let result = s.serve(input.as_bytes(), &mut out);
            (
                result.map_err(|e| e.to_string()),
                String::from_utf8(out).unwrap(),
            )
        };
        let (r, out) = session(&["4 3 2 4 2 3"]);
        assert!(r.unwrap_err().contains("7 pits, found 6"));
        assert_eq!(out, "");
        let (r, _) = session(&[]);
        assert_eq!(r.unwrap_err(), "no board line");
        let (r, out) = session(&["4 3 2 4 2 3 2", "2"]);
        assert_eq!(out, "2\n");
        assert!(r.unwrap_err().contains("pit 2, which is empty"));
        let (r, _) = session(&["4 3 2 4 2 3 2", "3"]);
        assert!(r.unwrap_err().contains("input ended"));
        // The seed's game: the session stops once player 2 empties the pits.
        let (r, out) = session(&["4 3 2 4 2 3 2", "3", "4", "7", "junk after the end"]);
        r.unwrap();
        assert_eq!(out, "2\n5\n5\n");
        // Blank lines are passed over, as the original's scanf("%d") does.
        let (r, out) = session(&["", "4 3 2 4 2 3 2", "", " ", "3", "\r", "4", "7"]);
        r.unwrap();
        assert_eq!(out, "2\n5\n5\n");
        let (r, out) = session(&["0 0 0 0 0 0 0"]);
        r.unwrap();
        assert_eq!(out, "");
    }

    /// A small variant and its table, solved in memory.
    fn small() -> (Params, Arc<tabula_tables::ioiwari::VariantTable>) {
        let params = Params::new(5, 4, 10, 1, 3).unwrap();
        let table = tabula_tables::ioiwari::variant_in_memory(&params, &|_| {});
        (params, Arc::new(table))
    }

    #[test]
    fn a_variants_results_table_has_the_exact_values_and_greedy_stays_below() {
        let (params, table) = small();
        let rings = params.instances();
        let report =
            results_table(&rings, &table, 20, 1, &|_| {}, &GameLog::off()).of_variant(&params);
        assert_eq!(report.instances.len(), rings.len());
        let mut memo = std::collections::HashMap::new();
        let (mut below1, mut below2) = (0, 0);
        for (ring, row) in rings.iter().zip(&report.instances) {
            assert_eq!(row.board, ring.pits(), "{ring}");
            // The solver's plain memoized negamax, not the retrograde table.
            let exact = tabula_solver::search::memo_negamax(ring, &mut memo);
            assert_eq!(row.optimal, exact, "{ring}");
            assert!(
                row.greedy1 <= row.optimal && row.greedy2 <= row.optimal,
                "{ring}"
            );
            below1 += usize::from(row.greedy1 < row.optimal);
            below2 += usize::from(row.greedy2 < row.optimal);
        }
        // The variant's greedy players are not optimal players in disguise.
        assert!(below1 > 0 && below2 > 0, "{below1} {below2}");
        assert!(
            report
                .header()
                .starts_with("Ioiwari (pits 5 cap 4 beads 10 start 1..3) results table, seed 1,")
        );
        assert_eq!(
            report.plot().x_label,
            "starting board (beads in pits 1 to 5)"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["variant"]["pits"], 5);
        assert_eq!(json["instances"][0]["board"].as_array().unwrap().len(), 5);
        // The IOI game's report names no variant, as before variants existed.
        let ioi = results_table(&instances()[..2], &built(), 2, 1, &|_| {}, &GameLog::off())
            .of_variant(&Params::default());
        assert!(ioi.variant.is_none());
        assert!(serde_json::to_value(&ioi).unwrap().get("variant").is_none());
    }

    #[test]
    fn the_ioi_parameters_give_the_ioi_boards_and_greedy_plays_alike_on_rings() {
        use tabula_solver::ioiwari::starting_boards;
        let params = Params::default();
        let board = |r: &Ring| r.to_board().unwrap();
        let rings = params.instances();
        assert_eq!(rings.iter().map(board).collect::<Vec<_>>(), instances());
        let all = params.starting_rings();
        assert_eq!(all.iter().map(board).collect::<Vec<_>>(), starting_boards());
        // Whole games of each greedy player against itself, on both boards.
        for ring in all {
            let mut ioi = Match::new(board(&ring));
            let mut ours = RingMatch::new(ring);
            while !ioi.is_over() {
                let mv = if ioi.mover == 0 {
                    Agent::<Match>::choose(&mut Greedy2, &ioi)
                } else {
                    Agent::<Match>::choose(&mut Greedy1, &ioi)
                };
                let theirs = if ours.mover == 0 {
                    Agent::<RingMatch>::choose(&mut Greedy2, &ours)
                } else {
                    Agent::<RingMatch>::choose(&mut Greedy1, &ours)
                };
                assert_eq!(theirs, mv, "{ring}");
                ioi.apply(mv);
                ours.apply(mv);
            }
            assert!(ours.is_over());
            assert_eq!(ours.banks, ioi.banks, "{ring}");
        }
    }

    #[test]
    fn a_variants_game_is_logged_with_its_capacity_and_replays() {
        use crate::record::{GameLine, replay};
        let (params, table) = small();
        for ring in params.instances() {
            let record = play(ring, &table, &mut Local(Greedy2));
            let at = At::new(1, 0, ring.to_string(), 0);
            let text = serde_json::to_string(&GameLine::new(&record, &ring, &at)).unwrap();
            let line: GameLine = serde_json::from_str(&text).unwrap();
            assert_eq!(line.start["cap"], 4, "{text}");
            let states = replay::<RingMatch>(&line).unwrap();
            assert_eq!(states.last(), Some(&record.end), "{text}");
            // The page of `tabula replay` tells a variant's game by its capacity.
            let shown = crate::ioiwari::draw::show(&line).unwrap();
            let notes = serde_json::to_string(&shown).unwrap();
            assert!(
                notes.contains("pits 1 to 5 (at most 4 beads each)"),
                "{notes}"
            );
        }
        // An IOI game's log still names no capacity and replays as the IOI game.
        let table = built();
        let board = instances()[0];
        let record = play(board, &table, &mut Local(Greedy1));
        let line = GameLine::new(&record, &board, &At::new(1, 0, board.to_string(), 0));
        assert!(line.start.get("cap").is_none());
        replay::<Match>(&line).unwrap();
    }

    #[test]
    fn the_optimal_player_1_attains_the_value_on_every_variant_instance() {
        let (params, table) = small();
        for ring in params.instances() {
            let record = play(ring, &table, &mut Local(OptimalAgent::new(table.clone())));
            assert_eq!(
                record.end.difference(),
                table.value(&ring).unwrap(),
                "{ring}"
            );
            let game = RefereedGame::new(&record);
            assert_eq!(game.board, ring.pits());
        }
    }
}
