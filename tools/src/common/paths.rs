//! Output paths: `-` or a file, checked once for every output option of a command; table files named on the command line.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{ArgMatches, Command};
use tabula_tables::atomic;

/// Where output goes: a file, or stdout for `-`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputPath {
    /// Standard output.
    Stdout,
    /// A file, written atomically.
    File(PathBuf),
}

/// Parses an output path, `-` for stdout; [`check_outputs`] checks it before any work.
pub fn output_path(text: &str) -> Result<OutputPath, String> {
    Ok(match text {
        "-" => OutputPath::Stdout,
        _ => OutputPath::File(PathBuf::from(text)),
    })
}

/// An output that is always a file (a table, a plot, a page), written atomically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputFile(PathBuf);

impl std::ops::Deref for OutputFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

/// Parses an output file; [`check_outputs`] checks it before any work.
pub fn output_file(text: &str) -> Result<OutputFile, String> {
    match text {
        "-" => Err("this output goes to a file, not stdout".into()),
        _ => Ok(OutputFile(PathBuf::from(text))),
    }
}

/// Parses `--plot`: a file whose name, if it has an extension, says SVG, the
/// only format drawn (`--plot p.png` would hold SVG under a PNG's name).
pub fn svg_file(text: &str) -> Result<OutputFile, String> {
    let file = output_file(text)?;
    match file.0.extension().and_then(|e| e.to_str()) {
        Some(extension) if !extension.eq_ignore_ascii_case("svg") => Err(format!(
            "the plot is drawn as SVG: name the file .svg, not .{extension}"
        )),
        _ => Ok(file),
    }
}

/// Checks every output of the command line before any work starts, so that a
/// long run does not fail at its end: each file can be written (it is absent
/// or a regular file, its directory exists and takes new files), and no two
/// outputs name the same file, or both stdout. A game log or transcript on
/// stdout (`--log -`) sends the report's lines to stderr.
///
/// Outputs are the arguments parsed by [`output_path`] and [`output_file`],
/// found in `matches` whatever the verb.
pub fn check_outputs(command: &Command, matches: &ArgMatches) -> anyhow::Result<()> {
    let (mut command, mut matches) = (command, matches);
    while let Some((name, sub)) = matches.subcommand() {
        let Some(found) = command.find_subcommand(name) else {
            break;
        };
        (command, matches) = (found, sub);
    }
    let mut seen: Vec<(String, Option<PathBuf>)> = Vec::new();
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        let path = match (
            matches.try_get_one::<OutputPath>(id),
            matches.try_get_one::<OutputFile>(id),
        ) {
            (Ok(Some(OutputPath::Stdout)), _) => None,
            (Ok(Some(OutputPath::File(path))), _) | (_, Ok(Some(OutputFile(path)))) => Some(path),
            _ => continue,
        };
        let option = arg
            .get_long()
            .map_or_else(|| id.to_string(), |long| format!("--{long}"));
        let label = format!(
            "{option} {}",
            path.map_or("-".into(), |p| p.display().to_string())
        );
        let grows = matches!(id, "log" | "transcript");
        if let Some(path) = path {
            atomic::check_writable(path).with_context(|| label.clone())?;
            if grows {
                atomic::check_partial(path).with_context(|| label.clone())?;
            }
        }
        // A log also takes, while it is written, the name it grows under.
        let mut names = vec![(label.clone(), path.map(|p| file_identity(p)))];
        if let Some(path) = path.filter(|_| grows) {
            let part = atomic::partial_path(path);
            let growing = format!("{label} (written as {} until the run ends)", part.display());
            names.push((growing, Some(file_identity(&part))));
        }
        for (label, same) in names {
            if let Some((first, _)) = seen.iter().find(|(_, other)| *other == same) {
                match same {
                    None => bail!("{first} and {label}: two outputs cannot share stdout"),
                    Some(_) => bail!("{first} and {label}: two outputs cannot share a file"),
                }
            }
            seen.push((label, same));
        }
        if path.is_none() && grows {
            // Other outputs on stdout replace the report (`--json -`); a log
            // runs beside it, written as the games end.
            crate::out::report_to_stderr();
        }
    }
    Ok(())
}

/// Names the same file for every spelling of a path: its directory resolved,
/// then its name (the file itself is no symlink: those are refused).
fn file_identity(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match path.file_name() {
        Some(name) => dir.join(name),
        None => path.to_path_buf(),
    }
}

/// The header of the table file at `path`, which must be one of `game`'s:
/// enough to learn the variant it holds without reading its records. The
/// header is checked against what it says it holds (`spec_of` gives the spec
/// of the variant its parameters name), so that a header that lies is blamed
/// on the file, by every verb, before any board is read with its variant.
pub fn table_header(
    path: &Path,
    game: &str,
    spec_of: impl FnOnce(&tabula_tables::Header) -> anyhow::Result<tabula_tables::TableSpec>,
) -> anyhow::Result<tabula_tables::Header> {
    let header = tabula_tables::Table::read_header(path)?;
    if header.game != game {
        return Err(tabula_tables::TableError::WrongGame {
            path: path.to_path_buf(),
            found: format!("'{}' with parameters {:?}", header.game, header.params),
            expected: format!("'{game}'"),
        }
        .into());
    }
    header.expect(&spec_of(&header)?, path)?;
    Ok(header)
}

/// A path as a report line shows it: its control and invisible characters
/// escaped, as errors show it, so that a name cannot fake a line.
pub fn shown(path: &Path) -> String {
    tabula_verify::protocol::escape_controls(&path.display().to_string())
}
