//! Opening a transcript's bytes: a memory map for large files, one read for small
//! ones. The length is fixed at open, so lines appended while a command runs are
//! not seen and never half-read (TAIL-012, REC-040).
//!
//! Mapping is sound here because Claude Code only appends to a transcript and
//! replaces it by rename on compaction (REC-087, MISC-017): the inode csift maps is
//! never truncated underneath it. A file another program truncates could still
//! fault, so only regular files above [`MMAP_MIN`] are mapped.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

use memmap2::Mmap;

use crate::error::{Error, Result};

/// Below this a plain read is as fast as a map and has no fault risk.
pub(crate) const MMAP_MIN: u64 = 1 << 20;

pub enum Source {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Source::Mapped(m) => m,
            Source::Owned(v) => v,
        }
    }
}

impl Source {
    pub fn open(path: &Path) -> Result<Source> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        Source::from_file(file, &meta, path)
    }

    /// The bytes of an already opened `file` (`meta` is its metadata; `path` only
    /// names it in errors). A directory is an error, as in [`Source::open`].
    pub(crate) fn from_file(file: File, meta: &std::fs::Metadata, path: &Path) -> Result<Source> {
        if meta.is_dir() {
            return Err(Error::io(
                path,
                std::io::Error::other("is a directory, not a transcript"),
            ));
        }
        let len = meta.len();
        if meta.is_file() && len >= MMAP_MIN {
            // SAFETY: see the module doc — transcripts are append-only and replaced by
            // rename; csift never writes through the map and reads only `len` bytes
            // that existed at open.
            let map = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file) };
            if let Ok(map) = map {
                #[cfg(unix)]
                let _ = map.advise(memmap2::Advice::Sequential);
                return Ok(Source::Mapped(map));
            }
        }
        let mut buf = Vec::with_capacity(len as usize);
        file.take(len)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(path, e))?;
        Ok(Source::Owned(buf))
    }
}
/// The first `n` bytes of a file (fewer when it is shorter), for facts a
/// transcript states in its first records; empty when it cannot be read.
pub(crate) fn head(path: &std::path::Path, n: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(n);
    if let Ok(f) = File::open(path) {
        let _ = f.take(n as u64).read_to_end(&mut buf);
    }
    buf
}
