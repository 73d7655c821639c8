//! Progress for long runs: a bar on a terminal, and a plain line on stderr
//! every few seconds otherwise (logs of CI, pipes, `nohup`).

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{
    HumanDuration, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike,
};

/// How often a progress line is printed when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// Set to `off`, no progress line is printed on a pipe. The test suite sets it
/// (`.cargo/config.toml`): on a loaded machine a slow step would otherwise add
/// a line to the stderr that a test compares.
const QUIET_VAR: &str = "TABULA_PROGRESS";

/// Whether progress lines on a pipe are switched off.
fn lines_off() -> bool {
    std::env::var_os(QUIET_VAR).is_some_and(|v| v == "off")
}

/// A bar counting `total` items: drawn on a terminal, printed as a line every
/// ten seconds when stderr is not one, whether or not the count has moved.
pub fn bar(total: usize, what: &str) -> ProgressBar {
    // Redrawn on a clock, not only when the count moves: the elapsed time and
    // the lines on a pipe go on through one long step (a large variant, a layer).
    drawn(
        ProgressBar::new(total as u64),
        what,
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({left})",
        "progress: {msg}: {pos}/{len} after {spent}, {left}",
        Duration::from_millis(500),
    )
}

/// `bar` showing `what`, redrawn every `tick`: by the `terminal` template on
/// a terminal, elsewhere by the `pipe` template as a line every [`LINE_EVERY`].
fn drawn(bar: ProgressBar, what: &str, terminal: &str, pipe: &str, tick: Duration) -> ProgressBar {
    if io::stderr().is_terminal() {
        bar.set_style(style(terminal));
    } else {
        bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(Lines::default()),
            1,
        ));
        bar.set_style(style(pipe));
    }
    bar.set_message(what.to_string());
    bar.enable_steady_tick(tick);
    bar
}

/// A style of `template`, whose `{spent}` and `{left}` are ours.
fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key("spent", time_spent)
        .with_key("left", time_left)
}

/// The time spent, to the second (indicatif's `{elapsed}` rounds 90 s to 2m).
fn time_spent(state: &ProgressState, out: &mut dyn std::fmt::Write) {
    let _ = write!(out, "{}", exact(state.elapsed()));
}

/// `13s`, `1m 30s`, `2h 5m 0s`.
fn exact(time: Duration) -> String {
    let seconds = time.as_secs();
    match (seconds / 3600, seconds / 60 % 60, seconds % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, s) => format!("{h}h {m}m {s}s"),
    }
}

/// The time left at the mean rate so far, once an item is done. (indicatif's
/// own estimate is 0 s before the first item and, between redraws on a clock,
/// grows by minutes while one long item runs.)
fn time_left(state: &ProgressState, out: &mut dyn std::fmt::Write) {
    let (done, total) = (state.pos(), state.len().unwrap_or(0));
    let _ = if done == 0 {
        write!(out, "no estimate yet")
    } else {
        let per_item = state.elapsed().as_secs_f64() / done as f64;
        let left = per_item * total.saturating_sub(done) as f64;
        write!(
            out,
            "about {:#} left",
            HumanDuration(Duration::from_secs_f64(left))
        )
    };
}

/// Runs `work`, which reports how many items it has done, on `bar`, and
/// clears the bar after.
pub fn tracked<T>(bar: ProgressBar, work: impl FnOnce(&(dyn Fn(usize) + Sync)) -> T) -> T {
    let result = work(&|done| bar.set_position(done as u64));
    bar.finish_and_clear();
    result
}

/// A spinner for work whose size is unknown (a record check, an exact solve):
/// it shows the time spent, and when stderr is not a terminal it prints a
/// line every ten seconds. Finish it with `finish_and_clear`.
pub fn spinner(what: &str) -> ProgressBar {
    drawn(
        ProgressBar::new_spinner(),
        what,
        "{spinner} {msg} [{elapsed_precise}]",
        "progress: {msg}: still working after {spent}",
        Duration::from_millis(200),
    )
}

/// A pretend terminal that prints at most one line every [`LINE_EVERY`].
#[derive(Debug, Default)]
struct Lines {
    last: Mutex<Option<Instant>>,
}

impl Lines {
    fn print(&self, text: &str) -> io::Result<()> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        // The first draw happens at the start: wait a period before the first line.
        let now = Instant::now();
        let due = match *last {
            None => {
                *last = Some(now);
                false
            }
            Some(at) => now.duration_since(at) >= LINE_EVERY,
        };
        if due && !lines_off() {
            *last = Some(now);
            // Best effort: a progress line lost to a full stderr harms nothing.
            let _ = writeln!(io::stderr(), "{text}");
        }
        Ok(())
    }
}

impl TermLike for Lines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _n: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _n: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _n: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _n: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.print(s)
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        self.print(s)
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_spent_is_exact_to_the_second() {
        let cases = [
            (13, "13s"),
            (90, "1m 30s"),
            (3599, "59m 59s"),
            (7500, "2h 5m 0s"),
        ];
        for (seconds, text) in cases {
            assert_eq!(exact(Duration::from_secs(seconds)), text);
        }
    }
}
