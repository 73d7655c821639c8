//! A referee command's run, written once: the records, the tested player, the
//! game's [`Contest`] played by `tabula_verify::referee::run`, and the report.

use tabula_solver::Game;
use tabula_verify::agent::Agent;
use tabula_verify::arena::GameRecord;
use tabula_verify::record::{At, Notation};
use tabula_verify::referee::{Case, Contest, RefereeOutput, run};
use tabula_verify::seat::Player;
use tabula_verify::wire::Wire;

use super::*;

/// The records of a referee run, and its stdout unless `--json -` holds it.
struct Records<'a> {
    log: &'a Log,
    json: Option<&'a OutputPath>,
    /// Counts the games on stderr: a case of 100 games takes seconds.
    progress: indicatif::ProgressBar,
}

impl<G: Notation> RefereeOutput<G> for Records<'_> {
    fn game(&self, record: &GameRecord<G>, params: &G::Params, at: &At) {
        self.log.game(record, params, at);
        self.progress.inc(1);
    }

    fn transcript(&self, line: &str) {
        self.log.transcript_line(line);
    }

    fn say(&self, line: &str) -> std::io::Result<()> {
        self.progress.suspend(|| say(self.log, self.json, line))
    }

    fn show(&self, line: &str) -> std::io::Result<()> {
        if self.json != Some(&OutputPath::Stdout) {
            crate::out::outln!("{line}")?;
        }
        Ok(())
    }
}

/// Referees `contest` against the tested seat (`--player` over `wire()`, or
/// `--agent` drawn by `agent` among `known`, for the case it is started for,
/// `None`: the whole run) and ends with the report, its JSON and the exit
/// status (`--strict`).
pub fn referee_contest<C, W>(
    contest: &C,
    seat: &SeatArgs,
    wire: impl Fn() -> W,
    agent: impl Fn(&str, Option<&Case<<C::Game as Game>::Params>>) -> Option<Box<dyn Agent<C::Game>>>,
    known: &[&str],
    args: &RefereeRunArgs,
) -> crate::registry::Outcome
where
    C: Contest,
    C::Game: 'static,
    W: Wire<C::Game> + 'static,
{
    referee_contest_with(contest, args, |log, case| {
        tested_player(seat, wire(), |name| agent(name, case), known, log)
    })
}

/// [`referee_contest`] with the tested player started by `start` for a case
/// (`None`: the whole run), which may write the dialogue to the transcript.
pub fn referee_contest_with<C: Contest>(
    contest: &C,
    args: &RefereeRunArgs,
    mut start: impl FnMut(
        &Log,
        Option<&Case<<C::Game as Game>::Params>>,
    ) -> anyhow::Result<Box<dyn Player<C::Game>>>,
) -> crate::registry::Outcome {
    let log = Log::open(&args.log)?;
    let json = args.json.json.as_ref();
    let games = contest.cases().iter().map(|case| case.games).sum::<usize>();
    let progress = crate::progress::bar(games, "games");
    let records = Records {
        log: &log,
        json,
        progress,
    };
    let results = run(
        contest,
        args.seed.seed,
        &mut |case: Option<&Case<_>>| start(&log, case),
        &records,
    )?;
    records.progress.finish_and_clear();
    finish_referee(
        &log,
        results,
        |report| contest.total_shown(report),
        json,
        args.seed.seed,
        &args.strict,
    )
}
