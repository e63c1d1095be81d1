//! A streaming pass for the common case of a file with nothing to find: read the
//! file in large chunks into one reused buffer (as ripgrep does; cheaper than
//! faulting in a memory map page by page) and test whole lines against a byte
//! regex. Only a file that has a candidate is then opened for random access.
//! Memory is bounded by the chunk size plus the longest line.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use regex::bytes::Regex;

use crate::error::{Error, Result};

/// Bytes read per call.
pub const CHUNK: usize = 256 * 1024;

/// Whether any complete line (or the unterminated tail) of `path` matches `re`.
/// Reads at most `limit` bytes: the length seen at discovery, so lines appended
/// meanwhile are not half-read (TAIL-012).
pub fn any_line_matches(path: &Path, re: &Regex, limit: u64) -> Result<bool> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut file = file.take(limit);
    // A small file reads in one call: zeroing a whole CHUNK for each of 10,000
    // tiny files dominated a search of them.
    let chunk = usize::try_from(limit).map_or(CHUNK, |l| CHUNK.min(l.saturating_add(1)));
    let mut buf: Vec<u8> = Vec::with_capacity(chunk * 2);
    loop {
        let old = buf.len();
        buf.resize(old + chunk, 0);
        let n = loop {
            match file.read(&mut buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(path, e)),
            }
        };
        buf.truncate(old + n);
        if n == 0 {
            return Ok(!buf.is_empty() && re.is_match(&buf));
        }
        // Search up to the last newline; carry the partial line into the next read.
        if let Some(nl) = memchr::memrchr(b'\n', &buf[old..]).map(|i| old + i) {
            if re.is_match(&buf[..=nl]) {
                return Ok(true);
            }
            buf.drain(..=nl);
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
}
