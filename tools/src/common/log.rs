//! A run's records: the game log (`--log`) and the transcript (`--transcript`), and their options.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use clap::Args;
use tabula_tables::atomic;
use tabula_verify::arena::GameRecord;
use tabula_verify::record::{At, GameLog, LineSink, Notation};

use super::*;

/// A game log and a transcript: a referee's, which plays games with external players.
#[derive(Args, Clone, Debug)]
pub struct LogArgs {
    /// Record every game in this file as JSON Lines, one object per game (format in the README).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub log: Option<OutputPath>,
    /// Record the dialogue with external players (`>` sent, `<` received) and the referee's result lines in this text file.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub transcript: Option<OutputPath>,
}

/// A game log alone: a `verify`'s, which speaks to no external player, so it
/// has no dialogue to transcribe.
#[derive(Args, Clone, Debug)]
pub struct GameLogArgs {
    /// Record every game in this file as JSON Lines, one object per game (format in the README).
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub log: Option<OutputPath>,
}

/// A transcript alone: the `bestMove` checker's, which plays no game to log.
#[derive(Args, Clone, Debug)]
pub struct TranscriptArgs {
    /// Record the dialogue with the program (`>` sent, `<` received) and the verdict's lines in this text file.
    #[arg(long, value_name = "FILE", value_parser = output_path)]
    pub transcript: Option<OutputPath>,
}

/// The records a command's options ask for: [`LogArgs`], [`GameLogArgs`] or [`TranscriptArgs`].
pub trait LogOptions {
    /// `--log`, if the command has it and it was given.
    fn game_log(&self) -> Option<&OutputPath>;
    /// `--transcript`, if the command has it and it was given.
    fn transcript(&self) -> Option<&OutputPath>;
}

impl LogOptions for LogArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        self.log.as_ref()
    }
    fn transcript(&self) -> Option<&OutputPath> {
        self.transcript.as_ref()
    }
}

impl LogOptions for GameLogArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        self.log.as_ref()
    }
    fn transcript(&self) -> Option<&OutputPath> {
        None
    }
}

impl LogOptions for TranscriptArgs {
    fn game_log(&self) -> Option<&OutputPath> {
        None
    }
    fn transcript(&self) -> Option<&OutputPath> {
        self.transcript.as_ref()
    }
}

/// A run's records: the game log (`--log`, JSON Lines) and the transcript
/// (`--transcript`, text: the dialogue with external players and result lines).
///
/// Files grow under `FILE.part` as the games end (each line is flushed), and
/// [`Log::finish`] renames them to `FILE`. A run that fails leaves the old
/// file as it was, and its `FILE.part` if any line was written.
#[derive(Clone, Default)]
pub struct Log {
    games: GameLog,
    /// `--log`'s option and path, for its errors.
    games_label: String,
    text: Option<Arc<Mutex<LineSink>>>,
    /// `--transcript`'s option and path, for its errors.
    text_label: String,
    /// The partial files to rename into place when the run is over.
    files: Arc<Mutex<Vec<Pending>>>,
}

/// A partial file waiting to be renamed over its target.
struct Pending {
    label: String,
    target: PathBuf,
    partial: atomic::Partial,
}

impl Log {
    /// Opens `--log` and `--transcript` (nothing when absent).
    pub fn open(args: &impl LogOptions) -> anyhow::Result<Log> {
        let mut files = Vec::new();
        let games_label = label("--log", args.game_log());
        let games = open_output(args.game_log(), &games_label, &mut files)?
            .map(GameLog::to_writer)
            .unwrap_or_default();
        let text_label = label("--transcript", args.transcript());
        let text = open_output(args.transcript(), &text_label, &mut files)?
            .map(|out| Arc::new(Mutex::new(LineSink::new(out))));
        Ok(Log {
            games,
            games_label,
            text,
            text_label,
            files: Arc::new(Mutex::new(files)),
        })
    }

    /// The game log, for runs that write it from the verify crate.
    pub fn games(&self) -> &GameLog {
        &self.games
    }

    /// Writes one game to the game log.
    pub fn game<G: Notation>(&self, record: &GameRecord<G>, params: &G::Params, at: &At) {
        self.games.record(record, params, at);
    }

    /// Writes one line to the transcript (`--transcript`, not the game log);
    /// a failure is kept for [`Log::finish`].
    pub fn transcript_line(&self, line: &str) {
        if let Some(text) = &self.text
            && let Ok(mut text) = text.lock()
        {
            text.line(line);
        }
    }

    /// A transcript for a remote seat, writing into the transcript file.
    pub fn transcript(&self) -> tabula_verify::seat::Transcript {
        let log = self.clone();
        Box::new(move |line| log.transcript_line(line))
    }

    /// Ends the records: flushes both, reports a write that failed, and renames
    /// the files into place.
    pub fn finish(&self) -> anyhow::Result<()> {
        self.games.flush().context(self.games_label.clone())?;
        if let Some(text) = &self.text
            && let Ok(mut text) = text.lock()
        {
            text.flush().context(self.text_label.clone())?;
        }
        let pending = std::mem::take(&mut *self.files.lock().unwrap_or_else(|e| e.into_inner()));
        for Pending {
            label,
            target,
            partial,
        } in pending
        {
            partial.finish(&target).context(label)?;
        }
        Ok(())
    }
}

/// `--log FILE`, `--log -`, or `--log` alone when absent (never shown then).
fn label(option: &str, path: Option<&OutputPath>) -> String {
    match path {
        Some(OutputPath::File(path)) => format!("{option} {}", path.display()),
        Some(OutputPath::Stdout) => format!("{option} -"),
        None => option.to_string(),
    }
}

/// Opens an output for streaming: stdout for `-`, else `FILE.part`, added to
/// `files` to be renamed at the end.
fn open_output(
    path: Option<&OutputPath>,
    label: &str,
    files: &mut Vec<Pending>,
) -> anyhow::Result<Option<Box<dyn Write + Send>>> {
    Ok(match path {
        None => None,
        Some(OutputPath::Stdout) => Some(Box::new(crate::out::data_stdout())),
        Some(OutputPath::File(target)) => {
            let partial = atomic::Partial::create(target).context(label.to_string())?;
            let writer = partial.writer().context(label.to_string())?;
            files.push(Pending {
                label: label.to_string(),
                target: target.clone(),
                partial,
            });
            Some(Box::new(BufWriter::new(writer)))
        }
    })
}
