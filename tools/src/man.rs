//! `tabula man`: the man pages from the clap definitions (clap_mangen).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Command};

/// Arguments of `tabula man`.
#[derive(Args)]
pub struct ManArgs {
    /// Write tabula.1 and one page per subcommand (tabula-referee-kalah.1, ...)
    /// into this directory, instead of printing tabula.1
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// The top-level page, as `tabula man` prints it.
pub fn top_page(root: Command) -> anyhow::Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(root).render(&mut page)?;
    Ok(page)
}

/// Every page: `tabula.1` first (as [`top_page`]), then one per visible
/// subcommand at any depth, named as clap_mangen's `generate_to` names them.
pub fn pages(root: Command) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut pages = vec![("tabula.1".to_string(), top_page(root.clone())?)];
    let mut built = root.disable_help_subcommand(true);
    // Built, every subcommand knows its full name (`tabula-referee-kalah`).
    built.build();
    let mut todo = visible_subcommands(&built);
    while let Some(cmd) = todo.pop() {
        let subs = visible_subcommands(&cmd);
        let man = clap_mangen::Man::new(cmd);
        let mut page = Vec::new();
        man.render(&mut page)?;
        pages.push((man.get_filename(), page));
        todo.extend(subs);
    }
    Ok(pages)
}

/// The subcommands of `cmd` that help shows, last first (popped in order).
fn visible_subcommands(cmd: &Command) -> Vec<Command> {
    let mut subs: Vec<Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    subs.reverse();
    subs
}

/// Writes every page into `dir`, each atomically, and says how many.
pub fn write_pages(root: Command, dir: &std::path::Path) -> anyhow::Result<()> {
    let pages = pages(root)?;
    for (name, page) in &pages {
        let path = dir.join(name);
        tabula_tables::atomic::write_file(&path, |out| out.write_all(page))
            .with_context(|| path.display().to_string())?;
    }
    crate::out::outln!("wrote {} man pages in {}", pages.len(), dir.display())?;
    Ok(())
}
