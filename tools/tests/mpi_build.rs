//! `tabula build ... --distributed` under `mpiexec -n 2` writes the same table
//! as one process. It needs the `mpi` feature and MPICH's `mpiexec`: without
//! them each test says on one line that it was skipped, or fails when
//! `TABULA_REQUIRE_MPI=1` (as `scripts/test`, which installs MPICH, sets it).

mod common;

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::Duration;

use common::{output_or_kill, run, stderr, stdout};

/// Runs `mpiexec -n RANKS tabula ARGS`; a run still going after five minutes
/// is a hang, killed to fail the test rather than stall it.
fn mpiexec(ranks: u32, args: &[&str]) -> Output {
    let mut command = Command::new("mpiexec");
    command
        .args(["-n", &ranks.to_string(), env!("CARGO_BIN_EXE_tabula")])
        .args(args);
    output_or_kill(&mut command, Duration::from_secs(300))
        .expect("mpiexec runs (MPICH: apt-get install mpich)")
        .unwrap_or_else(|| panic!("mpiexec {args:?} hung: killed after 300 s"))
}

/// Whether the MPI tests can run here (see the module docs).
fn mpi_ready() -> bool {
    let require = "TABULA_REQUIRE_MPI";
    if !cfg!(feature = "mpi") {
        return common::needs("`--features mpi` build", false, require);
    }
    let found = Command::new("mpiexec").arg("--version").output().is_ok();
    common::needs("mpiexec (MPICH)", found, require)
}

fn file_checksum(path: &std::path::Path) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&std::fs::read(path).unwrap())
}

#[test]
fn two_ranks_write_the_single_process_tables() {
    if !mpi_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let builds: [&[&str]; 3] = [
        &["build", "ioiwari", "--pits", "9"],
        &["build", "kalah", "--pits", "3", "--seeds", "3"],
        &["build", "kalah", "--pits", "4", "--max-seeds", "10"],
    ];
    let every_way = builds
        .into_iter()
        .flat_map(|build| ["share", "whole"].map(|keep| (build, keep)));
    for (build, keep) in every_way {
        let (alone, shared) = (dir.path().join("alone.tab"), dir.path().join("shared.tab"));
        let mut args = build.to_vec();
        if !build.contains(&"--max-seeds") {
            args.push("--out-of-core");
        }
        args.extend(["-o", alone.to_str().unwrap()]);
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));

        let mut args = build.to_vec();
        args.extend(["--distributed", "--keep", keep]);
        args.extend(["-o", shared.to_str().unwrap()]);
        let out = mpiexec(2, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        // Rank 0 alone reports.
        let said = stdout(&out);
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(said.contains("with 2 MPI rank(s)"), "{said}");
        // Rank 0 says what the ranks sent each other.
        let told = stderr(&out);
        assert!(told.contains(" bytes a state between ranks"), "{told}");
        assert!(
            told.contains(" s in exchanges (waiting for the slowest rank"),
            "{told}"
        );
        // Both ranks of one machine solve in rank 0's file.
        let one_file = told.contains("every rank solved in rank 0's copy (the output file)");
        assert_eq!(one_file, keep == "whole", "{told}");

        assert_eq!(
            file_checksum(&alone),
            file_checksum(&shared),
            "{build:?} {keep}"
        );
        assert!(std::fs::read(&alone).unwrap() == std::fs::read(&shared).unwrap());
        let out = run(&["check", shared.to_str().unwrap()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains("ok ("), "{}", stdout(&out));
    }
}

#[test]
fn an_output_rank_0_cannot_write_fails_every_rank_without_a_hang() {
    if !mpi_ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("no/such/dir/t.tab");
    let out = mpiexec(
        2,
        &[
            "build",
            "ioiwari",
            "--pits",
            "8",
            "--distributed",
            "-o",
            target.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("no/such/dir"), "{err}");
    assert!(err.lines().all(|l| l.starts_with("error: ")), "{err}");
}

/// The latest layer a share state file lists a snapshot of.
fn latest_snapshot(state: &std::path::Path) -> Option<usize> {
    let text = std::fs::read_to_string(state).ok()?;
    let layers = text
        .lines()
        .filter_map(|line| line.strip_prefix("snapshot "));
    layers
        .filter_map(|rest| rest.split(' ').next()?.parse().ok())
        .max()
}

/// The processes whose command line holds `text` (read from `/proc`).
fn processes_with(text: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let line = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            String::from_utf8_lossy(&line).contains(text)
        })
        .collect()
}

/// Whether `pid` is gone or has exited (a zombie waiting for init to reap it).
fn exited(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat
                .rfind(')')
                .and_then(|end| stat[end + 1..].trim().chars().next());
            matches!(state, Some('Z' | 'X'))
        }
    }
}

/// Whether any process of group `pgid` is still alive.
fn group_alive(pgid: u32) -> bool {
    // SAFETY: signal 0 only asks whether the group exists; it sends nothing.
    unsafe { libc::kill(-(pgid as libc::pid_t), 0) == 0 }
}

#[test]
fn a_killed_build_goes_on_from_the_ranks_snapshots_to_the_same_bytes() {
    if !mpi_ready() {
        return;
    }
    for keep in ["share", "whole"] {
        killed_and_resumed(keep);
    }
}

/// A build whose ranks keep the table as `keep` says, killed and run again.
fn killed_and_resumed(keep: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (alone, shared) = (dir.path().join("alone.tab"), dir.path().join("shared.tab"));
    let build = ["build", "ioiwari", "--pits", "10", "--values-only"];
    let out = run(&[&build[..], &["-o", alone.to_str().unwrap()]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    // A snapshot after every layer; killed (every process of the job) once
    // both ranks have snapshotted layer 10 of 51.
    let distributed = ["--distributed", "--keep", keep];
    let args = [&build[..], &distributed, &["--snapshot-secs", "0"]].concat();
    let args = [&args[..], &["-o", shared.to_str().unwrap()]].concat();
    let mut job = Command::new("mpiexec")
        .args(["-n", "2", env!("CARGO_BIN_EXE_tabula")])
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .expect("mpiexec runs");
    let state = |rank: usize| {
        dir.path()
            .join(format!("shared.tab.rank-{rank}-of-2.state"))
    };
    let snapshotted = common::eventually(|| {
        let least = (0..2).map(|rank| latest_snapshot(&state(rank))).min()??;
        (least >= 10).then_some(least)
    });
    // The ranks run in sessions of their own: found before the kill, killed
    // too, and waited for until they have exited (their files are free).
    let ranks = processes_with(shared.to_str().unwrap());
    common::kill_group(job.id());
    for &rank in &ranks {
        // SAFETY: a signal to a process this test started (its command line
        // names the test's own temporary directory).
        unsafe { libc::kill(rank as libc::pid_t, libc::SIGKILL) };
    }
    let _ = job.wait();
    let pgid = job.id();
    assert!(common::eventually(|| (!group_alive(pgid)).then_some(())).is_some());
    for rank in ranks {
        let gone = common::eventually(|| exited(rank).then_some(()));
        assert!(
            gone.is_some(),
            "rank process {rank} still runs a minute after the kill"
        );
    }
    let layer = snapshotted.expect("both ranks snapshot layer 10 within a minute");
    assert!(!shared.exists(), "the job ended before it was killed");
    // The same command, without a snapshot every layer: it goes on.
    let args = [&build[..], &distributed, &["-o", shared.to_str().unwrap()]].concat();
    let out = mpiexec(2, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let told = stderr(&out);
    assert!(told.contains("resumed: "), "{told}");
    assert!(
        told.contains("layers reused from every rank's snapshot"),
        "{told}"
    );
    let same = std::fs::read(&alone).unwrap() == std::fs::read(&shared).unwrap();
    assert!(same, "{keep}");
    // Nothing but the two tables is left.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "{keep} {layer}: {left:?}");
}
