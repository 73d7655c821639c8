//! Whatever a player starts goes with it, however it detaches.
//!
//! A process group alone does not hold a player's descendants: one that calls
//! `setsid` or `setpgid`, or whose parent exits (a double fork), leaves it.
//! This process therefore becomes a child subreaper
//! (`prctl(PR_SET_CHILD_SUBREAPER)`) before its first player starts: every
//! orphan of a player is re-parented to us instead of to init, so it stays
//! findable in `/proc` and is ours to reap. Each player gets a marker in its
//! environment ([`MARKER_VAR`]), which its descendants inherit, so that an
//! orphan is blamed on the right player when several play at once.
//!
//! A cgroup would hold them too, but cgroup v2 is not writable everywhere
//! (not in most containers, not under cgroup v1, not for an unprivileged
//! user without a delegated subtree); the subreaper needs nothing but Linux.
//! The one assumption: this process starts no children but players (true of
//! the `tabula` binary and of this crate), so a child of ours that is not a
//! player is an orphan of one.

use std::collections::HashMap;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that marks a player and everything it starts.
pub const MARKER_VAR: &str = "TABULA_PLAYER";

/// Longest time a cleanup keeps killing a tree that keeps forking.
const KILL_FOR: Duration = Duration::from_secs(2);

/// Makes this process the reaper of its descendants' orphans, once.
pub(super) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        // SAFETY: prctl with integer arguments changes only this process's flag.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
    });
}

/// A marker no other player of this process has had.
pub(super) fn new_marker() -> String {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    )
}

/// A process as `/proc/PID/stat` shows it.
struct Process {
    parent: libc::pid_t,
    /// Exited, waiting to be reaped.
    zombie: bool,
}

/// Every process on the machine that `/proc` shows, by id.
fn processes() -> HashMap<libc::pid_t, Process> {
    let mut all = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return all;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<libc::pid_t>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command name in parentheses: state, parent.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let Some(parent) = fields.next().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let zombie = state == "Z" || state == "X";
        all.insert(pid, Process { parent, zombie });
    }
    all
}

/// The player marker in `pid`'s environment, if it can be read.
fn marker_of(pid: libc::pid_t) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{MARKER_VAR}=");
    environ
        .split(|&b| b == 0)
        .find_map(|var| var.strip_prefix(prefix.as_bytes()))
        .map(|value| String::from_utf8_lossy(value).into_owned())
}

/// `roots` and all their descendants in `all`.
fn with_descendants(
    all: &HashMap<libc::pid_t, Process>,
    roots: Vec<libc::pid_t>,
) -> Vec<libc::pid_t> {
    let mut children: HashMap<libc::pid_t, Vec<libc::pid_t>> = HashMap::new();
    for (&pid, process) in all {
        children.entry(process.parent).or_default().push(pid);
    }
    // Parent links form a tree: nobody is found twice.
    let mut found = roots;
    let mut next = 0;
    while next < found.len() {
        if let Some(kids) = children.get(&found[next]) {
            found.extend_from_slice(kids);
        }
        next += 1;
    }
    found
}

/// Whose orphans a cleanup takes: `Some(marker)` those of one player (and
/// those no live player claims), `None` every one (the program is ending).
pub(super) struct Claim<'a> {
    /// The player being cleaned up, not yet reaped (its id is still ours).
    pub player: Option<libc::pid_t>,
    /// Its marker.
    pub marker: Option<&'a str>,
    /// The players still playing, with their markers: theirs are spared.
    pub live: &'a [(libc::pid_t, String)],
}

/// One pass: kills what `claim` takes that still runs and reaps its orphans
/// that are dead. Returns whether anything was still running.
fn sweep(claim: &Claim) -> bool {
    let me = std::process::id() as libc::pid_t;
    let all = processes();
    let is_live_player = |pid: libc::pid_t| claim.live.iter().any(|(p, _)| *p == pid);
    let orphans: Vec<libc::pid_t> = all
        .iter()
        .filter(|&(&pid, process)| {
            process.parent == me && Some(pid) != claim.player && !is_live_player(pid)
        })
        .filter(|&(&pid, process)| {
            let Some(own) = claim.marker else {
                return true;
            };
            // A dead orphan can no longer say whose it was: it only needs reaping.
            process.zombie
                || match marker_of(pid) {
                    Some(marker) => marker == own || !claim.live.iter().any(|(_, m)| *m == marker),
                    None => true,
                }
        })
        .map(|(&pid, _)| pid)
        .collect();
    let mut roots = orphans.clone();
    roots.extend(claim.player);
    let mut running = false;
    for pid in with_descendants(&all, roots) {
        if all.get(&pid).is_some_and(|p| !p.zombie) {
            running = true;
            // SAFETY: kill only sends a signal.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
    for pid in orphans {
        if all[&pid].zombie {
            // SAFETY: reaps one child of ours that no one else waits for.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
    }
    running
}

/// Kills every descendant `claim` takes, however it detached, and reaps the
/// orphans among them; `lock_live` gives the live players under the lock
/// that starting a player holds, so that none starts during a pass.
pub(super) fn kill_claimed<G>(
    player: Option<libc::pid_t>,
    marker: Option<&str>,
    lock_live: impl Fn() -> G,
) where
    G: std::ops::Deref<Target = Vec<(libc::pid_t, String)>>,
{
    let until = Instant::now() + KILL_FOR;
    loop {
        let live = lock_live();
        let running = sweep(&Claim {
            player,
            marker,
            live: &live,
        });
        drop(live);
        if !running || Instant::now() >= until {
            break;
        }
        // Give the signals time to land before looking again.
        std::thread::sleep(Duration::from_millis(1));
    }
}
