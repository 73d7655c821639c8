//! A run stopped by a signal while it writes a file removes its temporary
//! file and exits with 128 + the signal; the target is not created.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod common;

/// Set in the child: the file it starts to write.
const CHILD_ENV: &str = "TABULA_TEST_STOPPED_WRITE";
const WRITING: &str = "HALF-WRITTEN";

/// The temporary files in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(tabula_tables::atomic::TEMP_PREFIX))
        .collect()
}

/// Gives a command's process the default action for SIGINT and SIGTERM: a
/// test run in the background (`cargo test &`) starts with SIGINT ignored,
/// and a stop handler rightly leaves an ignored signal ignored.
trait SignalsByDefault {
    fn signals_by_default(&mut self) -> &mut Self;
}

impl SignalsByDefault for Command {
    fn signals_by_default(&mut self) -> &mut Self {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec, only signal(2), which is async-signal-safe.
        unsafe {
            self.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            })
        }
    }
}

/// The child's exit status, or `None` if it still runs after a minute (a
/// hang, which then fails the test instead of stalling the run).
fn exit_within_a_minute(child: &mut Child) -> Option<ExitStatus> {
    let until = Instant::now() + Duration::from_secs(60);
    while Instant::now() < until {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[test]
#[ignore = "the child of a_stopped_write_leaves_no_temporary_file"]
fn stopped_write_child() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let result = tabula_tables::atomic::write_file(Path::new(&path), |out| {
        out.write_all(b"the first half")?;
        out.flush()?;
        println!("{WRITING}");
        std::io::stdout().flush()?;
        // The parent keeps our stdin open until we are stopped.
        std::io::stdin().read_line(&mut String::new())?;
        Ok(())
    });
    println!("not stopped: {result:?}");
    std::process::exit(0);
}

#[test]
fn a_stopped_write_leaves_no_temporary_file() {
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("page.html");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "stopped_write_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &target)
            .signals_by_default()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (_, lines) = common::said_until(child.stdout.take().unwrap(), WRITING);
        assert_eq!(temporaries(dir.path()).len(), 1, "the write's temporary");
        // Held open while the signal is handled: `wait` would close it, and
        // the child's read would end without the signal.
        let stdin = child.stdin.take();
        // SAFETY: kill only sends a signal to our own child.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let status = exit_within_a_minute(&mut child);
        drop(stdin);
        let status = status.unwrap_or_else(|| child.wait().unwrap());
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        assert_eq!(
            status.code(),
            Some(128 + signal),
            "{name}: {status}; {rest:?}"
        );
        assert_eq!(temporaries(dir.path()), Vec::<String>::new(), "{name}");
        assert!(!target.exists(), "{name}");
    }
}
