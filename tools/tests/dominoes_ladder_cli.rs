//! `tabula dominoes train` and `tabula dominoes ladder` through the binary.

mod common;

use common::{run, stderr, stdout};

#[test]
fn train_prints_the_weights_as_the_constant_and_as_json() {
    let args = [
        "dominoes",
        "train",
        "--generations",
        "2",
        "--games",
        "3",
        "--seed",
        "4",
    ];
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("pub const SHIPPED: Weights = ["), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(", // ")).count(), 12);
    assert!(stderr(&out).contains("generation 1:"), "{}", stderr(&out));
    let json = run(&[&args[..], &["--out", "-"]].concat());
    assert!(json.status.success(), "{}", stderr(&json));
    let value: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(value["weights"].as_array().map(Vec::len), Some(12));
    assert_eq!(value["config"]["seed"], 4);
    assert_eq!(value["history"].as_array().map(Vec::len), Some(2));
    // The same seed gives the same weights.
    assert_eq!(stdout(&run(&args)), text);
}

#[test]
fn ladder_reports_every_pair_of_built_in_players() {
    let out = run(&["dominoes", "ladder", "--games", "20", "--json", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let pairs = value.as_array().unwrap();
    assert_eq!(pairs.len(), 10, "five players");
    for pair in pairs {
        assert_eq!(pair["games"], 40);
        let wtl = ["wins", "ties", "losses"].map(|k| pair[k].as_u64().unwrap());
        assert_eq!(wtl.iter().sum::<u64>(), 40);
    }
    let bad = run(&["dominoes", "ladder", "--games", "0"]);
    assert!(!bad.status.success());
    let unknown = run(&["dominoes", "ladder", "--agents", "random,nobody"]);
    assert!(
        stderr(&unknown).contains("unknown agent"),
        "{}",
        stderr(&unknown)
    );
    let two = run(&[
        "dominoes",
        "ladder",
        "--agents",
        "server,blocker",
        "--games",
        "5",
    ]);
    assert!(two.status.success(), "{}", stderr(&two));
    assert!(
        stdout(&two).contains("| server | blocker  | 10    |"),
        "{}",
        stdout(&two)
    );
}
