//! Every output (`-o`, `--json`, `--log`, `--transcript`, `--plot`, `--out`)
//! is checked in one place before any work: a symlink, FIFO, device or
//! directory is refused, as is a missing directory, with one line naming the
//! option and the path. Logs and transcripts grow under `FILE.part` and are
//! renamed into place when the run ends.

mod common;

use std::fs;
use std::path::Path;

use common::{
    assert_contains, mkfifo, planted_link, run, run_ok, run_or_kill, stderr, stdout, tabula,
    temp_file, words,
};

/// Commands with an output, `{}` standing for the path; each would work
/// for seconds (or print its report) before writing it.
const WRITERS: &[(&str, &str)] = &[
    ("build dominoes -o {}", "--output"),
    ("build ioiwari --pits 10 --cap 5 -o {}", "--output"),
    ("build tonga -o {}", "--output"),
    ("verify ioiwari --games 1 --json {}", "--json"),
    ("sweep kalah --pits 1..2 --seeds 1..2 --json {}", "--json"),
    (
        "referee dominoes --agent random --cases 5:4 --games 2 --json {}",
        "--json",
    ),
    (
        "reversi evolve --size 7 --generations 1 --ga-games 1 --json {}",
        "--json",
    ),
    ("dominoes train --generations 1 --games 2 --out {}", "--out"),
    ("referee ioiwari --agent random --log {}", "--log"),
    (
        "referee ioiwari --agent random --transcript {}",
        "--transcript",
    ),
    ("verify tothello --openings 1 --depths 1 --log {}", "--log"),
    ("verify nim --games 1 --plot {}", "--plot"),
    ("replay no-such.jsonl -o {}", "--output"),
];

/// Exit status 2, one stderr line that starts `error: START`, and nothing on
/// stdout, from `tabula ARGS`.
fn assert_refused_in_one_line(out: &std::process::Output, args: &[&str], start: &str) {
    common::assert_error_line_starting(out, &format!("{args:?}"), start);
    assert_eq!(stdout(out), "", "{args:?}");
}

#[test]
fn bad_output_paths_are_refused_with_one_line_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    planted_link(&dir.path().join("table.tab"), &dir.path().join("link"));
    mkfifo(&dir.path().join("fifo"));
    fs::create_dir(at("dir")).unwrap();
    let missing = at("nodir");
    let cases = [
        (at("link"), "is a symbolic link".to_string()),
        (at("fifo"), "is a FIFO".to_string()),
        (at("dir"), "is a directory".to_string()),
        ("/dev/null".to_string(), "is a device".to_string()),
        (
            format!("{missing}/x.svg"),
            format!("directory {missing} does not exist"),
        ),
    ];
    for (line, option) in WRITERS {
        for (path, problem) in &cases {
            let args: Vec<&str> = words(line)
                .into_iter()
                .map(|a| if a == "{}" { path.as_str() } else { a })
                .collect();
            let out = run_or_kill(&args).unwrap_or_else(|| panic!("{args:?} hangs"));
            // Nothing was played or reported.
            assert_refused_in_one_line(&out, &args, &format!("{option} {path}: {problem}"));
        }
    }
    assert_eq!(fs::read_to_string(at("table.tab")).unwrap(), "keep me");
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        4,
        "no files left"
    );
}

#[test]
fn a_refused_log_starts_no_player() {
    let dir = tempfile::tempdir().unwrap();
    let (target, link) = (dir.path().join("table.tab"), dir.path().join("link"));
    planted_link(&target, &link);
    let link = link.to_str().unwrap();
    let started = dir.path().join("started");
    let player = format!("touch '{}'; cat > /dev/null", started.display());
    for option in ["--log", "--transcript"] {
        let out = run(&["referee", "nim", "--player", &player, option, link]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert_contains(&stderr(&out), "is a symbolic link");
        assert!(!started.exists(), "{option}: the player was started");
    }
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep me");
}

/// `tabula referee nim` with `seat` (`--agent NAME` or `--player CMD`), a log and a transcript.
fn referee_nim(seat: &[&str], log: &str, transcript: &str) -> std::process::Output {
    let mut args = vec!["referee", "nim"];
    args.extend(seat);
    args.extend(["--log", log, "--transcript", transcript]);
    run(&args)
}

/// A new directory with an old log, `games.jsonl`, and the paths of that
/// log and of a transcript, `dialogue.txt`, in it.
fn old_log_and_transcript_path() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (log, transcript) = (at("games.jsonl"), at("dialogue.txt"));
    fs::write(&log, "old log\n").unwrap();
    (dir, log, transcript)
}

#[test]
fn a_failed_run_leaves_the_old_log_and_transcript() {
    let (dir, log, transcript) = old_log_and_transcript_path();
    fs::write(&transcript, "old transcript\n").unwrap();
    let (log, transcript) = (log.as_str(), transcript.as_str());
    // The agent is checked after the files are opened.
    let out = referee_nim(&["--agent", "nobody"], log, transcript);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(log).unwrap(), "old log\n");
    assert_eq!(fs::read_to_string(transcript).unwrap(), "old transcript\n");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    // A run that ends well replaces both, leaving no temporary file.
    let out = referee_nim(&["--agent", "optimal"], log, transcript);
    assert!(out.status.success(), "{}", stderr(&out));
    let games = tabula_verify::record::read_log(&fs::read_to_string(log).unwrap()).unwrap();
    let results = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("heap"))
        .count();
    assert!(results > 0 && games.len() == results, "{}", stdout(&out));
    assert_contains(&fs::read_to_string(transcript).unwrap(), "heap 5 seat 0");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_killed_run_leaves_its_lines_under_dot_part_and_the_next_run_keeps_them() {
    use std::os::unix::process::ExitStatusExt;
    let (dir, log, transcript) = old_log_and_transcript_path();
    let (log, transcript) = (log.as_str(), transcript.as_str());
    // The transcript's line for a request is written before the request is
    // sent, so once the player has read it, the line is in the file.
    let out = referee_nim(
        &["--player", "read request; kill -9 $PPID"],
        log,
        transcript,
    );
    assert_eq!(out.status.signal(), Some(9), "{}", stderr(&out));
    assert_eq!(fs::read_to_string(log).unwrap(), "old log\n");
    let part = format!("{transcript}.part");
    let lines = fs::read_to_string(&part).unwrap();
    assert!(lines.starts_with("> "), "{lines}");
    // The empty log.part holds nothing and is replaced; the transcript's is kept.
    assert_eq!(fs::read_to_string(format!("{log}.part")).unwrap(), "");
    let again = || referee_nim(&["--agent", "optimal"], log, transcript);
    let out = again();
    common::assert_one_line_error(
        &out,
        &format!(
            "--transcript {transcript}: {part} exists, left by a run that did not finish: move or remove it"
        ),
    );
    assert_eq!(fs::read_to_string(&part).unwrap(), lines);
    fs::remove_file(&part).unwrap();
    let out = again();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        fs::read_to_string(log)
            .unwrap()
            .starts_with("{\"game\":\"nim\"")
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn a_referee_logs_each_game_as_it_ends_not_when_its_case_ends() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    // A served player that kills the referee when the third game of the
    // first case is announced: the first two games have ended by then.
    let player = format!(
        "n=0; while read -r line; do case \"$line\" in reset*) n=$((n+1)); \
         [ $n -eq 3 ] && kill -9 $PPID;; esac; echo \"$line\"; done \
         | '{}' serve dominoes --agent random",
        env!("CARGO_BIN_EXE_tabula")
    );
    let out = run(&[
        "referee",
        "dominoes",
        "--player",
        &player,
        "--opponent",
        "random",
        "--cases",
        "5:4",
        "--games",
        "10",
        "--log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(out.status.signal(), Some(9), "{}", stderr(&out));
    let part = fs::read_to_string(dir.path().join("games.jsonl.part")).unwrap();
    let games = tabula_verify::record::read_log(&part).unwrap();
    let indices: Vec<usize> = games.iter().map(|game| game.game_index).collect();
    assert_eq!(indices, [0, 1], "{part}");
}

#[test]
fn a_second_run_leaves_a_running_runs_log_alone() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("games.jsonl");
    let (started, go) = (dir.path().join("started"), dir.path().join("go"));
    // The player starts after the log is open, then waits to be let go.
    let player = format!(
        "touch '{}'; while [ ! -e '{}' ]; do sleep 0.01; done; exit 3",
        started.display(),
        go.display()
    );
    let log = log.to_str().unwrap();
    let mut first = tabula()
        .args(["referee", "nim", "--player", &player, "--log", log])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let seen = common::eventually(|| started.exists().then_some(()));
    // Its empty log.part is held: a second run neither takes it over nor removes it.
    let second = run(&["referee", "nim", "--agent", "random", "--log", log]);
    fs::write(&go, "").unwrap();
    let status = first.wait().unwrap();
    assert!(seen.is_some(), "the first run's player never started");
    common::assert_one_line_error(
        &second,
        &format!("--log {log}: {log}.part is being written by another run"),
    );
    assert!(status.success(), "{status}");
    let games = tabula_verify::record::read_log(&fs::read_to_string(log).unwrap()).unwrap();
    assert!(games.iter().all(|g| g.seats[0] != "random"));
    assert!(!games.is_empty());
}

#[test]
fn a_log_cannot_be_named_where_another_output_or_log_grows() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let a = a.to_str().unwrap();
    let part = format!("{a}.part");
    let out = run(&["verify", "nim", "--log", a, "--json", &part]);
    common::assert_one_line_error(
        &out,
        &format!(
            "--json {part} and --log {a} (written as {part} until the run ends): two outputs cannot share a file"
        ),
    );
    let out = run(&["referee", "nim", "--agent", "random", "--log", &part]);
    common::assert_one_line_error(&out, &format!("--log {part}: ends in .part"));
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn two_outputs_naming_the_same_file_or_stdout_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let y = dir.path().join("y.json");
    let y = y.to_str().unwrap();
    // The same file spelled another way (a plot's is named .svg).
    let z = dir.path().join("z.svg");
    let z = z.to_str().unwrap();
    let z_again = dir.path().join("sub/../z.svg");
    let z_again = z_again.to_str().unwrap();
    for (args, first, second) in [
        (
            &["verify", "nim", "--json", y, "--log", y][..],
            format!("--json {y}"),
            format!("--log {y}"),
        ),
        (
            &["verify", "nim", "--json", z, "--plot", z_again],
            format!("--json {z}"),
            format!("--plot {z_again}"),
        ),
        (
            &["verify", "nim", "--json", "-", "--log", "-"],
            "--json -".into(),
            "--log -".into(),
        ),
        (
            &[
                "referee",
                "nim",
                "--agent",
                "optimal",
                "--log",
                y,
                "--transcript",
                y,
            ],
            format!("--log {y}"),
            format!("--transcript {y}"),
        ),
    ] {
        let out = run(args);
        assert_refused_in_one_line(&out, args, &format!("{first} and {second}: "));
    }
    assert!(!Path::new(y).exists());
}

#[test]
fn stdout_carrying_a_dialogue_takes_no_log() {
    // Without --player or --agent, player 1 talks over stdin/stdout.
    for option in ["--log", "--transcript"] {
        let out = common::run_with_input(&["referee", "ioiwari", option, "-"], "1\n");
        common::assert_one_line_error(&out, &format!("{option} -: stdout carries the dialogue"));
    }
}

#[test]
fn replay_refuses_to_overwrite_its_own_log() {
    let (dir, log) = temp_file("g.jsonl");
    let log = log.as_str();
    fs::create_dir(dir.path().join("sub")).unwrap();
    run_ok(&["referee", "nim", "--agent", "random", "--log", log], &[]);
    let before = fs::read(log).unwrap();
    let link = dir.path().join("link.jsonl");
    fs::hard_link(log, &link).unwrap();
    let again = dir.path().join("sub/../g.jsonl");
    for output in [log, again.to_str().unwrap(), link.to_str().unwrap()] {
        let out = run(&["replay", log, "-o", output]);
        common::assert_one_line_error(
            &out,
            &format!("{log} and --output {output}: the page would overwrite its own log"),
        );
        assert_eq!(fs::read(log).unwrap(), before, "{output}");
    }
}

#[test]
fn every_reports_json_says_how_its_run_was_made() {
    let runs: &[(&[&str], Option<u64>)] = &[
        (&["verify", "nim", "--games", "2", "--seed", "5"], Some(5)),
        (
            &[
                "dominoes", "deals", "--cases", "5:4", "--deals", "1", "--seed", "3",
            ],
            Some(3),
        ),
        (
            &[
                "verify", "kalah", "--pits", "1..2", "--seeds", "1..2", "--games", "2", "--seed",
                "6",
            ],
            Some(6),
        ),
        (
            &["sweep", "kalah", "--pits", "1..2", "--seeds", "1..2"],
            None,
        ),
        (
            &[
                "sweep", "ioiwari", "--pits", "5", "--cap", "4", "--beads", "10", "--games", "2",
            ],
            Some(2001),
        ),
        (
            &["verify", "ioiwari", "--games", "1", "--seed", "7"],
            Some(7),
        ),
        (
            &words("verify tonga --sizes 4 --games 1 --players random,greedy"),
            Some(6759),
        ),
        (
            &words("verify tothello --openings 1 --depths 1 --seed 8"),
            Some(8),
        ),
        (
            &words("verify reversi --sizes 7 --cases 1 --players random,greedy --seed 9"),
            Some(9),
        ),
        (
            &words(
                "verify dominoes --players random --opponents random --cases 5:4 --games 2 --seed 10",
            ),
            Some(10),
        ),
        (
            &[
                "referee", "reversi", "--agent", "greedy", "--sizes", "7", "--cases", "1",
                "--seed", "11",
            ],
            Some(11),
        ),
    ];
    for &(args, seed) in runs {
        let args: Vec<&str> = args.iter().copied().chain(["--json", "-"]).collect();
        let out = run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        let run = &json["run"];
        assert_eq!(run["version"], env!("CARGO_PKG_VERSION"), "{args:?}");
        assert_eq!(run["args"], serde_json::json!(args), "{args:?}");
        assert_eq!(run["seed"].as_u64(), seed, "{args:?}");
        let fields = json.as_object().expect("an object").len();
        assert!(fields > 1, "{args:?}: the report's own fields follow `run`");
    }
}
