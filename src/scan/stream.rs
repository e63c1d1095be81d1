//! A streaming pass for the common case of a file with nothing to find: read the
//! file in large chunks into one reused buffer (as ripgrep does; cheaper than
//! faulting in a memory map page by page) and test whole lines against a byte
//! regex, each chunk right after it is read, while it is still in cache.
//!
//! A file up to [`HOLD_MAX`] is read whole into that buffer, chunk after chunk,
//! so when one of its lines matches, the caller gets the bytes already read (the
//! rest is read on) and where the first match is: no second read or map, and no
//! second regex pass over the lines before it. A larger file keeps only a chunk
//! and the line it ends in; its caller opens it for random access. Memory is
//! bounded by the larger of [`HOLD_MAX`] and the longest line.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

use super::find::Find;
use crate::error::{Error, Result};

/// Bytes read per call.
pub const CHUNK: usize = 256 * 1024;

/// Files up to this length are held whole when they match.
pub const HOLD_MAX: u64 = 8 << 20;

thread_local! {
    /// One read buffer per thread, zero-filled once and reused for every file, as
    /// ripgrep does. Zero-filling a fresh chunk before each read had cost a
    /// memset of every byte searched (a third of search's user time on real
    /// homes of many mid-sized files).
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// What the streaming pass found in a file.
pub enum Prefiltered {
    /// No complete line (nor the unterminated tail) matches.
    Miss,
    /// A line matches. `first` is the start of the first matching line; no line
    /// before it matches. `held` is the whole file (up to the length given) when
    /// it was small enough to keep.
    Hit { first: usize, held: Option<Held> },
}

/// A file's bytes in the thread's read buffer, given back when dropped.
pub struct Held {
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
        give_back(std::mem::take(&mut self.buf));
    }
}

/// Return a buffer to this thread. It is taken out while in use (not borrowed),
/// so a rayon job that runs on this thread meanwhile gets a buffer of its own.
fn give_back(mut buf: Vec<u8>) {
    // A line longer than the held size grew the buffer: give that memory back.
    if buf.len() > HOLD_MAX as usize + 1 {
        buf.truncate(CHUNK);
        buf.shrink_to(CHUNK);
    }
    BUF.with(|cell| {
        let mut mine = cell.borrow_mut();
        if buf.len() >= mine.len() {
            *mine = buf;
        }
    });
}

/// Whether any complete line (or the unterminated tail) of `path` matches `re`.
/// Reads at most `limit` bytes: the length seen at discovery, so lines appended
/// meanwhile are not half-read (TAIL-012).
pub fn any_line_matches(path: &Path, re: &impl Find, limit: u64) -> Result<bool> {
    Ok(matches!(
        prefilter(path, re, limit)?,
        Prefiltered::Hit { .. }
    ))
}

/// The streaming pass over the first `limit` bytes of `path` (TAIL-012).
pub fn prefilter(path: &Path, re: &impl Find, limit: u64) -> Result<Prefiltered> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut file = file.take(limit);
    let mut buf = BUF.with(|cell| std::mem::take(&mut *cell.borrow_mut()));
    let hold = limit <= HOLD_MAX;
    // Room for the whole file plus one byte (to see EOF in the same read), or a chunk.
    let want = usize::try_from(limit).map_or(CHUNK, |l| {
        let whole = l.saturating_add(1);
        if hold {
            whole
        } else {
            CHUNK.min(whole)
        }
    });
    if buf.len() < want {
        buf.resize(want, 0);
    }
    let found = scan(&mut file, &mut buf, re, path, hold);
    match found {
        Ok(Scanned::Miss) => {
            give_back(buf);
            Ok(Prefiltered::Miss)
        }
        Ok(Scanned::Hit { first, len }) => {
            let held = if hold {
                Some(Held { buf, len })
            } else {
                give_back(buf);
                None
            };
            Ok(Prefiltered::Hit { first, held })
        }
        Err(e) => {
            give_back(buf);
            Err(e)
        }
    }
}

enum Scanned {
    Miss,
    /// `first`: offset in the file of the first matching line; `len`: bytes held.
    Hit {
        first: usize,
        len: usize,
    },
}

/// The read loop. Unsearched bytes start at `from` (a line start) and end at
/// `filled`. When `hold`, nothing is dropped and `buf[i]` is file byte `i`;
/// otherwise the partial last line is carried to the front and `base` counts
/// the bytes dropped before it.
fn scan(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    re: &impl Find,
    path: &Path,
    hold: bool,
) -> Result<Scanned> {
    let mut base = 0;
    let mut from = 0;
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // One line fills the buffer: double it (zero-filling only the new part).
            let grown = buf.len().max(CHUNK) * 2;
            buf.resize(grown, 0);
        }
        // A held file is read a chunk at a time too, so each chunk is searched
        // while it is still in cache.
        let room = if hold {
            buf.len().min(filled + CHUNK)
        } else {
            buf.len()
        };
        let n = read(file, &mut buf[filled..room], path)?;
        if n == 0 {
            let hit = (from < filled && re.is_match(&buf[from..filled])).then_some(base + from);
            return Ok(match hit {
                Some(first) => Scanned::Hit { first, len: filled },
                None => Scanned::Miss,
            });
        }
        let end = filled + n;
        // Search up to the last newline read so far.
        match memchr::memrchr(b'\n', &buf[filled..end]) {
            Some(i) => {
                let nl = filled + i;
                // `is_match` may stop early; the match's place is found only once.
                let lines = &buf[from..=nl];
                if let Some((m, _)) = re.is_match(lines).then(|| re.find_at(lines, 0)).flatten() {
                    let at = from + m;
                    let first =
                        memchr::memrchr(b'\n', &buf[from..at]).map_or(from, |j| from + j + 1);
                    let len = if hold {
                        read_rest(file, buf, end, path)?
                    } else {
                        end
                    };
                    return Ok(Scanned::Hit {
                        first: base + first,
                        len,
                    });
                }
                if hold {
                    from = nl + 1;
                    filled = end;
                } else {
                    buf.copy_within(nl + 1..end, 0);
                    base += nl + 1;
                    from = 0;
                    filled = end - (nl + 1);
                }
            }
            None => filled = end,
        }
    }
}

/// Read on to EOF (or the limit) after a match: returns the bytes held.
fn read_rest(
    file: &mut impl Read,
    buf: &mut Vec<u8>,
    mut filled: usize,
    path: &Path,
) -> Result<usize> {
    loop {
        if filled == buf.len() {
            let grown = buf.len().max(CHUNK) * 2;
            buf.resize(grown, 0);
        }
        let n = read(file, &mut buf[filled..], path)?;
        if n == 0 {
            return Ok(filled);
        }
        filled += n;
    }
}

fn read(file: &mut impl Read, into: &mut [u8], path: &Path) -> Result<usize> {
    loop {
        match file.read(into) {
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
            Prefiltered::Miss => panic!("no hit for {re}"),
        }
    }

    #[test]
    fn a_small_file_that_matches_comes_back_whole_with_its_first_matching_line() {
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
        assert!(matches!(miss, Prefiltered::Miss));
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
