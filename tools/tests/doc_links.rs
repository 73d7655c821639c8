//! The documentation's relative links lead somewhere: every link and image of
//! the README and of `docs/` names a file that exists, and a `#anchor` names
//! a heading of its page; every page of `docs/` is reachable from the README.

mod docs_support;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Component, Path, PathBuf};

use docs_support::{anchors, link_targets, pages, prose_lines, read_page, repo_root};

/// A line with its inline code spans (`` `...` ``) taken out, so that code
/// that looks like a link is not read as one.
fn without_code_spans(line: &str) -> String {
    line.split('`')
        .enumerate()
        .filter(|(index, _)| index % 2 == 0)
        .map(|(_, part)| part)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `base/../x` as `x`: the path a relative link names from the root.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The relative links of a page, as (line, path from the root, anchor).
fn relative_links(page: &Path) -> Vec<(usize, PathBuf, String)> {
    let text = read_page(page);
    let dir = page.parent().unwrap_or(Path::new(""));
    let mut links = Vec::new();
    for (number, line) in prose_lines(&text) {
        for target in link_targets(&without_code_spans(line)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let resolved = if path.is_empty() {
                page.to_path_buf()
            } else {
                normalise(&dir.join(path))
            };
            links.push((number, resolved, anchor.to_string()));
        }
    }
    links
}

#[test]
fn relative_links_and_anchors_exist() {
    let root = repo_root();
    let mut problems = Vec::new();
    for page in pages() {
        for (line, target, anchor) in relative_links(&page) {
            let place = format!("{}:{line}", page.display());
            if !root.join(&target).exists() {
                problems.push(format!("{place}: no file {}", target.display()));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|ext| ext == "md")
                && !anchors(&read_page(&target)).contains(&anchor)
            {
                problems.push(format!(
                    "{place}: {} has no heading #{anchor}",
                    target.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_page_is_reachable_from_the_readme() {
    let mut reached = BTreeSet::new();
    let mut queue = VecDeque::from([PathBuf::from("README.md")]);
    while let Some(page) = queue.pop_front() {
        if !reached.insert(page.clone()) {
            continue;
        }
        for (_, target, _) in relative_links(&page) {
            if target.extension().is_some_and(|ext| ext == "md")
                && repo_root().join(&target).exists()
            {
                queue.push_back(target);
            }
        }
    }
    let unreached: Vec<_> = pages()
        .into_iter()
        .filter(|page| !reached.contains(page))
        .map(|page| page.display().to_string())
        .collect();
    assert!(
        unreached.is_empty(),
        "not reachable from README.md: {unreached:?}"
    );
}
