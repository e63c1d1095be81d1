//! One watched file and how far it has been read. Transcript growth is the
//! only event stream a watcher gets (MISC-020): a cursor starts at a byte
//! offset (the file's length when the wait started, or 0 for a file born
//! after it: every byte of it is post-start, MISC-021, TAIL-016) and each read
//! hands out the complete lines appended since. A torn final line is held: the
//! offset stays at its start, so it is read once, when its newline lands
//! (TAIL-012). A file replaced under its name (a rename-replace, a
//! compaction's rewrite) or cut shorter is re-baselined at its new length:
//! what it holds then is history, not events.

use std::fs::File;
use std::path::{Path, PathBuf};

/// What a watched file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Main,
    Lane,
    /// An elicitation sidecar ([`crate::elicitation`]).
    Sidecar,
}

/// The most read from one file at one step; the rest waits for the next.
const READ_MAX: u64 = 16 << 20;

#[derive(Debug, Clone)]
pub(crate) struct Cursor {
    pub(crate) path: PathBuf,
    pub(crate) role: Role,
    /// Index of the watched session the file belongs to.
    pub(crate) session: usize,
    pub(crate) agent_id: Option<String>,
    /// The next byte to read: always a line start.
    pub(crate) offset: u64,
    /// The offset the wait started from (for the readiness line).
    pub(crate) baseline: u64,
    ident: Option<(u64, u64)>,
}

/// What one read of a cursor found.
#[derive(Debug)]
pub(crate) enum Read {
    /// Nothing new (or only a torn line's bytes).
    Same,
    /// Complete lines appended, starting at byte `at`.
    Lines { at: u64, bytes: Vec<u8> },
    /// The file was replaced or cut: re-baselined at `len`.
    Rebaselined { len: u64, why: &'static str },
    /// The file is gone.
    Gone,
}

impl Cursor {
    /// A cursor at `path`'s current length (`from_start`: at 0, for a file
    /// born after the wait started).
    pub(crate) fn new(
        path: &Path,
        role: Role,
        session: usize,
        agent_id: Option<String>,
        from_start: bool,
    ) -> Cursor {
        let meta = std::fs::metadata(path).ok();
        let len = match (&meta, from_start) {
            // A torn final line is not history yet: the baseline is its start,
            // so it is read once, whole, when its newline lands (TAIL-012).
            (Some(m), false) => line_start_before(path, m.len()).unwrap_or(m.len()),
            _ => 0,
        };
        Cursor {
            path: path.to_path_buf(),
            role,
            session,
            agent_id,
            offset: len,
            baseline: len,
            ident: meta.as_ref().and_then(crate::scan::source::file_id),
        }
    }

    /// Read what was appended since the last read.
    pub(crate) fn read(&mut self) -> std::io::Result<Read> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Read::Gone),
            Err(e) => return Err(e),
        };
        let now = crate::scan::source::file_id(&meta);
        let len = meta.len();
        if self.ident.is_some() && now != self.ident {
            self.ident = now;
            self.offset = len;
            return Ok(Read::Rebaselined {
                len,
                why: "replaced under its name (a rewrite)",
            });
        }
        self.ident = now;
        if len < self.offset {
            self.offset = len;
            return Ok(Read::Rebaselined {
                len,
                why: "cut shorter than what was read",
            });
        }
        if len == self.offset {
            return Ok(Read::Same);
        }
        let want = (len - self.offset).min(READ_MAX);
        let mut buf = vec![0u8; want as usize];
        let got = read_at(&File::open(&self.path)?, &mut buf, self.offset)?;
        buf.truncate(got);
        // Complete lines only: a torn final line waits for its newline.
        let Some(end) = memchr::memrchr(b'\n', &buf) else {
            return Ok(Read::Same);
        };
        buf.truncate(end + 1);
        let at = self.offset;
        self.offset += buf.len() as u64;
        Ok(Read::Lines { at, bytes: buf })
    }
}

/// The start of the line that holds byte `len - 1` of `path` (`len` itself
/// when the file ends with a newline), read backward in blocks.
fn line_start_before(path: &Path, len: u64) -> Option<u64> {
    const BLOCK: u64 = 64 * 1024;
    let f = File::open(path).ok()?;
    let mut end = len;
    while end > 0 {
        let start = end.saturating_sub(BLOCK);
        let mut buf = vec![0u8; (end - start) as usize];
        let got = read_at(&f, &mut buf, start).ok()?;
        buf.truncate(got);
        if end == len && buf.last() == Some(&b'\n') {
            return Some(len);
        }
        if let Some(i) = memchr::memrchr(b'\n', &buf) {
            return Some(start + i as u64 + 1);
        }
        end = start;
    }
    Some(0)
}

/// Read up to `buf.len()` bytes at `offset`; fewer when the file is shorter.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(file, &mut buf[done..], offset + done as u64)?;
        #[cfg(not(unix))]
        let n = {
            use std::io::{Read as _, Seek, SeekFrom};
            let mut f = file;
            f.seek(SeekFrom::Start(offset + done as u64))?;
            f.read(&mut buf[done..])?
        };
        if n == 0 {
            break;
        }
        done += n;
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// TAIL-012, MISC-020: history before the baseline is never handed out; a
    /// torn line is handed out once, whole, when its newline lands; a
    /// replaced file is re-baselined at its new length.
    #[test]
    fn reads_only_complete_post_baseline_lines_tail_012_misc_020() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("s.jsonl");
        std::fs::write(&p, b"{\"old\":1}\n").unwrap();
        let mut c = Cursor::new(&p, Role::Main, 0, None, false);
        assert!(matches!(c.read().unwrap(), Read::Same));
        assert_eq!(c.baseline, 10);
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"new\":").unwrap();
        assert!(matches!(c.read().unwrap(), Read::Same), "torn: held");
        f.write_all(b"2}\n{\"n\":3}\n").unwrap();
        match c.read().unwrap() {
            Read::Lines { at, bytes } => {
                assert_eq!(at, 10);
                assert_eq!(bytes, b"{\"new\":2}\n{\"n\":3}\n");
            }
            r => panic!("{r:?}"),
        }
        assert!(matches!(c.read().unwrap(), Read::Same));
        let tmp = d.path().join("s.tmp");
        std::fs::write(&tmp, b"{\"rewritten\":1}\n").unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        assert!(matches!(
            c.read().unwrap(),
            Read::Rebaselined { len: 16, .. }
        ));
        std::fs::remove_file(&p).unwrap();
        assert!(matches!(c.read().unwrap(), Read::Gone));
    }
}
