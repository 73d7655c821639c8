//! The committed man page, docs/man/tabula.1, is the one the clap definitions
//! give (`tabula man`); `TABULA_UPDATE_MAN=1 cargo test -p tabula-tools --test
//! man_page` writes it anew after a change to the command line.

mod common;

use std::path::PathBuf;

use common::run;

#[test]
fn the_committed_man_page_is_up_to_date() {
    let out = run(&["man"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = String::from_utf8(out.stdout).expect("roff is text");
    assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{page}");
    assert!(page.contains("tabula\\-referee") || page.contains("referee"));
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/man/tabula.1");
    if std::env::var_os("TABULA_UPDATE_MAN").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &page).unwrap();
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        committed == page,
        "docs/man/tabula.1 is not what `tabula man` prints: run \
         TABULA_UPDATE_MAN=1 cargo test -p tabula-tools --test man_page"
    );
}
