//! One referee run for every game: a game says what its contest is
//! ([`Contest`], in `verify/src/<game>/contest.rs`), and [`run`] plays its
//! cases against the tested player, logs each game, says each result line and
//! collects the results. The command line (`tools/`) opens the records, starts
//! the tested player and ends the run with the report.

use std::ops::Range;

use serde::Serialize;
use tabula_solver::Game;

use crate::arena::GameRecord;
use crate::record::{At, Notation};
use crate::report::{RefereeReport, RefereedCase};
use crate::seat::{EXIT_GRACE, Player};

/// One case of a contest: its parameters, its name in logs and reports, and its games.
#[derive(Clone, Debug)]
pub struct Case<P> {
    /// The case's position in the run, from 0 (the seed streams' case key).
    pub index: usize,
    /// The game's parameters for the case (a heap, a board side, rules).
    pub params: P,
    /// The case as logs name it (`heap 5`, `N=6`).
    pub name: String,
    /// Games in the case.
    pub games: usize,
}

impl<P: Copy> Case<P> {
    /// A case for each of `params`, named by `name`, of `games` games each.
    pub fn each(params: &[P], name: impl Fn(P) -> String, games: usize) -> Vec<Case<P>> {
        let cases = params.iter().enumerate();
        cases
            .map(|(index, &params)| Case {
                index,
                params,
                name: name(params),
                games,
            })
            .collect()
    }
}

/// How often the tested player is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Starts {
    /// Once for the whole run; it plays every case.
    OncePerRun,
    /// Afresh for every game, so that a crash loses only that game.
    EachGame,
}

/// What a referee run needs of a game: its cases, how its games are set up
/// and seated against the contest's opponent(s), and what each game scores.
pub trait Contest {
    /// The game played.
    type Game: Game + Notation;
    /// One game's result, as the report counts it.
    type Result: RefereedCase + Serialize;

    /// The cases, in the order they are played.
    fn cases(&self) -> Vec<Case<<Self::Game as Game>::Params>>;

    /// How often the tested player is started.
    fn starts(&self) -> Starts;

    /// A transcript line before a game (and before a fresh player starts), if any.
    fn heading(&self, _case: &Case<<Self::Game as Game>::Params>, _game: usize) -> Option<String> {
        None
    }

    /// Plays `games` of `case` against the contest's opponent(s), seating the
    /// tested player as the contest does, and hands each game's record to `each`.
    fn play(
        &self,
        case: &Case<<Self::Game as Game>::Params>,
        games: Range<usize>,
        tested: &mut dyn Player<Self::Game>,
        each: &mut dyn FnMut(usize, &GameRecord<Self::Game>),
    );

    /// The result of `game` of `case`.
    fn result(
        &self,
        case: &Case<<Self::Game as Game>::Params>,
        game: usize,
        record: &GameRecord<Self::Game>,
    ) -> Self::Result;

    /// Transcript lines written before a game's result line (none by default).
    fn notes(&self, _result: &Self::Result) -> Vec<String> {
        Vec::new()
    }

    /// A game's result line.
    fn line(&self, result: &Self::Result) -> String;

    /// The run's last line, its total.
    fn total_line(&self, report: &RefereeReport<Self::Result>) -> String;

    /// A game's result line as stdout shows it, if not as the transcript has
    /// it (`line`, from [`Contest::line`]); by default the same.
    fn shown_line(
        &self,
        _case: &Case<<Self::Game as Game>::Params>,
        _line: &str,
    ) -> Option<String> {
        None
    }

    /// Where the run's total goes: by default [`Contest::total_line`] ends
    /// both the transcript and stdout.
    fn total_shown(&self, report: &RefereeReport<Self::Result>) -> TotalLines {
        let line = self.total_line(report);
        TotalLines {
            transcript: Some(line.clone()),
            stdout: Some(line),
        }
    }
}

/// The lines a run's total ends the transcript and stdout with, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TotalLines {
    /// The transcript's last line.
    pub transcript: Option<String>,
    /// Stdout's last line (unless `--json -` holds stdout).
    pub stdout: Option<String>,
}

/// Where a run's records go: the game log, the transcript and the result lines.
pub trait RefereeOutput<G: Notation> {
    /// Writes one game to the game log.
    fn game(&self, record: &GameRecord<G>, params: &G::Params, at: &At);
    /// Writes one line to the transcript.
    fn transcript(&self, line: &str);
    /// Writes a result line to the transcript and, where it goes, to stdout.
    fn say(&self, line: &str) -> std::io::Result<()>;
    /// Writes a result line, where it goes, to stdout only.
    fn show(&self, line: &str) -> std::io::Result<()>;
}

/// Plays every case of `contest` against the tested player that `start`
/// starts, writes each game to `out`, and returns the results in order.
/// The tested player is finished (`EXIT_GRACE`) when its games are over.
pub fn run<C, E>(
    contest: &C,
    seed: u64,
    start: &mut dyn FnMut() -> Result<Box<dyn Player<C::Game>>, E>,
    out: &dyn RefereeOutput<C::Game>,
) -> Result<Vec<C::Result>, E>
where
    C: Contest,
    E: From<std::io::Error>,
{
    let mut results = Vec::new();
    let mut once = match contest.starts() {
        Starts::OncePerRun => Some(start()?),
        Starts::EachGame => None,
    };
    for case in contest.cases() {
        // A result line that cannot be written stops the run after the game.
        let said = std::cell::RefCell::new(Ok(()));
        let mut each = |game: usize, record: &GameRecord<C::Game>| {
            out.game(
                record,
                &case.params,
                &At::new(seed, case.index, &*case.name, game),
            );
            let result = contest.result(&case, game, record);
            for note in contest.notes(&result) {
                out.transcript(&note);
            }
            if said.borrow().is_ok() {
                let line = contest.line(&result);
                *said.borrow_mut() = match contest.shown_line(&case, &line) {
                    None => out.say(&line),
                    Some(shown) => {
                        out.transcript(&line);
                        out.show(&shown)
                    }
                };
            }
            results.push(result);
        };
        match once.as_mut() {
            Some(tested) => contest.play(&case, 0..case.games, tested.as_mut(), &mut each),
            None => {
                for game in 0..case.games {
                    if let Some(heading) = contest.heading(&case, game) {
                        out.transcript(&heading);
                    }
                    let mut tested = start()?;
                    contest.play(&case, game..game + 1, tested.as_mut(), &mut each);
                    // Time to read its last lines and end by itself, then it is killed.
                    tested.finish(EXIT_GRACE);
                    drop(tested);
                    if said.borrow().is_err() {
                        break;
                    }
                }
            }
        }
        said.into_inner()?;
    }
    if let Some(mut tested) = once {
        tested.finish(EXIT_GRACE);
    }
    Ok(results)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::RefCell;

    use tabula_solver::nim::Nim;

    use super::*;
    use crate::nim::{NimContest, Optimal};
    use crate::seat::{Limits, Local};

    /// Records what a run writes, in order, for any game's contest tests.
    #[derive(Default)]
    pub(crate) struct Written(pub(crate) RefCell<Vec<String>>);

    impl<G: Notation> RefereeOutput<G> for Written {
        fn game(&self, _record: &GameRecord<G>, _params: &G::Params, at: &At) {
            let line = format!("game {} case {} game {}", at.label, at.case, at.game);
            self.0.borrow_mut().push(line);
        }
        fn transcript(&self, line: &str) {
            self.0.borrow_mut().push(format!("transcript {line}"));
        }
        fn say(&self, line: &str) -> std::io::Result<()> {
            self.0.borrow_mut().push(format!("say {line}"));
            Ok(())
        }
        fn show(&self, line: &str) -> std::io::Result<()> {
            self.0.borrow_mut().push(format!("show {line}"));
            Ok(())
        }
    }

    /// Nim's contest, its tested player started afresh for each game when `each_game`.
    struct Restarting(NimContest, bool);

    impl Contest for Restarting {
        type Game = Nim;
        type Result = crate::nim::RefereedGame;
        fn cases(&self) -> Vec<Case<u32>> {
            self.0.cases()
        }
        fn starts(&self) -> Starts {
            if self.1 {
                Starts::EachGame
            } else {
                Starts::OncePerRun
            }
        }
        fn heading(&self, case: &Case<u32>, game: usize) -> Option<String> {
            Some(format!("# {} game {game}", case.name))
        }
        fn play(
            &self,
            case: &Case<u32>,
            games: Range<usize>,
            tested: &mut dyn Player<Nim>,
            each: &mut dyn FnMut(usize, &GameRecord<Nim>),
        ) {
            self.0.play(case, games, tested, each);
        }
        fn result(&self, case: &Case<u32>, game: usize, record: &GameRecord<Nim>) -> Self::Result {
            self.0.result(case, game, record)
        }
        fn line(&self, result: &Self::Result) -> String {
            self.0.line(result)
        }
        fn total_line(&self, report: &RefereeReport<Self::Result>) -> String {
            self.0.total_line(report)
        }
    }

    fn contest(each_game: bool) -> Restarting {
        let nim = NimContest {
            heaps: vec![5, 8],
            games: 2,
            opponent: "optimal".into(),
            seed: 1,
            limits: Limits::default(),
        };
        Restarting(nim, each_game)
    }

    fn referee(each_game: bool) -> (usize, Vec<String>, Vec<f64>) {
        let written = Written::default();
        let mut starts = 0;
        let mut start = || -> Result<Box<dyn Player<Nim>>, std::io::Error> {
            starts += 1;
            Ok(Box::new(Local(Optimal)))
        };
        let results = run(&contest(each_game), 1, &mut start, &written).unwrap();
        let scores = results.iter().map(RefereedCase::score).collect();
        (starts, written.0.into_inner(), scores)
    }

    #[test]
    fn every_game_is_logged_and_said_in_order() {
        let (starts, written, scores) = referee(false);
        assert_eq!(starts, 1);
        let logged: Vec<&String> = written.iter().filter(|l| l.starts_with("game")).collect();
        let expected = [(5, 0, 0), (5, 0, 1), (8, 1, 0), (8, 1, 1)];
        assert_eq!(logged.len(), expected.len());
        for (line, (heap, case, game)) in logged.iter().zip(expected) {
            assert_eq!(**line, format!("game heap {heap} case {case} game {game}"));
        }
        // The optimal player wins heap 5 first and heap 8 second, and loses the others.
        assert_eq!(scores, vec![1.0, 0.0, 0.0, 1.0]);
        assert!(written.iter().all(|l| !l.starts_with("transcript")));
        let said = written.iter().filter(|l| l.starts_with("say")).count();
        assert_eq!(said, 4);
        // Each game's line follows its log entry.
        assert!(written[1].starts_with("say heap 5 seat 0"));
    }

    #[test]
    fn a_player_started_for_each_game_plays_the_same_games() {
        let (starts, written, scores) = referee(true);
        assert_eq!(starts, 4);
        assert_eq!(scores, referee(false).2);
        assert_eq!(written[0], "transcript # heap 5 game 0");
        assert_eq!(written[1], "game heap 5 case 0 game 0");
        assert_eq!(written[3], "transcript # heap 5 game 1");
        assert_eq!(written[4], "game heap 5 case 0 game 1");
    }
}
