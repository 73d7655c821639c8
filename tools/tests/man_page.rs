//! The committed man pages in docs/man/ are the ones the clap definitions
//! give: `tabula man` prints tabula.1, `tabula man --dir DIR` writes it and one
//! page per subcommand (tabula-referee-kalah.1, ...). `TABULA_UPDATE_MAN=1
//! cargo test -p tabula-tools --test man_page` writes them anew after a
//! change to the command line.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{generated_files_differ, run, stderr};

/// The `.1` files of a directory, by name.
fn pages_in(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_committed_man_pages_are_up_to_date() {
    let out = run(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let top = String::from_utf8(out.stdout).expect("roff is text");
    assert!(top.starts_with(".ie \\n(.g .ds Aq"), "{top}");

    let fresh = tempfile::tempdir().unwrap();
    let out = run(&["man", "--dir", fresh.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let pages = pages_in(fresh.path());
    assert_eq!(
        pages.get("tabula.1"),
        Some(&top),
        "--dir writes the page `tabula man` prints"
    );
    let kalah = &pages["tabula-referee-kalah.1"];
    assert!(kalah.contains("\\-\\-opponent"), "{kalah}");
    assert!(pages.contains_key("tabula-build-ioiwari.1"));
    assert!(
        !pages.contains_key("tabula-man.1"),
        "the hidden `man` has no page"
    );

    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/man");
    let differ = generated_files_differ(&docs, &pages, pages_in, "TABULA_UPDATE_MAN");
    assert!(
        differ.is_empty(),
        "docs/man/ is not what `tabula man --dir` writes ({differ:?}): run \
         TABULA_UPDATE_MAN=1 cargo test -p tabula-tools --test man_page"
    );
}
