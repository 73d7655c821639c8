//! Nothing a player starts outlives the referee, however it detaches: in a
//! new session, by a double fork into a new session, or in a process group
//! of its own; and a player that exits while such a process holds its output
//! open is said to have exited, every time, not to have timed out.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use common::{run_or_kill, stderr, stdout, words};

/// How a hostile player's process leaves the player's process group.
#[derive(Clone, Copy)]
enum Detach {
    /// `setsid sleep N &`.
    Session,
    /// A child in a new session starts `sleep N` and exits: the sleep is orphaned.
    DoubleFork,
    /// `setpgrp` then `exec sleep N`, in the background.
    Group,
}

/// A number no other test's process sleeps for, to find the sleeper by its arguments.
fn unique_seconds() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}{:05}",
        7_000 + NEXT.fetch_add(1, Ordering::Relaxed),
        std::process::id() % 100_000
    )
}

/// Shell lines that start `sleep SECONDS` detached as `how` says, and append
/// a line to `started` once it is started.
fn detach(how: Detach, seconds: &str, started: &Path) -> String {
    let started = started.display();
    match how {
        // It keeps the player's output open, as the reproducer did.
        Detach::Session => format!("setsid sleep {seconds} &\necho started >> {started}"),
        Detach::DoubleFork => {
            format!("( setsid sh -c 'sleep {seconds} & echo started >> {started}' )")
        }
        Detach::Group => format!(
            "perl -e 'setpgrp(0, 0); exec \"sleep\", \"{seconds}\"' &\necho started >> {started}"
        ),
    }
}

/// The live processes (not zombies) whose command line is `sleep SECONDS`.
fn sleepers(seconds: &str) -> Vec<u32> {
    let wanted = format!("sleep\0{seconds}\0");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc")
        .expect("/proc lists the processes")
        .flatten()
    {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']));
        if cmdline == wanted.as_bytes() && !zombie {
            found.push(pid);
        }
    }
    found
}

/// Runs `tabula referee GAME ARGS --player P`, where P first starts a sleeper
/// detached as `how` says, then does `then`; checks that the sleeper was started
/// and is gone once the referee has exited, and returns the referee's stdout.
fn referee_with(how: Detach, game: &str, args: &[&str], then: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let seconds = unique_seconds();
    let started = dir.path().join("started");
    let player = dir.path().join("player.sh");
    let script = format!("#!/bin/sh\n{}\n{then}\n", detach(how, &seconds, &started));
    std::fs::write(&player, script).unwrap();
    let player = format!("sh {}", player.display());
    let out = run_or_kill(&[&["referee", game][..], args, &["--player", &player]].concat())
        .expect("the referee ends");
    let left = sleepers(&seconds);
    for &pid in &left {
        // Not left behind by a failing test.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    let starts = std::fs::read_to_string(&started).unwrap_or_default();
    assert!(
        starts.lines().count() >= 1,
        "the player started its sleeper: {}",
        stderr(&out)
    );
    assert!(
        left.is_empty(),
        "{} of {} sleepers outlived `referee {game}`: {left:?}",
        left.len(),
        starts.lines().count()
    );
    stdout(&out)
}

/// What a misbehaving player does once its sleeper is started: it writes
/// nonsense (read as an answer or as a line typed ahead, a fault either way)
/// and stays alive, so that its fault cannot become an exit.
const NONSENSE: &str = "echo nonsense\nexec sleep 600";

#[test]
fn ioiwari_kills_a_sleeper_in_a_new_session() {
    let report = referee_with(Detach::Session, "ioiwari", &["--timeout", "60"], NONSENSE);
    assert!(report.contains("'nonsense'"), "{report}");
}

#[test]
fn kalah_kills_a_double_forked_sleeper() {
    let args = ["--pits", "3", "--seeds", "2", "--timeout", "60"];
    let report = referee_with(Detach::DoubleFork, "kalah", &args, NONSENSE);
    assert!(
        report.contains("loss") && report.contains("'nonsense'"),
        "{report}"
    );
}

#[test]
fn tothello_kills_a_sleeper_in_a_group_of_its_own() {
    // The second example is not answered: a short limit ends it.
    let args = ["--cases", "0", "--timeout", "1"];
    let report = referee_with(Detach::Group, "tothello", &args, NONSENSE);
    assert!(report.contains("'nonsense'"), "{report}");
}

#[test]
fn tonga_kills_a_sleeper_of_a_player_that_times_out_and_says_time_out() {
    let args = ["--sizes", "4", "--games", "2", "--timeout", "1"];
    let report = referee_with(Detach::Session, "tonga", &args, "exec sleep 600");
    // Each game's fault is the time-out, nothing else (such as an exit).
    let games: Vec<&str> = report.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(games.len(), 2, "{report}");
    for game in games {
        assert!(
            game.contains("player timed out (game limit of 1 s)"),
            "{report}"
        );
    }
}

#[test]
fn dominoes_kills_sleepers_of_every_kind() {
    for how in [Detach::Session, Detach::DoubleFork, Detach::Group] {
        let args = ["--cases", "5:4", "--games", "1", "--timeout", "60"];
        let report = referee_with(how, "dominoes", &args, NONSENSE);
        assert!(report.contains("'nonsense'"), "{report}");
    }
}

#[test]
fn reversi_kills_a_double_forked_sleeper() {
    let args = words("--sizes 7 --cases 1 --generations 1 --ga-games 2 --timeout 60");
    let report = referee_with(Detach::DoubleFork, "reversi", &args, NONSENSE);
    assert!(report.contains("'nonsense'"), "{report}");
}

/// A player that answers once, then exits while its sleeper holds its output
/// open, has exited in every game, however its exit and the next request fall.
#[test]
fn a_player_that_exits_leaving_its_output_held_has_exited_every_time() {
    let args = ["--cases", "5:4,9:7", "--games", "2", "--timeout", "5"];
    let then = "read request\necho 0\nexit 0";
    let report = referee_with(Detach::Session, "dominoes", &args, then);
    let cases: Vec<&str> = report.lines().filter(|l| l.starts_with("case")).collect();
    assert_eq!(cases.len(), 2, "{report}");
    for case in cases {
        assert!(case.contains("player exited"), "{report}");
        assert!(!case.contains("timed out"), "{report}");
    }
}
