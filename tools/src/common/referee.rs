//! A referee command's run, written once: the records, the tested player, the
//! game's [`Contest`] played by `tabula_verify::referee::run`, and the report.

use tabula_verify::agent::Agent;
use tabula_verify::arena::GameRecord;
use tabula_verify::record::{At, Notation};
use tabula_verify::referee::{Contest, RefereeOutput, run};
use tabula_verify::seat::Player;
use tabula_verify::wire::Wire;

use super::*;

/// The records of a referee run, and its stdout unless `--json -` holds it.
struct Records<'a> {
    log: &'a Log,
    json: Option<&'a OutputPath>,
}

impl<G: Notation> RefereeOutput<G> for Records<'_> {
    fn game(&self, record: &GameRecord<G>, params: &G::Params, at: &At) {
        self.log.game(record, params, at);
    }

    fn transcript(&self, line: &str) {
        self.log.transcript_line(line);
    }

    fn say(&self, line: &str) -> std::io::Result<()> {
        say(self.log, self.json, line)
    }

    fn show(&self, line: &str) -> std::io::Result<()> {
        if self.json != Some(&OutputPath::Stdout) {
            crate::out::outln!("{line}")?;
        }
        Ok(())
    }
}

/// Referees `contest` against the tested seat (`--player` over `wire()`, or
/// `--agent` drawn by `agent` among `known`) and ends with the report, its
/// JSON and the exit status (`--strict`).
pub fn referee_contest<C, W>(
    contest: &C,
    seat: &SeatArgs,
    wire: impl Fn() -> W,
    agent: impl Fn(&str) -> Option<Box<dyn Agent<C::Game>>>,
    known: &[&str],
    args: &RefereeRunArgs,
) -> crate::registry::Outcome
where
    C: Contest,
    C::Game: 'static,
    W: Wire<C::Game> + 'static,
{
    referee_contest_with(contest, args, |log| {
        tested_player(seat, wire(), &agent, known, log)
    })
}

/// [`referee_contest`] with the tested player started by `start`, which
/// may write the dialogue to the run's transcript.
pub fn referee_contest_with<C: Contest>(
    contest: &C,
    args: &RefereeRunArgs,
    mut start: impl FnMut(&Log) -> anyhow::Result<Box<dyn Player<C::Game>>>,
) -> crate::registry::Outcome {
    let log = Log::open(&args.log)?;
    let json = args.json.json.as_ref();
    let records = Records { log: &log, json };
    let results = run(contest, args.seed.seed, &mut || start(&log), &records)?;
    finish_referee_with(
        &log,
        results,
        |report| contest.total_shown(report),
        json,
        args.seed.seed,
        &args.strict,
    )
}
