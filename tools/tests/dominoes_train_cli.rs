//! `tabula dominoes train` through the binary.

mod common;

use common::{run, stderr, stdout, words};

#[test]
fn train_prints_the_weights_as_the_constant_and_as_json() {
    let args = words("dominoes train --generations 2 --games 3 --seed 4");
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
