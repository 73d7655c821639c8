//! Report writers: Markdown tables for people, JSON files for programs.

use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// A report file could not be written.
///
/// The message includes the OS error, so it is not also given as `source()`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {error}", path.display())]
pub struct ReportError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub error: io::Error,
}

/// A referee's result line: `line`, then the reason of the fault the game
/// ended on, if it did.
pub fn with_fault(mut line: String, fault: Option<&str>) -> String {
    if let Some(reason) = fault {
        line.push(' ');
        line.push_str(reason);
    }
    line
}

/// A result's `fault` and `fault_kind` fields from the fault that ended its
/// game, if one did: its reason in words and its kind.
pub fn fault_fields(
    fault: Option<&crate::seat::Fault>,
) -> (Option<String>, Option<crate::seat::FaultKind>) {
    (fault.map(|f| f.reason.clone()), fault.map(|f| f.kind))
}

/// One case of a referee run, as its report counts it.
pub trait RefereedCase {
    /// The contest's score of the case.
    fn score(&self) -> f64;

    /// Games of the case the tested player lost to a fault of its own.
    fn faults(&self) -> usize;

    /// The case's result line.
    fn line(&self) -> String;

    /// The run's last line, its total over `report`'s cases.
    fn total_line(report: &RefereeReport<Self>) -> String
    where
        Self: Sized;
}

/// The results of a referee run: every case and the total score; its JSON
/// is `{"cases":[...],"total":T}` for every game that plays games (Tothello's
/// `bestMove` checker reports a `CheckReport` instead).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RefereeReport<C> {
    /// One entry per case, in the order played.
    pub cases: Vec<C>,
    /// The sum of the case scores.
    pub total: f64,
}

/// How a run was made: the program's version, its arguments and the seed of
/// every random stream (given or by default), enough to make it again.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunInfo {
    /// The program's version.
    pub version: String,
    /// The verb (`verify`, `referee`, `sweep`...), or the game's own tool
    /// (`evolve`) for `tabula <game> <tool>`.
    pub verb: String,
    /// The game, by its name on the command line (an alias gives the name);
    /// written beside `run` as the report's `game`, not inside it.
    #[serde(skip)]
    pub game: Option<String>,
    /// Its arguments after the program's name.
    pub args: Vec<String>,
    /// The seed of the run's random streams; none for a run that draws nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl RunInfo {
    /// The report with this run in front of its own fields.
    pub fn stamp<R: Serialize>(self, report: &R) -> Stamped<'_, R> {
        Stamped {
            game: self.game.clone(),
            run: self,
            report,
        }
    }
}

/// What every report's JSON starts with, `run` then `game`, whatever
/// follows (the published schema of that start is generated from this type).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReportStart {
    /// How the run was made.
    pub run: RunInfo,
    /// The game, by its name on the command line (`tonga` also when the
    /// command said `pseudotonga`).
    pub game: String,
}

/// A report that says how its run was made and of which game:
/// `{"run":{...}, "game":"kalah", ...its fields}`, the same two keys first in
/// every report.
/// The report must serialize as a map (a struct), not a sequence.
#[derive(Debug, Serialize)]
pub struct Stamped<'a, R> {
    /// How the run was made.
    run: RunInfo,
    /// The game.
    #[serde(skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    /// The report's own fields, beside `run`.
    #[serde(flatten)]
    report: &'a R,
}

/// The shape of a report as [`Stamped`] writes it, `run` and `game` before
/// the body's own fields: the type its published JSON Schema is derived from.
#[derive(schemars::JsonSchema)]
pub struct Written<R> {
    /// How the run was made.
    pub run: RunInfo,
    /// The game, by its name on the command line.
    pub game: String,
    /// The report's own fields, beside `run`.
    #[serde(flatten)]
    pub report: R,
}

/// The JSON Schema of a report whose body is `R`, as written (`run`, `game`,
/// then its fields), titled `title`: what a program reading it may rely on.
pub fn written_schema<R: schemars::JsonSchema>(title: &str) -> schemars::Schema {
    // Serialize contract: a field written always is required, even an Option.
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Written<R>>();
    schema.insert("title".into(), title.into());
    schema
}

impl<C: RefereedCase> RefereeReport<C> {
    /// The report of these cases.
    pub fn new(cases: Vec<C>) -> RefereeReport<C> {
        let total = cases.iter().map(RefereedCase::score).sum();
        RefereeReport { cases, total }
    }

    /// Games the tested player lost to faults over every case.
    pub fn faults(&self) -> usize {
        self.cases.iter().map(RefereedCase::faults).sum()
    }

    /// The run's last line, its total ([`RefereedCase::total_line`]).
    pub fn total_line(&self) -> String {
        C::total_line(self)
    }
}

/// A run's report as the one verify tail writes it: Markdown on stdout, the
/// JSON body after `run` and `game`, and a plot.
pub trait Report {
    /// The JSON body, stamped with the run when written.
    type Json: Serialize;

    /// The report as Markdown, title included.
    fn markdown(&self) -> String;

    /// The JSON body.
    fn json(&self) -> &Self::Json;

    /// The report drawn as a plot.
    fn plot(&self) -> crate::plot::Plot;
}

/// A report put together from its parts, for a run whose Markdown or plot
/// needs the run's settings beside its results.
pub struct Composed<J, P> {
    /// The Markdown, title included.
    pub markdown: String,
    /// The JSON body.
    pub json: J,
    /// Draws the plot.
    pub plot: P,
}

impl<J: Serialize, P: Fn() -> crate::plot::Plot> Report for Composed<J, P> {
    type Json = J;

    fn markdown(&self) -> String {
        self.markdown.clone()
    }

    fn json(&self) -> &J {
        &self.json
    }

    fn plot(&self) -> crate::plot::Plot {
        (self.plot)()
    }
}

/// Reports that are their own JSON and know their own title.
macro_rules! own_report {
    ($($ty:ty),* $(,)?) => {$(
        impl Report for $ty {
            type Json = $ty;

            fn markdown(&self) -> String {
                self.to_markdown()
            }

            fn json(&self) -> &$ty {
                self
            }

            fn plot(&self) -> crate::plot::Plot {
                <$ty>::plot(self)
            }
        }
    )*};
}

own_report!(
    crate::ioiwari::report::Report,
    crate::tonga::report::Report,
    crate::reversi::report::Report,
);

/// A Markdown table built row by row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers.
    pub fn new<S: ToString>(headers: &[S]) -> Table {
        Table {
            headers: headers.iter().map(ToString::to_string).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; it must have one cell per column.
    pub fn row<S: ToString>(&mut self, cells: &[S]) -> &mut Table {
        assert_eq!(cells.len(), self.headers.len(), "one cell per column");
        self.rows
            .push(cells.iter().map(ToString::to_string).collect());
        self
    }

    /// The table as GitHub-flavoured Markdown, columns padded to line up.
    pub fn to_markdown(&self) -> String {
        let widths: Vec<usize> = (0..self.headers.len())
            .map(|c| {
                std::iter::once(&self.headers[c])
                    .chain(self.rows.iter().map(|r| &r[c]))
                    .map(|cell| cell.chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .zip(&widths)
                .map(|(cell, &w)| format!("{cell:<w$}"))
                .collect();
            format!("| {} |\n", padded.join(" | "))
        };
        let mut out = line(&self.headers);
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        out.push_str(&line(&rule));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// Writes `value` as pretty JSON to `path` with [`tabula_tables::atomic::write_file`]
/// (temporary file renamed into place; a `path` that is not a regular file is refused).
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<(), ReportError> {
    tabula_tables::atomic::write_file(path, |out| {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(|error| ReportError {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn a_stamped_report_has_its_run_first_and_its_own_fields_after() {
        #[derive(Serialize)]
        struct Report {
            total: f64,
            cases: Vec<u8>,
        }
        let run = RunInfo {
            version: "1.2.3".into(),
            verb: "verify".into(),
            game: Some("nim".into()),
            args: vec!["verify".into(), "nim".into()],
            seed: Some(7),
        };
        let report = Report {
            total: 1.5,
            cases: vec![1, 2],
        };
        assert_eq!(
            serde_json::to_string(&run.clone().stamp(&report)).unwrap(),
            r#"{"run":{"version":"1.2.3","verb":"verify","args":["verify","nim"],"seed":7},"game":"nim","total":1.5,"cases":[1,2]}"#
        );
        let unseeded = RunInfo { seed: None, ..run };
        assert_eq!(
            serde_json::to_value(unseeded.stamp(&report)).unwrap()["run"],
            serde_json::json!({"version": "1.2.3", "verb": "verify", "args": ["verify", "nim"]})
        );
    }

    #[test]
    fn markdown_lines_up() {
        let mut t = Table::new(&["board", "O"]);
        t.row(&["4 3 2 4 2 3 2", "2"]).row(&["x", "-10"]);
        assert_eq!(
            t.to_markdown(),
            "| board         | O   |\n\
             | ------------- | --- |\n\
             | 4 3 2 4 2 3 2 | 2   |\n\
             | x             | -10 |\n"
        );
    }

    #[test]
    fn json_refuses_to_replace_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.json");
        fs::write(&target, "keep me").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = write_json(&link, &[1]).unwrap_err().to_string();
        assert!(error.contains("symbolic link"), "{error}");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
    }
}
