//! Progress bars for long runs (shown on a terminal only).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting `total` items, hidden when stderr is not a terminal or in CI.
pub fn bar(total: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    if std::env::var_os("CI").is_some() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({eta})")
            .expect("valid template"),
    );
    bar.set_message(what.to_string());
    bar
}
