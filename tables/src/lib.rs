//! The tabula table file format: writer, checked reader, memory map and builders.
//!
//! A table file is a fixed 128-byte little-endian header, a postcard-encoded
//! metadata block and a page-aligned payload of fixed-width records, one per
//! state index (see [`format`](mod@format) for the byte layout). Every header field and both
//! checksums are verified when a table is opened, whether read or mapped; a
//! mapped table whose file shrinks ends the process with exit status 2, not a
//! signal. Every file is written through [`atomic`]: whole files by
//! [`atomic::write_file`], mapped builds by [`atomic::temporary_for`] and
//! [`atomic::persist`], logs by [`atomic::Partial`].

pub mod atomic;
pub mod distributed;
pub mod dominoes;
pub mod format;
pub mod ioiwari;
pub mod kalah;
pub mod memory;
#[cfg(feature = "mpi")]
pub mod mpi_group;
pub mod resume;
pub mod room;
mod shares;
mod sigbus;
pub mod stop;
pub mod tonga;
pub mod typed;

pub use format::{Header, Layout, Meta, Record, RecordBounds, Table, TableError, TableSpec};
pub use typed::{Entry, LookupError, Records, Tabulated, TypedTable};
