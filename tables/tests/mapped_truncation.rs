//! A mapped table truncated under a running process ends it with exit status 2
//! and one line naming the file, never with a signal.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

use tabula_tables::format::table_bytes;
use tabula_tables::{Layout, Meta, Table, TableSpec};

/// Set in the child: the table it maps.
const CHILD_ENV: &str = "TABULA_TEST_MAPPED_TABLE";
const MAPPED: &str = "TABLE-MAPPED";
/// Set in the child instead: the table it builds, truncating it midway.
const BUILD_ENV: &str = "TABULA_TEST_BUILT_TABLE";

/// A table of 2^20 two-byte records.
fn big_spec() -> TableSpec {
    TableSpec {
        game: "big",
        params: [0; 4],
        layout: Layout {
            value_bytes: 1,
            mask_bytes: 1,
        },
        entries: 1 << 20,
    }
}

/// This test binary, run as the ignored child alone.
fn child_run() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([
        "--exact",
        "mapped_table_child",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    command
}

/// Builds a table into a memory map of its temporary file and, midway,
/// truncates that file as another program could, then writes on.
fn build_truncated_under_the_builder(path: &Path) {
    let spec = big_spec();
    let dir = path.parent().unwrap();
    let result = tabula_tables::format::write_table_mapped(path, &spec, "", |records, _| {
        let temporary = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(".tabula-tmp-")
            })
            .expect("the build's temporary file");
        // Opening to write with truncation cuts the file in place, as `truncate -s 0`.
        fs::File::create(temporary).unwrap();
        for record in records {
            record.store(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok::<(), ()>(())
    });
    println!("built {result:?}");
    std::process::exit(0);
}

#[test]
#[ignore = "the child of truncating_a_mapped_table_ends_with_status_2"]
fn mapped_table_child() {
    if let Some(path) = std::env::var_os(BUILD_ENV) {
        return build_truncated_under_the_builder(Path::new(&path));
    }
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    // SAFETY: this test is about the file changing while mapped; the guard turns that into exit 2.
    let table = unsafe { Table::map(Path::new(&path)) }.unwrap();
    println!("{MAPPED}");
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    let sum: i64 = (0..table.len()).map(|i| i64::from(table.value(i))).sum();
    println!("sum {sum}");
    std::process::exit(0);
}

#[test]
fn truncating_a_mapped_table_ends_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.tab");
    let spec = big_spec();
    let payload = vec![1u8; 2 << 20];
    fs::write(&path, table_bytes(&spec, &Meta::default(), &payload)).unwrap();

    let mut child = child_run()
        .env(CHILD_ENV, &path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut from_child = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            from_child.read_line(&mut line).unwrap() > 0,
            "the child ended before mapping the table"
        );
        if line.trim_end().ends_with(MAPPED) {
            break;
        }
    }
    // In place, under the child's map (see build_truncated_under_the_builder).
    fs::File::create(&path).unwrap();
    let mut to_child = child.stdin.take().unwrap();
    // The child may be gone already; a broken pipe is its business.
    let _ = to_child.write_all(b"go\n");
    drop(to_child);
    let mut rest = String::new();
    from_child.read_to_string(&mut rest).unwrap();
    let mut errors = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        None,
        "killed by a signal; stderr: {errors}"
    );
    assert_eq!(status.code(), Some(2), "stdout: {rest} stderr: {errors}");
    let expected = format!(
        "error: {}: table file changed or truncated while in use",
        path.display()
    );
    assert!(errors.lines().any(|l| l == expected), "stderr: {errors}");
    assert!(!rest.contains("sum"), "read a truncated table: {rest}");
}

#[test]
fn truncating_a_table_being_built_ends_with_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("built.tab");
    let out = child_run()
        .env(BUILD_ENV, &path)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal; stderr: {stderr}"
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {stdout} stderr: {stderr}"
    );
    let expected = format!(
        "error: {}: the table being built was truncated by another program",
        path.display()
    );
    assert!(stderr.lines().any(|l| l == expected), "stderr: {stderr}");
    assert!(!stdout.contains("built"), "the build went on: {stdout}");
    assert!(!path.exists(), "no table at the path");
}
