//! Every report's JSON starts alike, `run` and `game`: the schema of that
//! start, docs/schemas/report.schema.json, and one schema a command,
//! docs/schemas/<verb>-<game>.schema.json (what `tabula schemas` writes),
//! are generated from the Rust types (schemars) and checked against the
//! real `--json -` output of a small run of every command.
//! `TABULA_UPDATE_SCHEMAS=1 cargo test -p tabula-tools --test json_schemas`
//! writes them anew after a change.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{generated_files_differ, run, serve_command, words};
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
    ("tothello", "tothello cases --cases 2"),
    ("dominoes", "dominoes deals --cases 5:4 --deals 2"),
    (
        "reversi",
        "reversi evolve --size 7 --generations 1 --ga-games 2",
    ),
    (
        "reversi",
        "query reversi ......./......./..123../..231../..312../......./....... --mover 2 --case 0 --seed 3 --generations 1 --ga-games 2",
    ),
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

/// Every command's schema as `tabula schemas` writes it, by file name.
fn generated_per_command() -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["schemas", "--dir", dir.path().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    schema_files(dir.path())
}

/// The `<verb>-<game>.schema.json` files of a directory, by name (the
/// common start's `report.schema.json` apart).
fn schema_files(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .filter(|(name, _)| name.ends_with(".schema.json") && name != "report.schema.json")
        .map(|(name, p)| (name, std::fs::read_to_string(p).unwrap()))
        .collect()
}

#[test]
fn the_committed_schema_of_every_command_is_the_generated_one() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas");
    let schemas = generated_per_command();
    assert!(
        schemas.contains_key("verify-kalah.schema.json"),
        "{schemas:?}"
    );
    let differ = generated_files_differ(&docs, &schemas, schema_files, "TABULA_UPDATE_SCHEMAS");
    assert!(
        differ.is_empty(),
        "docs/schemas/ differs from the generated schemas in {differ:?}: run \
         TABULA_UPDATE_SCHEMAS=1 cargo test -p tabula-tools --test json_schemas"
    );
}

/// A validator for each command's schema, by its `<verb>-<game>` stem.
fn validators() -> BTreeMap<String, jsonschema::Validator> {
    generated_per_command()
        .into_iter()
        .map(|(name, text)| {
            let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
            let validator = jsonschema::validator_for(&schema)
                .unwrap_or_else(|e| panic!("{name} is no valid schema: {e}"));
            (name.trim_end_matches(".schema.json").to_string(), validator)
        })
        .collect()
}

/// What `validator` finds wrong in `json`, one line each.
fn errors(validator: &jsonschema::Validator, json: &serde_json::Value) -> Vec<String> {
    validator.iter_errors(json).map(|e| e.to_string()).collect()
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

/// `referee tothello` against `serve tothello`, its report as text.
fn tothello_checker() -> String {
    let mut tothello = common::tabula();
    let serve = serve_command("tothello");
    tothello.args([
        "referee", "tothello", "--cases", "2", "--json", "-", "--player", &serve,
    ]);
    let out = tothello.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_report_starts_with_its_run_and_game_and_matches_its_command_s_schema() {
    let schema: serde_json::Value = serde_json::from_str(&generated()).unwrap();
    let start = jsonschema::validator_for(&schema).expect("a valid schema");
    let mut per_command = validators();
    let reports = RUNS
        .iter()
        .map(|(game, line)| (*game, words(line), report(&words(line))))
        .chain([("tothello", vec!["referee", "tothello"], tothello_checker())]);
    let mut checked = Vec::new();
    for (game, args, text) in reports {
        let json: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let errors_of_start = errors(&start, &json);
        assert!(
            errors_of_start.is_empty(),
            "{args:?}: {errors_of_start:?}\n{json}"
        );
        // The same two keys first: `run`, then `game` after its last line.
        assert!(text.starts_with("{\n  \"run\": {\n"), "{args:?}: {text}");
        let after_run = text.find("\n  },\n").expect("the end of run");
        assert!(
            text[after_run..].starts_with("\n  },\n  \"game\": "),
            "{args:?}: {text}"
        );
        assert_eq!(json["game"], game, "{args:?}");
        // `tabula <game> <tool>` names its tool as the verb.
        let verb = if args[0] == game { args[1] } else { args[0] };
        assert_eq!(json["run"]["verb"], verb, "{args:?}");
        let name = format!("{verb}-{game}");
        let validator = per_command
            .get(&name)
            .unwrap_or_else(|| panic!("{args:?}: no schema {name}"));
        let wrong = errors(validator, &json);
        assert!(
            wrong.is_empty(),
            "{args:?} against {name}: {wrong:?}\n{json}"
        );
        checked.push(name);
    }
    // Every schema is held to a real output.
    per_command.retain(|name, _| !checked.contains(name));
    let unchecked: Vec<&String> = per_command.keys().collect();
    assert!(unchecked.is_empty(), "no run in RUNS for {unchecked:?}");
}

#[test]
fn a_report_that_strays_from_its_schema_fails_it() {
    let validators = validators();
    let kalah = &validators["verify-kalah"];
    let json: serde_json::Value =
        serde_json::from_str(&report(&words("verify kalah --pits 2 --seeds 2 --games 2"))).unwrap();
    assert_eq!(errors(kalah, &json), Vec::<String>::new());
    // A key renamed, a number as text, an unknown fault kind, no `run`.
    let mut renamed = json.clone();
    let lines = renamed.as_object_mut().unwrap().remove("lines").unwrap();
    renamed["rows"] = lines;
    let mut as_text = json.clone();
    as_text["lines"][0]["wdl"]["wins"] = "3".into();
    let mut no_run = json.clone();
    no_run.as_object_mut().unwrap().remove("run");
    for wrong in [renamed, as_text, no_run] {
        assert!(!errors(kalah, &wrong).is_empty(), "{wrong}");
    }
    let referee = &validators["referee-nim"];
    let mut json: serde_json::Value =
        serde_json::from_str(&report(&words("referee nim --agent random"))).unwrap();
    assert_eq!(errors(referee, &json), Vec::<String>::new());
    json["cases"][0]["fault_kind"] = "bogus".into();
    assert!(!errors(referee, &json).is_empty(), "{json}");
}
