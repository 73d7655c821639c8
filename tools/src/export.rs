//! `tabula export`: every record of a table as a line of JSON, in index
//! order, each in the fields of its game's `query --batch` answer (without
//! the list of every move).

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use tabula_solver::retrograde::Progress;
use tabula_tables::atomic;
use tabula_tables::{Entry, Table, Tabulated, TypedTable};

use crate::common::{OutputPath, output_path, shown};
use crate::out::{data_stdout, outln};
use crate::progress::bar;
use crate::registry::GameEntry;
use crate::registry::Outcome;
use crate::table_cmds::naming;

/// Arguments of `tabula export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The table file.
    file: PathBuf,
    /// Where the lines go: a file (written to a temporary file, then renamed
    /// into place), or `-` for stdout.
    #[arg(short, long, default_value = "-", value_parser = output_path)]
    output: OutputPath,
}

/// Records formatted at once on rayon's threads, then written in order.
const CHUNK: u64 = 1 << 16;

/// Records a task formats into one buffer: few buffers, every thread busy.
const BLOCK: u64 = 1024;

/// Writes every record of `table` that holds a position (a state of its
/// space) as one line of JSON, its fields from `line`; returns the lines
/// written.
pub fn write_entries<T, L>(
    table: &TypedTable<T>,
    out: &mut dyn Write,
    progress: Progress<'_>,
    line: impl Fn(&Entry<T>) -> L + Sync,
) -> anyhow::Result<u64>
where
    T: Tabulated + Sync,
    L: Serialize,
{
    let entries = table.table().header().entries;
    let mut written = 0;
    for start in (0..entries).step_by(CHUNK as usize) {
        let end = (start + CHUNK).min(entries);
        let blocks: Vec<(u64, Vec<u8>)> = (start..end)
            .step_by(BLOCK as usize)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|from| -> anyhow::Result<(u64, Vec<u8>)> {
                let mut bytes = Vec::new();
                let mut lines = 0;
                for index in from..(from + BLOCK).min(end) {
                    if let Some(entry) = table.entry(index)? {
                        serde_json::to_writer(&mut bytes, &line(&entry))?;
                        bytes.push(b'\n');
                        lines += 1;
                    }
                }
                Ok((lines, bytes))
            })
            .collect::<anyhow::Result<_>>()?;
        for (lines, bytes) in blocks {
            out.write_all(&bytes)?;
            written += lines;
        }
        progress(end);
    }
    out.flush()?;
    Ok(written)
}

/// Exports the table file's records, through the hook of the game its header names.
pub fn export(args: ExportArgs, games: &[GameEntry]) -> Outcome {
    if let OutputPath::File(path) = &args.output {
        // The same file by any name: a symlink, a hard link, another path.
        use std::os::unix::fs::MetadataExt;
        let file_id = |p: &std::path::Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
        if file_id(path).is_some() && file_id(path) == file_id(&args.file) {
            anyhow::bail!(
                "--output {}: the export would replace the table it reads",
                shown(path)
            );
        }
    }
    let table = Table::open(&args.file)?;
    let hook = crate::table_cmds::hooks(&table, games, &args.file)?.export;
    let progress = bar(table.header().entries as usize, "records exported");
    let report = |done: u64| progress.set_position(done);
    match &args.output {
        OutputPath::Stdout => {
            let mut out = BufWriter::with_capacity(1 << 16, data_stdout());
            hook(table, &mut out, &report).map_err(|e| naming(&args.file, e))?;
            progress.finish_and_clear();
        }
        OutputPath::File(path) => {
            let mut written = 0;
            let mut failure = None;
            let wrote = atomic::write_file(path, |out| {
                match hook(table, out, &report) {
                    Ok(lines) => written = lines,
                    // Kept whole (it names the table), the file left unwritten.
                    Err(e) => failure = Some(naming(&args.file, e)),
                }
                match failure {
                    None => Ok(()),
                    Some(_) => Err(std::io::Error::other("export failed")),
                }
            });
            progress.finish_and_clear();
            if let Some(e) = failure {
                return Err(e);
            }
            wrote.map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))?;
            outln!("wrote {} ({written} positions)", shown(path))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
