//! Stdout without panics: `println!` panics when stdout is full or closed, so
//! everything the commands print goes through [`stdout`], whose errors say
//! "writing to stdout" and are returned like any other.

use std::fmt;
use std::io::{self, Write};

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
pub struct Stdout(io::Stdout);

/// The process's stdout (see [`Stdout`]).
pub fn stdout() -> Stdout {
    Stdout(io::stdout())
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
        self.0.write(buf).map_err(stdout_error)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(stdout_error)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.lock().write_all(buf).map_err(stdout_error)
    }

    // One lock for the whole text, so that threads' lines do not interleave.
    fn write_fmt(&mut self, args: fmt::Arguments<'_>) -> io::Result<()> {
        self.0.lock().write_fmt(args).map_err(stdout_error)
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
