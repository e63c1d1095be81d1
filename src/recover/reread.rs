//! Evidence kept as places ([`crate::files::place`]) read again for the
//! replay: each place's echo and input bytes from the transcript scanned,
//! decoded by the code the pass would have run. The last transcript stays
//! open (a path's touches sit mostly in a few transcripts, in file order); a
//! transcript replaced or cut since the scan, or whose bytes no longer parse
//! where they were, is refused once, with why, and gives no evidence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::files::echo::Evidence;
use crate::files::place::{self, Place, Span};
use crate::scan::source::Seen;

/// Place `p` of transcript `f` read into `bufs` (echo, input) and decoded.
fn read_into(
    r: &mut Reader,
    (f, path, seen): (usize, &Path, Option<Seen>),
    p: &Place,
    bufs: &mut (Vec<u8>, Vec<u8>),
) -> Option<Evidence> {
    let (eb, ib) = bufs;
    if let Some(s) = p.echo {
        r.bytes(f, path, seen, s, eb)?;
    }
    if let Some(s) = p.input {
        r.bytes(f, path, seen, s, ib)?;
    }
    let echo = p.echo.map(|_| place::raw(eb));
    let input = p.input.map(|_| place::raw(ib));
    match (echo, input) {
        (Some(None), _) | (_, Some(None)) => {
            let why = "its bytes changed in place since csift read it";
            r.fail(f, path, why.into());
            None
        }
        (e, i) => crate::files::evidence::decode(p, e.flatten(), i.flatten()),
    }
}

/// Reads places again, keeping the last transcript open (a path's touches
/// sit mostly in a few transcripts, in file order).
#[derive(Default)]
pub(crate) struct Reader {
    open: Option<(usize, std::fs::File)>,
    failed: HashSet<usize>,
    pub(crate) problems: Vec<(PathBuf, String)>,
    bufs: (Vec<u8>, Vec<u8>),
}

impl Reader {
    /// The evidence at place `p` of transcript `f` (at `path`, as `seen`).
    pub(crate) fn read(&mut self, at: (usize, &Path, Option<Seen>), p: &Place) -> Option<Evidence> {
        // The buffers are reused from place to place: a fresh one per read
        // (echoes of whole files, often over the allocator's map threshold)
        // cost a page fault per 4 KB.
        let mut bufs = std::mem::take(&mut self.bufs);
        let got = read_into(self, at, p, &mut bufs);
        self.bufs = bufs;
        got
    }

    fn bytes(
        &mut self,
        f: usize,
        path: &Path,
        seen: Option<Seen>,
        s: Span,
        buf: &mut Vec<u8>,
    ) -> Option<()> {
        if self.failed.contains(&f) {
            return None;
        }
        match self.try_bytes(f, path, seen, s, buf) {
            Ok(()) => Some(()),
            Err(e) => {
                self.fail(f, path, e);
                None
            }
        }
    }

    fn fail(&mut self, f: usize, path: &Path, why: String) {
        self.failed.insert(f);
        self.open = None;
        self.problems.push((path.to_path_buf(), why));
    }

    fn try_bytes(
        &mut self,
        f: usize,
        path: &Path,
        seen: Option<Seen>,
        s: Span,
        buf: &mut Vec<u8>,
    ) -> Result<(), String> {
        if self.open.as_ref().is_none_or(|(g, _)| *g != f) {
            let opened = crate::scan::source::open(path).map_err(|e| e.to_string())?;
            let seen = seen.ok_or("the transcript could not be identified when it was read")?;
            seen.still(&Seen::of(&opened.meta))?;
            self.open = Some((f, opened.file));
        }
        let Some((_, file)) = &self.open else {
            return Err("the transcript is not open".into());
        };
        buf.clear();
        buf.resize(s.len as usize, 0);
        crate::scan::source::read_exact_at(file, buf, s.at)
            .map_err(|e| format!("reading its evidence again: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::place::What;

    /// REC-087, MISC-017: a place is read again from the file scanned, still
    /// there after the file grew; a replacement (a new inode) is refused once,
    /// with why, and gives no evidence.
    #[test]
    fn a_place_is_read_again_only_from_the_file_scanned_rec_087_misc_017() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let line =
            br#"{"toolUseResult":{"stdout":"hello\nworld","stderr":"","interrupted":false}}"#;
        std::fs::write(&path, [&line[..], b"\n"].concat()).unwrap();
        let seen = Seen::of(&std::fs::metadata(&path).unwrap());
        #[derive(serde::Deserialize)]
        struct R<'a> {
            #[serde(borrow, rename = "toolUseResult")]
            e: &'a serde_json::value::RawValue,
        }
        let r: R<'_> = serde_json::from_slice(line).unwrap();
        let p = place::place(line, What::Cat, Some(r.e), None).unwrap();
        let want = Some(Evidence::Cat {
            stdout: "hello\nworld".into(),
        });
        let mut reader = Reader::default();
        assert_eq!(reader.read((0, &path, Some(seen)), &p), want);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"more\":1}\n").unwrap();
        let mut reader = Reader::default();
        assert_eq!(reader.read((0, &path, Some(seen)), &p), want, "grown");
        assert!(reader.problems.is_empty());
        let new = dir.path().join("new.jsonl");
        std::fs::write(&new, [&line[..], b"\n"].concat()).unwrap();
        std::fs::rename(&new, &path).unwrap();
        let mut reader = Reader::default();
        assert_eq!(reader.read((0, &path, Some(seen)), &p), None);
        assert_eq!(reader.read((0, &path, Some(seen)), &p), None);
        assert_eq!(reader.problems.len(), 1, "{:?}", reader.problems);
        assert!(reader.problems[0].1.contains("replaced"));
    }
}
