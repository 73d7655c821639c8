//! The snapshots of one member's share of a distributed build, which a
//! stopped build goes on from.
//!
//! While it solves, a member keeps its records in memory. Now and then, after
//! a layer the whole group finished, every member writes its records whole to
//! `FILE.rank-R-of-N.layer-L` (atomically: temporary file, sync, rename) and
//! lists the snapshot, with its checksum, in the small text file
//! `FILE.rank-R-of-N.state`; once every member has written its snapshot of
//! layer `L`, the older ones go. A member started again checks its listed
//! snapshots against their checksums, and the group goes on from the latest
//! layer every member has a good snapshot of. The records of finished layers
//! never change afterwards, so a snapshot holds them exactly; those of later
//! layers are solved again.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::format::{TableError, TableSpec};

/// A snapshot's line in the state file.
struct Snapshot {
    layer: usize,
    hash: u64,
    /// The states the group had finished when it was taken.
    done: u64,
}

/// The first line of every share state file.
const MAGIC: &str = "tabula distributed share 1";

/// One member's snapshots and their state file, locked against another run.
pub(crate) struct Shares {
    /// `FILE.rank-R-of-N`, which the snapshots' and the state's names extend.
    base: PathBuf,
    /// `FILE.rank-R-of-N.lock`, locked while this run lasts (the state file
    /// itself is replaced at each snapshot).
    lock: File,
    table: String,
    /// The layers snapshotted, their checksums and the states the group had
    /// finished by then (for a resumed build's progress), oldest first.
    snapshots: Vec<Snapshot>,
    /// The share's bytes.
    bytes: u64,
}

impl Shares {
    /// Opens the snapshots of member `rank` of `ranks` in the build of the
    /// table `spec` at `path` (a share of `bytes` bytes); refuses another
    /// table's, and a share another run is building.
    pub(crate) fn open(
        path: &Path,
        spec: &TableSpec,
        (rank, ranks): (usize, usize),
        bytes: u64,
    ) -> Result<Shares, TableError> {
        let base = with_suffix(path, &format!(".rank-{rank}-of-{ranks}"));
        let [a, b, c, d] = spec.params;
        let table = format!(
            "table {} params {a} {b} {c} {d} value-bytes {} mask-bytes {} entries {} share-bytes {bytes}",
            spec.game, spec.layout.value_bytes, spec.layout.mask_bytes, spec.entries
        );
        let lock_path = with_suffix(&base, ".lock");
        let locked = |e: io::Error| TableError::io(&lock_path, e);
        let lock = (OpenOptions::new().write(true).create(true).truncate(false))
            .open(&lock_path)
            .map_err(locked)?;
        if !crate::atomic::try_lock(&lock).map_err(locked)? {
            return Err(locked(io::Error::other("is being built by another run")));
        }
        let state = with_suffix(&base, ".state");
        let io = |e: io::Error| TableError::io(&state, e);
        let text = match fs::read_to_string(&state) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
            read => read.map_err(io)?,
        };
        let snapshots =
            listed_snapshots(&text, &table).map_err(|what| io(io::Error::other(what)))?;
        let shares = Shares {
            base,
            lock,
            table,
            snapshots,
            bytes,
        };
        shares.remove_unlisted().map_err(io)?;
        Ok(shares)
    }

    /// The layers of the listed snapshots whose files hold what their
    /// checksums say (read whole: a resumed build's first step).
    pub(crate) fn good_layers(&self) -> Vec<usize> {
        let good = |snapshot: &Snapshot| {
            let path = self.snapshot_path(snapshot.layer);
            match hash_file(&path, self.bytes) {
                Ok(found) if found == snapshot.hash => Some(snapshot.layer),
                _ => {
                    eprintln!("{}: does not match its checksum: not used", path.display());
                    None
                }
            }
        };
        self.snapshots.iter().filter_map(good).collect()
    }

    /// The records of the snapshot of `layer` (one of [`Shares::good_layers`],
    /// checked again as read), and the states the group had finished by then.
    pub(crate) fn load(&self, layer: usize) -> Result<(Vec<u8>, u64), TableError> {
        let path = self.snapshot_path(layer);
        let records = fs::read(&path).map_err(|e| TableError::io(&path, e))?;
        let listed = self.snapshots.iter().find(|s| s.layer == layer);
        match listed {
            Some(snapshot) if xxh3_64(&records) == snapshot.hash => Ok((records, snapshot.done)),
            _ => Err(TableError::io(
                &path,
                io::Error::other("changed after it was checked: run the build again"),
            )),
        }
    }

    /// [`Shares::load`] straight into `records` (of the share's length), a
    /// piece at a time, so that a share larger than memory can be loaded
    /// into a memory map; the states the group had finished by then.
    pub(crate) fn load_into(&self, layer: usize, records: &[AtomicU8]) -> Result<u64, TableError> {
        let path = self.snapshot_path(layer);
        let io = |e: io::Error| TableError::io(&path, e);
        let mut file = File::open(&path).map_err(io)?;
        if file.metadata().map_err(io)?.len() != records.len() as u64 {
            return Err(io(io::Error::other("has another length")));
        }
        let (mut hasher, mut buffer) = (Xxh3::new(), vec![0u8; 1 << 20]);
        for piece in records.chunks(buffer.len()) {
            let bytes = &mut buffer[..piece.len()];
            file.read_exact(bytes).map_err(io)?;
            hasher.update(bytes);
            for (cell, &byte) in piece.iter().zip(bytes.iter()) {
                cell.store(byte, Relaxed);
            }
        }
        match self.snapshots.iter().find(|s| s.layer == layer) {
            Some(snapshot) if hasher.digest() == snapshot.hash => Ok(snapshot.done),
            _ => Err(io(io::Error::other(
                "changed after it was checked: run the build again",
            ))),
        }
    }

    /// Writes the snapshot of `layer` (`records`, with `done` states of the group finished) and lists it.
    pub(crate) fn snapshot(&mut self, layer: usize, records: &[u8], done: u64) -> io::Result<()> {
        let path = self.snapshot_path(layer);
        crate::atomic::write_file(&path, |out| out.write_all(records))
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        self.snapshots.retain(|s| s.layer != layer);
        let hash = xxh3_64(records);
        self.snapshots.push(Snapshot { layer, hash, done });
        self.write_state()
    }

    /// Forgets and removes every snapshot but that of `layer`, which every member has.
    pub(crate) fn keep_only(&mut self, layer: usize) -> io::Result<()> {
        self.snapshots.retain(|s| s.layer == layer);
        self.write_state()?;
        self.remove_unlisted()
    }

    /// Removes every snapshot, the state and the lock: the table is written.
    pub(crate) fn discard(mut self) -> io::Result<()> {
        self.keep_only(usize::MAX)?;
        remove_if_there(&with_suffix(&self.base, ".state"))?;
        remove_if_there(&with_suffix(&self.base, ".lock"))
    }

    /// Removes the snapshot files the state does not list: left by a run
    /// stopped after it listed a newer snapshot and before it removed them.
    fn remove_unlisted(&self) -> io::Result<()> {
        let prefix = with_suffix(&self.base, ".layer-");
        let (Some(dir), Some(prefix)) = (prefix.parent(), prefix.file_name()) else {
            return Ok(());
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let prefix = prefix.to_string_lossy();
        for entry in fs::read_dir(dir)?.flatten() {
            let name = entry.file_name();
            let layer: Option<usize> = name
                .to_str()
                .and_then(|name| name.strip_prefix(&*prefix)?.parse().ok());
            let listed = |layer: usize| self.snapshots.iter().any(|s| s.layer == layer);
            if layer.is_some_and(|layer| !listed(layer)) {
                remove_if_there(&entry.path())?;
            }
        }
        Ok(())
    }

    fn snapshot_path(&self, layer: usize) -> PathBuf {
        with_suffix(&self.base, &format!(".layer-{layer}"))
    }

    /// Replaces the state file (atomically) with the table's line and the snapshots'.
    fn write_state(&self) -> io::Result<()> {
        let state = with_suffix(&self.base, ".state");
        crate::atomic::write_file(&state, |out| {
            writeln!(out, "{MAGIC}")?;
            writeln!(out, "{}", self.table)?;
            for Snapshot { layer, hash, done } in &self.snapshots {
                writeln!(out, "snapshot {layer} {hash:016x} done {done}")?;
            }
            Ok(())
        })
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", state.display())))
    }
}

impl Drop for Shares {
    /// Releases the lock also when a stop unwinds the build.
    fn drop(&mut self) {
        crate::atomic::unlock(&self.lock);
    }
}

/// `base` with `suffix` appended to its name.
fn with_suffix(base: &Path, suffix: &str) -> PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The snapshots a state file lists (none for an empty, new file), or why
/// it is no state of this table's share.
fn listed_snapshots(text: &str, table: &str) -> Result<Vec<Snapshot>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(format!(
            "not a distributed build's share state (no '{MAGIC}' line)"
        ));
    }
    match lines.next() {
        Some(line) if line == table => {}
        Some(line) => {
            return Err(format!(
                "a share of another table ({line}), not of this one ({table}): \
                 build with its parameters, or remove it and its snapshots"
            ));
        }
        None => return Err("not a distributed build's share state (no table line)".into()),
    }
    lines
        .map(|line| parse_snapshot(line).ok_or_else(|| format!("not a snapshot line: {line}")))
        .collect()
}

/// A state file's `snapshot LAYER HASH done DONE` line.
fn parse_snapshot(line: &str) -> Option<Snapshot> {
    let words: Vec<&str> = line.split(' ').collect();
    let ["snapshot", layer, hash, "done", done] = words[..] else {
        return None;
    };
    Some(Snapshot {
        layer: layer.parse().ok()?,
        hash: u64::from_str_radix(hash, 16).ok()?,
        done: done.parse().ok()?,
    })
}

/// The checksum of a file of `bytes` bytes (an error if it has another length).
fn hash_file(path: &Path, bytes: u64) -> io::Result<u64> {
    let mut file = File::open(path)?;
    if file.metadata()?.len() != bytes {
        return Err(io::Error::other("has another length"));
    }
    let (mut hasher, mut buffer) = (Xxh3::new(), vec![0u8; 1 << 20]);
    loop {
        match file.read(&mut buffer)? {
            0 => return Ok(hasher.digest()),
            n => hasher.update(&buffer[..n]),
        }
    }
}

fn remove_if_there(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioiwari::Variant;
    use crate::typed::Tabulated;

    #[test]
    fn a_snapshot_changed_after_its_check_is_not_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tab");
        let spec = Variant::default().spec();
        let records = vec![7u8; 64];
        let mut shares = Shares::open(&path, &spec, (1, 2), 64).unwrap();
        shares.snapshot(3, &records, 99).unwrap();
        assert_eq!(shares.good_layers(), vec![3]);
        assert_eq!(shares.load(3).unwrap(), (records.clone(), 99));
        // Changed between the check and the load: refused, naming the file.
        let file = dir.path().join("t.tab.rank-1-of-2.layer-3");
        fs::write(&file, vec![8u8; 64]).unwrap();
        let refused = shares.load(3).unwrap_err().to_string();
        assert!(refused.contains("t.tab.rank-1-of-2.layer-3"), "{refused}");
        assert!(
            refused.contains("changed after it was checked"),
            "{refused}"
        );
        assert_eq!(shares.good_layers(), Vec::<usize>::new());
    }
}
