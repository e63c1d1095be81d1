//! A streaming pass for the common case of a file with nothing to find: read the
//! file in large chunks into one reused buffer (as ripgrep does; cheaper than
//! faulting in a memory map page by page) and test whole lines against a byte
//! regex. Only a file that has a candidate is then opened for random access.
//! Memory is bounded by the chunk size plus the longest line.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use regex::bytes::Regex;

use crate::error::{Error, Result};

/// Bytes read per call.
pub const CHUNK: usize = 256 * 1024;

thread_local! {
    /// One read buffer per thread, zero-filled once and reused for every file, as
    /// ripgrep does. Zero-filling a fresh chunk before each read had cost a
    /// memset of every byte searched (a third of search's user time on real
    /// homes of many mid-sized files).
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Whether any complete line (or the unterminated tail) of `path` matches `re`.
/// Reads at most `limit` bytes: the length seen at discovery, so lines appended
/// meanwhile are not half-read (TAIL-012).
pub fn any_line_matches(path: &Path, re: &Regex, limit: u64) -> Result<bool> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut file = file.take(limit);
    BUF.with(|cell| {
        let mut buf = cell.borrow_mut();
        // A small file needs its length plus one byte (to see EOF in the same read).
        let want = usize::try_from(limit).map_or(CHUNK, |l| CHUNK.min(l.saturating_add(1)));
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let found = scan(&mut file, &mut buf, re, path);
        // A line longer than a few chunks grew the buffer: give that memory back.
        if buf.len() > 4 * CHUNK {
            buf.truncate(CHUNK);
            buf.shrink_to(CHUNK);
        }
        found
    })
}

/// The read loop: `buf[..filled]` holds the start of a line not yet searched.
fn scan(file: &mut impl Read, buf: &mut Vec<u8>, re: &Regex, path: &Path) -> Result<bool> {
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // One line fills the buffer: double it (zero-filling only the new part).
            let grown = buf.len().max(CHUNK) * 2;
            buf.resize(grown, 0);
        }
        let n = loop {
            match file.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(path, e)),
            }
        };
        if n == 0 {
            return Ok(filled > 0 && re.is_match(&buf[..filled]));
        }
        let end = filled + n;
        // Search up to the last newline; carry the partial line to the front.
        match memchr::memrchr(b'\n', &buf[filled..end]) {
            Some(i) => {
                let nl = filled + i;
                if re.is_match(&buf[..=nl]) {
                    return Ok(true);
                }
                buf.copy_within(nl + 1..end, 0);
                filled = end - (nl + 1);
            }
            None => filled = end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
