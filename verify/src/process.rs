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

/// Unread lines a player may have pending; one more is flooding.
pub const MAX_PENDING_LINES: usize = 64;

/// Parses a time limit in seconds (stub).
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>().map(Duration::from_secs_f64).map_err(|e| e.to_string())
}

/// Where a player's stderr goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StderrMode {
    /// Kept for fault reasons.
    #[default]
    Capture,
    /// Passed through.
    Inherit,
}

/// Why an external could not go on.
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
    /// The player wrote more lines than it was asked for.
    #[error("player flooded its output (more than {MAX_PENDING_LINES} unread lines)")]
    Flooding,
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

    fn is_flooded(&self) -> bool {
        false
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
    /// Sends one line by `deadline` (stub).
    fn send_line_by(&mut self, line: &str, deadline: Option<Instant>) -> Result<(), PlayerError> {
        let _ = deadline;
        self.send_line(line)
    }
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

    /// Starts with a stderr mode (stub).
    pub fn spawn_with(command: &str, mode: StderrMode) -> Result<ExternalPlayer, PlayerError> {
        match mode {
            StderrMode::Capture => ExternalPlayer::spawn(command),
            StderrMode::Inherit => ExternalPlayer::spawn_with_stderr(command, Stdio::inherit()),
        }
    }

    /// The child's process id, which is also its process group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
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

    /// Processes of group `pgid` still running (a zombie is dead).
    fn live_members(pgid: u32) -> Vec<u32> {
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // After the command name in parentheses: state, parent, group.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            if fields.len() > 2 && fields[2] == pgid.to_string() && !["Z", "X"].contains(&fields[0])
            {
                pids.push(pid);
            }
        }
        pids
    }

    /// Polls `done` for up to a minute; whether it came true.
    fn eventually(mut done: impl FnMut() -> bool) -> bool {
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if done() {
                return true;
            }
            thread::sleep(Duration::from_millis(10));
        }
        done()
    }

    /// Runs `body` on a thread and fails if it has not ended after a minute:
    /// without a deadline it would block forever.
    fn within_a_minute<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
        let (sender, result) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let _ = sender.send(body());
        });
        result
            .recv_timeout(Duration::from_secs(60))
            .expect("still blocked after a minute")
    }

    fn a_tenth_from_now() -> Option<Instant> {
        Some(Instant::now() + Duration::from_millis(100))
    }

    #[test]
    fn a_flood_of_lines_is_refused_and_not_stored() {
        let mut player = ExternalPlayer::spawn("seq 100000; exec sleep 300").unwrap();
        assert!(eventually(|| player.output.is_flooded()));
        assert!(matches!(
            player.recv_line(soon()),
            Err(PlayerError::Flooding)
        ));
    }

    #[test]
    fn a_player_that_never_reads_cannot_block_a_send() {
        let error = within_a_minute(|| {
            let mut player = ExternalPlayer::spawn("exec sleep 300").unwrap();
            let line = "x".repeat(4000);
            (0..10_000).find_map(|_| player.send_line_by(&line, a_tenth_from_now()).err())
        });
        assert!(matches!(error, Some(PlayerError::TimedOut)), "{error:?}");
    }

    #[test]
    fn a_stream_nobody_reads_cannot_block_a_send() {
        let error = within_a_minute(|| {
            let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            let mut peer = StreamPeer::new(io::empty(), ours);
            let line = "x".repeat(4000);
            let error = (0..10_000).find_map(|_| peer.send_line_by(&line, a_tenth_from_now()).err());
            drop(theirs);
            error
        });
        assert!(matches!(error, Some(PlayerError::TimedOut)), "{error:?}");
    }

    #[test]
    fn a_send_that_fits_succeeds_even_at_its_deadline() {
        let mut player = ExternalPlayer::spawn("while read x; do echo \"got $x\"; done").unwrap();
        player.send_line_by("1", Some(Instant::now())).unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "got 1");
    }

    #[test]
    fn dropping_a_player_kills_what_it_left_running() {
        let mut player = ExternalPlayer::spawn("sleep 300 & echo started; exit 0").unwrap();
        let group = player.id();
        assert_eq!(player.recv_line(soon()).unwrap(), "started");
        assert!(player.finish(Duration::from_secs(30)), "the shell exits");
        assert!(!live_members(group).is_empty(), "its sleep runs on");
        drop(player);
        let gone = eventually(|| live_members(group).is_empty());
        // SAFETY: only signals the test's own leftovers, if any.
        unsafe {
            libc::killpg(group as libc::pid_t, libc::SIGKILL);
        }
        assert!(gone, "the sleep survived its player");
    }

    #[test]
    fn an_exit_reason_ends_with_the_last_lines_of_stderr() {
        let mut player = ExternalPlayer::spawn("echo one >&2; echo two >&2; exit 3").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(error, "player exited (exit status: 3); stderr: one | two");
        let mut player =
            ExternalPlayer::spawn("for i in $(seq 200); do echo line $i >&2; done; exit 1").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert!(
            error.ends_with("stderr: line 196 | line 197 | line 198 | line 199 | line 200"),
            "{error}"
        );
        let mut player = ExternalPlayer::spawn("./no-such-player").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert!(error.contains("127") && error.contains("not found"), "{error}");
    }

    #[test]
    fn inherited_stderr_is_not_quoted() {
        let mut player = ExternalPlayer::spawn_with("exit 3", StderrMode::Inherit).unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(error, "player exited (exit status: 3)");
    }

    #[test]
    fn seconds_are_checked() {
        assert_eq!(parse_seconds("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_seconds(" 0.25 "), Ok(Duration::from_millis(250)));
        assert_eq!(parse_seconds("86400"), Ok(Duration::from_secs(86_400)));
        for bad in [
            "0", "-1", "NaN", "nan", "inf", "-inf", "1e19", "1e20", "86401", "1e-300", "x", "",
        ] {
            let result = std::panic::catch_unwind(|| parse_seconds(bad));
            assert!(matches!(result, Ok(Err(_))), "{bad}: {result:?}");
        }
    }
}
