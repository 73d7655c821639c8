//! Writing a file so that readers see the old or the new contents, never a mix.
//!
//! [`write_file`] writes to a temporary file created exclusively, with an
//! unpredictable name, in the target's directory; it syncs it and renames it
//! over the target. A planted symlink cannot redirect the write, and an output
//! path that names anything but a regular file (a FIFO, a device, a directory,
//! a symbolic link, a socket) is refused, not replaced. Temporary files are
//! named `.tabula-tmp-<PID>-<random>`. A run stopped by SIGINT, SIGTERM or
//! SIGHUP removes its own (see [`crate::stop`]); a writer killed otherwise
//! leaves at most one, and the next write into that directory removes those
//! whose process is gone.
//!
//! A record written as a run goes (a game log, a transcript) is a [`Partial`]
//! instead: it grows under a visible `FILE.part`, so that it can be followed
//! while the run lasts, and is renamed to `FILE` when the run ends. A run that
//! fails or is killed leaves its `FILE.part` with every line written so far,
//! and nothing removes it but the user.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};

use tempfile::NamedTempFile;

/// The start of every temporary file name; the creating PID and a `-` follow.
pub const TEMP_PREFIX: &str = ".tabula-tmp-";

/// Writes `path` atomically with what `write` produces; see the module docs.
///
/// Errors do not name `path` (callers add it); a refused target gives an
/// [`io::ErrorKind::InvalidInput`] error saying what the path is.
pub fn write_file<F>(path: &Path, write: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let mut tmp = temporary_for(path)?;
    {
        let mut out = BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
    persist(tmp, path)
}

/// Checks, before any work, that [`write_file`] could write `path`: it is
/// absent or a regular file, its directory exists, and a file can be created
/// there (a trial temporary file, removed at once).
///
/// Errors do not name `path` (callers add it); they name the directory when
/// the directory is the problem.
pub fn check_writable(path: &Path) -> io::Result<()> {
    let dir = parent_of(path);
    // A missing directory is left to the trial file's error below.
    if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(refused(&format!("{} is not a directory", dir.display())));
    }
    check_target(path)?;
    create_temporary(dir).map(drop)
}

/// A new temporary file beside `path` (checked as [`write_file`] checks it),
/// for a writer that fills the file itself (e.g. through a memory map); hand it
/// to [`persist`]. Dropping it instead removes it.
pub fn temporary_for(path: &Path) -> io::Result<NamedTempFile> {
    check_target(path)?;
    let dir = parent_of(path);
    remove_stale_temporaries(dir);
    create_temporary(dir)
}

/// A new temporary file in `dir`; an error names the directory, not the
/// temporary file's random name (which would mean nothing to the user). The
/// name is random and the file created exclusively (`O_EXCL`), so nobody can
/// plant a symlink where it will be written.
fn create_temporary(dir: &Path) -> io::Result<NamedTempFile> {
    remove_own_temporaries_on_stop(dir);
    let prefix = own_prefix();
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        // Like File::create: the umask decides, not tempfile's private 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir).map_err(|e| {
        let missing = !is_dir(dir);
        let dir = dir.display();
        let text = match e.kind() {
            io::ErrorKind::NotFound if missing => format!("directory {dir} does not exist"),
            kind => format!("cannot create a file in {dir}: {kind}"),
        };
        io::Error::new(e.kind(), text)
    })
}

/// Gives `file` the length `len` with every block reserved on disk, so that
/// writing through a memory map of it cannot fault for want of space (a
/// SIGBUS): a full disk is an error here, before any work.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let Ok(len_arg) = libc::off_t::try_from(len) else {
            return Err(io::Error::from_raw_os_error(libc::EFBIG));
        };
        // SAFETY: a plain system call on our open file; it changes no memory.
        match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len_arg) } {
            0 => return Ok(()),
            // The file system cannot reserve blocks: a sparse file it is.
            libc::EOPNOTSUPP | libc::EINVAL => {}
            code => return Err(io::Error::from_raw_os_error(code)),
        }
    }
    file.set_len(len)
}

/// Syncs a temporary file from [`temporary_for`] and renames it over `path`.
pub fn persist(tmp: NamedTempFile, path: &Path) -> io::Result<()> {
    tmp.as_file().sync_all()?;
    // The target may have changed since the check: refuse again just before renaming.
    check_target(path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable; not every system lets a directory be synced.
    if let Ok(dir) = File::open(parent_of(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The name under which a [`Partial`] for `path` grows: `path` with `.part` appended.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".part");
    PathBuf::from(name)
}

/// Checks, before any work, that a [`Partial`] for `path` could start: `path`
/// is absent or a regular file whose name does not end in `.part` (where
/// another log grows), and `path.part` is absent or an empty regular file that
/// no running writer holds (one with lines is the record of a run that did
/// not finish, and is not overwritten).
pub fn check_partial(path: &Path) -> io::Result<()> {
    check_target(path)?;
    if path.as_os_str().to_string_lossy().ends_with(".part") {
        return Err(refused(
            "ends in .part, the name a log grows under while it is written: choose another name",
        ));
    }
    let part = partial_path(path);
    match fs::symlink_metadata(&part) {
        Ok(m) if !m.is_file() => Err(partial_not_a_file(&part, &m.file_type())),
        Ok(m) => {
            let file = open_partial(&part, false)?;
            if !try_lock(&file)? {
                return Err(partial_in_use(&part));
            }
            let result = if m.len() > 0 {
                Err(partial_left(&part))
            } else {
                Ok(())
            };
            unlock(&file);
            result
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", part.display()))),
    }
}

fn partial_left(part: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "{} exists, left by a run that did not finish: move or remove it",
            part.display()
        ),
    )
}

fn partial_in_use(part: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{} is being written by another run", part.display()),
    )
}

fn partial_not_a_file(part: &Path, kind: &fs::FileType) -> io::Error {
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        special_kind(kind)
    };
    refused(&format!(
        "{} is {what}, not a log left by a run: remove or rename it",
        part.display()
    ))
}

/// Opens `part` without following a symlink, creating it when `create`.
fn open_partial(part: &Path, create: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    // Appending: a line written while a stop cuts the file back (another
    // thread, at the same time) goes after the cut, never into the middle.
    options.read(true).append(create).create(create);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    options.open(part).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound if !is_dir(parent_of(part)) => io::Error::new(
            e.kind(),
            format!("directory {} does not exist", parent_of(part).display()),
        ),
        _ => io::Error::new(e.kind(), format!("{}: {e}", part.display())),
    })
}

/// Takes the exclusive advisory lock a writer of a partial file holds for its
/// whole run (the system drops it when the process ends, however it ends);
/// false when another open file holds it.
#[cfg(unix)]
pub(crate) fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain system call on our open file; it changes no memory.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(error),
    }
}

#[cfg(not(unix))]
pub(crate) fn try_lock(_: &File) -> io::Result<bool> {
    Ok(true)
}

/// Releases the lock [`try_lock`] took, explicitly rather than by closing the
/// file: a flock belongs to the open file description, which a child forked
/// meanwhile (by any thread, until it execs) shares, so a close alone can
/// leave the lock held and the next run told the file is being written.
#[cfg(unix)]
pub(crate) fn unlock(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a plain system call on our open file; it changes no memory.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_UN);
    }
}

#[cfg(not(unix))]
pub(crate) fn unlock(_: &File) {}

/// A file written as a run goes, under `FILE.part` until [`Partial::finish`]
/// renames it to `FILE` (see the module docs). Its writer holds a lock on it,
/// so another run neither takes it over nor removes it.
///
/// Dropped unfinished, or left so when the run is stopped by a signal (see
/// [`crate::stop`]), it is removed if nothing was written to it; otherwise
/// it is kept, cut back to its last whole line: those lines are the only
/// record of the run.
#[derive(Debug)]
pub struct Partial {
    file: File,
    part: PathBuf,
    finished: bool,
}

impl Partial {
    /// Creates `path.part` for a record of `path`, or takes over an empty one
    /// that no running writer holds; never follows a symlink.
    pub fn create(path: &Path) -> io::Result<Partial> {
        check_partial(path)?;
        let part = partial_path(path);
        let file = open_partial(&part, true)?;
        if !try_lock(&file)? {
            return Err(partial_in_use(&part));
        }
        // Checked again under the lock: a run may have written since.
        let refusal = match file.metadata() {
            Ok(m) if !m.is_file() => Some(partial_not_a_file(&part, &m.file_type())),
            Ok(m) if m.len() > 0 => Some(partial_left(&part)),
            Ok(_) => keep_on_stop(&part, &file).err(),
            Err(e) => Some(e),
        };
        if let Some(error) = refusal {
            unlock(&file);
            return Err(error);
        }
        Ok(Partial {
            file,
            part,
            finished: false,
        })
    }

    /// The file being written.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// A writer of the file for a thread of the run. A stop signal waits for
    /// the write it is making, then lets it make no more, before the file is
    /// cut back to whole lines.
    pub fn writer(&self) -> io::Result<PartialWriter> {
        Ok(PartialWriter(self.file.try_clone()?))
    }

    /// Syncs the file and renames it over `path`, the target it was created for.
    pub fn finish(mut self, path: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        // The target may have changed since the check: refuse again just before renaming.
        check_target(path)?;
        fs::rename(&self.part, path)?;
        self.finished = true;
        forget_on_stop(&self.part);
        if let Ok(dir) = File::open(parent_of(path)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.finished {
            forget_on_stop(&self.part);
            leave_unfinished(&self.part, &self.file);
        }
        unlock(&self.file);
    }
}

/// Removes an unfinished partial file with nothing in it; keeps one with
/// lines, cut back to its last whole line, and notes it in [`KEPT`].
fn leave_unfinished(part: &Path, file: &File) {
    match file.metadata() {
        Ok(m) if m.len() == 0 => {
            let _ = fs::remove_file(part);
        }
        Ok(m) => {
            // A full disk, or a stop signal, can end a write midway through a line.
            let _ = cut_to_whole_lines(file, m.len());
            if let Ok(mut kept) = KEPT.lock() {
                kept.push(part.to_path_buf());
            }
        }
        Err(_) => {}
    }
}

/// Held (shared) by every write through a [`PartialWriter`]; a stop takes it
/// whole, for good, before it cuts the files.
static WRITES: RwLock<()> = RwLock::new(());

/// Writes to a [`Partial`] file; see [`Partial::writer`].
#[derive(Debug)]
pub struct PartialWriter(File);

impl Write for PartialWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _writing = WRITES.read().unwrap_or_else(|e| e.into_inner());
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// The partial files being written now, each with a handle of its own.
static OPEN: Mutex<Vec<(PathBuf, File)>> = Mutex::new(Vec::new());

/// Notes `part` as one to leave unfinished if the process is stopped by a
/// signal, which would not let its [`Partial`] be dropped.
fn keep_on_stop(part: &Path, file: &File) -> io::Result<()> {
    let handle = file.try_clone()?;
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((part.to_path_buf(), handle));
    crate::stop::on_stop(leave_open_partials_unfinished);
    Ok(())
}

/// Forgets `part`: its [`Partial`] is finished or dropped.
fn forget_on_stop(part: &Path) {
    OPEN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(open, _)| open != part);
}

/// On a stop signal: every partial file being written is left unfinished,
/// once the writes through [`PartialWriter`]s are stopped. (A write through
/// another handle, which only tests make, goes after the cut: the file is
/// opened to append.)
fn leave_open_partials_unfinished(_signal: i32) {
    // No write is in progress, and none starts before the exit.
    std::mem::forget(WRITES.write().unwrap_or_else(|e| e.into_inner()));
    leave_open_partials();
}

/// Leaves every partial file being written unfinished.
fn leave_open_partials() {
    let open = std::mem::take(&mut *OPEN.lock().unwrap_or_else(|e| e.into_inner()));
    for (part, file) in open {
        leave_unfinished(&part, &file);
    }
}

/// The partial files this process left unfinished with lines in them.
static KEPT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The partial files this process has left unfinished with lines in them,
/// for the last words of a run that stopped early (by an error, or by a
/// signal: see [`crate::stop`]).
pub fn kept_partials() -> Vec<PathBuf> {
    KEPT.lock().map(|kept| kept.clone()).unwrap_or_default()
}

/// Cuts `file`, `len` bytes long, back to the end of its last newline.
/// Reads at offsets (pread), leaving alone the file offset that a writer's
/// handle may share.
fn cut_to_whole_lines(file: &File, len: u64) -> io::Result<()> {
    let mut end = len;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        read_exact_at(file, part, start)?;
        if let Some(at) = part.iter().rposition(|&b| b == b'\n') {
            let whole = start + at as u64 + 1;
            return if whole < len {
                file.set_len(whole)
            } else {
                Ok(())
            };
        }
        end = start;
    }
    file.set_len(0)
}

/// Fills `buf` from `file` at `offset`, without moving the file offset.
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fills `buf` from `file` at `offset` (moving the file offset).
#[cfg(not(unix))]
fn read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

/// Whether `dir` is a directory (as a missing one is not; /proc is, though
/// no file can be made in it).
fn is_dir(dir: &Path) -> bool {
    fs::metadata(dir).is_ok_and(|m| m.is_dir())
}

/// The directory a file of `path` goes in.
pub(crate) fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Refuses a target that exists and is not a regular file.
pub(crate) fn check_target(path: &Path) -> io::Result<()> {
    if path.file_name().is_none() {
        return Err(refused("is not a file name"));
    }
    // `file_name` reads past a trailing slash, but the system would not.
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(refused("ends in /, so it names a directory, not a file"));
    }
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        special_kind(&kind)
    };
    Err(refused(&format!(
        "is {what}, not a regular file; refusing to replace it"
    )))
}

#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> &'static str {
    "a special file"
}

fn refused(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what.to_string())
}

/// The PID in a temporary file name made by [`write_file`], if it is one.
fn temp_pid(name: &OsStr) -> Option<u32> {
    let rest = name.to_str()?.strip_prefix(TEMP_PREFIX)?;
    let (pid, random) = rest.split_once('-')?;
    if random.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// The start of this process's temporary file names.
fn own_prefix() -> String {
    format!("{TEMP_PREFIX}{}-", std::process::id())
}

/// The directories this process has made temporary files in.
static TEMPORARY_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Notes `dir` as one to clean if the process is stopped by a signal, which
/// would not let a temporary file's destructor remove it (a stopped build
/// would leave a file as large as its table).
fn remove_own_temporaries_on_stop(dir: &Path) {
    let mut dirs = TEMPORARY_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    if !dirs.iter().any(|d| d == dir) {
        dirs.push(dir.to_path_buf());
    }
    drop(dirs);
    crate::stop::on_stop(remove_own_temporaries);
}

/// Removes this process's temporary files from every directory it made them in.
fn remove_own_temporaries(_signal: i32) {
    let prefix = own_prefix();
    let dirs = TEMPORARY_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    for dir in dirs.iter() {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let own = entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(&prefix));
            if own && entry.file_type().is_ok_and(|t| t.is_file()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

/// Removes temporary files in `dir` left by processes that no longer run.
///
/// Best effort: a directory that cannot be listed, or a file that cannot be
/// removed, is left as it is.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = temp_pid(&entry.file_name()) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && !process_alive(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let result = unsafe { libc::kill(pid, 0) };
    // EPERM: it exists but belongs to someone else.
    let exists = result == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !zombie(pid)
}

/// Whether `pid` has exited and waits only to be reaped (a killed MPI rank
/// whose parent died first waits for init): it writes nothing any more.
#[cfg(target_os = "linux")]
fn zombie(pid: libc::pid_t) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "PID (COMMAND) STATE ...": the command may hold spaces and parentheses.
    let state = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].trim_start().chars().next());
    matches!(state, Some('Z' | 'X'))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn zombie(_: libc::pid_t) -> bool {
    false
}

#[cfg(not(unix))]
fn process_alive(_: u32) -> bool {
    // Without a cheap check, keep everything.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_is_not_alive_and_a_running_process_is() {
        assert!(process_alive(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited but not yet reaped: a zombie, whose files are stale.
        let exited = (0..6000).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(10));
            zombie(pid as libc::pid_t)
        });
        assert!(exited, "the child did not exit within a minute");
        assert!(!process_alive(pid));
        child.wait().unwrap();
        assert!(!process_alive(pid));
    }

    #[test]
    fn a_stop_leaves_an_open_partial_with_whole_lines_and_later_ones_follow_them() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("games.jsonl");
        let partial = Partial::create(&log).unwrap();
        let mut writer = partial.file().try_clone().unwrap();
        write!(writer, "game 1\ngame 2 cut sh").unwrap();
        // As a stop does, once it holds the writers off (which this test
        // process must not do for good).
        leave_open_partials();
        let part = dir.path().join("games.jsonl.part");
        assert_eq!(fs::read_to_string(&part).unwrap(), "game 1\n");
        assert!(kept_partials().contains(&part));
        // A line written through another handle comes right after, with no hole.
        writeln!(writer, "game 3").unwrap();
        assert_eq!(fs::read_to_string(&part).unwrap(), "game 1\ngame 3\n");
    }

    #[test]
    fn temp_names_are_recognised() {
        assert_eq!(temp_pid(OsStr::new(".tabula-tmp-123-AbCdEf")), Some(123));
        assert_eq!(temp_pid(OsStr::new(".tabula-tmp-123-")), None);
        assert_eq!(temp_pid(OsStr::new(".tabula-tmp-12a-x")), None);
        assert_eq!(temp_pid(OsStr::new(".tabula-tmp--x")), None);
        assert_eq!(temp_pid(OsStr::new("tabula-tmp-1-x")), None);
    }

    #[test]
    fn a_device_is_refused_before_anything_is_written() {
        // Only the check runs: nothing is written near /dev/null.
        let error = check_target(Path::new("/dev/null")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        assert!(error.to_string().contains("a device"), "{error}");
        assert!(check_target(Path::new("/")).is_err());
    }

    #[test]
    fn writability_is_checked_without_naming_a_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nodir");
        let error = check_writable(&missing.join("x.tab")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            error.to_string(),
            format!("directory {} does not exist", missing.display())
        );
        // A directory where no file can be made is not said to be missing.
        if is_dir(Path::new("/proc/self")) {
            let error = check_writable(Path::new("/proc/x.tab")).unwrap_err();
            assert!(!error.to_string().contains("does not exist"), "{error}");
            assert!(error.to_string().contains("/proc"), "{error}");
        }
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        let error = check_writable(&file.join("x.tab")).unwrap_err();
        assert!(error.to_string().contains("not a directory"), "{error}");
        check_writable(&dir.path().join("new.tab")).unwrap();
        check_writable(&file).unwrap();
        // Nothing is left behind by the trial.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_leaves_the_target_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        fs::write(&path, "old").unwrap();
        let error = write_file(&path, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("the producer failed"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "the producer failed");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        write_file(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
