//! What an entry is checked against: a transcript's identity (device, inode,
//! size, modification time), the digests of the first and last 4 KB of the
//! lines an entry covers and of the file's last 4 KB, and the digest every
//! part of a pack carries.

use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

use super::pack::{Header, Ident};

/// Bytes hashed at each end of the covered prefix.
const EDGE: u64 = 4096;

pub(super) fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

pub(super) fn path_bytes(p: &Path) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(p.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        std::borrow::Cow::Owned(p.to_string_lossy().into_owned().into_bytes())
    }
}

/// The path whose [`path_bytes`] are `b`.
pub(super) fn path_of(b: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(b))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(&*String::from_utf8_lossy(b))
    }
}

pub(super) fn ident(meta: &Metadata) -> Ident {
    let (dev, ino) = crate::scan::source::file_id(meta).unwrap_or((0, 0));
    let mtime =
        meta.modified()
            .ok()
            .map_or((0, 0), |t| match t.duration_since(std::time::UNIX_EPOCH) {
                Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
                Err(e) => (
                    -(e.duration().as_secs() as i64),
                    e.duration().subsec_nanos(),
                ),
            });
    Ident {
        dev,
        ino,
        size: meta.len(),
        mtime,
    }
}

/// The end of the last whole line of `buf` at or after `start` (`start` when
/// no newline follows it).
pub(super) fn whole_lines_end(buf: &[u8], start: usize) -> usize {
    memchr::memrchr(b'\n', &buf[start..]).map_or(start, |i| start + i + 1)
}

pub(super) fn newlines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

/// The first and the last (up to) 4 KB of the first `n` bytes.
fn edges(n: u64) -> [(u64, u64); 2] {
    let head = n.min(EDGE);
    let tail_start = n.saturating_sub(EDGE);
    [(0, head), (tail_start, n - tail_start)]
}

/// A 64-bit digest of `b`, eight bytes a step, for checking bytes against
/// accidents (a pack's parts, a file's edges), not adversaries: FNV-1a's
/// byte a step took 10 ms over a 3 MB entry, which the status line reads on
/// every prompt.
pub(super) fn digest(b: &[u8]) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ b.len() as u64;
    let mut words = b.chunks_exact(8);
    let step = |h: u64, w: &[u8]| {
        let mut a = [0u8; 8];
        a[..w.len()].copy_from_slice(w);
        (h ^ u64::from_le_bytes(a))
            .wrapping_mul(0xff51_afd7_ed55_8ccd)
            .rotate_left(29)
    };
    for w in &mut words {
        h = step(h, w);
    }
    h = step(h, words.remainder()).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The header of an entry covering the whole lines `buf[..consumed]` (`lines`
/// of them) of a file now `buf`.
pub(super) fn header_of(buf: &[u8], ident: Ident, consumed: usize, lines: u64) -> Header {
    let hash = |(a, n): (u64, u64)| digest(&buf[a as usize..(a + n) as usize]);
    let [head, tail] = edges(consumed as u64);
    let [_, end] = edges(buf.len() as u64);
    Header {
        ident,
        consumed: consumed as u64,
        lines,
        head: hash(head),
        tail: hash(tail),
        end: hash(end),
    }
}

/// Whether the file still holds, at the same offsets, the bytes the entry's
/// head and tail digests were taken of (and, with `to_end`, its last 4 KB
/// at the size it had).
pub(super) fn edges_match(file: &File, h: &Header, to_end: bool) -> bool {
    let [head, tail] = edges(h.consumed);
    let [_, end] = edges(h.ident.size);
    let mut buf = [0u8; EDGE as usize];
    let mut same = |(a, n): (u64, u64), want: u64| {
        let b = &mut buf[..n as usize];
        crate::scan::source::read_exact_at(file, b, a).is_ok() && digest(b) == want
    };
    same(head, h.head)
        && same(tail, h.tail)
        && (!to_end || h.ident.size == h.consumed || same(end, h.end))
}
