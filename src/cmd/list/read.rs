//! The bytes `csift list` reads of one transcript. By default a head window and a
//! tail window, fetched with positioned reads and grown by doubling while the facts
//! they should answer are missing; the whole file when it is small ([`WHOLE_MAX`]),
//! when the windows grow to cover it, or when the caller asks (`--full`, one
//! session).
//!
//! Windows are plain reads, never a map: mapping a large file to touch its first
//! and last pages costs a map, page-table setup and an unmap per file, and a
//! whole-file map is only worth it for a file read whole (see [`Source`]). Size
//! and bytes come from the same open file: the length is the opened file's at
//! open, so lines appended while `list` runs are not seen (TAIL-012), a window
//! never reaches past it, and a file replaced by rename after the tree walk is
//! read as one version, never with the other's length (a false torn final
//! line, a time in neither version). A file cut while its windows are read is
//! changed while reading.
//!
//! This module only reads; what a row says is computed in `facts`.

use std::fs::File;
use std::path::Path;

use crate::error::{Error, Result};
use crate::scan::source::Opened;
use crate::scan::Source;

/// First head window (grown up to [`HEAD_MAX`] while the first prompt or cwd is
/// missing) and first tail window (grown up to [`TAIL_MAX`] while no timestamped
/// record is found). On the 5,042-file bench home (avg 60 KB) list took 1.5x,
/// 1.9x, 2.4x, 2.9x and 3.4x the time of `rg` with 4, 8, 16, 32 and 64 KB windows:
/// every byte read is parsed, and per file the syscalls cost more than the bytes.
/// 4 KB holds the envelope and first prompt of most sessions and the last records
/// of most tails (2 KB already misses most models); the rest grow.
pub(crate) const HEAD_START: usize = 4 * 1024;
pub(crate) const TAIL_START: usize = 4 * 1024;
pub(crate) const HEAD_MAX: usize = 1024 * 1024;
pub(crate) const TAIL_MAX: usize = 256 * 1024;

/// A file up to this size is read whole by default, for exact turn counts: the
/// bundled sample's sessions (26–150 KB) all showed `?t`, the first thing a new
/// user sees. Measured on the bench homes in BENCHMARKS.md's notes.
pub(crate) const WHOLE_MAX: u64 = 256 * 1024;

/// What was read of a transcript.
pub enum Bytes {
    /// The whole file, as every other command reads it: the caller asked for it,
    /// or it is not a regular file (no positioned reads).
    Whole(Source),
    /// A head and a tail window, or the whole file when it fits in them or they
    /// grew to cover it ([`Windows::is_whole`]).
    Windows(Windows),
}

impl Bytes {
    /// Open `path` and read it whole (`whole`), or read its first two windows
    /// (one read of the whole file when it fits in them). The length is the
    /// opened file's own, never the one the tree walk saw: a file replaced by
    /// rename since (MISC-017) is read as the version that was opened, not
    /// with the length of the one before.
    pub fn open(path: &Path, whole: bool) -> Result<Bytes> {
        Bytes::of(crate::scan::source::open(path)?, path, whole)
    }

    /// [`Bytes::open`] of a file already opened.
    pub(crate) fn of(o: Opened, path: &Path, whole: bool) -> Result<Bytes> {
        if whole {
            return Source::from_opened(o, path).map(Bytes::Whole);
        }
        Windows::first(o.file, o.len, path).map(Bytes::Windows)
    }

    /// The digests of the file's first and last 4 KB, from the bytes read
    /// so far ([`crate::cache::edge_digests`]).
    pub(crate) fn edge_digests(&self) -> Option<[u64; 2]> {
        match self {
            Bytes::Whole(s) => crate::cache::edge_digests(s, &[], s.len() as u64),
            Bytes::Windows(w) => crate::cache::edge_digests(&w.head, &w.tail, w.len),
        }
    }

    /// Whether the bytes are still the file's ([`Source::check`]); windows
    /// are read, and a read that came up short already failed.
    pub(crate) fn check(&self) -> Result<()> {
        match self {
            Bytes::Whole(s) => s.check(),
            Bytes::Windows(_) => Ok(()),
        }
    }

    /// The whole file, when it was read whole (directly or by growing windows).
    pub fn whole(&self) -> Option<&[u8]> {
        match self {
            Bytes::Whole(s) => Some(s),
            Bytes::Windows(w) if w.is_whole() => Some(&w.head),
            Bytes::Windows(_) => None,
        }
    }
}

/// A head window (bytes `0..head.len()`) and a tail window (the last `tail.len()`
/// bytes) of a file of `len` bytes that do not overlap; or, once grown to cover
/// the file, the whole file in `head` and an empty `tail`.
pub struct Windows {
    file: File,
    len: u64,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Windows {
    /// The first head and tail windows of `file`, taken to be `len` bytes long
    /// (one read of the whole file when it fits in them).
    fn first(file: File, len: u64, path: &Path) -> Result<Windows> {
        let mut w = Windows {
            file,
            len,
            head: Vec::new(),
            tail: Vec::new(),
        };
        if len <= WHOLE_MAX.max((HEAD_START + TAIL_START) as u64) {
            // Small: one read, and the head is the whole file.
            w.read_into_head(0, len as usize, path)?;
            return Ok(w);
        }
        w.read_into_head(0, HEAD_START, path)?;
        let at = len - TAIL_START as u64;
        w.tail.resize(TAIL_START, 0);
        crate::scan::source::read_exact_at(&w.file, &mut w.tail, at).map_err(|e| cut(path, e))?;
        Ok(w)
    }

    /// Length of the file at open.
    pub(crate) fn file_len(&self) -> u64 {
        self.len
    }

    pub(crate) fn is_whole(&self) -> bool {
        self.head.len() as u64 == self.len
    }

    /// The head window's bytes (possibly ending inside a line).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The tail window's bytes (possibly starting inside a line) and the file
    /// offset of its first byte.
    pub fn tail(&self) -> (u64, &[u8]) {
        (self.len - self.tail.len() as u64, &self.tail)
    }

    /// Double the head window, up to `max` bytes. False when it is already at
    /// `max`. A window that would meet the tail reads the gap and becomes whole.
    pub(crate) fn grow_head(&mut self, max: usize, path: &Path) -> Result<bool> {
        if self.is_whole() || self.head.len() >= max {
            return Ok(false);
        }
        let want = (self.head.len() * 2).min(max);
        if (want + self.tail.len()) as u64 >= self.len {
            return self.fill(path).map(|()| true);
        }
        self.read_into_head(self.head.len() as u64, want - self.head.len(), path)?;
        Ok(true)
    }

    /// Double the tail window, up to `max` bytes; as [`Windows::grow_head`].
    pub(crate) fn grow_tail(&mut self, max: usize, path: &Path) -> Result<bool> {
        if self.is_whole() || self.tail.len() >= max {
            return Ok(false);
        }
        let want = (self.tail.len() * 2).min(max);
        if (want + self.head.len()) as u64 >= self.len {
            return self.fill(path).map(|()| true);
        }
        let at = self.len - want as u64;
        let mut grown = self.read(at, want - self.tail.len(), path)?;
        grown.extend_from_slice(&self.tail);
        self.tail = grown;
        Ok(true)
    }

    /// Read the rest of the file: `head` becomes the whole file.
    pub(crate) fn read_whole(&mut self, path: &Path) -> Result<()> {
        match self.is_whole() {
            true => Ok(()),
            false => self.fill(path),
        }
    }

    /// Read the gap between the windows: `head` becomes the whole file.
    fn fill(&mut self, path: &Path) -> Result<()> {
        let gap_at = self.head.len() as u64;
        let gap = (self.len - self.tail.len() as u64).saturating_sub(gap_at) as usize;
        self.head.reserve(gap + self.tail.len());
        self.read_into_head(gap_at, gap, path)?;
        self.head.append(&mut self.tail);
        Ok(())
    }

    /// Append the `n` bytes at `offset` (the head's end) to the head.
    fn read_into_head(&mut self, offset: u64, n: usize, path: &Path) -> Result<()> {
        let from = self.head.len();
        self.head.resize(from + n, 0);
        crate::scan::source::read_exact_at(&self.file, &mut self.head[from..], offset)
            .map_err(|e| cut(path, e))
    }

    /// `n` bytes at `offset`. The file is never shorter than `len` bytes unless
    /// something truncated it, which is reported as an error on this file.
    fn read(&self, offset: u64, n: usize, path: &Path) -> Result<Vec<u8>> {
        let mut buf = vec![0; n];
        crate::scan::source::read_exact_at(&self.file, &mut buf, offset)
            .map_err(|e| cut(path, e))?;
        Ok(buf)
    }
}

/// A window that ends past the end of the file: the file was cut after it
/// was opened.
fn cut(path: &Path, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        Error::Changed {
            path: path.to_path_buf(),
            detail: "it became shorter than it was at open".into(),
        }
    } else {
        Error::io(path, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(n: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
        let bytes: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, &bytes).unwrap();
        (f, bytes)
    }

    /// Up to [`WHOLE_MAX`] a file is read whole (exact turns); past it, as
    /// two windows.
    #[test]
    fn small_files_are_read_whole() {
        let (f, bytes) = file_of(WHOLE_MAX as usize);
        let b = Bytes::open(f.path(), false).unwrap();
        assert_eq!(b.whole(), Some(&bytes[..]));
        let (f, _) = file_of(WHOLE_MAX as usize + 1);
        let b = Bytes::open(f.path(), false).unwrap();
        assert!(b.whole().is_none());
    }

    /// The length at open bounds the windows (TAIL-012: lines appended
    /// since are not read), and a file cut after open is changed while reading.
    #[test]
    fn the_length_at_open_bounds_the_windows_tail_012() {
        let n = WHOLE_MAX as usize + 3 * HEAD_START;
        let (f, bytes) = file_of(n);
        let Bytes::Windows(mut w) = Bytes::open(f.path(), false).unwrap() else {
            panic!("expected windows");
        };
        std::io::Write::write_all(&mut f.as_file(), &[b'z'; 5000]).unwrap();
        assert_eq!(w.file_len(), n as u64);
        while w.grow_head(HEAD_MAX, f.path()).unwrap() {}
        assert!(w.is_whole());
        assert_eq!(w.head(), &bytes[..]);
        let Bytes::Windows(mut w) = Bytes::open(f.path(), false).unwrap() else {
            panic!("expected windows");
        };
        f.as_file().set_len(HEAD_START as u64).unwrap();
        let e = loop {
            match w.grow_head(HEAD_MAX, f.path()) {
                Ok(true) => continue,
                Ok(false) => panic!("grew to the end of a cut file"),
                Err(e) => break e,
            }
        };
        assert!(e.to_string().contains("changed while reading"), "{e}");
    }

    #[test]
    fn windows_grow_and_meet() {
        let n = WHOLE_MAX as usize + 123;
        let (f, bytes) = file_of(n);
        let Bytes::Windows(mut w) = Bytes::open(f.path(), false).unwrap() else {
            panic!("expected windows");
        };
        assert_eq!(w.head(), &bytes[..HEAD_START]);
        assert_eq!(
            w.tail(),
            ((n - TAIL_START) as u64, &bytes[n - TAIL_START..])
        );
        assert!(w.grow_tail(TAIL_MAX, f.path()).unwrap());
        assert_eq!(w.tail().1, &bytes[n - 2 * TAIL_START..]);
        assert!(!w.grow_head(HEAD_START, f.path()).unwrap(), "at its max");
        assert!(w.grow_head(HEAD_MAX, f.path()).unwrap());
        assert_eq!(w.head(), &bytes[..2 * HEAD_START]);
        assert!(!w.is_whole());
        // Doubling from 8 KB: at 128 KB of head and 8 KB of tail the next
        // doubling would pass the tail, so it reads the gap instead.
        for _ in 0..4 {
            assert!(w.grow_head(HEAD_MAX, f.path()).unwrap());
            assert!(!w.is_whole(), "{}", w.head().len());
        }
        assert!(w.grow_head(HEAD_MAX, f.path()).unwrap());
        assert!(w.is_whole(), "the windows met");
        assert_eq!(w.head(), &bytes[..]);
        assert_eq!(Bytes::Windows(w).whole(), Some(&bytes[..]));
    }

    #[test]
    fn full_reads_whole() {
        let (f, bytes) = file_of(HEAD_MAX);
        assert_eq!(
            Bytes::open(f.path(), true).unwrap().whole(),
            Some(&bytes[..])
        );
    }
}
