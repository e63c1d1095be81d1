//! A streaming pass for the common case of a file with nothing to find: read the
//! file in large chunks into one reused buffer (as ripgrep does; cheaper than
//! faulting in a memory map page by page) and test whole lines against a byte
//! matcher, each chunk right after it is read, while it is still in cache.
//! Memory is bounded by the chunk size plus the longest line.
//!
//! When a line of a file up to [`HOLD_MAX`] matches, the caller gets the whole
//! file in a second per-thread buffer ([`Held`]): the chunk in hand is copied
//! there, the rest is read on, and only the bytes before the chunk are read
//! again. With where the first match's line starts, the caller neither opens the
//! file again nor searches the lines before it twice. A larger file's caller
//! opens it for random access. The chunk buffer stays small for every file: a
//! buffer the size of the file had made each read land in memory out of cache.

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Take};
use std::ops::Deref;
use std::path::Path;

use super::find::Find;
use crate::error::{Error, Result};

/// Bytes read per call.
pub(crate) const CHUNK: usize = 256 * 1024;

/// Files up to this length are held whole when they match.
pub(crate) const HOLD_MAX: u64 = 8 << 20;

thread_local! {
    /// One read buffer per thread, zero-filled once and reused for every file, as
    /// ripgrep does. Zero-filling a fresh chunk before each read had cost a
    /// memset of every byte searched (a third of search's user time on real
    /// homes of many mid-sized files).
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The buffer a matching file is held in, reused the same way.
    static HELD: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What the streaming pass found in a file.
pub(crate) enum Prefiltered {
    /// No complete line (nor the unterminated tail) matches in the file's
    /// bytes, this many (its length at open, up to the limit).
    Miss(u64),
    /// A line matches. `first` is the start of the first matching line; no line
    /// before it matches. `held` is the whole file (up to the length given) when
    /// it was small enough to keep.
    Hit { first: usize, held: Option<Held> },
}

/// A matching file's bytes in the thread's held buffer, given back when dropped.
/// Buffers are taken out of their thread-local while in use (not borrowed), so
/// a rayon job that runs on this thread meanwhile gets buffers of its own.
pub(crate) struct Held {
    buf: Vec<u8>,
    len: usize,
}

impl Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        HELD.with(|cell| {
            let mut mine = cell.borrow_mut();
            if buf.len() >= mine.len() {
                *mine = buf;
            }
        });
    }
}

/// The streaming pass over `path`, as long as it was at open and at most
/// `limit` bytes, so lines appended meanwhile are not half-read (TAIL-012).
/// Only a regular file is read ([`super::source::open`]); one that ends before
/// the length it had at open was cut while being read, and is an error.
pub(crate) fn prefilter(path: &Path, re: &impl Find, limit: u64) -> Result<Prefiltered> {
    let opened = super::source::open(path)?;
    let limit = limit.min(opened.len);
    let mut file = opened.file.take(limit);
    let mut buf = BUF.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
    // A small file needs its length plus one byte (to see EOF in the same read).
    let want = usize::try_from(limit).map_or(CHUNK, |l| CHUNK.min(l.saturating_add(1)));
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let found = scan(&mut file, &mut buf, re, path).map(|hit| {
        hit.map(|(first, base, end)| {
            // A file that cannot be held (or read again) is opened by the caller.
            let held = (limit <= HOLD_MAX)
                .then(|| hold(&mut file, &buf[..end], base, path).ok())
                .flatten();
            Prefiltered::Hit { first, held }
        })
    });
    // A line longer than a few chunks grew the buffer: give that memory back.
    if buf.len() > 4 * CHUNK {
        buf.truncate(CHUNK);
        buf.shrink_to(CHUNK);
    }
    BUF.with(|cell| *cell.borrow_mut() = buf);
    let found = found?;
    // EOF before the length at open (a held file read on to its end, or a
    // miss read to its end): the file was cut while it was read.
    let whole = matches!(found, None | Some(Prefiltered::Hit { held: Some(_), .. }));
    if whole && file.limit() > 0 {
        return Err(Error::Changed {
            path: path.to_path_buf(),
            detail: format!(
                "it ended {} bytes short of its length at open",
                file.limit()
            ),
        });
    }
    Ok(found.unwrap_or(Prefiltered::Miss(limit)))
}

/// The read loop: `buf[from..filled]` holds lines not yet searched, starting at
/// a line start; `base` is the file offset of `buf[0]`. On a match, returns the
/// file offset of the matching line's start, `base`, and how much of `buf`
/// holds file bytes.
fn scan(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    re: &impl Find,
    path: &Path,
) -> Result<Option<(usize, usize, usize)>> {
    let mut base = 0;
    let mut filled = 0;
    loop {
        let n = read_more(file, buf, filled, path)?;
        if n == 0 {
            let hit = filled > 0 && re.is_match(&buf[..filled]);
            return Ok(hit.then_some((base, base, filled)));
        }
        let end = filled + n;
        // Search up to the last newline; carry the partial line to the front.
        match memchr::memrchr(b'\n', &buf[filled..end]) {
            Some(i) => {
                let nl = filled + i;
                let lines = &buf[..=nl];
                // `is_match` may stop early; the match's place is found only once.
                if let Some((at, _)) = re.is_match(lines).then(|| re.find_at(lines, 0)).flatten() {
                    let line = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |j| j + 1);
                    return Ok(Some((base + line, base, end)));
                }
                buf.copy_within(nl + 1..end, 0);
                base += nl + 1;
                filled = end - (nl + 1);
            }
            None => filled = end,
        }
    }
}

/// The whole matching file in the thread's held buffer: `chunk` (file bytes
/// from `base`, all read so far past it) is copied in, the rest is read on,
/// and the `base` bytes before it are read again.
fn hold(file: &mut Take<File>, chunk: &[u8], base: usize, path: &Path) -> Result<Held> {
    let mut buf = HELD.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
    let have = base + chunk.len();
    if buf.len() < have {
        buf.resize(have, 0);
    }
    buf[base..have].copy_from_slice(chunk);
    let mut held = Held { buf, len: 0 };
    held.len = read_rest(file, &mut held.buf, have, path)?;
    let inner = file.get_mut();
    inner
        .seek(SeekFrom::Start(0))
        .and_then(|_| inner.read_exact(&mut held.buf[..base]))
        .map_err(|e| Error::io(path, e))?;
    Ok(held)
}

/// Read on to EOF (or the limit) from `filled`: returns the bytes in `buf`.
fn read_rest(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    mut filled: usize,
    path: &Path,
) -> Result<usize> {
    loop {
        let n = read_more(file, buf, filled, path)?;
        if n == 0 {
            return Ok(filled);
        }
        filled += n;
    }
}

/// Read after the first `filled` bytes of `buf`, doubling it first when it is
/// full (zero-filling only the new part). 0 at EOF.
fn read_more(file: &mut impl Read, buf: &mut Vec<u8>, filled: usize, path: &Path) -> Result<usize> {
    if filled == buf.len() {
        let grown = buf.len().max(CHUNK) * 2;
        buf.resize(grown, 0);
    }
    loop {
        match file.read(&mut buf[filled..]) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::bytes::Regex;

    /// Whether any complete line (or the unterminated tail) matches, reading at
    /// most `limit` bytes (TAIL-012).
    fn any_line_matches(path: &Path, re: &Regex, limit: u64) -> Result<bool> {
        Ok(matches!(
            prefilter(path, re, limit)?,
            Prefiltered::Hit { .. }
        ))
    }

    #[test]
    fn finds_matches_across_chunk_boundaries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        // A needle straddling the first CHUNK boundary, inside one long line.
        let mut body = vec![b'x'; CHUNK - 3];
        body.extend_from_slice(b"NEEDLE\n");
        body.extend(std::iter::repeat_n(b'y', CHUNK * 2));
        std::fs::write(&p, &body).unwrap();
        let len = body.len() as u64;
        assert!(any_line_matches(&p, &Regex::new("NEEDLE").unwrap(), len).unwrap());
        assert!(any_line_matches(&p, &Regex::new("y{5}$").unwrap(), len).unwrap());
        assert!(!any_line_matches(&p, &Regex::new("zzz").unwrap(), len).unwrap());
        // The limit hides bytes appended after discovery.
        assert!(!any_line_matches(&p, &Regex::new("y").unwrap(), CHUNK as u64).unwrap());
    }

    fn hit(p: &Path, re: &str, limit: u64) -> (usize, Option<Vec<u8>>) {
        match prefilter(p, &Regex::new(re).unwrap(), limit).unwrap() {
            Prefiltered::Hit { first, held } => (first, held.map(|h| h.to_vec())),
            Prefiltered::Miss(_) => panic!("no hit for {re}"),
        }
    }

    #[test]
    fn a_small_matching_file_comes_back_whole_up_to_the_discovered_length_tail_012() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        // Lines spanning several chunks; the first match in the third chunk.
        let mut body = Vec::new();
        while body.len() < 2 * CHUNK + 1000 {
            body.extend_from_slice(b"{\"type\":\"user\",\"pad\":\"xxxxxxxxxxxxxxxxxxxx\"}\n");
        }
        let line = body.len();
        body.extend_from_slice(b"{\"a\":\"NEEDLE one\"}\n{\"b\":2}\n{\"c\":\"NEEDLE two\"}");
        std::fs::write(&p, &body).unwrap();
        let len = body.len() as u64;
        let (first, held) = hit(&p, "NEEDLE", len);
        assert_eq!(first, line);
        assert_eq!(held.as_deref(), Some(&body[..]));
        // Only the unterminated tail matches: it is found, and held.
        let (first, held) = hit(&p, "two", len);
        assert_eq!(&body[first..first + 10], b"{\"c\":\"NEED");
        assert_eq!(held.map(|h| h.len()), Some(body.len()));
        // TAIL-012: bytes past the length discovery saw are neither searched nor held.
        let (first, held) = hit(&p, "NEEDLE", len - 5);
        assert_eq!(first, line);
        assert_eq!(held.as_deref(), Some(&body[..body.len() - 5]));
        let miss = prefilter(&p, &Regex::new("two").unwrap(), len - 5).unwrap();
        assert!(matches!(miss, Prefiltered::Miss(_)));
    }

    #[test]
    fn a_file_too_large_to_hold_still_says_where_its_first_match_is() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.jsonl");
        let row = b"{\"type\":\"progress\",\"data\":\"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"}\n";
        let mut body = Vec::with_capacity(HOLD_MAX as usize + 4096);
        while body.len() <= HOLD_MAX as usize {
            body.extend_from_slice(row);
        }
        let line = body.len() - row.len();
        body.truncate(line);
        body.extend_from_slice(b"{\"NEEDLE\":1}\n");
        body.extend_from_slice(row);
        std::fs::write(&p, &body).unwrap();
        let (first, held) = hit(&p, "NEEDLE", body.len() as u64);
        assert_eq!((first, held), (line, None));
        // Held buffers and carried chunks leave the next file's pass exact.
        let small = dir.path().join("small.jsonl");
        std::fs::write(&small, b"{}\n{\"NEEDLE\":2}\n").unwrap();
        let (first, held) = hit(&small, "NEEDLE", 16);
        assert_eq!(
            (first, held.as_deref()),
            (3, Some(&b"{}\n{\"NEEDLE\":2}\n"[..]))
        );
    }

    #[test]
    fn a_reused_buffer_never_searches_a_previous_files_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let re = Regex::new("NEEDLE").unwrap();
        // A needle at the end of a line five chunks long: the buffer grows past
        // the shrink threshold, then is given back.
        let long = dir.path().join("long.jsonl");
        let mut body = vec![b'x'; 5 * CHUNK];
        body.extend_from_slice(b"NEEDLE\nshort\n");
        std::fs::write(&long, &body).unwrap();
        assert!(any_line_matches(&long, &re, body.len() as u64).unwrap());
        // Files searched after it on this thread see only their own bytes, though
        // the buffer still holds a needle from the file before.
        let first = dir.path().join("first.jsonl");
        let body = [&b"{\"a\":\""[..], &[b'x'; 40], b"NEEDLE\"}\n"].concat();
        std::fs::write(&first, &body).unwrap();
        assert!(any_line_matches(&first, &re, body.len() as u64).unwrap());
        let small = dir.path().join("small.jsonl");
        std::fs::write(&small, b"{}\n{\"a\":1}").unwrap();
        assert!(!any_line_matches(&small, &re, 9).unwrap());
        let mid = dir.path().join("mid.jsonl");
        let mut body = vec![b'y'; CHUNK + 100];
        body.push(b'\n');
        std::fs::write(&mid, &body).unwrap();
        assert!(!any_line_matches(&mid, &re, body.len() as u64).unwrap());
        assert!(any_line_matches(&mid, &Regex::new("y{5}").unwrap(), body.len() as u64).unwrap());
    }
}
