//! The tester's cases: each case is one game of the tested player (seat 0)
//! against P−1 computer opponents drawn from a freshly evolved population.
//!
//! Every random draw comes from the named stream (seed, setup, N, case index,
//! 0) of [`tournament::stream`]: the genetic algorithm runs on it, then the
//! same stream draws the opponents uniformly, with replacement, from the final
//! 100. Case `k` of side N is therefore the same whatever other cases a run
//! plays, and `tabula reversi evolve --size N --seed S --case K` shows case
//! K's population (case 0 by default) and the opponents it draws.

use std::collections::HashSet;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub use crate::report::RefereeReport;
use crate::report::{RefereedCase, fault_fields};
use tabula_solver::reversi::{Board, MAX_N, MIN_N, Rule, Weights};

use crate::arena::{self, GameRecord};
use crate::reversi::Opponent;
use crate::reversi::evolve::{self, Settings};
use crate::seat::{Clock, FaultKind, Limits, Local, Player};
use crate::tournament::{self, Purpose};

/// The named stream of case `index` of side `n`.
pub fn case_stream(seed: u64, n: usize, index: usize) -> ChaCha8Rng {
    tournament::stream(seed, Purpose::Setup, n as u64, index as u64, 0)
}

/// Case `index`'s population on its stream, the generations it took, and
/// the stream as the evolution left it.
fn evolved(
    seed: u64,
    settings: &Settings,
    index: usize,
    progress: &dyn Fn(usize, usize),
) -> (Vec<Weights>, usize, ChaCha8Rng) {
    let mut rng = case_stream(seed, settings.n, index);
    let generations = std::cell::Cell::new(settings.generations.unwrap_or(0));
    let population = evolve::evolve(settings, &mut rng, &|done, total| {
        generations.set(total);
        progress(done, total);
    });
    (population, generations.get(), rng)
}

/// Case `index` of side `settings.n`: its final population (what its
/// opponents are drawn from), the generations it took, and the indices of the
/// P−1 opponents drawn from it, uniformly with replacement (seats 1.. in the
/// order drawn).
pub fn case_population(
    seed: u64,
    settings: &Settings,
    index: usize,
    progress: &dyn Fn(usize, usize),
) -> (Vec<Weights>, usize, Vec<usize>) {
    let (population, generations, mut rng) = evolved(seed, settings, index, progress);
    let drawn: Vec<usize> = (1..Board::players_for(settings.n))
        .map(|_| rng.random_range(0..population.len()))
        .collect();
    (population, generations, drawn)
}

/// The opponents of case `index` of side `settings.n` (see
/// [`case_population`]), with the indices drawn.
pub fn opponents(
    seed: u64,
    settings: &Settings,
    index: usize,
    progress: &dyn Fn(usize, usize),
) -> (Vec<Weights>, Vec<usize>) {
    let (population, _, drawn) = case_population(seed, settings, index, progress);
    (drawn.iter().map(|&i| population[i]).collect(), drawn)
}

/// Parses `--sizes`: board sides 7..12 separated by commas, none twice.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>, String> {
    let mut sizes = Vec::new();
    let mut seen = HashSet::new();
    for item in text.split(',') {
        let item = item.trim();
        let n: usize = item
            .parse()
            .map_err(|_| format!("'{}' is not a board side", crate::wire::short(item)))?;
        if !(MIN_N..=MAX_N).contains(&n) {
            return Err(format!("side {n} is not {MIN_N} to {MAX_N}"));
        }
        if !seen.insert(n) {
            return Err(format!("side {n} is given twice"));
        }
        sizes.push(n);
    }
    Ok(sizes)
}

/// The tested player's result in one case.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CaseResult {
    /// The board side.
    pub n: usize,
    /// The players (3 on odd sides, 4 on even ones).
    pub players: usize,
    /// Cells player 1 owned when the game stopped (at its end, or at its fault).
    pub owned: u32,
    /// owned × P / (N×N); 0 after a fault.
    pub score: f64,
    /// Why the tested player lost the case, if it did.
    pub fault: Option<String>,
    /// That fault's kind, for scripts: `illegal-move`, `malformed-answer`,
    /// `time-out`, `crash` or `closed-pipe`.
    pub fault_kind: Option<FaultKind>,
}

impl RefereedCase for CaseResult {
    fn score(&self) -> f64 {
        self.score
    }

    fn faults(&self) -> usize {
        usize::from(self.fault.is_some())
    }

    /// `case N P score OWNED`, then `fault: reason` if there was one.
    fn line(&self) -> String {
        let mut line = format!(
            "case {} {} {:.4} {}",
            self.n, self.players, self.score, self.owned
        );
        if let Some(reason) = &self.fault {
            line.push_str(&format!(" fault: {reason}"));
        }
        line
    }

    /// `total SCORE over CASES cases`.
    fn total_line(report: &RefereeReport<Self>) -> String {
        format!(
            "total {:.4} over {} cases",
            report.total,
            report.cases.len()
        )
    }
}

/// Plays one case on side `n`: `tested` in seat 0 against `opponents` (seats
/// 1..) with `rule`, on the shared match loop; `limits` bind the tested player
/// only. A malformed or illegal answer, a time-out or a crash ends the game
/// and scores the case 0.
pub fn referee_case(
    n: usize,
    opponents: &[Weights],
    rule: Rule,
    tested: &mut dyn Player<Board>,
    limits: Limits,
) -> (CaseResult, GameRecord<Board>) {
    let start = Board::start(n).expect("sides are checked before");
    assert_eq!(
        opponents.len() + 1,
        start.players(),
        "one opponent per other seat"
    );
    let mut computers: Vec<Local<Opponent>> = opponents
        .iter()
        .map(|&weights| Local(Opponent { weights, rule }))
        .collect();
    let mut players: Vec<&mut dyn Player<Board>> = vec![tested];
    players.extend(computers.iter_mut().map(|c| c as &mut dyn Player<Board>));
    let mut clocks = vec![Clock::default(); players.len()];
    clocks[0] = Clock::new(limits);
    let seating: Vec<usize> = (0..players.len()).collect();
    let mut records = arena::play_case(&n, 1, &mut players, &mut clocks, |_| {
        // No chance in Reversi: the stream is never drawn from.
        (start, tournament::numbered_stream(0, 0), seating.clone())
    });
    let record = records.pop().expect("one game per case");
    (CaseResult::of_game(n, &record), record)
}

impl CaseResult {
    /// The tested player's (seat 0's) result in a case's game on side `n`.
    pub fn of_game(n: usize, record: &GameRecord<Board>) -> CaseResult {
        let owned = record.end.pieces(0).count();
        let own_fault = record.fault.as_ref().filter(|f| f.seat == 0);
        let (fault, fault_kind) = fault_fields(own_fault);
        CaseResult {
            n,
            players: record.end.players(),
            owned,
            score: if fault.is_some() {
                0.0
            } else {
                record.end.case_score(0)
            },
            fault,
            fault_kind,
        }
    }
}

/// The game as a line of the transcript: the end's counts and every move (`2:3,4` = player 2
/// at column 3, row 4).
pub fn game_line(record: &GameRecord<Board>) -> String {
    let end = &record.end;
    let counts: Vec<String> = (0..end.players())
        .map(|s| end.pieces(s).count().to_string())
        .collect();
    let mut line = format!("game pieces {}", counts.join("/"));
    if let Some(fault) = &record.fault {
        line.push_str(&format!(
            " (player {} fault: {})",
            fault.seat + 1,
            fault.reason
        ));
    }
    let moves = super::wire::moves_text(&record.plies, end.n());
    line.push_str(&format!("; moves {moves}"));
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use crate::referee::tests::assert_rejects;
    use crate::seat::{Failure, FaultKind};
    use crate::tournament::stream;
    use tabula_solver::{Game, Turn};

    fn small(n: usize) -> Settings {
        Settings {
            generations: Some(1),
            games: 6,
            ..Settings::new(n)
        }
    }

    #[test]
    fn sizes_parse_strictly() {
        assert_eq!(parse_sizes("7,12, 8").unwrap(), vec![7, 12, 8]);
        let bad = [
            ("", "'' is not a board side"),
            ("7,", "'' is not a board side"),
            ("x", "'x' is not a board side"),
            ("6", "side 6 is not 7 to 12"),
            ("13", "side 13 is not 7 to 12"),
            ("7,9,7", "side 7 is given twice"),
            ("-7", "not a board side"),
        ];
        assert_rejects(parse_sizes, &bad);
    }

    #[test]
    fn each_case_has_its_own_reproducible_opponents() {
        let none = &|_: usize, _: usize| {};
        let (a, ia) = opponents(5, &small(8), 0, none);
        assert_eq!(a.len(), 3);
        assert!(ia.iter().all(|&i| i < evolve::POPULATION));
        assert_eq!(opponents(5, &small(8), 0, none), (a.clone(), ia.clone()));
        assert_ne!(opponents(5, &small(8), 1, none).0, a);
        assert_ne!(opponents(6, &small(8), 0, none).0, a);
        assert_eq!(opponents(5, &small(7), 0, none).0.len(), 2);
        // The population is the one the stream's GA makes.
        let mut rng = case_stream(5, 8, 0);
        let population = evolve::evolve(&small(8), &mut rng, none);
        assert_eq!(population[ia[0]], a[0]);
        assert_eq!(case_population(5, &small(8), 0, none), (population, 1, ia));
    }

    #[test]
    fn a_case_is_scored_the_statements_way() {
        let none = &|_: usize, _: usize| {};
        for n in [7, 8] {
            let (opp, _) = opponents(1, &small(n), 0, none);
            let mut tested = Local(RandomAgent::new(stream(1, Purpose::Agent, 0, 0, 0)));
            let (result, record) =
                referee_case(n, &opp, Rule::default(), &mut tested, Limits::default());
            assert_eq!(record.end.turn(), Turn::Over);
            assert_eq!(result.fault, None);
            assert_eq!(result.players, Board::players_for(n));
            assert_eq!(result.owned, record.end.pieces(0).count());
            let expect = result.owned as f64 * result.players as f64 / (n * n) as f64;
            assert!((result.score - expect).abs() < 1e-12);
            assert!(
                result
                    .line()
                    .starts_with(&format!("case {n} {} ", result.players))
            );
            // The opponents played their weights' choices.
            let mut board = Board::start(n).unwrap();
            for ply in &record.plies {
                let Turn::Seat(seat) = ply.turn else { panic!() };
                if seat > 0 {
                    assert_eq!(opp[seat - 1].choose(&board, Rule::default()), Some(ply.mv));
                }
                board.play(ply.mv);
            }
            assert_eq!(board, record.end);
            assert!(game_line(&record).starts_with("game pieces "));
        }
    }

    /// A player that fails its first move.
    struct Failing(Failure);

    impl Player<Board> for Failing {
        fn name(&self) -> String {
            "failing".into()
        }
        fn start_case(&mut self, _: &usize, _: &mut Clock) -> Result<(), Failure> {
            Ok(())
        }
        fn start_game(&mut self, _: usize, _: &Board, _: &mut Clock) -> Result<(), Failure> {
            Ok(())
        }
        fn observe(&mut self, _: Turn, _: &u8) -> Result<(), Failure> {
            Ok(())
        }
        fn choose(&mut self, _: &Board, _: &mut Clock) -> Result<u8, Failure> {
            Err(self.0.clone())
        }
        fn end_game(&mut self, _: &Board) {}
    }

    #[test]
    fn a_fault_scores_the_case_zero_with_its_reason() {
        let none = &|_: usize, _: usize| {};
        let (opp, _) = opponents(1, &small(7), 0, none);
        let mut failing = Failing(Failure::new(FaultKind::MalformedAnswer, "bad answer 'x'"));
        let (result, record) =
            referee_case(7, &opp, Rule::default(), &mut failing, Limits::default());
        assert_eq!(result.fault.as_deref(), Some("bad answer 'x'"));
        assert_eq!((result.score, result.owned), (0.0, 3));
        assert!(record.plies.is_empty());
        assert_eq!(result.line(), "case 7 3 0.0000 3 fault: bad answer 'x'");
        let json = serde_json::to_value(RefereeReport::new(vec![result])).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"cases": [{"n": 7, "players": 3, "owned": 3, "score": 0.0,
                "fault": "bad answer 'x'", "fault_kind": "malformed-answer"}], "total": 0.0})
        );
    }

    #[test]
    fn through_the_wire_an_agent_plays_every_size_exactly_as_in_process() {
        use crate::process::served;
        use crate::reversi::ReversiWire;

        let agent = || RandomAgent::new(stream(9, Purpose::Agent, 0, 0, 0));
        let (mut remote, server) = served::<Board, ReversiWire, _>(agent());
        let mut local = Local(agent());
        let none = &|_: usize, _: usize| {};
        for n in MIN_N..=MAX_N {
            let (opp, _) = opponents(9, &small(n), 0, none);
            let limits = Limits::default();
            let (a, served) = referee_case(n, &opp, Rule::default(), &mut remote, limits);
            let (b, in_process) = referee_case(n, &opp, Rule::default(), &mut local, limits);
            assert_eq!(a, b);
            assert_eq!(a.fault, None);
            let moves = |r: &GameRecord<Board>| r.plies.iter().map(|p| p.mv).collect::<Vec<_>>();
            assert_eq!(moves(&served), moves(&in_process));
            assert_eq!(served.end, in_process.end);
        }
        // Closing its input ends the service cleanly.
        drop(remote);
        server.join().unwrap().unwrap();
    }
}
