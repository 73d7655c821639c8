//! `tabula referee tothello`'s run: the checker's cases sent to a `bestMove`
//! program (or a person), and the result lines the command prints.
//!
//! It is not a [`crate::referee::Contest`]: a case is one request and one
//! line of answer over a line protocol, not a game between seats, so it has
//! no seating, no game record and no game log for the generic run to keep.

use std::time::Duration;

use super::checker::{Answerer, Case, CheckReport, referee_best_move};
use crate::process::ExternalPlayer;
use crate::protocol;
use crate::seat::EXIT_GRACE;
use crate::tournament::Progress;

/// Wrong answers that the result lines show; the count says the rest.
pub const SHOWN_WRONG: usize = 10;

/// Checks a `bestMove` program's answers to `cases` (see [`referee_best_move`])
/// and ends it: with time to exit by itself, or none after a fault, when it
/// may be stalled.
pub fn check_program(
    cases: &[Case],
    player: &mut ExternalPlayer,
    timeout: Option<Duration>,
    log: &mut dyn FnMut(&str),
    progress: Progress<'_>,
) -> CheckReport {
    let report = referee_best_move(cases, player, Answerer::Program, timeout, log, progress);
    let grace = match report.fault {
        None => EXIT_GRACE,
        Some(_) => Duration::ZERO,
    };
    player.finish(grace);
    report
}

impl CheckReport {
    /// Whether every case was answered right (the run's exit status).
    pub fn all_passed(&self) -> bool {
        self.passed == self.cases
    }

    /// The result lines: the first wrong answers, the unsolicited lines, the
    /// fault that stopped the check, and `passed P of C cases`.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for failure in self.failures.iter().take(SHOWN_WRONG) {
            lines.push(format!(
                "wrong: {} -> got '{}', expected {}",
                failure.request,
                protocol::excerpt(&failure.got),
                failure.expected
            ));
        }
        if self.failures.len() > SHOWN_WRONG {
            lines.push(format!(
                "... and {} more wrong answers",
                self.failures.len() - SHOWN_WRONG
            ));
        }
        if let Some(first) = self.unsolicited.first() {
            let count = match self.unsolicited.len() {
                1 => "1 line".to_string(),
                n => format!("{n} lines"),
            };
            lines.push(format!(
                "unsolicited: {count} answering no request (the first: '{}')",
                protocol::excerpt(first)
            ));
        }
        if let Some(fault) = &self.fault {
            lines.push(format!("stopped: {fault}"));
        }
        lines.push(format!("passed {} of {} cases", self.passed, self.cases));
        lines
    }
}
