//! External players: programs started as child processes and spoken to over pipes.
//!
//! A player that crashes, exits, closes its output, talks too much or is too
//! slow gives a [`PlayerError`] whose message is the reason its game is lost;
//! the referee then moves on. The child runs in its own process group, so
//! dropping the player kills the whole command, shells and grandchildren too.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Longest line accepted from a player; anything longer is nonsense.
pub const MAX_LINE: usize = 4096;

/// Why an external player could not go on.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The command could not be started.
    #[error("could not start '{command}': {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// What the operating system said.
        source: io::Error,
    },
    /// The player exited (or was killed) during the game.
    #[error("player exited ({status})")]
    Exited {
        /// Its exit status, as the system words it.
        status: String,
    },
    /// The player closed its output (or the stream ended).
    #[error("player closed its output")]
    ClosedOutput,
    /// The player closed its input.
    #[error("player closed its input")]
    ClosedInput,
    /// The player did not answer in time.
    #[error("player timed out")]
    TimedOut,
    /// The player wrote a line longer than [`MAX_LINE`].
    #[error("player wrote a line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// The player wrote bytes that are not UTF-8 text.
    #[error("player wrote a line that is not text")]
    NotText,
    /// Reading or writing the pipes failed otherwise.
    #[error("pipe to player failed: {0}")]
    Io(io::Error),
}

enum Incoming {
    Line(String),
    Eof,
    TooLong,
    NotText,
    Failed(io::Error),
}

/// Lines read from a stream by a background thread, so that waiting can time out.
pub struct LineReader {
    lines: Receiver<Incoming>,
}

impl LineReader {
    /// Starts reading `stream` line by line in a background thread.
    pub fn spawn(stream: impl Read + Send + 'static) -> LineReader {
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stream);
            loop {
                let mut buf = Vec::new();
                let incoming = match reader
                    .by_ref()
                    .take(MAX_LINE as u64 + 1)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) => Incoming::Eof,
                    Ok(_) if buf.len() > MAX_LINE => Incoming::TooLong,
                    Ok(_) => match String::from_utf8(buf) {
                        Ok(line) => Incoming::Line(line.trim_end_matches(['\n', '\r']).to_string()),
                        Err(_) => Incoming::NotText,
                    },
                    Err(e) => Incoming::Failed(e),
                };
                let last = !matches!(incoming, Incoming::Line(_));
                if sender.send(incoming).is_err() || last {
                    break;
                }
            }
        });
        LineReader { lines }
    }

    /// The next line, or why there is none; `Ok(None)` is the end of the stream.
    fn next(&self, deadline: Option<Instant>) -> Result<Option<String>, PlayerError> {
        let incoming = match deadline {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                match self.lines.recv_timeout(wait) {
                    Ok(incoming) => incoming,
                    Err(RecvTimeoutError::Timeout) => return Err(PlayerError::TimedOut),
                    Err(RecvTimeoutError::Disconnected) => Incoming::Eof,
                }
            }
            None => self.lines.recv().unwrap_or(Incoming::Eof),
        };
        match incoming {
            Incoming::Line(line) => Ok(Some(line)),
            Incoming::Eof => Ok(None),
            Incoming::TooLong => Err(PlayerError::LineTooLong),
            Incoming::NotText => Err(PlayerError::NotText),
            Incoming::Failed(e) => Err(PlayerError::Io(e)),
        }
    }
}

/// The other side of a line dialogue: an external program, or our own stdin/stdout.
pub trait Peer {
    /// Sends one line (a newline is added) and flushes it.
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError>;
    /// Waits for the next line, until `deadline` if there is one.
    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError>;
}

/// A peer reached through a pair of streams, such as our own stdin and stdout.
pub struct StreamPeer<W: Write> {
    input: LineReader,
    output: W,
}

impl<W: Write> StreamPeer<W> {
    /// Talks by reading lines from `input` and writing to `output`.
    pub fn new(input: impl Read + Send + 'static, output: W) -> StreamPeer<W> {
        StreamPeer {
            input: LineReader::spawn(input),
            output,
        }
    }
}

impl<W: Write> Peer for StreamPeer<W> {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        writeln!(self.output, "{line}")
            .and_then(|()| self.output.flush())
            .map_err(|e| match e.kind() {
                io::ErrorKind::BrokenPipe => PlayerError::ClosedInput,
                _ => PlayerError::Io(e),
            })
    }

    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        self.input.next(deadline)?.ok_or(PlayerError::ClosedOutput)
    }
}

/// A running external player.
pub struct ExternalPlayer {
    child: Child,
    stdin: Option<ChildStdin>,
    output: LineReader,
}

impl ExternalPlayer {
    /// Starts `command` with `sh -c`; its stderr is discarded.
    pub fn spawn(command: &str) -> Result<ExternalPlayer, PlayerError> {
        ExternalPlayer::spawn_with_stderr(command, Stdio::null())
    }

    /// Starts `command` with `sh -c`, sending its stderr to `stderr`.
    pub fn spawn_with_stderr(command: &str, stderr: Stdio) -> Result<ExternalPlayer, PlayerError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|source| PlayerError::Spawn {
                command: command.to_string(),
                source,
            })?;
        let output = LineReader::spawn(child.stdout.take().expect("stdout is piped"));
        let stdin = child.stdin.take();
        Ok(ExternalPlayer {
            child,
            stdin,
            output,
        })
    }

    /// Closes the player's input and waits up to `grace` for it to exit by itself.
    ///
    /// Returns whether it exited; a player still running is killed when dropped.
    pub fn finish(&mut self, grace: Duration) -> bool {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return true,
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => return false,
            }
        }
    }

    /// After end of output: an exit if the child ended (waiting briefly), else a closed output.
    fn exit_error(&mut self) -> PlayerError {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return PlayerError::Exited {
                        status: status.to_string(),
                    };
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                _ => return PlayerError::ClosedOutput,
            }
        }
    }
}

impl Peer for ExternalPlayer {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(PlayerError::ClosedInput);
        };
        let result = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        match result {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(self.exit_error()),
            Err(e) => Err(PlayerError::Io(e)),
        }
    }

    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        match self.output.next(deadline)? {
            Some(line) => Ok(line),
            None => Err(self.exit_error()),
        }
    }
}

impl Drop for ExternalPlayer {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: killpg only sends a signal; the group was created for this child.
            unsafe {
                libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(5))
    }

    #[test]
    fn talks_line_by_line() {
        let mut player = ExternalPlayer::spawn("while read x; do echo \"got $x\"; done").unwrap();
        player.send_line("1").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "got 1");
        player.send_line("two").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "got two");
        assert!(player.finish(Duration::from_secs(5)));
    }

    #[test]
    fn a_crash_is_reported_with_its_status() {
        let mut player = ExternalPlayer::spawn("read x; exit 3").unwrap();
        player.send_line("hello").unwrap();
        let error = player.recv_line(soon()).unwrap_err();
        assert!(error.to_string().contains("exit status: 3"), "{error}");
    }

    #[test]
    fn a_stalled_player_times_out_and_is_killed() {
        let mut player = ExternalPlayer::spawn("sleep 30").unwrap();
        let started = Instant::now();
        let deadline = Instant::now() + Duration::from_millis(100);
        assert!(matches!(
            player.recv_line(Some(deadline)),
            Err(PlayerError::TimedOut)
        ));
        drop(player);
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn endless_output_without_newline_is_nonsense() {
        let mut player = ExternalPlayer::spawn("yes | tr -d '\\n'").unwrap();
        assert!(matches!(
            player.recv_line(soon()),
            Err(PlayerError::LineTooLong)
        ));
    }

    #[test]
    fn a_missing_program_exits_with_status_127() {
        let mut player = ExternalPlayer::spawn("/nonexistent/player").unwrap();
        let error = player.recv_line(soon()).unwrap_err();
        assert!(error.to_string().contains("127"), "{error}");
    }
}
