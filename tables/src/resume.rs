//! Out-of-core builds that a kill does not waste: the table grows in place
//! under `FILE.part`, and after each finished layer a small state file
//! `FILE.part.state` records the layer's byte range and checksum (or, when a
//! layer's records are scattered over the file, as an Ioiwari ring's bead
//! counts are, their number and a checksum of them in index order). The same
//! command started again checks the partial file against the state (the
//! table it is for, its length, every finished layer's checksum), goes on
//! from the first layer it cannot reuse, and renames `FILE.part` to `FILE`
//! at the end: the bytes are those of a build that was never stopped.
//!
//! A layer's images under the space's symmetries lie in the layer itself.
//! Written with it ([`retrograde::Images::WhenSolved`]), a finished layer is
//! all a resumed run needs. Left to a last pass ([`retrograde::Images::LastPass`],
//! the long builds of tables larger than memory), a finished layer holds its
//! canonical states' records alone, and its line checks only those; the state
//! file's table line says `images last-pass`, and a run that finds every layer
//! finished runs the last pass (again, if a run was stopped during it: the
//! pass writes each image whole from its canonical record, so the bytes are
//! the same). Either way the table ends with the same bytes.
//!
//! A partial build of another table (other game, parameters or layout) is
//! refused in one line, and so is a `FILE.part` without a state file (it is
//! not ours to overwrite). One run at a time holds the partial file's lock.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use tabula_solver::retrograde::{self, Images, Progress, StateSpace};
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::format::{self, TableError, TableSpec};
use crate::typed::{Records, Tabulated};

/// The first line of every state file.
const MAGIC: &str = "tabula partial build 1";

/// What ends the table line of a build whose images wait for the last pass.
const LAST_PASS_TABLE: &str = " images last-pass";

/// The state file's last line once the last pass has begun.
const LAST_PASS_BEGUN: &str = "last pass begun";

/// What a resumable build reused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resumed {
    /// The layers taken from the partial file, checked (0: a fresh build).
    pub reused: usize,
    /// The layers of the table.
    pub layers: usize,
}

impl Resumed {
    /// The line that says what a resumed build of `path` reused, naming its
    /// layers `layers` (`seed layers`); `None` for a fresh build.
    pub fn said(&self, path: &Path, layers: &str) -> Option<String> {
        (self.reused > 0).then(|| {
            format!(
                "resumed {}: {} of {} {layers} reused (checked), the rest built",
                crate::atomic::partial_path(path).display(),
                self.reused,
                self.layers
            )
        })
    }
}

/// The name of the state file beside a partial file `FILE.part`: `FILE.part.state`.
pub fn state_path(path: &Path) -> PathBuf {
    let mut name = crate::atomic::partial_path(path).into_os_string();
    name.push(".state");
    PathBuf::from(name)
}

/// The line of the state file that names the table being built, and how
/// its images are written (said for a last pass only, so that the state
/// files of when-solved builds stay as they were).
fn table_line(spec: &TableSpec, file_len: u64, images: Images) -> String {
    let [a, b, c, d] = spec.params;
    let mode = match images {
        Images::WhenSolved => "",
        Images::LastPass => LAST_PASS_TABLE,
    };
    format!(
        "table {} params {a} {b} {c} {d} value-bytes {} mask-bytes {} entries {} file-bytes {file_len}{mode}",
        spec.game, spec.layout.value_bytes, spec.layout.mask_bytes, spec.entries
    )
}

/// How the images of the partial build of `path` are written, read from its
/// state file (`None`: no state file that says), so that a stopped build goes
/// on as it started when no mode is asked for.
pub fn partial_images(path: &Path) -> Option<Images> {
    let text = fs::read_to_string(state_path(path)).ok()?;
    let mut lines = text.lines();
    let table = lines.nth(1).filter(|_| text.starts_with(MAGIC))?;
    Some(match table.ends_with(LAST_PASS_TABLE) {
        true => Images::LastPass,
        false => Images::WhenSolved,
    })
}

/// The checksum of a range of the payload.
fn hash_of(payload: &[AtomicU8], bytes: Range<usize>) -> u64 {
    let mut hasher = Xxh3::new();
    let mut buffer = [0u8; 1 << 16];
    for start in bytes.clone().step_by(buffer.len()) {
        let end = (start + buffer.len()).min(bytes.end);
        for (b, byte) in buffer.iter_mut().zip(&payload[start..end]) {
            *b = byte.load(Relaxed);
        }
        hasher.update(&buffer[..end - start]);
    }
    hasher.digest()
}

/// Where each layer's records lie in the payload: one range of bytes when
/// the space's layers are ranges of indices ([`StateSpace::layer_range`]),
/// else scattered over the whole file (an Ioiwari ring's bead counts), found
/// piece by piece with [`StateSpace::for_each_in_layer`].
struct Layers<'a, S> {
    space: &'a S,
    /// Bytes a record.
    size: usize,
    /// Each layer's byte range, when the layers are ranges.
    ranges: Option<Vec<Range<usize>>>,
    /// Whether a finished layer holds only its canonical states' records
    /// ([`Images::LastPass`]): only those are checked and cleared.
    canonical_only: bool,
}

impl<'a, S: StateSpace> Layers<'a, S> {
    fn new(space: &'a S, size: usize, images: Images) -> Self {
        let ranges = (0..space.num_layers())
            .map(|layer| {
                let states = space.layer_range(layer)?;
                Some(states.start as usize * size..states.end as usize * size)
            })
            .collect();
        Layers {
            space,
            size,
            ranges,
            canonical_only: images == Images::LastPass,
        }
    }

    /// The layer's line in the state file (its records' place and checksum)
    /// and the number of its records.
    fn line(&self, layer: usize, payload: &[AtomicU8]) -> (String, u64) {
        match (&self.ranges, self.canonical_only) {
            (Some(ranges), false) => {
                let bytes = &ranges[layer];
                let hash = hash_of(payload, bytes.clone());
                let line = format!("layer {layer} {} {} {hash:016x}", bytes.start, bytes.end);
                (line, (bytes.len() / self.size) as u64)
            }
            (None, false) => {
                let (records, hash) = self.piecewise_hash(layer, payload);
                (
                    format!("layer {layer} records {records} {hash:016x}"),
                    records,
                )
            }
            (ranges, true) => {
                // The layer's states, counted for progress as the solver
                // counts a canonical state for its class.
                let (states, hash) = self.piecewise_hash(layer, payload);
                let place = match ranges {
                    Some(ranges) => format!("{} {}", ranges[layer].start, ranges[layer].end),
                    None => format!("states {states}"),
                };
                (
                    format!("layer {layer} {place} canonical {hash:016x}"),
                    states,
                )
            }
        }
    }

    /// The pieces of the index space a layer is walked in (the space's own
    /// [`StateSpace::layer_chunk`], so that a piece is cheap to walk): those
    /// of its range, or of the whole space when it is scattered.
    fn pieces(&self, layer: usize) -> Vec<Range<u64>> {
        let indices = match &self.ranges {
            Some(ranges) => {
                let bytes = &ranges[layer];
                (bytes.start / self.size) as u64..(bytes.end / self.size) as u64
            }
            None => 0..self.space.len(),
        };
        let chunk = self.space.layer_chunk().max(1);
        (indices.start / chunk..indices.end.div_ceil(chunk))
            .map(|c| (c * chunk).max(indices.start)..((c + 1) * chunk).min(indices.end))
            .collect()
    }

    /// Calls `visit` with every state of `layer` in `indices` whose record a
    /// finished layer holds (the canonical ones only, when `canonical_only`),
    /// in index order; returns the number of the layer's states there.
    fn for_each_kept(&self, layer: usize, indices: Range<u64>, mut visit: impl FnMut(u64)) -> u64 {
        let mut states = 0;
        self.space.for_each_in_layer(layer, indices, |index| {
            states += 1;
            if !self.canonical_only || self.space.is_canonical(index) {
                visit(index);
            }
        });
        states
    }

    /// The layer's states and the checksum of the records a finished layer
    /// holds: the checksum of each piece's records in index order (pieces
    /// hashed in parallel), then of those checksums in order.
    fn piecewise_hash(&self, layer: usize, payload: &[AtomicU8]) -> (u64, u64) {
        let digests: Vec<(u64, u64)> = self
            .pieces(layer)
            .into_par_iter()
            .map(|indices| {
                let mut bytes = Vec::new();
                let states = self.for_each_kept(layer, indices, |index| {
                    let at = index as usize * self.size;
                    bytes.extend(payload[at..at + self.size].iter().map(|b| b.load(Relaxed)));
                });
                (states, xxh3_64(&bytes))
            })
            .collect();
        let mut hasher = Xxh3::new();
        for (_, digest) in &digests {
            hasher.update(&digest.to_le_bytes());
        }
        (digests.iter().map(|d| d.0).sum(), hasher.digest())
    }

    /// Zeroes the layer's records: a stopped run or a damaged file may have
    /// left anything there, and the solver writes only states, expecting
    /// zeros elsewhere. With a last pass, only the canonical states' records:
    /// nothing reads the others before the last pass writes them whole, and
    /// leaving them spares their pages.
    fn clear(&self, layer: usize, payload: &[AtomicU8]) {
        match &self.ranges {
            Some(ranges) if !self.canonical_only => payload[ranges[layer].clone()]
                .par_iter()
                .for_each(|b| b.store(0, Relaxed)),
            _ => self.pieces(layer).into_par_iter().for_each(|indices| {
                self.for_each_kept(layer, indices, |index| {
                    let at = index as usize * self.size;
                    payload[at..at + self.size]
                        .iter()
                        .for_each(|b| b.store(0, Relaxed));
                });
            }),
        }
    }

    /// Writes a finished layer back to the file when it is one range. A
    /// scattered layer's pages are shared with every other layer's: the
    /// kernel writes them back in its time, and a layer whose pages a reboot
    /// lost fails its checksum on resuming and is built again.
    fn sync(&self, layer: usize, mapped: &format::Mapped<'_>) -> io::Result<()> {
        match &self.ranges {
            Some(ranges) => mapped.sync(ranges[layer].clone()),
            None => Ok(()),
        }
    }
}

/// Builds `game`'s table out of core as [`crate::typed::build_out_of_core_for`]
/// does with [`retrograde::Images::WhenSolved`] (the same bytes), resumably
/// (see the module docs). `progress` gets the states solved, counting a
/// reused layer's records.
pub fn build_out_of_core_resumable<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    build_out_of_core_resumable_as(game, path, records, Images::WhenSolved, progress)
}

/// [`build_out_of_core_resumable`] with the images written as `images` says
/// (the same bytes either way). A partial build made in the other mode is
/// refused in one line; [`partial_images`] tells its mode.
pub fn build_out_of_core_resumable_as<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    images: Images,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    let mask_bytes = usize::from(records.spec(game).layout.mask_bytes);
    let space = game.space();
    let generic = |payload: &[AtomicU8], layer: usize, progress: Progress<'_>| {
        retrograde::solve_records_layer_as(&space, payload, mask_bytes, images, layer, progress)
    };
    build_resumable(game, path, records, images, &generic, progress)
}

/// Solves one layer of a table's payload (the layers below solved), telling
/// `progress` the layer's states done so far.
pub type LayerSolver<'a> =
    &'a dyn Fn(&[AtomicU8], usize, Progress<'_>) -> Result<(), retrograde::SolveError>;

/// [`build_out_of_core_resumable`] with another solver of each layer, which
/// must write the generic solver's bytes (the state file checks them).
pub fn build_resumable_with<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    solve_layer: LayerSolver<'_>,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    build_resumable(
        game,
        path,
        records,
        Images::WhenSolved,
        solve_layer,
        progress,
    )
}

/// [`build_resumable_with`] with the images written as `images` says, which
/// `solve_layer` must do too.
fn build_resumable<T: Tabulated>(
    game: &T,
    path: &Path,
    records: Records,
    images: Images,
    solve_layer: LayerSolver<'_>,
    progress: Progress<'_>,
) -> Result<Resumed, TableError> {
    let spec = records.spec(game);
    crate::typed::one_byte_values(&spec, path)?;
    let space = game.space();
    let layers = Layers::new(&space, spec.layout.record_size(), images);
    let io = |error: io::Error| TableError::io(path, error);
    let (header, meta_bytes) = format::plan(&spec, &format::meta_for(&records.description(game)));
    let file_len = format::mapped_len(path, &header)?;
    crate::atomic::check_writable(path).map_err(io)?;
    let part = Partial::open(path, &table_line(&spec, file_len, images), file_len)?;
    let mut resumed = Resumed {
        reused: 0,
        layers: space.num_layers(),
    };
    format::fill_mapped(&part.file, path, header, &meta_bytes, |payload, mapped| {
        let (mut lines, mut before) = part.checked_lines(payload, &layers);
        resumed.reused = lines.len();
        for layer in lines.len()..space.num_layers() {
            if !part.fresh {
                layers.clear(layer, payload);
            }
            solve_layer(payload, layer, &|done| progress(before + done))
                .unwrap_or_else(|e| panic!("{} state space: {e}", spec.game));
            layers.sync(layer, mapped).map_err(io)?;
            let (line, records) = layers.line(layer, payload);
            before += records;
            lines.push(line);
            part.write_state(&lines).map_err(io)?;
        }
        if images == Images::LastPass {
            if part.last_pass_begun && resumed.reused == resumed.layers {
                eprintln!(
                    "{}: every layer is finished; the last pass was stopped, so it runs again",
                    part.part.display()
                );
            }
            lines.push(LAST_PASS_BEGUN.to_string());
            part.write_state(&lines).map_err(io)?;
            let mask_bytes = usize::from(spec.layout.mask_bytes);
            retrograde::copy_records_images(&space, payload, mask_bytes, &|range| {
                mapped.release(range)
            })
            .unwrap_or_else(|e| panic!("{} state space: {e}", spec.game));
        }
        Ok(())
    })??;
    part.finish(path).map_err(io)?;
    Ok(resumed)
}

/// A partial build's file, locked, and its state.
struct Partial {
    file: File,
    part: PathBuf,
    state: PathBuf,
    table: String,
    /// The finished layers' lines the state file held on opening.
    lines: Vec<String>,
    /// Whether the state file said the last pass had begun.
    last_pass_begun: bool,
    /// Whether the file was made anew (all zero) by this run.
    fresh: bool,
}

impl Partial {
    /// Opens (or creates, with an empty state) the partial build of the table
    /// that `table` names, `file_len` bytes long; refuses another table's.
    fn open(path: &Path, table: &str, file_len: u64) -> Result<Partial, TableError> {
        let part = crate::atomic::partial_path(path);
        let state = state_path(path);
        let io = |error: io::Error| TableError::io(&part, error);
        let mut lines = match fs::read_to_string(&state) {
            Ok(text) => Some(
                state_lines(&text, table)
                    .map_err(|what| TableError::io(&state, io::Error::other(what)))?,
            ),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(TableError::io(&state, e)),
        };
        // A state whose partial file is gone describes nothing: start afresh.
        lines = lines.filter(|_| fs::symlink_metadata(&part).is_ok());
        let last_pass_begun = lines
            .as_mut()
            .is_some_and(|lines| lines.pop_if(|line| line == LAST_PASS_BEGUN).is_some());
        if lines.is_none() {
            // Refused for room before the partial file is made, as a build
            // that writes a temporary file is.
            crate::room::check_room(path, file_len).map_err(|e| TableError::io(path, e))?;
        }
        let file = open_no_follow(&part, lines.is_none()).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => TableError::io(
                &part,
                io::Error::new(
                    e.kind(),
                    format!(
                        "exists without {}, so it is no partial build of this table: move or remove it",
                        state.display()
                    ),
                ),
            ),
            _ => io(e),
        })?;
        if !crate::atomic::try_lock(&file).map_err(io)? {
            return Err(io(io::Error::other("is being built by another run")));
        }
        let fresh = lines.is_none() || file.metadata().map_err(io)?.len() != file_len;
        if fresh {
            let sized = (|| {
                crate::room::check_room(path, file_len).map_err(|e| TableError::io(path, e))?;
                file.set_len(0).map_err(io)?;
                crate::atomic::allocate(&file, file_len)
                    .map_err(|e| io(crate::room::explain_too_large(path, file_len, e)))
            })();
            if let Err(e) = sized {
                if lines.is_none() {
                    // Ours, made just now and holding nothing: leave no file behind.
                    let _ = fs::remove_file(&part);
                }
                return Err(e);
            }
        }
        let partial = Partial {
            file,
            part: part.clone(),
            state,
            table: table.to_string(),
            lines: if fresh {
                Vec::new()
            } else {
                lines.unwrap_or_default()
            },
            last_pass_begun: last_pass_begun && !fresh,
            fresh,
        };
        // Without the last-pass line: the last pass writes it again as it begins.
        partial.write_state(&partial.lines).map_err(io)?;
        Ok(partial)
    }

    /// The state file's finished layers that the payload still holds: up to
    /// the first whose place or checksum does not match (which a later
    /// layer may have read, so it and everything above are built again);
    /// and the number of their records.
    fn checked_lines<S: StateSpace>(
        &self,
        payload: &[AtomicU8],
        layers: &Layers<'_, S>,
    ) -> (Vec<String>, u64) {
        let (mut kept, mut records) = (Vec::new(), 0);
        for (layer, line) in self.lines.iter().enumerate() {
            if layer >= layers.space.num_layers() {
                break;
            }
            let (expected, count) = layers.line(layer, payload);
            if *line != expected {
                eprintln!(
                    "{}: layer {layer} does not match its checksum in {}: building it again",
                    self.part.display(),
                    self.state.display()
                );
                break;
            }
            kept.push(expected);
            records += count;
        }
        (kept, records)
    }

    /// Replaces the state file (atomically) with the table's line and these layers'.
    fn write_state(&self, lines: &[String]) -> io::Result<()> {
        crate::atomic::write_file(&self.state, |out| {
            writeln!(out, "{MAGIC}")?;
            writeln!(out, "{}", self.table)?;
            for line in lines {
                writeln!(out, "{line}")?;
            }
            Ok(())
        })
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", self.state.display())))
    }

    /// Renames the finished partial file to `path` and removes the state.
    fn finish(self, path: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        crate::atomic::check_target(path)?;
        fs::rename(&self.part, path)?;
        fs::remove_file(&self.state)?;
        if let Ok(dir) = File::open(crate::atomic::parent_of(path)) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Drop for Partial {
    /// Releases the lock explicitly, also when a stop unwinds the build: a
    /// child forked meanwhile by another thread shares the open file until it
    /// execs, so a close alone can leave the next run told the file is being built.
    fn drop(&mut self) {
        crate::atomic::unlock(&self.file);
    }
}

/// The finished layers' lines of a state file written for the table `table`,
/// or why it is not one.
fn state_lines(text: &str, table: &str) -> Result<Vec<String>, String> {
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(format!("not a partial build's state (no '{MAGIC}' line)"));
    }
    match lines.next() {
        Some(line) if line == table => {}
        Some(line)
            if line.strip_suffix(LAST_PASS_TABLE).unwrap_or(line)
                == table.strip_suffix(LAST_PASS_TABLE).unwrap_or(table) =>
        {
            let [theirs, ours] = [line, table].map(|line| match line.ends_with(LAST_PASS_TABLE) {
                true => "last-pass",
                false => "when-solved",
            });
            return Err(format!(
                "a partial build of this table with --images {theirs}, not {ours}: \
                 build with --images {theirs} (or without --images), or remove it and its .part file"
            ));
        }
        Some(line) => {
            return Err(format!(
                "a partial build of another table ({line}), not of this one ({table}): \
                 build with its parameters, or remove it and its .part file"
            ));
        }
        None => return Err("not a partial build's state (no table line)".into()),
    }
    Ok(lines.map(str::to_string).collect())
}

/// Opens `path` for reading and writing without following a symlink; creates
/// it (exclusively) when `create`.
fn open_no_follow(path: &Path, create: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create_new(create);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is not a regular file: move or remove it",
        ));
    }
    Ok(file)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A partial build dropped while its open file is still shared (by a
    /// child another thread forked, until it execs; by a duplicate here)
    /// leaves the file free for the next run.
    #[test]
    fn a_dropped_partial_frees_its_file_while_it_is_still_shared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.tab");
        let partial = Partial::open(&path, "a table", 64).unwrap();
        let shared = partial.file.try_clone().unwrap();
        drop(partial);
        let again = Partial::open(&path, "a table", 64);
        assert!(again.is_ok(), "{:?}", again.err());
        drop(shared);
    }
}
