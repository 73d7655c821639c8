//! A `verify` of a game's own players against each other: every pair, both
//! seatings, on every case, counted on a [`Scoreboard`] (Nim's, Kalah's and
//! Tothello's).
//!
//! Kept apart from [`crate::tournament`], which it runs on, so that the
//! runner does not depend on the game log and the scoreboard.

use tabula_solver::Game;

use crate::arena::GameRecord;
use crate::record::{At, GameLog, Notation};
use crate::scoreboard::{Scoreboard, SeatResult};
use crate::tournament::{
    Job, Lifetime, Lineup, MakeAgent, Played, Progress, Schedule, Seatings, play_schedule,
};

/// Games a round robin of `agents` players on `cases` cases plays, `games`
/// per seating: what its progress counts up to.
pub fn total_games(agents: usize, cases: usize, games: usize) -> usize {
    agents * agents.saturating_sub(1) / 2 * cases * games * 2
}

/// A [`RoundRobin`] job's game parameters and start from its case's parameters.
pub type StartOf<'a, G, P> = &'a (dyn Fn(&Job, &P) -> (<G as Game>::Params, G) + Sync);

/// One case of a [`RoundRobin`]: its key, its name in the report and logs,
/// and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Case<P> {
    /// The key that names the case's random streams ([`Schedule::case_keys`]).
    pub key: u64,
    /// The case as the scoreboard and the game log name it (`heap 5`).
    pub name: String,
    /// The case's parameters, as the agents and the log get them.
    pub params: P,
}

/// Every pair of built-in agents, both seatings, on every case: the report of
/// a `verify` whose measure is how the game's own players fare against each other.
///
/// Each pair is one [`Schedule`] (rotated seats, an agent per game), so the
/// pairs share the seed's streams: the random player draws the same in every
/// pairing of a case, game and seat.
pub struct RoundRobin<'a, G: Game, P = <G as Game>::Params> {
    /// The agents' names, in the order their pairs are played and reported.
    pub agents: &'a [String],
    /// The cases, in order.
    pub cases: Vec<Case<P>>,
    /// A job's game parameters and start from its case's parameters (the
    /// same for every game of a case, or, as Tothello's openings, per game).
    pub start: StartOf<'a, G, P>,
    /// Builds an agent by name (every name of `agents` is known to it).
    pub make: MakeAgent<'a, G>,
    /// Games per case and pair, each played once per seating.
    pub games: usize,
    /// The seed of every stream.
    pub seed: u64,
}

impl<G: Notation, P: Sync> RoundRobin<'_, G, P> {
    /// Plays every pair `a vs b` (`a` before `b` in `agents`) on every case
    /// and counts each game for the first-named agent, entrant `a vs b`;
    /// `progress` counts the games of the whole run, and `log` gets them in
    /// the order the scoreboard counts them.
    pub fn play(&self, progress: Progress<'_>, log: &GameLog) -> Scoreboard {
        let mut board = Scoreboard::new();
        let mut done_before = 0;
        for (i, a) in self.agents.iter().enumerate() {
            for b in &self.agents[i + 1..] {
                let lineup = vec![a.clone(), b.clone()];
                let schedule = Schedule {
                    case_keys: self.cases.iter().map(|c| c.key).collect(),
                    games: self.games,
                    seats: 2,
                    seatings: Seatings::Rotated,
                    lifetime: Lifetime::Game,
                };
                let setup = |job: &Job| (self.start)(job, &self.cases[job.case].params);
                let each = |job: &Job, record: GameRecord<G>| {
                    let case = &self.cases[job.case];
                    let at = At::of_job(self.seed, &schedule, job, case.name.clone());
                    let (params, _) = setup(job);
                    Played {
                        line: log.line(&record, &params, &at),
                        kept: SeatResult::of(&record, job.seat_of(0, record.end.seats())),
                    }
                };
                let pair_progress = |done: usize| progress(done_before + done);
                let results = play_schedule(
                    &schedule,
                    &Lineup::new(&lineup, self.make),
                    &setup,
                    self.seed,
                    &pair_progress,
                    &|line: &str| log.write_text(line),
                    &each,
                );
                done_before += results.len();
                for (job, result) in results {
                    board.add(&format!("{a} vs {b}"), &self.cases[job.case].name, result);
                }
            }
        }
        board
    }
}

/// Each pair's first-named player's win rate per case, as a plot: `game`
/// names the title, `case` what a case is (`heap`), `x_label` the axis.
pub fn win_rate_plot(
    board: &Scoreboard,
    game: &str,
    case: &str,
    x_label: &str,
    games: usize,
    seed: u64,
) -> crate::plot::Plot {
    crate::plot::Plot {
        title: format!("{game}: win rate per {case} ({games} games per seating, seed {seed})"),
        x_label: x_label.into(),
        y_label: "win and draw rates of the first-named player (fraction of games)".into(),
        // Draws apart: a drawn game is no win, and would otherwise look lost.
        series: [
            crate::plot::win_rates(board),
            crate::plot::draw_rates(board),
        ]
        .concat(),
        ceilings: Vec::new(),
        y_range: Some((0.0, 1.0)),
    }
}
