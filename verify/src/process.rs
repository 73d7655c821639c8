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
    /// The player closed its output but is still running.
    #[error("player closed its output")]
    ClosedOutput,
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

/// A running external player.
pub struct ExternalPlayer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Incoming>,
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
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        // A reader thread turns the blocking pipe into messages that can time out.
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
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
        Ok(ExternalPlayer {
            child,
            stdin,
            lines,
        })
    }

    /// Sends one line (a newline is added) and flushes it.
    pub fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.exit_error());
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

    /// Waits until `deadline` for the next line the player writes.
    pub fn recv_line(&mut self, deadline: Instant) -> Result<String, PlayerError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Incoming::Line(line)) => Ok(line),
            Ok(Incoming::TooLong) => Err(PlayerError::LineTooLong),
            Ok(Incoming::NotText) => Err(PlayerError::NotText),
            Ok(Incoming::Failed(e)) => Err(PlayerError::Io(e)),
            Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => Err(self.exit_error()),
            Err(RecvTimeoutError::Timeout) => Err(PlayerError::TimedOut),
        }
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

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
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
            player.recv_line(deadline),
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
