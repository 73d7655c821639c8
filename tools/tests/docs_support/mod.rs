//! Reading the README and the guide in `docs/` for the documentation tests:
//! the pages, their fenced blocks, their headings' anchors and their links.

// Each test file uses only some of these helpers.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root (the tools crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tools crate sits in the repository")
        .to_path_buf()
}

/// Every Markdown page of the documentation: README.md, CHANGELOG.md and
/// `docs/**/*.md`, as paths relative to the root, sorted.
pub fn pages() -> Vec<PathBuf> {
    let root = repo_root();
    let mut pages = vec![PathBuf::from("README.md"), PathBuf::from("CHANGELOG.md")];
    collect_markdown(&root, Path::new("docs"), &mut pages);
    pages.sort();
    pages
}

fn collect_markdown(root: &Path, dir: &Path, pages: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(root.join(dir)).expect("docs/ is readable");
    for entry in entries {
        let entry = entry.expect("a docs/ entry");
        let relative = dir.join(entry.file_name());
        if entry.file_type().expect("its type").is_dir() {
            collect_markdown(root, &relative, pages);
        } else if relative.extension().is_some_and(|ext| ext == "md") {
            pages.push(relative);
        }
    }
}

/// One page's text.
pub fn read_page(page: &Path) -> String {
    fs::read_to_string(repo_root().join(page)).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

/// A fenced code block of a page.
#[derive(Debug)]
pub struct Block {
    /// The info string after the opening fence, as `console,ignore`.
    pub info: String,
    /// The line number (from 1) of the opening fence.
    pub line: usize,
    /// The lines between the fences.
    pub body: Vec<String>,
    /// The reason given by a `<!-- not run: REASON -->` comment just before the block.
    pub not_run: Option<String>,
}

impl Block {
    /// The info string's first word (`console`, `sh`, `json`, or empty).
    pub fn language(&self) -> &str {
        self.info.split([',', ' ']).next().unwrap_or("")
    }

    /// Whether the info string carries `ignore` (`console,ignore`).
    pub fn ignored(&self) -> bool {
        self.info.split([',', ' ']).any(|word| word == "ignore")
    }
}

/// The fenced code blocks of a page, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    let mut last_text_line = "";
    for (index, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if let Some(block) = open.as_mut() {
            if fence {
                blocks.extend(open.take());
            } else {
                block.body.push(line.to_string());
            }
        } else if fence {
            open = Some(Block {
                info: line.trim_start().trim_start_matches('`').trim().to_string(),
                line: index + 1,
                body: Vec::new(),
                not_run: not_run_reason(last_text_line),
            });
        } else if !line.trim().is_empty() {
            last_text_line = line;
        }
    }
    blocks
}

/// The reason of a `<!-- not run: REASON -->` comment, if the line is one.
fn not_run_reason(line: &str) -> Option<String> {
    let inner = line.trim().strip_prefix("<!--")?.strip_suffix("-->")?;
    let reason = inner.trim().strip_prefix("not run:")?.trim();
    (!reason.is_empty()).then(|| reason.to_string())
}

/// The lines of a page outside its fenced blocks, with their numbers (from 1).
pub fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// The anchors of a page's headings, as a forge makes them: lower case,
/// punctuation dropped, spaces as hyphens, `-1`, `-2` after repeats.
pub fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = Vec::new();
    for (_, line) in prose_lines(text) {
        let Some(title) = heading_title(line) else {
            continue;
        };
        let slug = slug(title);
        let count = seen.entry(slug.clone()).or_insert(0);
        anchors.push(if *count == 0 {
            slug
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    anchors
}

fn heading_title(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    line[hashes..].strip_prefix(' ').map(str::trim)
}

/// A heading's anchor.
pub fn slug(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The targets of a line's Markdown links and images, `[text](target)`.
pub fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or("");
        targets.push(target.to_string());
        rest = &after[end..];
    }
    targets
}
