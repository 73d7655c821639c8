//! External players: programs started as child processes and spoken to over pipes.
//!
//! A player that crashes, exits, closes its output, talks too much or is too
//! slow to read or to answer gives a [`PlayerError`] whose message is the
//! reason its game is lost; the referee then moves on. What a player may cost
//! is bounded: at most [`MAX_PENDING_LINES`] unread lines of at most
//! [`MAX_LINE`] bytes are kept, and the last [`STDERR_TAIL_BYTES`] of its
//! stderr. The child runs in its own process group, which is killed whole when
//! the player is dropped (whether or not the child itself still runs) and when
//! this program is stopped by SIGINT, SIGTERM or SIGHUP; so is every
//! descendant that left the group (the referee is their subreaper).

mod descendants;

use std::collections::VecDeque;
use std::io::{self, BufReader, Read, Write};
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStderr, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::protocol::{LineRead, read_line_at_most};

/// Longest line accepted from a player; anything longer is nonsense.
pub const MAX_LINE: usize = 4096;

/// Unread lines a player may have pending; one more is flooding.
pub const MAX_PENDING_LINES: usize = 64;

/// Bytes of a captured stderr that are kept (the last ones).
pub const STDERR_TAIL_BYTES: usize = 2048;

/// Lines of a captured stderr quoted in an exit reason (the last ones).
pub const STDERR_TAIL_LINES: usize = 5;

/// How long, once a player's output ended, to wait for its exit status and
/// then for the end of its stderr. An exiting player is seen at once; only one
/// that closed its output and runs on waits it all, so a loaded machine cannot
/// turn an exit into "closed its output" or lose the stderr quote.
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// How often a wait for a player's line also looks whether it has exited.
const EXIT_TICK: Duration = Duration::from_millis(20);

/// Longest time limit [`parse_seconds`] accepts: one day.
pub const MAX_SECONDS: u64 = 86_400;

/// Parses a time limit in seconds, such as `2` or `0.5`.
///
/// Refuses what is not a number, NaN, infinities, zero or less, amounts that
/// round to no time at all and more than [`MAX_SECONDS`].
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text.trim().parse().map_err(|_| {
        format!(
            "'{}' is not a number of seconds",
            crate::protocol::excerpt(text)
        )
    })?;
    let text = crate::protocol::excerpt(text.trim());
    if value.is_nan() || value <= 0.0 {
        return Err(format!("{text} is not a positive number of seconds"));
    }
    if value > MAX_SECONDS as f64 {
        return Err(format!(
            "{text} seconds is more than the most allowed, {MAX_SECONDS} (one day)"
        ));
    }
    let duration = Duration::from_secs_f64(value);
    if duration.is_zero() {
        return Err(format!("{text} seconds is no time at all"));
    }
    Ok(duration)
}

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
    #[error("player exited ({status}){}", stderr_suffix(.stderr))]
    Exited {
        /// Its exit status, as the system words it.
        status: String,
        /// The last lines of its captured stderr, joined by ` | ` (empty if none).
        stderr: String,
    },
    /// The player closed its output (or the stream ended).
    #[error("player closed its output")]
    ClosedOutput,
    /// The player closed its input.
    #[error("player closed its input")]
    ClosedInput,
    /// The player did not answer, or did not take a line, in time.
    #[error("player timed out")]
    TimedOut,
    /// The player wrote a line longer than [`MAX_LINE`].
    #[error("player wrote a line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// The player wrote bytes that are not UTF-8 text.
    #[error("player wrote a line that is not text")]
    NotText,
    /// The player wrote more than [`MAX_PENDING_LINES`] lines nobody read yet.
    #[error("player flooded its output (more than {MAX_PENDING_LINES} unread lines)")]
    Flooding,
    /// Reading or writing the pipes failed otherwise.
    #[error("pipe to player failed: {0}")]
    Io(io::Error),
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; stderr: {stderr}")
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded data stays consistent: no code panics while holding a lock.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

enum Incoming {
    Line(String),
    Eof,
    TooLong,
    NotText,
    Failed(io::Error),
}

/// What the reading thread has left for the reader.
#[derive(Default)]
struct Pending {
    items: VecDeque<Incoming>,
    /// The stream sent more than `MAX_PENDING_LINES` unread lines; reading stopped.
    flooded: bool,
    /// The [`LineReader`] is gone; the thread stops at its next line.
    abandoned: bool,
}

#[derive(Default)]
struct Queue {
    pending: Mutex<Pending>,
    arrived: Condvar,
    /// A line was taken, or the reader is gone (for a patient reader).
    taken: Condvar,
    /// A full queue makes the thread wait instead of counting as flooding.
    patient: bool,
    /// The start of what came after the last newline: a line not ended yet.
    unfinished: Mutex<Vec<u8>>,
}

/// Bytes of an unfinished line kept to be quoted.
const UNFINISHED_BYTES: usize = 256;

/// A stream that notes in its queue what came after its last newline, so
/// that a time-out can say the player wrote something but never ended it.
struct Watched<'q, R> {
    stream: R,
    queue: &'q Queue,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stream.read(buf)?;
        let chunk = &buf[..n];
        let mut unfinished = lock(&self.queue.unfinished);
        let rest = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(end) => {
                unfinished.clear();
                &chunk[end + 1..]
            }
            None => chunk,
        };
        let room = UNFINISHED_BYTES.saturating_sub(unfinished.len());
        unfinished.extend_from_slice(&rest[..rest.len().min(room)]);
        Ok(n)
    }
}

/// Lines read from a stream by a background thread, so that waiting can time out.
///
/// At most [`MAX_PENDING_LINES`] unread lines are kept: a stream that sends
/// more is flooding, reading it stops and every later read fails.
pub struct LineReader {
    queue: Arc<Queue>,
}

impl LineReader {
    /// Starts reading `stream` line by line in a background thread.
    pub fn spawn(stream: impl Read + Send + 'static) -> LineReader {
        LineReader::start(stream, false)
    }

    /// Like [`LineReader::spawn`], but a stream that runs ahead just waits:
    /// for a person, or a file standing in for one, typing ahead is no attack.
    pub fn spawn_patient(stream: impl Read + Send + 'static) -> LineReader {
        LineReader::start(stream, true)
    }

    fn start(stream: impl Read + Send + 'static, patient: bool) -> LineReader {
        let queue = Arc::new(Queue {
            patient,
            ..Queue::default()
        });
        let theirs = Arc::clone(&queue);
        thread::spawn(move || read_lines(stream, &theirs));
        LineReader { queue }
    }

    /// Whether a whole line is waiting to be read.
    pub fn has_line_waiting(&self) -> bool {
        let pending = lock(&self.queue.pending);
        pending
            .items
            .iter()
            .any(|item| matches!(item, Incoming::Line(_)))
    }

    /// What came after the last newline, if anything: a line the stream
    /// began but has not ended (its start, quoted).
    pub fn unfinished(&self) -> Option<String> {
        let unfinished = lock(&self.queue.unfinished);
        let text = String::from_utf8_lossy(&unfinished);
        (!text.trim().is_empty()).then(|| crate::protocol::excerpt(&text))
    }

    #[cfg(test)]
    fn is_flooded(&self) -> bool {
        lock(&self.queue.pending).flooded
    }

    /// A whole line that came in with the last one taken, or before it, and
    /// is still waiting: one the stream sent unasked. Never waits, and never
    /// takes the end of the stream or an error, which the next read meets.
    /// `None` for a patient reader, whose stream may type ahead.
    fn take_waiting(&self) -> Option<String> {
        if self.queue.patient {
            return None;
        }
        let mut pending = lock(&self.queue.pending);
        match pending.items.front() {
            Some(Incoming::Line(_)) => match pending.items.pop_front() {
                Some(Incoming::Line(line)) => Some(line),
                _ => None,
            },
            _ => None,
        }
    }

    /// The next line, or why there is none; `Ok(None)` is the end of the stream.
    fn next(&self, deadline: Option<Instant>) -> Result<Option<String>, PlayerError> {
        let mut pending = lock(&self.queue.pending);
        let incoming = loop {
            if pending.flooded {
                return Err(PlayerError::Flooding);
            }
            if let Some(incoming) = pending.items.pop_front() {
                self.queue.taken.notify_all();
                break incoming;
            }
            pending = match deadline {
                None => self
                    .queue
                    .arrived
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(PlayerError::TimedOut);
                    }
                    self.queue
                        .arrived
                        .wait_timeout(pending, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
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

impl Drop for LineReader {
    fn drop(&mut self) {
        lock(&self.queue.pending).abandoned = true;
        self.queue.taken.notify_all();
    }
}

/// The body of a [`LineReader`]'s thread.
fn read_lines(stream: impl Read, queue: &Queue) {
    let mut reader = BufReader::new(Watched { stream, queue });
    loop {
        // Every whole line that came in with this one is queued with it, so
        // lines written at once are seen at once (a checker that asks what is
        // already waiting after an answer gets the same reply every run).
        let mut batch = Vec::new();
        loop {
            let incoming = read_incoming(&mut reader);
            let last = !matches!(incoming, Incoming::Line(_) | Incoming::NotText);
            batch.push(incoming);
            if last || !reader.buffer().contains(&b'\n') {
                break;
            }
        }
        let mut pending = lock(&queue.pending);
        let mut stop = false;
        for incoming in batch {
            while queue.patient && !pending.abandoned && pending.items.len() >= MAX_PENDING_LINES {
                // The reader waits for room: what it queued so far must be seen first.
                queue.arrived.notify_all();
                pending = queue
                    .taken
                    .wait(pending)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if pending.abandoned {
                return;
            }
            // A line that is not text still ends where lines end: reading goes on.
            stop = !matches!(incoming, Incoming::Line(_) | Incoming::NotText);
            if !stop && pending.items.len() >= MAX_PENDING_LINES {
                // Dropping the stream here also stops the writer, by a broken pipe.
                pending.flooded = true;
                stop = true;
                break;
            }
            pending.items.push_back(incoming);
        }
        drop(pending);
        queue.arrived.notify_all();
        if stop {
            return;
        }
    }
}

/// The next line of `reader`, or why there is none.
fn read_incoming(reader: &mut BufReader<impl Read>) -> Incoming {
    loop {
        let mut buf = Vec::new();
        return match read_line_at_most(reader, MAX_LINE, &mut buf) {
            Ok(LineRead::End) => Incoming::Eof,
            Ok(LineRead::TooLong) => Incoming::TooLong,
            Ok(LineRead::Line) => match String::from_utf8(buf) {
                Ok(line) => Incoming::Line(line.trim_end_matches('\r').to_string()),
                Err(_) => Incoming::NotText,
            },
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => Incoming::Failed(e),
        };
    }
}

/// The other side of a line dialogue: an external program, or our own stdin/stdout.
pub trait Peer {
    /// Sends one line (a newline is added) and flushes it.
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError>;
    /// Sends one line like [`Peer::send_line`], failing with
    /// [`PlayerError::TimedOut`] if the peer has not taken it by `deadline`.
    ///
    /// A line that can be written at once is sent even past the deadline. The
    /// default cannot time out: peers that might block override it.
    fn send_line_by(&mut self, line: &str, deadline: Option<Instant>) -> Result<(), PlayerError> {
        let _ = deadline;
        self.send_line(line)
    }
    /// Waits for the next line, until `deadline` if there is one.
    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError>;

    /// What a peer that timed out left to be seen, for the reason: a line
    /// begun but never ended, the end of its stderr. `None` when nothing can
    /// be told (the default).
    fn silence(&self) -> Option<String> {
        None
    }

    /// A line already waiting, sent with or before the last one read: from a
    /// program, a line nobody asked for. Never waits; `None` when there is
    /// none, or when the peer may type ahead (a person, or a file for one).
    fn waiting_line(&mut self) -> Option<String> {
        None
    }

    /// Whether the peer may type ahead: a person, or a file standing in for
    /// one, whose lines wait for their requests and may be blank at leisure.
    fn types_ahead(&self) -> bool {
        false
    }

    /// Ends the dialogue: a program's input is closed and it gets up to
    /// `grace` to exit by itself. Our own stdin/stdout have nothing to close.
    fn close(&mut self, grace: Duration) {
        let _ = grace;
    }
}

/// A line handed to a [`StreamPeer`]'s writing thread; it answers on `done`.
type Job = (Vec<u8>, Sender<io::Result<()>>);

/// A peer reached through a pair of streams, such as our own stdin and stdout.
///
/// Lines are written by a background thread, so that a send can time out
/// without changing the output (which may be a terminal shared with others).
pub struct StreamPeer<W: Write> {
    input: LineReader,
    jobs: Sender<Job>,
    /// The answer to a write that timed out, still awaited.
    unfinished: Option<Receiver<io::Result<()>>>,
    output: PhantomData<W>,
}

impl<W: Write + Send + 'static> StreamPeer<W> {
    /// Talks by reading lines from `input` and writing to `output`.
    pub fn new(input: impl Read + Send + 'static, output: W) -> StreamPeer<W> {
        StreamPeer::with_reader(LineReader::spawn(input), output)
    }

    /// Talks to a person on our own stdin and stdout: lines typed (or piped)
    /// ahead wait their turn, however many, instead of counting as flooding.
    pub fn for_person(input: impl Read + Send + 'static, output: W) -> StreamPeer<W> {
        StreamPeer::with_reader(LineReader::spawn_patient(input), output)
    }

    fn with_reader(input: LineReader, mut output: W) -> StreamPeer<W> {
        let (jobs, queue) = mpsc::channel::<Job>();
        thread::spawn(move || {
            for (data, done) in queue {
                let result = output.write_all(&data).and_then(|()| output.flush());
                let _ = done.send(result);
            }
        });
        StreamPeer {
            input,
            jobs,
            unfinished: None,
            output: PhantomData,
        }
    }
}

/// The service of `agent` behind its wire `W` on a thread of its own, and a
/// seat talking to it over pipes as to a program: for tests that check that
/// a served agent plays as it does in process. The service ends, cleanly,
/// once the seat is dropped.
#[cfg(test)]
pub(crate) fn served<G, W, A>(
    agent: A,
) -> (
    crate::seat::Remote<G, W>,
    thread::JoinHandle<Result<(), crate::protocol::DialogueError>>,
)
where
    G: tabula_solver::Game + 'static,
    W: crate::wire::Wire<G> + Default + Send + 'static,
    A: crate::agent::Agent<G> + Send + 'static,
{
    let (requests, to_player) = io::pipe().unwrap();
    let (from_player, answers) = io::pipe().unwrap();
    let server = thread::spawn(move || {
        let mut session = crate::wire::Session::new(W::default(), agent);
        session.serve(BufReader::new(requests), answers)
    });
    let peer = StreamPeer::new(from_player, to_player);
    let remote = crate::seat::Remote::new("served", Box::new(peer), W::default());
    (remote, server)
}

/// Waits for a write's answer until `deadline`.
fn written_by(done: &Receiver<io::Result<()>>, deadline: Option<Instant>) -> io::Result<()> {
    let answer = match deadline {
        None => done.recv().map_err(|_| RecvTimeoutError::Disconnected),
        Some(deadline) => done.recv_timeout(deadline.saturating_duration_since(Instant::now())),
    };
    match answer {
        Ok(result) => result,
        Err(RecvTimeoutError::Timeout) => Err(io::ErrorKind::TimedOut.into()),
        Err(RecvTimeoutError::Disconnected) => Err(io::ErrorKind::BrokenPipe.into()),
    }
}

fn write_error(e: io::Error) -> PlayerError {
    match e.kind() {
        io::ErrorKind::BrokenPipe => PlayerError::ClosedInput,
        io::ErrorKind::TimedOut => PlayerError::TimedOut,
        _ => PlayerError::Io(e),
    }
}

impl<W: Write> Peer for StreamPeer<W> {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        self.send_line_by(line, None)
    }

    fn send_line_by(&mut self, line: &str, deadline: Option<Instant>) -> Result<(), PlayerError> {
        if let Some(done) = &self.unfinished {
            match written_by(done, deadline) {
                Err(e) if e.kind() == io::ErrorKind::TimedOut => return Err(PlayerError::TimedOut),
                result => {
                    self.unfinished = None;
                    result.map_err(write_error)?;
                }
            }
        }
        let mut data = Vec::with_capacity(line.len() + 1);
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        let (answer, done) = mpsc::channel();
        if self.jobs.send((data, answer)).is_err() {
            return Err(PlayerError::ClosedInput);
        }
        match written_by(&done, deadline) {
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                self.unfinished = Some(done);
                Err(PlayerError::TimedOut)
            }
            result => result.map_err(write_error),
        }
    }

    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        self.input.next(deadline)?.ok_or(PlayerError::ClosedOutput)
    }

    fn waiting_line(&mut self) -> Option<String> {
        self.input.take_waiting()
    }

    fn types_ahead(&self) -> bool {
        self.input.queue.patient
    }
}

/// Where a player's stderr goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StderrMode {
    /// Read through a pipe; its last lines end the reason of an exit.
    #[default]
    Capture,
    /// Shared with this program's stderr.
    Inherit,
    /// Thrown away.
    Discard,
}

/// The last bytes of a player's stderr, kept by a background thread.
#[derive(Default)]
struct StderrTail {
    state: Mutex<(VecDeque<u8>, bool)>,
    ended: Condvar,
}

impl StderrTail {
    fn spawn(mut stream: ChildStderr) -> Arc<StderrTail> {
        let tail = Arc::new(StderrTail::default());
        let theirs = Arc::clone(&tail);
        thread::spawn(move || {
            let mut chunk = [0u8; 512];
            loop {
                let n = match stream.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let mut state = lock(&theirs.state);
                state.0.extend(&chunk[..n]);
                let excess = state.0.len().saturating_sub(STDERR_TAIL_BYTES);
                state.0.drain(..excess);
            }
            lock(&theirs.state).1 = true;
            theirs.ended.notify_all();
        });
        tail
    }

    /// The last lines, joined by ` | `, once the stream ended or `until` passed.
    fn last_lines(&self, until: Instant) -> String {
        let mut state = lock(&self.state);
        while !state.1 {
            let now = Instant::now();
            if now >= until {
                break;
            }
            state = self
                .ended
                .wait_timeout(state, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let bytes: Vec<u8> = state.0.iter().copied().collect();
        drop(state);
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<String> = text
            .lines()
            .map(|line| {
                line.trim()
                    .chars()
                    .map(|c| {
                        if crate::protocol::is_hidden(c) {
                            '?'
                        } else {
                            c
                        }
                    })
                    .collect::<String>()
            })
            .filter(|line| !line.is_empty())
            .collect();
        lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..].join(" | ")
    }
}

/// The players alive now (their process group ids, which are their ids, and
/// their markers), killed with all they started if this program is stopped.
static GROUPS: Mutex<Vec<(libc::pid_t, String)>> = Mutex::new(Vec::new());

/// Kills every registered group, and every descendant wherever it went, when
/// this program is stopped by a signal.
fn kill_player_groups(_signal: i32) {
    let groups = lock(&GROUPS);
    for &(group, _) in groups.iter() {
        // SAFETY: killpg only sends a signal.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
    descendants::kill_claimed(None, None, || Box::new(Vec::new()));
    // Kept locked until the exit, so that no new player starts meanwhile.
    std::mem::forget(groups);
}

/// Kills what player `pid` (not yet reaped) started, wherever it went.
fn kill_descendants_of(pid: libc::pid_t, marker: &str) {
    descendants::kill_claimed(Some(pid), Some(marker), || lock(&GROUPS));
}

/// Writes all of `data` to a non-blocking pipe, waiting for room until `deadline`.
fn write_by(pipe: &mut ChildStdin, data: &[u8], deadline: Option<Instant>) -> io::Result<()> {
    let mut written = 0;
    while written < data.len() {
        match pipe.write(&data[written..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let timeout = match deadline {
                    None => -1,
                    Some(deadline) => {
                        let left = deadline.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Err(io::ErrorKind::TimedOut.into());
                        }
                        // Rounded up, so that a wait never ends before the deadline.
                        left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
                    }
                };
                let mut poll = libc::pollfd {
                    fd: pipe.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd. Errors (EINTR) just lead to another try.
                unsafe {
                    libc::poll(&mut poll, 1, timeout);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// This process's hard limit on its address space, in bytes (`u64::MAX` if none).
fn own_memory_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    match unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } {
        0 => limit.rlim_max,
        _ => u64::MAX,
    }
}

/// A running external player.
pub struct ExternalPlayer {
    child: Child,
    stdin: Option<ChildStdin>,
    output: LineReader,
    stderr: Option<Arc<StderrTail>>,
    /// The address-space limit it was started under, named when it exits.
    memory: Option<u64>,
    /// Its value of `TABULA_PLAYER`, which what it starts inherits.
    marker: String,
}

impl ExternalPlayer {
    /// Starts `command` with `sh -c`; the end of its stderr is kept for exit reasons.
    pub fn spawn(command: &str) -> Result<ExternalPlayer, PlayerError> {
        ExternalPlayer::spawn_with(command, StderrMode::Capture)
    }

    /// Starts `command` with `sh -c`, its stderr going as `mode` says.
    pub fn spawn_with(command: &str, mode: StderrMode) -> Result<ExternalPlayer, PlayerError> {
        ExternalPlayer::spawn_limited(command, mode, None)
    }

    /// Starts `command` with `sh -c`, its stderr going as `mode` says, its
    /// address space (and that of each child, on its own) limited to `memory` bytes if given,
    /// as `ulimit -v` would: an allocation beyond it fails in the player.
    pub fn spawn_limited(
        command: &str,
        mode: StderrMode,
        memory: Option<u64>,
    ) -> Result<ExternalPlayer, PlayerError> {
        let stderr = match mode {
            StderrMode::Capture => Stdio::piped(),
            StderrMode::Inherit => Stdio::inherit(),
            StderrMode::Discard => Stdio::null(),
        };
        ExternalPlayer::start(command, stderr, memory)
    }

    fn start(
        command: &str,
        stderr: Stdio,
        memory: Option<u64>,
    ) -> Result<ExternalPlayer, PlayerError> {
        tabula_tables::stop::on_stop(kill_player_groups);
        descendants::become_subreaper();
        let marker = descendants::new_marker();
        let mut launch = Command::new("sh");
        launch
            .arg("-c")
            .arg(command)
            .env(descendants::MARKER_VAR, &marker)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0);
        // Never above this process's own hard limit, which only root may raise.
        let memory = memory.map(|bytes| bytes.min(own_memory_limit()));
        if let Some(bytes) = memory {
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            // SAFETY: between fork and exec the closure only calls setrlimit,
            // which is async-signal-safe, on a struct it owns.
            unsafe {
                launch.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(io::Error::last_os_error())
                    }
                });
            }
        }
        // Registered under the lock, so that a signal cannot miss the new group.
        let mut groups = lock(&GROUPS);
        let mut child = launch.spawn().map_err(|source| PlayerError::Spawn {
            command: command.to_string(),
            source,
        })?;
        groups.push((child.id() as libc::pid_t, marker.clone()));
        drop(groups);
        let output = LineReader::spawn(child.stdout.take().expect("stdout is piped"));
        let stderr = child.stderr.take().map(StderrTail::spawn);
        let stdin = child.stdin.take();
        let player = ExternalPlayer {
            child,
            stdin,
            output,
            stderr,
            memory,
            marker,
        };
        if let Some(stdin) = &player.stdin {
            // SAFETY: fcntl on a descriptor we own.
            let failed = unsafe {
                let fd = stdin.as_raw_fd();
                let flags = libc::fcntl(fd, libc::F_GETFL);
                flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0
            };
            if failed {
                return Err(PlayerError::Io(io::Error::last_os_error()));
            }
        }
        Ok(player)
    }

    /// The child's process id, which is also its process group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Closes the player's input and waits up to `grace` for it to exit by itself.
    ///
    /// Returns whether it exited; a player still running is killed when dropped,
    /// and so is anything it left running.
    pub fn finish(&mut self, grace: Duration) -> bool {
        self.stdin = None;
        let deadline = Instant::now() + grace;
        loop {
            if self.exit_status().is_some() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// The child's exit status if it has ended, without reaping it: until the
    /// drop reaps it, its id, and so its process group's, cannot be reused.
    fn exit_status(&self) -> Option<ExitStatus> {
        // SAFETY: waitid fills `info`; WNOWAIT leaves the child to be reaped later.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            if libc::waitid(libc::P_PID, self.child.id(), &mut info, flags) != 0
                || info.si_pid() == 0
            {
                return None;
            }
            let status = info.si_status();
            let raw = match info.si_code {
                libc::CLD_EXITED => (status & 0xff) << 8,
                libc::CLD_KILLED => status,
                libc::CLD_DUMPED => status | 0x80,
                _ => return None,
            };
            Some(ExitStatus::from_raw(raw))
        }
    }

    /// Kills what the player left running, in its group or not. Only once
    /// it has exited: the child is not reaped yet, so its ids are still ours.
    fn kill_leftovers(&self) {
        // SAFETY: killpg only sends a signal.
        unsafe {
            libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL);
        }
        kill_descendants_of(self.child.id() as libc::pid_t, &self.marker);
    }

    /// After end of output, or a broken pipe to its input: an exit if the
    /// child ended within [`EXIT_WAIT`], else `otherwise` (the child runs on
    /// until the drop kills it).
    fn exit_error(&mut self, otherwise: PlayerError) -> PlayerError {
        let deadline = Instant::now() + EXIT_WAIT;
        loop {
            if let Some(status) = self.exit_status() {
                // What it left running could hold its stderr open: it goes now
                // rather than at the drop, so the tail reaches the pipe's end.
                self.kill_leftovers();
                let until = Instant::now() + EXIT_WAIT;
                let stderr = match &self.stderr {
                    Some(tail) => tail.last_lines(until),
                    None => String::new(),
                };
                // A player that ran out of memory dies in many ways (an abort,
                // an exception, a message): the limit is named for all of them.
                let status = match self.memory {
                    Some(bytes) => format!("{status}, under a memory limit of {} MiB", bytes >> 20),
                    None => status.to_string(),
                };
                return PlayerError::Exited { status, stderr };
            }
            if Instant::now() >= deadline {
                return otherwise;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Peer for ExternalPlayer {
    fn send_line(&mut self, line: &str) -> Result<(), PlayerError> {
        self.send_line_by(line, None)
    }

    fn close(&mut self, grace: Duration) {
        self.finish(grace);
    }

    fn silence(&self) -> Option<String> {
        // The line may have been ended just after the time-out was seen.
        if self.output.has_line_waiting() {
            return Some("its answer came just after the limit".to_string());
        }
        let mut told = match self.output.unfinished() {
            Some(text) => format!("it wrote '{text}' but never ended the line"),
            // Said as a question: a player still thinking shows nothing either.
            None => "nothing came (an answer left unflushed looks the same)".to_string(),
        };
        if let Some(tail) = &self.stderr {
            let lines = tail.last_lines(Instant::now());
            if !lines.is_empty() {
                told.push_str(&format!("; stderr: {lines}"));
            }
        }
        Some(told)
    }

    fn send_line_by(&mut self, line: &str, deadline: Option<Instant>) -> Result<(), PlayerError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(PlayerError::ClosedInput);
        };
        let mut data = Vec::with_capacity(line.len() + 1);
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        match write_by(stdin, &data, deadline) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                // Later requests fail at once, without another wait.
                self.stdin = None;
                Err(self.exit_error(PlayerError::ClosedInput))
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => Err(PlayerError::TimedOut),
            Err(e) => Err(PlayerError::Io(e)),
        }
    }

    fn recv_line(&mut self, deadline: Option<Instant>) -> Result<String, PlayerError> {
        let mut leftovers_killed = false;
        loop {
            // Looked at every tick: a player that exits while what it left
            // running holds its output open has exited, not timed out, however
            // its exit and our last request fall.
            let tick = Instant::now() + EXIT_TICK;
            let until = deadline.map_or(tick, |deadline| deadline.min(tick));
            match self.output.next(Some(until)) {
                Ok(Some(line)) => return Ok(line),
                Ok(None) => return Err(self.exit_error(PlayerError::ClosedOutput)),
                Err(PlayerError::TimedOut) if deadline.is_some_and(|d| Instant::now() >= d) => {
                    return Err(PlayerError::TimedOut);
                }
                Err(PlayerError::TimedOut) => {
                    if !leftovers_killed && self.exit_status().is_some() {
                        // Its output ends once they are gone; lines it wrote
                        // before come first.
                        self.kill_leftovers();
                        leftovers_killed = true;
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn waiting_line(&mut self) -> Option<String> {
        self.output.take_waiting()
    }
}

impl Drop for ExternalPlayer {
    fn drop(&mut self) {
        self.stdin = None;
        let group = self.child.id() as libc::pid_t;
        // What left the group goes first, while the child's id is still ours.
        kill_descendants_of(group, &self.marker);
        let mut groups = lock(&GROUPS);
        // The whole group, whether or not the child still runs: what it started
        // goes too. The child is not reaped yet, so the group id is still ours;
        // ESRCH (nobody left) is fine.
        // SAFETY: killpg only sends a signal.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
        // Reaped before it leaves the list: a cleanup of another player reaps
        // the dead children of ours that are not players.
        let _ = self.child.wait();
        groups.retain(|(g, _)| *g != group);
        drop(groups);
        // Its death handed its children to us: by marker, as its id is not ours now.
        descendants::kill_claimed(None, Some(&self.marker), || lock(&GROUPS));
    }
}

/// The processes of group `pgid` still running (a zombie counts as gone),
/// read from `/proc`: for tests, which must not pass for want of a `/proc`,
/// so it panics where there is none.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let entries = std::fs::read_dir("/proc").expect("/proc lists the running processes");
    let mut pids = Vec::new();
    for entry in entries.flatten() {
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
        if fields.len() > 2 && fields[2] == pgid.to_string() && !["Z", "X"].contains(&fields[0]) {
            pids.push(pid);
        }
    }
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deadline no answer misses, even on a loaded machine.
    fn soon() -> Option<Instant> {
        Some(Instant::now() + Duration::from_secs(60))
    }

    #[test]
    fn lines_sent_with_an_answer_are_waiting_and_the_end_is_left_to_the_next_read() {
        // One write of three lines, then the end of output.
        let mut player = ExternalPlayer::spawn("read x; printf 'a\\nb\\nc\\n'").unwrap();
        assert_eq!(player.waiting_line(), None);
        player.send_line("go").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "a");
        assert_eq!(player.waiting_line().as_deref(), Some("b"));
        assert_eq!(player.waiting_line().as_deref(), Some("c"));
        assert_eq!(player.waiting_line(), None);
        // The end is still there for the next read to report.
        assert!(matches!(
            player.recv_line(soon()),
            Err(PlayerError::ClosedOutput | PlayerError::Exited { .. })
        ));
        // A person's stream may type ahead: nothing is ever unasked.
        let mut person = StreamPeer::for_person(&b"a\nb\n"[..], io::sink());
        assert!(person.types_ahead() && !player.types_ahead());
        assert_eq!(person.recv_line(soon()).unwrap(), "a");
        assert_eq!(person.waiting_line(), None);
        assert_eq!(person.recv_line(soon()).unwrap(), "b");
    }

    #[test]
    fn talks_line_by_line() {
        let mut player = ExternalPlayer::spawn("while read x; do echo \"got $x\"; done").unwrap();
        player.send_line("1").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "got 1");
        player.send_line("two").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "got two");
        assert!(player.finish(Duration::from_secs(60)));
    }

    #[test]
    fn a_player_that_closes_its_input_but_runs_on_is_said_to_have_closed_its_input() {
        // It answers after closing its stdin, so the next request meets no reader.
        let mut player =
            ExternalPlayer::spawn("read x; exec 0<&-; echo ready; exec sleep 100000").unwrap();
        player.send_line("hello").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "ready");
        let error = player.send_line("again").unwrap_err();
        assert!(matches!(error, PlayerError::ClosedInput), "{error}");
        // Later requests fail the same way at once.
        let error = player.send_line("more").unwrap_err();
        assert!(matches!(error, PlayerError::ClosedInput), "{error}");
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
        // It would sleep past any test run: if it is gone, it was killed.
        let mut player = ExternalPlayer::spawn("sleep 100000").unwrap();
        let group = player.id();
        let deadline = Instant::now() + Duration::from_millis(100);
        assert!(matches!(
            player.recv_line(Some(deadline)),
            Err(PlayerError::TimedOut)
        ));
        assert!(!live_group_members(group).is_empty(), "it sleeps on");
        // A watchdog only: a drop that waited for the sleep would hang.
        within_a_minute(move || drop(player));
        assert!(all_gone(group), "the stalled player survived its drop");
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

    /// A stream that hands over each chunk sent to it, and ends when the sender goes.
    struct Chunks(std::sync::mpsc::Receiver<Vec<u8>>);

    impl Read for Chunks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let Ok(chunk) = self.0.recv() else {
                return Ok(0);
            };
            assert!(chunk.len() <= buf.len(), "test chunks fit the buffer");
            buf[..chunk.len()].copy_from_slice(&chunk);
            Ok(chunk.len())
        }
    }

    #[test]
    fn the_unfinished_line_is_what_came_after_the_last_newline() {
        let (send, chunks) = std::sync::mpsc::channel();
        let reader = LineReader::spawn(Chunks(chunks));
        let unfinished = |want: &str| eventually(|| reader.unfinished().as_deref() == Some(want));
        // Several lines in one chunk: only the part after the last newline.
        send.send(b"a\nb\nc".to_vec()).unwrap();
        assert_eq!(reader.next(soon()).unwrap().as_deref(), Some("a"));
        assert_eq!(reader.next(soon()).unwrap().as_deref(), Some("b"));
        assert!(unfinished("c"));
        // Ended in a later chunk, with the start of another line.
        send.send(b"d\ne".to_vec()).unwrap();
        assert_eq!(reader.next(soon()).unwrap().as_deref(), Some("cd"));
        assert!(unfinished("e"));
        // A long unfinished line keeps its start, quoted shortened.
        send.send(vec![b'x'; 300]).unwrap();
        assert!(eventually(|| reader.unfinished().is_some_and(|text| text
            .starts_with("exxx")
            && text.ends_with('…'))));
        assert!(lock(&reader.queue.unfinished).len() <= UNFINISHED_BYTES);
        // A whole line leaves nothing unfinished.
        send.send(b"\n".to_vec()).unwrap();
        assert!(reader.next(soon()).unwrap().is_some());
        assert!(eventually(|| reader.unfinished().is_none()));
        assert!(!reader.has_line_waiting());
    }

    #[test]
    fn a_silent_player_s_unfinished_line_and_stderr_are_told() {
        let said = |player: &ExternalPlayer| player.silence().unwrap_or_default();
        // A line begun but never ended, after a whole one that was read.
        let mut player =
            ExternalPlayer::spawn("echo 2 2; printf '3 1'; exec sleep 100000").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "2 2");
        assert!(eventually(
            || said(&player).contains("it wrote '3 1' but never ended the line")
        ));
        let deadline = Instant::now() + Duration::from_millis(50);
        assert!(matches!(
            player.recv_line(Some(deadline)),
            Err(PlayerError::TimedOut)
        ));
        // Nothing on stdout, a line on stderr.
        let player = ExternalPlayer::spawn("echo thinking >&2; exec sleep 100000").unwrap();
        assert!(eventually(|| said(&player).ends_with("; stderr: thinking")));
        assert!(
            said(&player).starts_with("nothing came"),
            "{}",
            said(&player)
        );
        // Whole lines leave nothing unfinished.
        let mut player = ExternalPlayer::spawn("echo 1; exec sleep 100000").unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "1");
        assert!(
            said(&player).starts_with("nothing came"),
            "{}",
            said(&player)
        );
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

    /// Whether process group `group` empties within a minute; whatever it
    /// still holds then is killed, so that a failing test leaves nothing.
    fn all_gone(group: u32) -> bool {
        let gone = eventually(|| live_group_members(group).is_empty());
        // SAFETY: only signals the test's own leftovers, if any.
        unsafe {
            libc::killpg(group as libc::pid_t, libc::SIGKILL);
        }
        gone
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
    fn a_patient_reader_keeps_every_line_of_a_long_input_in_order() {
        let text: String = (0..10 * MAX_PENDING_LINES)
            .map(|i| format!("{i}\n"))
            .collect();
        let reader = LineReader::spawn_patient(io::Cursor::new(text.into_bytes()));
        for i in 0..10 * MAX_PENDING_LINES {
            assert_eq!(reader.next(soon()).unwrap(), Some(i.to_string()));
        }
        assert_eq!(reader.next(soon()).unwrap(), None);
        // Dropping it while its thread waits for room does not block.
        let endless = LineReader::spawn_patient(io::repeat(b'\n'));
        assert_eq!(endless.next(soon()).unwrap(), Some(String::new()));
        drop(endless);
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
            let error =
                (0..10_000).find_map(|_| peer.send_line_by(&line, a_tenth_from_now()).err());
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
        assert!(player.finish(Duration::from_secs(60)), "the shell exits");
        assert!(!live_group_members(group).is_empty(), "its sleep runs on");
        drop(player);
        assert!(all_gone(group), "the sleep survived its player");
    }

    #[test]
    fn an_exit_reason_ends_with_the_last_lines_of_stderr() {
        let mut player = ExternalPlayer::spawn("echo one >&2; echo two >&2; exit 3").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(error, "player exited (exit status: 3); stderr: one | two");
        // What would not show as itself (an escape, a right-to-left override) is a `?`.
        let mut player =
            ExternalPlayer::spawn("printf 'a\\033[2Jb \\342\\200\\256c\\n' >&2; exit 1").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(error, "player exited (exit status: 1); stderr: a?[2Jb ?c");
        let mut player =
            ExternalPlayer::spawn("for i in $(seq 200); do echo line $i >&2; done; exit 1")
                .unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert!(
            error.ends_with("stderr: line 196 | line 197 | line 198 | line 199 | line 200"),
            "{error}"
        );
        let mut player = ExternalPlayer::spawn("./no-such-player").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        // The shell's own words differ (dash: "not found"; bash: "No such file").
        assert!(
            error.contains("(exit status: 127); stderr: ") && error.contains("./no-such-player: "),
            "{error}"
        );
    }

    #[test]
    fn an_exit_kills_what_was_left_holding_its_stderr() {
        let mut player =
            ExternalPlayer::spawn("sleep 300 >/dev/null & echo bye >&2; exit 3").unwrap();
        let group = player.id();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(error, "player exited (exit status: 3); stderr: bye");
        // Before the drop: the exit itself ended the sleep.
        assert!(
            eventually(|| live_group_members(group).is_empty()),
            "the sleep outlived the exit"
        );
    }

    #[test]
    fn a_memory_limit_reaches_the_player_and_is_named_when_it_exits() {
        // `ulimit -v` reports the address-space limit in KiB.
        let mut player = ExternalPlayer::spawn_limited(
            "ulimit -v; read x; exit 3",
            StderrMode::Capture,
            Some(64 << 20),
        )
        .unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "65536");
        player.send_line("go").unwrap();
        let error = player.recv_line(soon()).unwrap_err().to_string();
        assert_eq!(
            error,
            "player exited (exit status: 3, under a memory limit of 64 MiB)"
        );
        // It holds for the programs the player starts.
        let mut player =
            ExternalPlayer::spawn_limited("sh -c 'ulimit -v'", StderrMode::Discard, Some(32 << 20))
                .unwrap();
        assert_eq!(player.recv_line(soon()).unwrap(), "32768");
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
