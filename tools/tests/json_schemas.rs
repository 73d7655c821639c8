//! Every report's JSON starts alike, `run` and `game`: the schema of that
//! start, docs/schemas/report.schema.json, is generated from the Rust types
//! (schemars) and checked against the real `--json -` output of a small run
//! of every verb and game. `TABULA_UPDATE_SCHEMAS=1 cargo test -p
//! tabula-tools --test json_schemas` writes it anew after a change.

mod common;

use std::path::PathBuf;

use common::{run, words};
use tabula_verify::report::ReportStart;

/// A small run of every command that writes a report, by game, as a command line.
const RUNS: &[(&str, &str)] = &[
    ("ioiwari", "verify ioiwari --games 2"),
    (
        "ioiwari",
        "sweep ioiwari --pits 5 --cap 4 --beads 10 --games 2",
    ),
    ("ioiwari", "referee ioiwari --agent greedy1"),
    ("kalah", "verify kalah --pits 2 --seeds 2 --games 2"),
    ("kalah", "sweep kalah --pits 1..2 --seeds 1..2"),
    ("kalah", "referee kalah --agent greedy --pits 2 --seeds 2"),
    (
        "tothello",
        "verify tothello --openings 1 --depths 1 --exact 4",
    ),
    ("tonga", "verify tonga --sizes 4 --games 1"),
    ("tonga", "referee pseudotonga --agent greedy --sizes 4"),
    (
        "dominoes",
        "verify dominoes --cases 5:4 --games 2 --players random --opponents random",
    ),
    (
        "dominoes",
        "referee dominoes --agent random --cases 5:4 --games 2",
    ),
    (
        "reversi",
        "verify reversi --sizes 7 --cases 1 --generations 1 --ga-games 2 --players random",
    ),
    (
        "reversi",
        "referee multiplayerreversi --agent random --sizes 7 --cases 1 --generations 1 --ga-games 2",
    ),
    ("nim", "verify nim --games 2"),
    ("nim", "referee nim --agent random"),
];

/// The schema as schemars gives it, pretty-printed with a final newline.
fn generated() -> String {
    let schema = schemars::schema_for!(ReportStart);
    serde_json::to_string_pretty(&schema).unwrap() + "\n"
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/report.schema.json");
    let schema = generated();
    if std::env::var_os("TABULA_UPDATE_SCHEMAS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        committed == schema,
        "docs/schemas/report.schema.json is not the generated schema: run \
         TABULA_UPDATE_SCHEMAS=1 cargo test -p tabula-tools --test json_schemas"
    );
}

/// The report `tabula ARGS --json -` printed, as text.
fn report(args: &[&str]) -> String {
    let out = run(&[args, &["--json", "-"]].concat());
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_report_starts_with_its_run_and_game() {
    let schema: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let mut tothello = common::tabula();
    let serve = format!("{} serve tothello", env!("CARGO_BIN_EXE_tabula"));
    tothello.args([
        "referee", "tothello", "--cases", "2", "--json", "-", "--player", &serve,
    ]);
    let out = tothello.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checker = String::from_utf8(out.stdout).unwrap();
    let reports = RUNS
        .iter()
        .map(|(game, line)| (*game, words(line), report(&words(line))))
        .chain([("tothello", vec!["referee", "tothello"], checker)]);
    for (game, args, text) in reports {
        let json: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:?}\n{json}");
        // The same two keys first: `run`, then `game` after its last line.
        assert!(text.starts_with("{\n  \"run\": {\n"), "{args:?}: {text}");
        let after_run = text.find("\n  },\n").expect("the end of run");
        assert!(
            text[after_run..].starts_with("\n  },\n  \"game\": "),
            "{args:?}: {text}"
        );
        assert_eq!(json["game"], game, "{args:?}");
        assert_eq!(json["run"]["verb"], args[0], "{args:?}");
    }
}
