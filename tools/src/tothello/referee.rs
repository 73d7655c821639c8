//! `tabula referee tothello` (the bestMove checker), `serve tothello` and
//! the checker's cases as data (`tothello cases`).

use std::io;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;
use tabula_verify::process::{ExternalPlayer, Peer, StreamPeer};
use tabula_verify::protocol;
use tabula_verify::tothello::contest::check_program;
use tabula_verify::tothello::{Answerer, answer, referee_best_move, test_cases};

use crate::common::{
    JsonArgs, Log, SeedArgs, TimeoutArgs, TranscriptArgs, count, emit_report, report_then_finish,
    run_info, stderr_mode,
};
use crate::progress::bar;
use crate::registry::Outcome;

/// Arguments of `tabula serve tothello`.
#[derive(Args)]
pub struct ServeArgs {}

/// Answers `bestMove` requests on stdin until end of input.
pub fn serve(_args: ServeArgs) -> Outcome {
    protocol::serve(io::stdin().lock(), crate::out::data_stdout(), answer).context("serving")?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `tabula referee tothello`.
#[derive(Args)]
pub struct RefereeArgs {
    /// The bestMove program's command, run with `sh -c` and spoken to over pipes
    /// in the line protocol (default: requests on stderr, answers read from stdin).
    #[arg(long, value_name = "CMD", value_parser = crate::common::command)]
    player: Option<String>,
    /// Random valid boards sent after the statement's two examples (0 to 1,000,000).
    #[arg(long, value_parser = count, default_value = "1000")]
    cases: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    timeout: TimeoutArgs,
    #[command(flatten)]
    log: TranscriptArgs,
    /// Let the program's stderr through instead of quoting its last lines in
    /// the reason of an exit.
    #[arg(long, requires = "player")]
    player_stderr: bool,
    #[command(flatten)]
    json: JsonArgs,
}

/// Checks a bestMove program's answers on the examples and random boards.
///
/// Prints each wrong answer and a summary; exits 0 when every answer is right, 1 otherwise.
pub fn referee(args: RefereeArgs) -> Outcome {
    let timeout = Some(args.timeout.timeout);
    let cases = test_cases(args.cases, args.seed.seed);
    let log = Log::open(&args.log)?;
    let mut record = |line: &str| log.transcript_line(line);
    let report = match &args.player {
        Some(command) => {
            let mut player = ExternalPlayer::spawn_with(command, stderr_mode(args.player_stderr))?;
            let progress = bar(cases.len(), "cases");
            let set = |done: usize| progress.set_position(done as u64);
            let report = check_program(&cases, &mut player, timeout, &mut record, &set);
            progress.finish_and_clear();
            report
        }
        None => {
            let mut peer = StreamPeer::for_person(io::stdin(), io::stderr());
            // No bar: stderr carries the requests here.
            referee_best_move(
                &cases,
                &mut peer as &mut dyn Peer,
                Answerer::Person,
                timeout,
                &mut record,
                &|_| {},
            )
        }
    };
    // The result lines, also kept in the transcript after the dialogue.
    let lines = report.lines();
    for line in &lines {
        log.transcript_line(line);
    }
    report_then_finish(&log, || {
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        emit_report(
            &text,
            args.json.json.as_ref(),
            &run_info(Some(args.seed.seed)).stamp(&report),
        )
    })?;
    Ok(if report.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Arguments of `tabula tothello cases`.
#[derive(Args)]
pub struct CasesArgs {
    /// Random valid boards after the statement's two examples (0 to 1,000,000), as `referee --cases` sends them.
    #[arg(long, value_parser = count, default_value = "1000")]
    cases: usize,
    #[command(flatten)]
    seed: SeedArgs,
    #[command(flatten)]
    json: JsonArgs,
}

/// The referee's cases, as `--json` writes them after `run` (whose `seed`
/// they are drawn from) and `game`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct CasesReport {
    /// Each request and the piece count of its right answer.
    cases: Vec<tabula_verify::tothello::checker::Case>,
}

/// Prints the referee's cases (the checker's test data): each request line
/// and the piece count the right answer gives, one line a case.
pub fn cases(args: CasesArgs) -> Outcome {
    let seed = args.seed.seed;
    let cases = test_cases(args.cases, seed);
    let text: String = cases
        .iter()
        .enumerate()
        .map(|(k, case)| format!("case {k}: {} -> {}\n", case.request, case.expected))
        .collect();
    let report = CasesReport { cases };
    let stamped = run_info(Some(seed)).stamp(&report);
    emit_report(&text, args.json.json.as_ref(), &stamped)?;
    Ok(ExitCode::SUCCESS)
}
