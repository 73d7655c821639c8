//! Stdout without panics: `println!` panics when stdout is full or closed, so
//! everything the commands print goes through [`stdout`], whose errors say
//! "writing to stdout" and are returned like any other.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Writes a line to stdout; an `io::Result` to propagate with `?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::out::stdout(), $($arg)*)
    }};
}

/// Writes to stdout without a newline; an `io::Result` to propagate with `?`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!($crate::out::stdout(), $($arg)*)
    }};
}

pub(crate) use {out, outln};

/// Stdout, whose errors keep their kind and read "writing to stdout: ...".
#[derive(Debug)]
pub struct Stdout(Stream);

#[derive(Debug)]
enum Stream {
    Out(io::Stdout),
    Err(io::Stderr),
}

/// Set when stdout carries a data stream (`--log -`), which the report's
/// lines must not break into: they go to stderr then.
static REPORT_ON_STDERR: AtomicBool = AtomicBool::new(false);

/// Sends the report (everything [`stdout`] writes) to stderr from now on,
/// leaving stdout to [`data_stdout`]'s stream.
pub fn report_to_stderr() {
    REPORT_ON_STDERR.store(true, Ordering::Relaxed);
}

/// Where the command's report goes: stdout, or stderr after [`report_to_stderr`].
pub fn stdout() -> Stdout {
    match REPORT_ON_STDERR.load(Ordering::Relaxed) {
        false => data_stdout(),
        true => Stdout(Stream::Err(io::stderr())),
    }
}

/// Stdout itself, for a stream that owns it: a game log or a dialogue.
pub fn data_stdout() -> Stdout {
    Stdout(Stream::Out(io::stdout()))
}

/// The cause of a failed write to stdout, kept inside the `io::Error`.
#[derive(Debug)]
struct StdoutFailed(io::Error);

impl fmt::Display for StdoutFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "writing to stdout: {}", self.0)
    }
}

// No source: the message already holds the cause, once.
impl std::error::Error for StdoutFailed {}

/// `error`, from writing to stdout in some other way, said as [`Stdout`]'s are.
pub fn stdout_error(error: io::Error) -> io::Error {
    io::Error::new(error.kind(), StdoutFailed(error))
}

/// Whether `error` came from writing to stdout.
pub fn is_stdout_error(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|e| e.is::<StdoutFailed>())
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Stream::Out(s) => s.write(buf),
            Stream::Err(s) => s.write(buf),
        }
        .map_err(stdout_error)
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Stream::Out(s) => s.flush(),
            Stream::Err(s) => s.flush(),
        }
        .map_err(stdout_error)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &self.0 {
            Stream::Out(s) => s.lock().write_all(buf),
            Stream::Err(s) => s.lock().write_all(buf),
        }
        .map_err(stdout_error)
    }

    // One lock for the whole text, so that threads' lines do not interleave.
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        match &self.0 {
            Stream::Out(s) => s.lock().write_fmt(args),
            Stream::Err(s) => s.lock().write_fmt(args),
        }
        .map_err(stdout_error)
    }
}

/// Whether a failed command only lost its reader: stdout's pipe was closed
/// (EPIPE, as under `| head`), which ends the program quietly, as ripgrep does.
pub fn reader_went_away(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe && is_stdout_error(e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_stdout_once_and_keep_their_kind() {
        let error = stdout_error(io::Error::from_raw_os_error(28));
        assert_eq!(error.kind(), io::ErrorKind::StorageFull);
        assert!(is_stdout_error(&error));
        let error = anyhow::Error::new(error);
        assert_eq!(
            format!("{error:#}"),
            "writing to stdout: No space left on device (os error 28)"
        );
        assert!(!reader_went_away(&error));
        let closed =
            anyhow::Error::new(stdout_error(io::ErrorKind::BrokenPipe.into())).context("x");
        assert!(reader_went_away(&closed));
        // A broken pipe elsewhere (a player's stdin) is no reason to be quiet.
        let other = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(!reader_went_away(&other));
    }
}
