//! Opening a transcript and reading its bytes.
//!
//! Every transcript is opened by [`open`]: non-blocking, so a FIFO with no
//! writer or a device cannot hang the open, and then judged by the opened
//! handle's own metadata (not a stat made before the open, which a rename or
//! a swapped symlink can outdate): only a regular file is read. Its length at
//! open bounds every read, so lines appended while a command runs are not
//! seen and never half-read (TAIL-012, REC-040), and a file that reports no
//! length (`/proc/kmsg`, a regular file whose read blocks) is read as empty.
//!
//! A file of [`MMAP_MIN`] bytes or more is memory-mapped, a smaller one read.
//! Claude Code only appends to a transcript and replaces it by rename
//! (REC-087, MISC-017), so the inode csift maps is not cut by it; but a sync
//! tool, an editor or a user's `>` can cut one while csift reads it, and a
//! read through a map past the new end raises SIGBUS, which killed csift
//! (143 of 180 trials on a 67 MB transcript). Every map is therefore guarded
//! ([`super::sigbus`]): such a fault maps zeros over the rest of the map and
//! marks it, the read goes on, and [`Source::check`] reports the file as
//! changed while reading. A read that comes up short is reported the same
//! way. Each reader calls `check` once it is done with the bytes, before it
//! trusts what it computed from them.
//!
//! Why not read every file: on the benchmark machine the page faults of
//! fresh memory cost more than the copy, and a whole-file read took `search`
//! from 0.8x to 1.8x `rg` on the generated home (its 336 MB transcript holds
//! the hit), `stats` and `audit` +20% CPU, `list --full` +54%; a buffer
//! reused across files does not help the one large file. A guarded map costs
//! what a map did. The measurements are in bench/NOTES.md ("SIGBUS and the
//! read path").

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Below this a plain read is as fast as a map (and needs no guard).
pub(crate) const MMAP_MIN: u64 = 1 << 20;

/// An opened regular file and its length at open.
pub(crate) struct Opened {
    pub(crate) file: File,
    pub(crate) len: u64,
    /// The opened handle's metadata (the census cache keys entries by it).
    pub(crate) meta: std::fs::Metadata,
}

/// Open `path` for reading without blocking, and refuse anything but a
/// regular file (judged by the opened handle): a directory, a FIFO, a socket
/// or a device is a clear per-file error, never a read that waits for ever.
pub(crate) fn open(path: &Path) -> Result<Opened> {
    open_io(path).map_err(|e| Error::io(path, e))
}

/// [`open`] with the bare I/O error, for callers that judge its kind.
pub(crate) fn open_io(path: &Path) -> std::io::Result<Opened> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO with no writer blocks in open(2) itself without it; a regular
        // file ignores the flag, and `/proc/kmsg` then fails instead of waiting.
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = opts.open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory, not a transcript"));
    }
    if !meta.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a FIFO, socket or device); not read",
        ));
    }
    Ok(Opened {
        file,
        len: meta.len(),
        meta,
    })
}

/// A whole transcript's bytes, as long as the file was at open.
pub struct Source {
    inner: Inner,
    path: PathBuf,
}

enum Inner {
    Read(Vec<u8>),
    /// Field order is drop order: the guard is released before the map is
    /// unmapped.
    #[cfg(unix)]
    Mapped {
        guard: super::sigbus::Guard,
        map: memmap2::Mmap,
        file: File,
    },
}

impl Deref for Source {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Read(v) => v,
            #[cfg(unix)]
            Inner::Mapped { map, .. } => map,
        }
    }
}

impl Source {
    pub fn open(path: &Path) -> Result<Source> {
        Source::from_opened(open(path)?, path)
    }

    /// The bytes of a file [`open`] opened (`path` names it in errors):
    /// mapped and guarded from [`MMAP_MIN`] bytes, else read.
    pub(crate) fn from_opened(o: Opened, path: &Path) -> Result<Source> {
        #[cfg(unix)]
        if o.len >= MMAP_MIN {
            if let Some(s) = Source::map(&o, path) {
                return Ok(s);
            }
        }
        Source::read(&o.file, o.len, path)
    }

    /// [`Source::open`], mapped from `min` bytes instead of [`MMAP_MIN`]
    /// (read when it cannot be mapped): for a file read in part, of which only
    /// the pages touched are faulted in, none copied (the census cache's
    /// packs, whose resume states a hit never reads).
    pub(crate) fn open_mapped(path: &Path, min: u64) -> Result<Source> {
        let o = open(path)?;
        #[cfg(unix)]
        if o.len >= min.max(1) {
            if let Some(s) = Source::map(&o, path) {
                return Ok(s);
            }
        }
        Source::read(&o.file, o.len, path)
    }

    #[cfg(unix)]
    fn map(o: &Opened, path: &Path) -> Option<Source> {
        let len = usize::try_from(o.len).ok()?;
        // SAFETY: csift never writes through the map; a file cut under it
        // faults into the guard below (zeros and a mark, not SIGBUS), and a
        // map the guard cannot take is dropped before any byte is read.
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(&o.file) }.ok()?;
        let guard = super::sigbus::Guard::new(map.as_ptr(), map.len())?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(Source {
            inner: Inner::Mapped {
                guard,
                map,
                file: o.file.try_clone().ok()?,
            },
            path: path.to_path_buf(),
        })
    }

    /// The first `len` bytes of an opened `file`, read. Fewer bytes than
    /// `len` means the file was cut while being read: an error that says so,
    /// not a shorter transcript.
    pub(crate) fn read(file: &File, len: u64, path: &Path) -> Result<Source> {
        let want = usize::try_from(len).map_err(|_| {
            Error::io(
                path,
                std::io::Error::other("too large to read on this platform"),
            )
        })?;
        let mut buf = Vec::with_capacity(want);
        file.take(len)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io(path, e))?;
        if buf.len() < want {
            return Err(changed(path, buf.len(), want));
        }
        Ok(Source {
            inner: Inner::Read(buf),
            path: path.to_path_buf(),
        })
    }

    /// Whether the bytes are still the file's: an error when it was cut while
    /// mapped (a read past its new end saw zeros, or it is now shorter than
    /// at open). Called by every reader once it is done with the bytes.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.inner {
            Inner::Read(_) => Ok(()),
            #[cfg(unix)]
            Inner::Mapped { guard, map, file } => {
                let now = file.metadata().map(|m| m.len()).unwrap_or(0);
                if guard.is_cut() || now < map.len() as u64 {
                    return Err(changed(&self.path, now as usize, map.len()));
                }
                Ok(())
            }
        }
    }
}

/// A file's (device, inode) where the platform has them: what says two
/// opens reached the same file (a rename-replacement gets a new inode,
/// MISC-017).
pub(crate) fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// A file as it was scanned: its (device, inode) and length. A later read of
/// bytes a scan found (a payload, a tool echo) goes again to the file only
/// while it is the same one, grown or not: Claude Code only appends
/// (REC-087) and replaces by rename (MISC-017).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seen {
    pub(crate) id: Option<(u64, u64)>,
    pub(crate) len: u64,
}

impl Seen {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Seen {
        Seen {
            id: file_id(meta),
            len: meta.len(),
        }
    }

    /// Whether `now` (the file opened again) still holds the bytes seen:
    /// the same file, not shorter.
    pub(crate) fn still(&self, now: &Seen) -> std::result::Result<(), String> {
        if now.id != self.id {
            return Err("the transcript was replaced since csift read it".into());
        }
        if now.len < self.len {
            return Err(format!(
                "the transcript was cut from {} to {} bytes since csift read it",
                self.len, now.len
            ));
        }
        Ok(())
    }
}

/// Fill `buf` from `file` at `offset` (a positional read where the platform
/// has one: the handle's cursor is not moved, so threads may share it).
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
pub(crate) fn read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

fn changed(path: &Path, now: usize, was: usize) -> Error {
    Error::Changed {
        path: path.to_path_buf(),
        detail: format!("cut from {was} to {now} bytes while csift read it"),
    }
}

/// The first `n` bytes of a file (fewer when it is shorter), for facts a
/// transcript states in its first records; empty when it cannot be read or
/// is not a regular file.
pub(crate) fn head(path: &Path, n: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    if let Ok(o) = open(path) {
        let n = o.len.min(n as u64);
        buf.reserve(n as usize);
        let _ = (&o.file).take(n).read_to_end(&mut buf);
    }
    buf
}

/// A small regular file read whole (a lane's `.meta.json`, a journal), at most
/// `max` bytes; an error for anything that is not a regular file.
pub(crate) fn small(path: &Path, max: u64) -> Result<Vec<u8>> {
    let o = open(path)?;
    let mut buf = Vec::new();
    (&o.file)
        .take(o.len.min(max))
        .read_to_end(&mut buf)
        .map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_are_read_and_large_ones_mapped() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, b"one\ntwo\n").unwrap();
        let a = Source::open(f.path()).unwrap();
        assert_eq!(&a[..], b"one\ntwo\n");
        assert!(matches!(a.inner, Inner::Read(_)));
        assert!(a.check().is_ok());
    }

    /// A mapped file cut while it is read: the read past the new end sees
    /// zeros instead of killing the process with SIGBUS, and `check` says the
    /// file changed while reading.
    #[cfg(unix)]
    #[test]
    fn a_mapped_file_cut_under_its_reader_is_reported_not_fatal() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let len = 4 * MMAP_MIN as usize;
        std::io::Write::write_all(&mut f, &vec![b'x'; len]).unwrap();
        let src = Source::open(f.path()).unwrap();
        assert!(matches!(src.inner, Inner::Mapped { .. }));
        assert!(src.check().is_ok());
        f.as_file().set_len(MMAP_MIN).unwrap();
        let past: usize = src[len / 2..].iter().map(|&b| usize::from(b)).sum();
        assert_eq!(past, 0, "the cut part reads as zeros");
        assert_eq!(src[0], b'x');
        let e = src.check().err().unwrap();
        assert!(e.to_string().contains("changed while reading"), "{e}");
        drop(src);
        // A file cut to a length inside its last page faults nowhere; it is
        // caught by its length.
        std::io::Write::write_all(&mut f.as_file(), &vec![b'y'; len]).unwrap();
        let src = Source::open(f.path()).unwrap();
        f.as_file().set_len(src.len() as u64 - 10).unwrap();
        assert!(src.check().is_err());
    }

    /// A file cut between open and read comes up short: changed while reading.
    #[test]
    fn a_file_cut_after_open_is_changed_while_reading() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut f, &[b'x'; 10_000]).unwrap();
        let o = open(f.path()).unwrap();
        f.as_file().set_len(100).unwrap();
        let e = Source::read(&o.file, o.len, f.path()).err().unwrap();
        assert!(e.to_string().contains("changed while reading"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_opened() {
        let d = tempfile::tempdir().unwrap();
        let e = open(d.path()).err().unwrap();
        assert!(e.to_string().contains("is a directory"), "{e}");
        let e = open(Path::new("/dev/null")).err().unwrap();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(head(Path::new("/dev/zero"), 10).is_empty());
    }
}
