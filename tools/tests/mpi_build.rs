//! `tabula build ... --distributed` under `mpiexec -n 2` writes the same table
//! as one process. It needs the `mpi` feature and MPICH's `mpiexec`: without
//! them each test says on one line that it was skipped, or fails when
//! `TABULA_REQUIRE_MPI=1` (as `scripts/test`, which installs MPICH, sets it).

mod common;

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
    for build in builds {
        let (alone, shared) = (dir.path().join("alone.tab"), dir.path().join("shared.tab"));
        let mut args = build.to_vec();
        if !build.contains(&"--max-seeds") {
            args.push("--out-of-core");
        }
        args.extend(["-o", alone.to_str().unwrap()]);
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr(&out));

        let mut args = build.to_vec();
        args.extend(["--distributed", "-o", shared.to_str().unwrap()]);
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

        assert_eq!(file_checksum(&alone), file_checksum(&shared), "{build:?}");
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
