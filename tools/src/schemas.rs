//! `tabula schemas`: the JSON Schema of every command's `--json` report,
//! derived from the report types (schemars), one file a command.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use schemars::Schema;
use tabula_verify::report::{RefereeReport, written_schema};
use tabula_verify::scoreboard::ScoreboardJson;
use tabula_verify::{dominoes, ioiwari, kalah, nim, reversi, tonga, tothello};

/// Arguments of `tabula schemas`.
#[derive(Args)]
pub struct SchemasArgs {
    /// Write one `<verb>-<game>.schema.json` a command into this directory
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// Each command's report schema by its file's stem, `<verb>-<game>` (the
/// verb as the report's `run.verb` says it).
pub fn schemas() -> Vec<(&'static str, Schema)> {
    type Scoreboard<E> = ScoreboardJson<E>;
    /// A schema from its title.
    type Titled = fn(&str) -> Schema;
    // Each report by its command, `"<verb>-<game>": type`.
    macro_rules! reports {
        ($($name:literal: $report:ty),* $(,)?) => {
            [$(($name, written_schema::<$report> as Titled)),*]
        };
    }
    let reports = reports![
        "verify-ioiwari": ioiwari::report::Report,
        "verify-kalah": Scoreboard<kalah::report::VerifySettings>,
        "verify-nim": Scoreboard<nim::report::VerifySettings>,
        "verify-tothello": tothello::report::TournamentReport,
        "verify-tonga": tonga::report::Report,
        "verify-dominoes": dominoes::report::Report,
        "verify-reversi": reversi::report::Report,
        "referee-ioiwari": RefereeReport<ioiwari::report::RefereedGame>,
        "referee-kalah": RefereeReport<kalah::report::RefereedGame>,
        "referee-nim": RefereeReport<nim::report::RefereedGame>,
        "referee-tothello": tothello::checker::CheckReport,
        "referee-tonga": RefereeReport<tonga::GameResult>,
        "referee-dominoes": RefereeReport<dominoes::referee::CaseResult>,
        "referee-reversi": RefereeReport<reversi::referee::CaseResult>,
        "sweep-ioiwari": ioiwari::sweep::SweepReport,
        "sweep-kalah": kalah::sweep::SweepReport,
        "cases-tothello": crate::tothello::referee::CasesReport,
        "deals-dominoes": crate::dominoes::DealsReport,
        "evolve-reversi": crate::reversi::evolve::Population,
        "query-reversi": reversi::query::Analysis,
    ];
    reports
        .into_iter()
        .map(|(name, schema)| (name, schema(&title(name))))
        .collect()
}

/// `verify-kalah` as the command line says it: `tabula verify kalah --json`.
fn title(name: &str) -> String {
    let (verb, game) = name.split_once('-').expect("<verb>-<game>");
    match verb {
        "verify" | "referee" | "sweep" | "query" => format!("tabula {verb} {game} --json"),
        _ => format!("tabula {game} {verb} --json"),
    }
}

/// Writes every schema into `--dir`, pretty-printed, each atomically.
pub fn write(args: SchemasArgs) -> anyhow::Result<()> {
    for (name, schema) in schemas() {
        let path = args.dir.join(format!("{name}.schema.json"));
        let text = serde_json::to_string_pretty(&schema)? + "\n";
        tabula_tables::atomic::write_file(&path, |out| out.write_all(text.as_bytes()))
            .with_context(|| path.display().to_string())?;
    }
    Ok(())
}
