//! The `tabula` binary end to end for Kalah and the Ioiwari variants: sweeps,
//! variant tables through build, check, info and query.

mod common;
use common::{run, stderr, stdout};

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("JSON alone on stdout")
}

#[test]
fn kalah_sweep_reproduces_the_published_results() {
    let report = json_of(&[
        "sweep",
        "kalah",
        "--pits",
        "1..3",
        "--seeds",
        "1..6",
        "--table-bits",
        "16",
        "--json",
        "-",
    ]);
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 18);
    // Irving, Donkers and Uiterwijk (2000), first player's result, n = 1..6.
    let published = ["DLWLWD", "WLLLWW", "DWWWWL"];
    for (m, expected) in published.iter().enumerate() {
        let got: String = rows[m * 6..(m + 1) * 6]
            .iter()
            .map(|r| {
                assert_eq!(r["pits"], m as u64 + 1);
                match r["value"].as_i64().unwrap().signum() {
                    1 => 'W',
                    0 => 'D',
                    _ => 'L',
                }
            })
            .collect();
        assert_eq!(&got, expected, "Kalah({}, 1..6)", m + 1);
    }
    assert_eq!(rows[17]["seeds"], 6);
}

#[test]
fn sweeps_plot_their_tables() {
    let dir = tempfile::tempdir().unwrap();
    let svg = |args: &[&str], labels: &[&str]| {
        let path = dir.path().join("plot.svg");
        let out = run(&[args, &["--plot", path.to_str().unwrap()]].concat());
        assert!(out.status.success(), "{}", stderr(&out));
        let svg = std::fs::read_to_string(&path).unwrap();
        let text = tabula_verify::plot::svg_text(&svg).unwrap_or_else(|e| panic!("{e}"));
        for label in labels {
            assert!(text.contains(label), "{label} missing from {text}");
        }
    };
    svg(
        &[
            "sweep",
            "kalah",
            "--pits",
            "1..2",
            "--seeds",
            "1..3",
            "--table-bits",
            "12",
        ],
        &[
            "Kalah(m, n)",
            "seeds per pit at the start (n)",
            "store margin",
            "m = 1 pits",
            "m = 2 pits",
            "n = 3",
        ],
    );
    svg(
        &[
            "sweep", "ioiwari", "--pits", "5", "--cap", "4", "--beads", "10..11", "--low", "1",
            "--high", "3", "--games", "2",
        ],
        &[
            "Ioiwari variants",
            "parameter set",
            "greedy1",
            "random",
            "optimal (ceiling)",
            "5 pits, cap 4, 10 beads 1..3",
            "5 pits, cap 4, 11 beads 1..3",
        ],
    );
}

#[test]
fn kalah_tables_build_check_and_answer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.tab");
    let file = path.to_str().unwrap();
    let out = run(&["build", "kalah", "--pits", "2", "--seeds", "3", "-o", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(&["check", file]);
    assert!(stdout(&out).contains("ok (kalah"), "{}", stderr(&out));
    let out = run(&["info", file]);
    assert!(stdout(&out).contains("parameters: [2, 3, 0, 0]"));
    // The table and the search agree on the start (Kalah(2, 3) is lost by 2).
    for extra in [vec!["--table", file], vec![]] {
        let mut args = vec!["query", "kalah", "--pits", "2", "--seeds", "3"];
        args.extend(extra);
        let out = run(&args);
        assert!(stdout(&out).contains("value: -2"), "{}", stdout(&out));
    }
    // A table of other rules is refused.
    let out = run(&[
        "query", "kalah", "--pits", "2", "--seeds", "2", "--table", file,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("table is for"), "{}", stderr(&out));
}

#[test]
fn ioiwari_sweep_default_gives_the_ioi_figures() {
    let report = json_of(&["sweep", "ioiwari", "--games", "5", "--json", "-"]);
    let row = &report["rows"][0];
    assert_eq!(row["instances"], 51);
    assert_eq!(row["optimal"]["wins"], 51);
    assert_eq!(row["greedy1_wins"], 22);
    assert_eq!(row["greedy1_draws"], 7);
    assert_eq!(row["missed"].as_array().unwrap().len(), 0);
    // The same seed, the same random figures.
    let again = json_of(&["sweep", "ioiwari", "--games", "5", "--json", "-"]);
    assert_eq!(again["rows"][0]["random_win_rate"], row["random_win_rate"]);
}

#[test]
fn ioiwari_sweep_ranges_give_one_row_per_set_and_skip_impossible_ones() {
    let out = run(&[
        "sweep", "ioiwari", "--pits", "5..6", "--cap", "4", "--beads", "10..12", "--low", "2",
        "--high", "3", "--games", "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // 5 pits: 10..12 beads ok (10..15); 6 pits: only 12 (12..18).
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("| 5") || l.starts_with("| 6"))
            .count(),
        4
    );
    assert!(text.contains("Skipped: 2 set(s)"), "{text}");
    let out = run(&["sweep", "ioiwari", "--pits", "9..5"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ioiwari_variant_tables_carry_their_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.tab");
    let file = path.to_str().unwrap();
    let out = run(&["build", "ioiwari", "--pits", "5", "--cap", "3", "-o", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&run(&["info", file])).contains("parameters: [5, 3, 0, 0]"));
    assert!(stdout(&run(&["check", file])).contains("1024 records consistent"));
    let out = run(&[
        "query",
        "ioiwari",
        "--pits",
        "5",
        "--cap",
        "3",
        "--table",
        file,
        "1 2 3 1 1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("optimal moves:"));
    // The IOI game's commands refuse it.
    let out = run(&["query", "ioiwari", "--table", file, "4 3 2 4 2 3 2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("table is for"), "{}", stderr(&out));
}
