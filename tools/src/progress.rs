//! Progress for long runs: a bar on a terminal, and a plain line on stderr
//! every few seconds otherwise (logs of CI, pipes, `nohup`).

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// How often a progress line is printed when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// A bar counting `total` items: drawn on a terminal, printed as a line every
/// ten seconds when stderr is not one.
pub fn bar(total: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    if io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({eta})",
            )
            .expect("valid template"),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(Lines::default()),
            1,
        ));
        bar.set_style(
            ProgressStyle::with_template(
                "progress: {msg}: {pos}/{len} after {elapsed}, about {eta} left",
            )
            .expect("valid template"),
        );
    }
    bar.set_message(what.to_string());
    bar
}

/// A spinner for work whose size is unknown (a record check, an exact solve):
/// it shows the time spent, and when stderr is not a terminal it prints a
/// line every ten seconds. Finish it with `finish_and_clear`.
pub fn spinner(what: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    if io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
                .expect("valid template"),
        );
    } else {
        bar.set_draw_target(ProgressDrawTarget::term_like_with_hz(
            Box::new(Lines::default()),
            1,
        ));
        bar.set_style(
            ProgressStyle::with_template("progress: {msg}: still working after {elapsed}")
                .expect("valid template"),
        );
    }
    bar.set_message(what.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
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
        if due {
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
