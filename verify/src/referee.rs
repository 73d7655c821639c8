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
    /// tested player as the contest does, and hands each game's record to
    /// `games.each`.
    fn play(&self, case: &Case<<Self::Game as Game>::Params>, games: Games<'_, Self::Game>);

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

    /// Lines said before the first case, after a player for the whole run
    /// has started (notes on the run; none by default).
    fn opening(&self) -> Vec<String> {
        Vec::new()
    }

    /// A transcript line before a case's games, if any.
    fn case_heading(&self, _case: &Case<<Self::Game as Game>::Params>) -> Option<String> {
        None
    }

    /// Where game `game` of `case` stands in the game log: by default its
    /// case's place in the run, and chance from `chance/<case>/<game>/0`.
    fn at(&self, seed: u64, case: &Case<<Self::Game as Game>::Params>, game: usize) -> At {
        At::new(seed, case.index, &*case.name, game)
    }

    /// Transcript lines after a game is logged, from its record (none by default).
    fn game_notes(
        &self,
        _case: &Case<<Self::Game as Game>::Params>,
        _game: usize,
        _record: &GameRecord<Self::Game>,
    ) -> Vec<String> {
        Vec::new()
    }

    /// Whether the report counts each game (the default) or each case.
    fn tally(&self) -> Tally {
        Tally::EachGame
    }

    /// A case's results from its games' (`Tally::EachCase` only): the games'
    /// own by default; a contest that scores whole cases folds them into one.
    fn case_results(
        &self,
        _case: &Case<<Self::Game as Game>::Params>,
        games: Vec<Self::Result>,
    ) -> Vec<Self::Result> {
        games
    }

    /// A game's result line as stdout shows it, if not as the transcript has
    /// it (`line`, from [`RefereedCase::line`]); by default the same.
    fn shown_line(
        &self,
        _case: &Case<<Self::Game as Game>::Params>,
        _line: &str,
    ) -> Option<String> {
        None
    }

    /// Where the run's total goes: by default [`RefereedCase::total_line`]
    /// ends both the transcript and stdout.
    fn total_shown(&self, report: &RefereeReport<Self::Result>) -> TotalLines {
        let line = report.total_line();
        TotalLines {
            transcript: Some(line.clone()),
            stdout: Some(line),
        }
    }
}

/// The games of a case that a contest plays at one go: which, by whom, and
/// where each game's record goes as soon as the game ends.
pub struct Games<'a, G: Game> {
    /// The games' numbers in their case, from 0.
    pub range: Range<usize>,
    /// The tested player.
    pub tested: &'a mut dyn Player<G>,
    /// Takes each game's number and record (to log and score it).
    pub each: &'a mut dyn FnMut(usize, &GameRecord<G>),
}

impl<G: Game> Games<'_, G> {
    /// Plays the games one at a time: `game` plays the game of a number
    /// against the tested player and returns its record.
    pub fn one_by_one(self, mut game: impl FnMut(usize, &mut dyn Player<G>) -> GameRecord<G>) {
        for number in self.range {
            let record = game(number, &mut *self.tested);
            (self.each)(number, &record);
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

/// What the report counts as one result, and so when result lines are said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tally {
    /// Each game: its line is said as it ends.
    EachGame,
    /// Each case (`Contest::case_results`): its line is said when the case ends.
    EachCase,
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

/// The parameters of a contest's game.
type Params<C> = <<C as Contest>::Game as Game>::Params;

/// Starts a tested player: for the whole run (`None`) or for a game of a case.
pub type Start<'a, C, E> =
    dyn FnMut(Option<&Case<Params<C>>>) -> Result<Box<dyn Player<<C as Contest>::Game>>, E> + 'a;

/// Plays every case of `contest` against the tested player that `start`
/// starts, writes each game to `out`, and returns the results in order.
/// The tested player is finished (`EXIT_GRACE`) when its games are over.
pub fn run<C, E>(
    contest: &C,
    seed: u64,
    start: &mut Start<'_, C, E>,
    out: &dyn RefereeOutput<C::Game>,
) -> Result<Vec<C::Result>, E>
where
    C: Contest,
    E: From<std::io::Error>,
{
    let mut results = Vec::new();
    let mut once = match contest.starts() {
        Starts::OncePerRun => Some(start(None)?),
        Starts::EachGame => None,
    };
    for line in contest.opening() {
        out.say(&line)?;
    }
    let running = Running { contest, seed, out };
    for case in contest.cases() {
        if let Some(heading) = contest.case_heading(&case) {
            out.transcript(&heading);
        }
        let mut player = match once.as_mut() {
            Some(tested) => Tested::Once(tested.as_mut()),
            None => Tested::EachGame(&mut *start),
        };
        results.extend(running.case(&case, &mut player)?);
    }
    if let Some(mut tested) = once {
        tested.finish(EXIT_GRACE);
    }
    Ok(results)
}

/// The tested player of a case: the run's, or one started for each game.
enum Tested<'p, 's, C: Contest, E> {
    /// The player that plays the whole run.
    Once(&'p mut dyn Player<C::Game>),
    /// Starts a player for each game.
    EachGame(&'p mut Start<'s, C, E>),
}

/// A run under way: its contest, its seed and where its records go.
struct Running<'a, C: Contest> {
    contest: &'a C,
    seed: u64,
    out: &'a dyn RefereeOutput<C::Game>,
}

impl<C: Contest> Running<'_, C> {
    /// Plays one case: logs each game, writes its notes and says its result
    /// line (`Tally::EachGame`) or the case's (`Tally::EachCase`).
    fn case<E: From<std::io::Error>>(
        &self,
        case: &Case<Params<C>>,
        tested: &mut Tested<'_, '_, C, E>,
    ) -> Result<Vec<C::Result>, E> {
        let (contest, seed, out) = (self.contest, self.seed, self.out);
        let tally = contest.tally();
        let mut results = Vec::new();
        // A result line that cannot be written stops the run after the game.
        let said = std::cell::RefCell::new(Ok(()));
        let say = |line: String| {
            if said.borrow().is_ok() {
                *said.borrow_mut() = match contest.shown_line(case, &line) {
                    None => out.say(&line),
                    Some(shown) => {
                        out.transcript(&line);
                        out.show(&shown)
                    }
                };
            }
        };
        let mut each = |game: usize, record: &GameRecord<C::Game>| {
            out.game(record, &case.params, &contest.at(seed, case, game));
            for note in contest.game_notes(case, game, record) {
                out.transcript(&note);
            }
            let result = contest.result(case, game, record);
            for note in contest.notes(&result) {
                out.transcript(&note);
            }
            if tally == Tally::EachGame {
                say(result.line());
            }
            results.push(result);
        };
        match tested {
            Tested::Once(tested) => {
                let games = Games {
                    range: 0..case.games,
                    tested: &mut **tested,
                    each: &mut each,
                };
                contest.play(case, games);
            }
            Tested::EachGame(start) => {
                for game in 0..case.games {
                    if let Some(heading) = contest.heading(case, game) {
                        out.transcript(&heading);
                    }
                    let mut tested = start(Some(case))?;
                    let games = Games {
                        range: game..game + 1,
                        tested: tested.as_mut(),
                        each: &mut each,
                    };
                    contest.play(case, games);
                    // Time to read its last lines and end by itself, then it is killed.
                    tested.finish(EXIT_GRACE);
                    drop(tested);
                    if said.borrow().is_err() {
                        break;
                    }
                }
            }
        }
        if tally == Tally::EachCase {
            results = contest.case_results(case, results);
            for result in &results {
                say(result.line());
            }
        }
        said.into_inner()?;
        Ok(results)
    }
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

    /// Checks that `parse` rejects each `(text, reason)` of `bad` with an
    /// error that says `reason` (a referee's list of cases or sides).
    pub(crate) fn assert_rejects<T: std::fmt::Debug>(
        parse: impl Fn(&str) -> Result<T, String>,
        bad: &[(&str, &str)],
    ) {
        for (text, reason) in bad {
            let error = parse(text).unwrap_err();
            assert!(error.contains(reason), "{text:?}: {error}");
        }
    }

    /// Nim's contest, its tested player started afresh for each game when
    /// `.1`; with `.2`, scored per case: a heading before each case, a note
    /// after each game, and one result per case, the case's last game.
    struct Restarting(NimContest, bool, bool);

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
        fn play(&self, case: &Case<u32>, games: Games<'_, Nim>) {
            self.0.play(case, games);
        }
        fn result(&self, case: &Case<u32>, game: usize, record: &GameRecord<Nim>) -> Self::Result {
            self.0.result(case, game, record)
        }
        fn opening(&self) -> Vec<String> {
            self.2
                .then(|| "note: per case".to_string())
                .into_iter()
                .collect()
        }
        fn case_heading(&self, case: &Case<u32>) -> Option<String> {
            self.2.then(|| format!("# {}", case.name))
        }
        fn game_notes(&self, _: &Case<u32>, game: usize, record: &GameRecord<Nim>) -> Vec<String> {
            let note = format!("game {game}: {} plies", record.plies.len());
            self.2.then_some(note).into_iter().collect()
        }
        fn tally(&self) -> Tally {
            if self.2 {
                Tally::EachCase
            } else {
                Tally::EachGame
            }
        }
        fn case_results(&self, _: &Case<u32>, games: Vec<Self::Result>) -> Vec<Self::Result> {
            games.into_iter().last().into_iter().collect()
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
        Restarting(nim, each_game, false)
    }

    fn referee(each_game: bool) -> (usize, Vec<String>, Vec<f64>) {
        let written = Written::default();
        let mut starts = 0;
        let mut start = |_: Option<&Case<u32>>| -> Result<Box<dyn Player<Nim>>, std::io::Error> {
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

    #[test]
    fn a_contest_scored_per_case_says_one_line_when_the_case_is_over() {
        let written = Written::default();
        let mut start = |_: Option<&Case<u32>>| -> Result<Box<dyn Player<Nim>>, std::io::Error> {
            Ok(Box::new(Local(Optimal)))
        };
        let contest = Restarting(contest(false).0, false, true);
        let results = run(&contest, 1, &mut start, &written).unwrap();
        // One result per case: its last game's (heap 5 lost second, heap 8 won second).
        let scores: Vec<f64> = results.iter().map(RefereedCase::score).collect();
        assert_eq!(scores, vec![0.0, 1.0]);
        let written = written.0.into_inner();
        let kinds: Vec<&str> = written
            .iter()
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        let case = [
            "transcript",
            "game",
            "transcript",
            "game",
            "transcript",
            "say",
        ];
        assert_eq!(kinds[0], "say", "{written:?}");
        assert_eq!(kinds[1..], [case, case].concat()[..], "{written:?}");
        assert_eq!(written[1], "transcript # heap 5");
        assert!(written[3].starts_with("transcript game 0: "), "{written:?}");
        assert!(written[6].starts_with("say heap 5 seat 1"), "{written:?}");
    }
}
