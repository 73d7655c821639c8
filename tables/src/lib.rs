//! The tabula table file format: writer, checked reader, memory map and builders.
