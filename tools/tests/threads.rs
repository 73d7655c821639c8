//! A report depends on its seed only: every `verify` gives the same JSON on
//! one thread as on three, where games end in another order.

mod common;
use common::{stderr, stdout, tabula, words};

/// The JSON report of `tabula verify GAME ARGS --json -` on `threads` threads.
fn report(threads: usize, game: &str, args: &[&str]) -> String {
    let out = tabula()
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args(["verify", game])
        .args(args)
        .args(["--json", "-"])
        .output()
        .expect("tabula runs");
    assert!(out.status.success(), "verify {game}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn every_verify_gives_the_same_report_on_one_thread_and_on_three() {
    let runs: [(&str, &[&str]); 7] = [
        ("ioiwari", &["--games", "12", "--seed", "5"]),
        (
            "tothello",
            &["--openings", "2", "--depths", "1,2", "--seed", "5"],
        ),
        ("tonga", &["--sizes", "6", "--games", "3", "--seed", "5"]),
        (
            "dominoes",
            &["--cases", "5:4,7:5", "--games", "12", "--seed", "5"],
        ),
        (
            "reversi",
            &words("--sizes 7 --cases 2 --players greedy,best,oracle --seed 5"),
        ),
        ("nim", &["--games", "12", "--seed", "5"]),
        (
            "kalah",
            &[
                "--pits", "2..3", "--seeds", "2..3", "--games", "12", "--seed", "5",
            ],
        ),
    ];
    for (game, args) in runs {
        let one = report(1, game, args);
        serde_json::from_str::<serde_json::Value>(&one)
            .unwrap_or_else(|e| panic!("verify {game}: {e}: {one}"));
        assert_eq!(report(3, game, args), one, "verify {game}");
    }
}
