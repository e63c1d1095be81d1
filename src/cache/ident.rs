//! What an entry is checked against: a transcript's identity (device, inode,
//! size, modification time), the digests of the first and last 4 KB of the
//! lines an entry covers and of the file's last 4 KB, and the digest every
//! part of a pack carries.

use std::fs::{File, Metadata};
use std::path::{Path, PathBuf};

use super::pack::{Header, Ident};

/// Bytes hashed at each end of the covered prefix.
const EDGE: u64 = 4096;

/// The most bytes one read of [`edges_match`] takes (edges close together
/// are read at once).
const SPAN: u64 = 3 * EDGE;

pub(super) fn absolute(p: &Path) -> std::borrow::Cow<'_, Path> {
    if p.is_absolute() {
        std::borrow::Cow::Borrowed(p)
    } else {
        std::borrow::Cow::Owned(std::env::current_dir().unwrap_or_default().join(p))
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
pub(super) fn edges(n: u64) -> [(u64, u64); 2] {
    let head = n.min(EDGE);
    let tail_start = n.saturating_sub(EDGE);
    [(0, head), (tail_start, n - tail_start)]
}

/// A 64-bit digest of `b`, for checking bytes against accidents (a pack's
/// parts, a file's edges), not adversaries. Four independent lanes take 32
/// bytes a step and are folded together at the end: the one-lane chain (a
/// multiply's latency per 8 bytes) was 13% of a warm `stats` run, which
/// digests every entry's answer and every transcript's edges (FNV-1a's byte
/// a step before it took 10 ms over a 3 MB entry, which the status line reads
/// on every prompt). Changing it changes every digest a pack holds: bump
/// [`super::pack`]'s magic with it.
pub(super) fn digest(b: &[u8]) -> u64 {
    let seed = 0x9e37_79b9_7f4a_7c15 ^ b.len() as u64;
    let mut lanes = [0u64; 4];
    for (i, l) in lanes.iter_mut().enumerate() {
        *l = seed ^ (i as u64).wrapping_mul(0xa076_1d64_78bd_642f);
    }
    let mut blocks = b.chunks_exact(32);
    for block in &mut blocks {
        for (l, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *l = mix(*l, word(w));
        }
    }
    let mut h = lanes.iter().fold(seed, |h, &l| mix(h, l));
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        h = mix(h, word(w));
    }
    h = mix(h, word(words.remainder())).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// One step of [`digest`]: a bijection of `h` for each `w`, so a changed
/// word always changes its lane.
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0xff51_afd7_ed55_8ccd).rotate_left(29)
}

/// Up to 8 bytes as a little-endian word (zero-padded).
fn word(w: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    let n = w.len().min(8);
    a[..n].copy_from_slice(&w[..n]);
    u64::from_le_bytes(a)
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
/// at the size it had). Edges that lie within [`SPAN`] bytes of each other
/// are read in one `pread`: a file of up to 8 KB, or one whose unterminated
/// last line is short, takes one read where it took two or three.
pub(super) fn edges_match(file: &File, h: &Header, to_end: bool) -> bool {
    let [head, tail] = edges(h.consumed);
    let [_, end] = edges(h.ident.size);
    let all = [(head, h.head), (tail, h.tail), (end, h.end)];
    let n = if to_end && h.ident.size != h.consumed {
        3
    } else {
        2
    };
    // One zeroed buffer a thread, not 12 KB zeroed on the stack a file.
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; SPAN as usize]);
    }
    BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut b) => spans_match(file, &all[..n], &mut b),
        Err(_) => spans_match(file, &all[..n], &mut vec![0; SPAN as usize]),
    })
}

/// [`edges_match`]'s reads and digests, into `buf` (`SPAN` bytes).
fn spans_match(file: &File, all: &[((u64, u64), u64)], buf: &mut [u8]) -> bool {
    // Starts and ends both ascend (consumed <= size): each span is the
    // longest run of edges from its first whose end lies within SPAN of it.
    let mut rest = all;
    while let Some(&((from, _), _)) = rest.first() {
        let k = rest
            .iter()
            .take_while(|((a, len), _)| a + len - from <= SPAN)
            .count()
            .max(1);
        let (now, later) = rest.split_at(k.min(rest.len()));
        let to = now
            .iter()
            .map(|((a, len), _)| a + len)
            .max()
            .unwrap_or(from);
        let Some(b) = buf.get_mut(..(to - from) as usize) else {
            return false;
        };
        if crate::scan::source::read_exact_at(file, b, from).is_err() {
            return false;
        }
        let same = |&((a, len), want): &((u64, u64), u64)| {
            let at = (a - from) as usize;
            b.get(at..at + len as usize)
                .is_some_and(|e| digest(e) == want)
        };
        if !now.iter().all(same) {
            return false;
        }
        rest = later;
    }
    true
}

#[cfg(test)]
mod tests;
