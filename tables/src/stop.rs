//! What happens when the user stops a run with SIGINT, SIGTERM or SIGHUP:
//! every cleanup registered with [`on_stop`] runs, in the order registered,
//! then the program's [`last_words`], and the process exits with status
//! 128 + the signal. Until a cleanup is registered, a signal has its default
//! action: a run with nothing to clean up starts no watcher thread.
//!
//! The signal handler only writes the signal's number to a pipe; a watcher
//! thread reads it and runs the cleanups, so they may lock, allocate and
//! remove files. A signal that was ignored when the handling was installed
//! (`nohup`) stays ignored.

use std::sync::Mutex;

/// What to do before the process exits on a stop signal, given the signal.
pub type Cleanup = fn(signal: i32);

/// The cleanups, in the order registered.
static CLEANUPS: Mutex<Vec<Cleanup>> = Mutex::new(Vec::new());

/// What the program says when it is stopped, after the cleanups.
static LAST_WORDS: Mutex<Option<Cleanup>> = Mutex::new(None);

/// Sets what the program says if it is stopped by a signal, after every
/// cleanup (such as where the records it left are); this alone installs
/// nothing.
pub fn last_words(words: Cleanup) {
    *LAST_WORDS.lock().unwrap_or_else(|e| e.into_inner()) = Some(words);
}

/// Runs `cleanup` if the process is stopped by a signal; installs the
/// handling on first use. Registering the same function again does nothing.
pub fn on_stop(cleanup: Cleanup) {
    let mut cleanups = CLEANUPS.lock().unwrap_or_else(|e| e.into_inner());
    if !cleanups.iter().any(|&c| std::ptr::fn_addr_eq(c, cleanup)) {
        cleanups.push(cleanup);
    }
    drop(cleanups);
    imp::install();
}

/// Runs every cleanup and the last words, then exits with 128 + `signal`.
fn stop(signal: i32) -> ! {
    let cleanups = CLEANUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let words = *LAST_WORDS.lock().unwrap_or_else(|e| e.into_inner());
    for cleanup in cleanups.into_iter().chain(words) {
        cleanup(signal);
    }
    std::process::exit(128 + signal)
}

#[cfg(unix)]
mod imp {
    use std::fs::File;
    use std::io::{self, Read};
    use std::os::fd::{FromRawFd, RawFd};
    use std::sync::Once;
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::thread;

    /// The write end of the pipe the signal handler writes signal numbers to.
    static SIGNAL_PIPE: AtomicI32 = AtomicI32::new(-1);

    extern "C" fn on_signal(signal: libc::c_int) {
        let byte = signal as u8;
        // SAFETY: write(2) is async-signal-safe; the pipe never closes; errno is
        // restored for the interrupted code.
        unsafe {
            let errno = *libc::__errno_location();
            libc::write(
                SIGNAL_PIPE.load(Ordering::Relaxed),
                (&raw const byte).cast(),
                1,
            );
            *libc::__errno_location() = errno;
        }
    }

    /// Once per process: the pipe, the watcher thread and the handlers.
    pub(super) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let mut fds: [RawFd; 2] = [-1; 2];
            // SAFETY: pipe2 fills the two descriptors; a full pipe must not block a handler.
            unsafe {
                if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                    return;
                }
                let flags = libc::fcntl(fds[1], libc::F_GETFL);
                libc::fcntl(fds[1], libc::F_SETFL, flags | libc::O_NONBLOCK);
            }
            SIGNAL_PIPE.store(fds[1], Ordering::Relaxed);
            // SAFETY: the read end is ours alone.
            let mut signals = unsafe { File::from_raw_fd(fds[0]) };
            let watcher = thread::Builder::new()
                .name("stop-signals".into())
                .spawn(move || {
                    let mut byte = [0u8];
                    loop {
                        match signals.read(&mut byte) {
                            Ok(1) => break,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            _ => return,
                        }
                    }
                    super::stop(i32::from(byte[0]))
                });
            if watcher.is_err() {
                return;
            }
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: plain sigaction calls with zero-initialised structures.
                unsafe {
                    let mut old: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                        || old.sa_sigaction == libc::SIG_IGN
                    {
                        continue;
                    }
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction =
                        on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
                    action.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(signal, &action, std::ptr::null_mut());
                }
            }
        });
    }
}

/// The name of a stop signal, for messages: `SIGINT`, `SIGTERM`, `SIGHUP`.
pub fn signal_name(signal: i32) -> String {
    match signal {
        1 => "SIGHUP".to_string(),
        2 => "SIGINT".to_string(),
        15 => "SIGTERM".to_string(),
        other => format!("signal {other}"),
    }
}

#[cfg(not(unix))]
mod imp {
    /// Without signals to catch, a stopped run cleans nothing up.
    pub(super) fn install() {}
}
