//! The documentation's examples cannot go stale: every `console` block of the
//! README and of `docs/` is run, each `$ ` command through `sh` with the test
//! build's `tabula` first on the PATH, in a fresh directory per page (so a
//! page's later blocks see the files its earlier ones wrote), and the output
//! shown under a command is compared with what it printed (stdout, then
//! stderr), `[..]` matching the rest of a line and a line `...` any lines.
//! A last line `? N` says the command exits with status N (0 otherwise); a
//! command with no output shown must only succeed. A shell block that is not
//! run (`console,ignore`, or `sh`) and names `tabula` must say why, in a
//! comment `<!-- not run: REASON -->` on the line before it.

mod docs_support;

use std::path::Path;
use std::process::{Command, Stdio};

use docs_support::{Block, blocks, pages, read_page};
use snapbox::{Assert, Data};

/// Whether a block holds shell commands: its language says so, or an
/// unlabelled block starts a line with the prompt `$ `.
fn is_shell(block: &Block) -> bool {
    match block.language() {
        "console" | "sh" | "shell" | "bash" => true,
        "" => block.body.iter().any(|line| line.starts_with("$ ")),
        _ => false,
    }
}

/// Whether the block names the `tabula` binary in a command (not a comment).
fn names_tabula(block: &Block) -> bool {
    block.body.iter().any(|line| {
        let command = line.split(" #").next().unwrap_or("");
        !line.trim_start().starts_with('#') && command.contains("tabula ")
    })
}

/// Whether the test runs the block.
fn runs(block: &Block) -> bool {
    block.language() == "console" && !block.ignored() && block.not_run.is_none()
}

#[test]
fn every_tabula_command_in_a_shell_block_is_run_or_says_why_not() {
    let mut problems = Vec::new();
    for page in pages() {
        for block in blocks(&read_page(&page)) {
            if runs(&block) && !block.body.iter().any(|line| line.starts_with("$ ")) {
                problems.push(format!(
                    "{}:{}: a console block runs only the lines that start with `$ `, and this one has none",
                    page.display(),
                    block.line
                ));
            }
            if !is_shell(&block) || runs(&block) || !names_tabula(&block) {
                continue;
            }
            let place = format!("{}:{}", page.display(), block.line);
            if block.not_run.is_none() {
                problems.push(format!(
                    "{place}: a shell block naming tabula is neither a `console` block (run by this test) nor preceded by `<!-- not run: REASON -->`"
                ));
            } else if block.language().is_empty() {
                problems.push(format!(
                    "{place}: label the block `console` (its lines start with `$ `)"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// One command of a console block and what the page shows of its run.
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
    status: i32,
}

/// The commands of a console block: `$ ` starts one (a line ending in `\`
/// continues it), the lines up to the next `$ ` are its output.
fn examples(block: &Block) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut continued = false;
    for (offset, line) in block.body.iter().enumerate() {
        if continued && let Some(example) = examples.last_mut() {
            example.command.push('\n');
            example.command.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                line: block.line + 1 + offset,
                command: command.to_string(),
                expected: Vec::new(),
                status: 0,
            });
            continued = command.ends_with('\\');
        } else if let Some(example) = examples.last_mut() {
            match line.strip_prefix("? ").map(str::parse) {
                Some(Ok(status)) => example.status = status,
                _ => example.expected.push(line.clone()),
            }
        }
    }
    examples
}

/// Runs one example in `dir`; a description of what went wrong, if anything did.
fn check(example: &Example, dir: &Path, place: &str) -> Option<String> {
    let binary = Path::new(env!("CARGO_BIN_EXE_tabula"));
    let path = std::env::var("PATH").unwrap_or_default();
    let bin_dir = binary.parent().expect("the binary's directory").display();
    let output = Command::new("sh")
        .arg("-c")
        .arg(&example.command)
        .current_dir(dir)
        .env("PATH", format!("{bin_dir}:{path}"))
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let status = output.status.code().unwrap_or(-1);
    if status != example.status {
        return Some(format!(
            "{place}: `{}` exited with {status}, the page says {}:\n{printed}",
            example.command, example.status
        ));
    }
    if example.expected.iter().all(|line| line.trim().is_empty()) {
        return None;
    }
    let expected = example.expected.join("\n") + "\n";
    let label = format!("{place}: `{}`", example.command);
    Assert::new()
        .try_eq(Some(&label), Data::text(printed), Data::text(expected))
        .err()
        .map(|error| format!("{label}\n{error}"))
}

#[test]
fn console_blocks_run_and_print_what_they_show() {
    let mut problems = Vec::new();
    let mut ran = 0;
    for page in pages() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for block in blocks(&read_page(&page)).iter().filter(|b| runs(b)) {
            for example in examples(block) {
                let place = format!("{}:{}", page.display(), example.line);
                problems.extend(check(&example, dir.path(), &place));
                ran += 1;
            }
        }
    }
    assert!(ran > 0, "no console block was found");
    assert!(problems.is_empty(), "\n{}", problems.join("\n\n"));
}
