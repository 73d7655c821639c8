//! Running the `tabula` binary from the CLI tests.

// Each test file uses only some of these helpers.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `tabula` binary built for these tests.
pub fn tabula() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tabula"))
}

/// [`tabula`] with the default action for SIGINT and SIGTERM, for a test
/// that stops it: tests run in the background (`cargo test &`) start with
/// SIGINT ignored, and tabula rightly leaves an ignored signal ignored.
pub fn tabula_to_stop() -> Command {
    let mut command = tabula();
    // SAFETY: between fork and exec, only signal(2), which is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    command
}

/// The words of a command line written as one string (none may hold a space).
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Runs `tabula ARGS` with no input and collects its output.
pub fn run(args: &[&str]) -> Output {
    tabula().args(args).output().expect("tabula runs")
}

/// Runs `tabula LINE PATH`: the words of `line` (see [`words`]) and then a
/// path, such as the file after `-o`, which may hold a space.
pub fn run_path(line: &str, path: &Path) -> Output {
    tabula()
        .args(words(line))
        .arg(path)
        .output()
        .expect("tabula runs")
}

/// Runs `tabula build ARGS -o FILE`, which must succeed.
pub fn build(args: &str, file: &str) {
    run_ok(&words(&format!("build {args} -o")), &[file]);
}

/// Runs `tabula referee GAME --player PLAYER OPTIONS`: the player's command
/// as it is, the options written as one line (see [`words`]).
pub fn referee_player(game: &str, player: &str, options: &str) -> Output {
    tabula()
        .args(["referee", game, "--player", player])
        .args(words(options))
        .output()
        .expect("tabula runs")
}

/// Runs `LAUNCHER... sh -c 'SETUP && exec tabula ARGS'` in `dir`: `tabula`
/// under a limit (`ulimit -v 2000000`) or after a mount, with `launcher` (such
/// as `unshare --mount`) around the shell when one is needed.
pub fn run_after_setup(launcher: &[&str], setup: &str, args: &str, dir: &Path) -> Output {
    let script = format!("{setup} && exec \"$0\" {args}");
    let (program, before) = match launcher.split_first() {
        Some((program, rest)) => (*program, rest),
        None => ("sh", &[][..]),
    };
    let mut command = Command::new(program);
    command.args(before);
    if !launcher.is_empty() {
        command.arg("sh");
    }
    command
        .args(["-c", &script, env!("CARGO_BIN_EXE_tabula")])
        .current_dir(dir)
        .output()
        .expect("the shell runs")
}

/// Runs `tabula ARGS` with `input` on stdin and collects its output.
///
/// The input is written by a thread while the output is read, so that neither
/// side waits for the other; a command that exits without reading all of its
/// input is no failure (the broken pipe is ignored).
pub fn run_with_input(args: &[&str], input: &str) -> Output {
    run_fed(args, input, Stdio::piped())
}

/// Starts `tabula ARGS` with `stdin` and `stdout` as given, and stderr piped.
pub fn spawn(args: &[&str], stdin: Stdio, stdout: Stdio) -> std::process::Child {
    tabula()
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("tabula runs")
}

/// Runs `tabula ARGS` with `input` on stdin and `stdout` as its stdout.
fn run_fed(args: &[&str], input: &str, stdout: Stdio) -> Output {
    let mut child = spawn(args, Stdio::piped(), stdout);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || {
        if let Err(e) = stdin.write_all(input.as_bytes())
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            panic!("writing tabula's stdin: {e}");
        }
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Runs `tabula FIXED ARGS`, which must succeed, and returns its stdout.
pub fn run_ok(fixed: &[&str], args: &[&str]) -> String {
    let out = tabula()
        .args(fixed)
        .args(args)
        .output()
        .expect("tabula runs");
    assert!(out.status.success(), "{fixed:?} {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// A referee's per-case result lines (those starting `case `).
pub fn case_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("case "))
        .map(String::from)
        .collect()
}

/// Each line of `text` read as JSON (a `--batch` answer, a game log).
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// What the command wrote on stdout.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What the command wrote on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Polls `probe` for up to a minute until it gives something.
pub fn eventually<T>(mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Kills what is left of process group `pgid` (a failed test's leftovers).
pub fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// A player that writes its process group's id to `file`, then runs `rest`.
pub fn player_telling_its_group(file: &std::path::Path, rest: &str) -> String {
    let file = file.display();
    format!("echo $$ > '{file}.tmp' && mv '{file}.tmp' '{file}'; {rest}")
}

/// Reads the group id a [`player_telling_its_group`] wrote, waiting for it.
pub fn group_of_player(file: &std::path::Path) -> Option<u32> {
    eventually(|| std::fs::read_to_string(file).ok()?.trim().parse().ok())
}

/// Runs `tabula ARGS` like [`run`], but kills it and gives `None` if it is
/// still running after two minutes (a hang).
pub fn run_or_kill(args: &[&str]) -> Option<Output> {
    output_or_kill(tabula().args(args), Duration::from_secs(120)).expect("tabula runs")
}

/// Runs `command` with no input, in a process group of its own, and collects
/// its output; if it still runs after `limit` (a hang), kills the group, so
/// that a hang fails a test instead of stalling the run, and gives `None`.
pub fn output_or_kill(command: &mut Command, limit: Duration) -> std::io::Result<Option<Output>> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    // Read meanwhile: a full pipe must not stop the command.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let until = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Ok(Some(Output {
                status,
                stdout: stdout.join().unwrap(),
                stderr: stderr.join().unwrap(),
            }));
        }
        if Instant::now() >= until {
            // Not reaped yet, so the group id is still the child's.
            kill_group(child.id());
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Checks that `tabula referee GAME` refuses every out-of-range `--timeout`
/// with one line and exit status 2, before starting any player.
pub fn assert_timeouts_refused(game: &str) {
    for bad in ["1e20", "1e19", "-1", "0", "nan", "inf", "100000"] {
        let timeout = format!("--timeout={bad}");
        let out = run(&["referee", game, "--player", "true", &timeout]);
        assert_eq!(out.status.code(), Some(2), "{game} {bad}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") && err.contains("--timeout"),
            "{game} {bad}: {err}"
        );
    }
    // A negative number after a space is the option's value, not another option.
    let out = run(&["referee", game, "--player", "true", "--timeout", "-1"]);
    assert_one_line_error(&out, "-1 is not a positive number of seconds");
}

/// What `referee` (a run of `tabula referee GAME ...`) prints with `served`
/// as the player, its dialogue kept in `transcript`, and with the built-in
/// `agent`, over the same `args`: a served player must score as the agent.
pub fn served_and_built_in(
    referee: impl Fn(&[&str]) -> String,
    served: &str,
    transcript: &Path,
    agent: &str,
    args: &[&str],
) -> (String, String) {
    let transcript = transcript.to_str().unwrap();
    let remote = referee(&[&["--player", served, "--transcript", transcript], args].concat());
    let local = referee(&[&["--agent", agent], args].concat());
    (remote, local)
}

/// The names of the files in which `dir` (its files as `listed` reads them)
/// differs from `generated`: missing, stale or changed. With the
/// environment variable `update` set, `dir` is first made to hold exactly
/// `generated`, a deliberate update of committed generated files.
pub fn generated_files_differ(
    dir: &Path,
    generated: &std::collections::BTreeMap<String, String>,
    listed: fn(&Path) -> std::collections::BTreeMap<String, String>,
    update: &str,
) -> Vec<String> {
    if std::env::var_os(update).is_some() {
        std::fs::create_dir_all(dir).unwrap();
        for stale in listed(dir).keys().filter(|n| !generated.contains_key(*n)) {
            std::fs::remove_file(dir.join(stale)).unwrap();
        }
        for (name, text) in generated {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let committed = listed(dir);
    generated
        .keys()
        .chain(committed.keys())
        .filter(|n| generated.get(*n) != committed.get(*n))
        .cloned()
        .collect()
}

/// Runs `tabula replay LOG EXTRA... [-o PAGE]` and collects its output.
pub fn replay_page(log: &Path, extra: &[&str], page: Option<&Path>) -> Output {
    let mut command = tabula();
    command.arg("replay").arg(log).args(extra);
    if let Some(page) = page {
        command.arg("-o").arg(page);
    }
    command.output().expect("tabula runs")
}

/// The command line of `tabula serve ARGS`, a served player for `--player`.
pub fn serve_command(args: &str) -> String {
    format!("{} serve {args}", env!("CARGO_BIN_EXE_tabula"))
}

/// `referee` (a run of `tabula referee GAME ...`) with `args` at `--seed 7`:
/// its stdout, checked to be the same on a second run and to differ at
/// `--seed 8`, and its `--json -` report.
pub fn reproducible_referee(
    referee: impl Fn(&[&str]) -> String,
    args: &[&str],
) -> (String, serde_json::Value) {
    let first = referee(&[args, &["--seed", "7"]].concat());
    assert_eq!(referee(&[args, &["--seed", "7"]].concat()), first);
    assert_ne!(referee(&[args, &["--seed", "8"]].concat()), first);
    let json = referee(&[args, &["--seed", "7", "--json", "-"]].concat());
    let report = serde_json::from_str(&json).expect("--json - is JSON alone");
    (first, report)
}

/// The keys of a JSON object, sorted.
pub fn sorted_keys(object: &serde_json::Value) -> Vec<&str> {
    let mut keys: Vec<&str> = object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    keys
}

/// A refusal: exit status 2 and a stderr that says `problem`.
pub fn assert_refused(out: &Output, problem: &str) {
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(out).contains(problem), "{}", stderr(out));
}

/// Exit status 2 and one stderr line that starts `error:` and says `problem`, with nothing on stdout.
pub fn assert_one_line_error(out: &Output, problem: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(problem), "'{err}' does not say {problem}");
    assert!(stdout(out).is_empty(), "{}", stdout(out));
}

/// Exit status 2 and one stderr line that starts `error: START`; `what`
/// (such as the command) heads the message of a failure.
pub fn assert_error_line_starting(out: &Output, what: &str, start: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(err.starts_with(&format!("error: {start}")), "{what}: {err}");
}

/// Where [`run_with_stdout`] points `tabula`'s stdout.
#[derive(Clone, Copy, Debug)]
pub enum BadStdout {
    /// `/dev/full`: every write fails with "No space left on device".
    Full,
    /// A pipe whose reader is gone (as under `| head`): every write fails with EPIPE.
    ClosedPipe,
}

/// Runs `tabula ARGS` with `input` on stdin and a stdout that cannot be
/// written; collects stderr.
pub fn run_with_stdout(args: &[&str], input: &str, bad: BadStdout) -> Output {
    let out: Stdio = match bad {
        BadStdout::Full => std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens")
            .into(),
        BadStdout::ClosedPipe => {
            // The reader is closed before tabula starts, so no write can succeed.
            let (reader, writer) = std::io::pipe().expect("a pipe");
            drop(reader);
            writer.into()
        }
    };
    run_fed(args, input, out)
}

/// The first `count` lines `tabula ARGS` writes to stdout, the pipe then
/// closed; checks that tabula then ends quietly with status 0, as on any
/// closed stdout.
pub fn first_lines(args: &[&str], count: usize) -> Vec<String> {
    use std::io::BufRead;
    let mut child = spawn(args, Stdio::null(), Stdio::piped());
    let lines: Vec<String> = std::io::BufReader::new(child.stdout.take().unwrap())
        .lines()
        .take(count)
        .map(|line| line.expect("a line"))
        .collect();
    let out = child.wait_with_output().expect("tabula ends");
    assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
    lines
}

/// Sets byte `offset` of the table file at `path`'s payload to `value` and
/// recomputes both checksums, so that only the record checks can tell.
pub fn tamper_payload(path: &Path, offset: usize, value: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    let start = u64::from_le_bytes(bytes[80..88].try_into().unwrap()) as usize;
    let len = u64::from_le_bytes(bytes[88..96].try_into().unwrap()) as usize;
    bytes[start + offset] = value;
    let payload_hash = xxhash_rust::xxh3::xxh3_64(&bytes[start..start + len]);
    bytes[104..112].copy_from_slice(&payload_hash.to_le_bytes());
    let header_hash = xxhash_rust::xxh3::xxh3_64(&bytes[..120]);
    bytes[120..128].copy_from_slice(&header_hash.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

/// Whether a test that needs `what` (such as Chromium) can run: when it is
/// missing, the test says so on one line and is skipped, unless the
/// environment variable `require` is `1` (as `scripts/test` sets it), which
/// makes it fail instead, so that a full run cannot pass without it.
pub fn needs(what: &str, available: bool, require: &str) -> bool {
    if available {
        return true;
    }
    assert!(
        std::env::var_os(require).is_none_or(|v| v != "1"),
        "{what} is missing and {require}=1 requires it"
    );
    // Straight to stderr: the test harness captures only the print macros.
    let _ = writeln!(
        std::io::stderr(),
        "skipped (no {what}): scripts/test installs it and runs this test"
    );
    false
}

/// Writes the log of `referee ioiwari --agent random --all` (every official
/// board, random play) to `dir/games.jsonl` and returns its path.
pub fn random_ioiwari_log(dir: &Path) -> std::path::PathBuf {
    let log = dir.join("games.jsonl");
    let out = tabula()
        .args(["referee", "ioiwari", "--agent", "random", "--all", "--log"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    log
}

/// The browser for the browser tests, or `None` when they are skipped:
/// `TABULA_SKIP_BROWSER=1` skips them; Chromium is `/usr/bin/chromium` or the
/// path in `TABULA_CHROMIUM`, and without it they are skipped on one line
/// (or fail under `TABULA_REQUIRE_BROWSER=1`, see [`needs`]).
pub fn chromium() -> Option<std::path::PathBuf> {
    if std::env::var_os("TABULA_SKIP_BROWSER").is_some_and(|v| v == "1") {
        println!("skipped: TABULA_SKIP_BROWSER=1");
        return None;
    }
    let path = std::env::var_os("TABULA_CHROMIUM")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/usr/bin/chromium"));
    let what = format!("Chromium at {} (or TABULA_CHROMIUM)", path.display());
    needs(&what, path.is_file(), "TABULA_REQUIRE_BROWSER").then_some(path)
}

/// A `tabula explore` server on a free loopback port, killed when dropped;
/// its address (`127.0.0.1:PORT`).
pub struct Explorer(std::process::Child, pub String);

impl Drop for Explorer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `tabula explore ARGS --port 0` and reads the address it prints.
pub fn explore(args: &[&str]) -> Explorer {
    use std::io::BufRead;
    let mut child = tabula()
        .arg("explore")
        .args(args)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let address = first
        .split("http://")
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches('/')
        .to_string();
    assert!(address.starts_with("127.0.0.1:"), "{first}");
    Explorer(child, address)
}

/// The log of `tabula ARGS --log FILE` in `dir`, and its lines.
pub fn log_of(dir: &std::path::Path, args: &str) -> (std::path::PathBuf, Vec<serde_json::Value>) {
    let log = dir.join("games.jsonl");
    let out = tabula()
        .args(words(args))
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args}: {}", stderr(&out));
    let lines = json_lines(&std::fs::read_to_string(&log).unwrap());
    (log, lines)
}

/// Plants a symbolic link at `link` to a file `target` that holds "keep me".
pub fn planted_link(target: &Path, link: &Path) {
    std::fs::write(target, "keep me").unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Makes a FIFO at `path` with `mkfifo`.
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// The header of a crafted table: `game` and `params`, `entries` records of
/// `value_bytes` and `mask_bytes` each.
pub fn table_spec(
    game: &'static str,
    params: [u32; 4],
    value_bytes: u8,
    mask_bytes: u8,
    entries: u64,
) -> tabula_tables::TableSpec {
    let layout = tabula_tables::Layout {
        value_bytes,
        mask_bytes,
    };
    tabula_tables::TableSpec {
        game,
        params,
        layout,
        entries,
    }
}

/// Checks that `text` (what a command wrote) contains `part`.
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} is missing from: {text}");
}

/// Checks that `tabula query GAME --table TABLE --batch` answers each line
/// of `positions` as the export's line for it in `exported` says, by `keys`.
pub fn assert_batch_answers(
    [game, table]: [&str; 2],
    positions: &str,
    exported: &[impl std::borrow::Borrow<serde_json::Value>],
    keys: [&str; 2],
) {
    let query = ["query", game, "--table", table, "--batch"];
    let answers = json_lines(&stdout(&run_with_input(&query, positions)));
    assert_eq!(answers.len(), exported.len());
    for (line, answer) in exported.iter().map(|line| line.borrow()).zip(&answers) {
        for key in keys {
            assert_eq!(line[key], answer[key], "{line} / {answer}");
        }
    }
}

/// The elements of a JSON array, each written as JSON (a number as its digits).
pub fn json_items(array: &serde_json::Value) -> Vec<String> {
    let items = array.as_array().expect("a JSON array");
    items.iter().map(|item| item.to_string()).collect()
}

/// The strings of a JSON array of strings.
pub fn json_strs(array: &serde_json::Value) -> Vec<&str> {
    let items = array.as_array().expect("a JSON array");
    items
        .iter()
        .map(|s| s.as_str().expect("a string"))
        .collect()
}

/// A new temporary directory (removed when dropped) and the path of a file
/// `name` in it, as text for a command line.
pub fn temp_file(name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name).to_str().unwrap().to_owned();
    (dir, path)
}

/// Checks that the plot drawn at `path` shows each of `labels` as text.
pub fn assert_plot_labels(path: &Path, labels: &[&str]) {
    let svg = std::fs::read_to_string(path).unwrap();
    let text = tabula_verify::plot::svg_text(&svg).unwrap_or_else(|e| panic!("{e}"));
    for label in labels {
        assert!(text.contains(label), "{label} missing from {text}");
    }
}

/// The four numbers after the first `skip` words of a result line with no fault.
pub fn four_numbers(line: &str, skip: usize) -> [f64; 4] {
    let words = line.split(' ').skip(skip);
    let numbers: Vec<f64> = words.map(|w| w.parse().unwrap()).collect();
    numbers
        .try_into()
        .unwrap_or_else(|_| panic!("{line}: no fault expected"))
}
