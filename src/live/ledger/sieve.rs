//! The ledger's census for the census cache: what a transcript's ledger scan
//! reads, kept so a repeated run (the status line, on every prompt) re-reads
//! only the bytes appended since the last one.
//!
//! A ledger scan ([`super::launch`]) parses only the lines the byte prefilter
//! flags, and reaches outside them in one place: a launch first seen at its
//! result (a shell moved to the background, BASH-027/029; an async agent; a
//! Monitor) looks its call up by id to learn its tool, so a result that merely
//! quotes a launch template (a Read of a file) is no launch. The sieve keeps
//! exactly that: the flagged lines verbatim (number, offset, bytes), and the
//! tool of every `tool_use` id in the file. Both fold in file order, so
//! `scan(a).extend(scan(b))` equals `scan(a ++ b)`, as [`Census`] requires.

use std::sync::LazyLock;

use super::launch::NEEDLES;
use crate::cache::{Census, Dec, Enc, Pos};
use crate::record::line_records;
use crate::scan::lines::HitLines;
use crate::scan::Line;

/// Lines a ledger scan reads, and lines holding a `tool_use` block.
static SIEVE: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(&format!("{}|\"tool_use\"", NEEDLES.as_str()))
        .expect("a literal alternation compiles")
});

/// The tools a launch's kind depends on (`echo::tool_fits`); any other is `Other`.
const TOOLS: [&str; 6] = ["(other)", "Bash", "PowerShell", "Monitor", "Agent", "Task"];

/// One flagged line, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Kept {
    no: u64,
    offset: u64,
    bytes: Vec<u8>,
    terminated: bool,
}

/// A transcript's (or a run of its lines') ledger sieve.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sieve {
    lines: Vec<Kept>,
    /// Every `tool_use` id with its tool (an index into [`TOOLS`]), sorted by
    /// id, each id once (a repeated id is one call written again, as a resume
    /// replays it: the first is kept).
    calls: Vec<(String, u8)>,
}

impl Sieve {
    /// The flagged lines, in file order, as the scan reads them.
    pub(crate) fn lines(&self) -> impl Iterator<Item = Line<'_>> {
        self.lines.iter().map(|k| Line {
            no: k.no as usize,
            offset: k.offset as usize,
            bytes: &k.bytes,
            terminated: k.terminated,
        })
    }

    /// The tool of the call `id`, `None` when no call of that id is in the file.
    pub(crate) fn tool_of(&self, id: &str) -> Option<&'static str> {
        self.calls
            .binary_search_by(|(k, _)| k.as_str().cmp(id))
            .ok()
            .map(|i| TOOLS[usize::from(self.calls[i].1).min(TOOLS.len() - 1)])
    }

    fn add_calls(&mut self, line: &Line<'_>) {
        for (_, rec) in line_records(line) {
            if rec.kind() != "assistant" {
                continue;
            }
            for b in rec.blocks().iter().filter(|b| b.kind() == "tool_use") {
                let Some(id) = b.id.as_deref() else { continue };
                let name = b.name.as_deref().unwrap_or("");
                let class = TOOLS.iter().position(|t| *t == name).unwrap_or(0) as u8;
                self.calls.push((id.to_string(), class));
            }
        }
    }

    /// Sorted by id, the first of each id kept (a stable sort keeps file order).
    fn settle(&mut self) {
        self.calls.sort_by(|a, b| a.0.cmp(&b.0));
        self.calls.dedup_by(|later, first| later.0 == first.0);
    }
}

impl Census for Sieve {
    const KIND: &'static str = "ledger";
    const VERSION: u32 = 1;

    fn scan(buf: &[u8], at: Pos) -> Sieve {
        let mut s = Sieve::default();
        for (line, _) in HitLines::new(buf, &*SIEVE) {
            if NEEDLES.is_match(line.bytes) {
                s.lines.push(Kept {
                    no: at.line + line.no as u64 - 1,
                    offset: at.offset + line.offset as u64,
                    bytes: line.bytes.to_vec(),
                    terminated: line.terminated,
                });
            }
            if memchr::memmem::find(line.bytes, b"\"tool_use\"").is_some() {
                s.add_calls(&line);
            }
        }
        s.settle();
        s
    }

    fn extend(&mut self, later: Sieve) {
        self.lines.extend(later.lines);
        self.calls.extend(later.calls);
        self.settle();
    }

    fn encode(&self, e: &mut Enc) {
        e.u64(self.lines.len() as u64);
        for k in &self.lines {
            e.u64(k.no);
            e.u64(k.offset);
            e.u8(u8::from(k.terminated));
            e.bytes(&k.bytes);
        }
        e.u64(self.calls.len() as u64);
        for (id, class) in &self.calls {
            e.str(id);
            e.u8(*class);
        }
    }

    fn decode(d: &mut Dec<'_>) -> Option<Sieve> {
        let n = d.len(25)?;
        let mut lines = Vec::with_capacity(n);
        for _ in 0..n {
            lines.push(Kept {
                no: d.u64()?,
                offset: d.u64()?,
                terminated: d.u8()? != 0,
                bytes: d.bytes()?.to_vec(),
            });
        }
        let n = d.len(9)?;
        let mut calls = Vec::with_capacity(n);
        for _ in 0..n {
            calls.push((d.str()?.to_string(), d.u8()?));
        }
        Some(Sieve { lines, calls })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = concat!(
        r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_b","name":"Bash","input":{"command":"cargo test","timeout":1000}}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"toolu_r","name":"Read","input":{"file_path":"/x"}}]}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_r","content":"Command running in background with ID: bq. quoted"}]}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"Command did not complete within its 1s timeout and was moved to the background (ID: bx)."}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"ok"}]}}"#,
        "\n",
    );

    /// Split anywhere at a line start, scanned and extended, the sieve is the
    /// whole file's: the census cache's law.
    #[test]
    fn a_split_scan_folds_to_the_whole() {
        let buf = FILE.as_bytes();
        let whole = Sieve::scan(buf, Pos { offset: 0, line: 1 });
        assert_eq!(whole.lines().count(), 2, "the two launch-shaped results");
        assert_eq!(whole.lines().map(|l| l.no).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(whole.tool_of("toolu_b"), Some("Bash"));
        assert_eq!(whole.tool_of("toolu_r"), Some("(other)"));
        assert_eq!(whole.tool_of("toolu_none"), None);
        let mut at = 0;
        let mut line = 1;
        for cut in memchr::memchr_iter(b'\n', buf).map(|i| i + 1) {
            let mut a = Sieve::scan(&buf[..cut], Pos { offset: 0, line: 1 });
            let lines = memchr::memchr_iter(b'\n', &buf[..cut]).count() as u64;
            a.extend(Sieve::scan(
                &buf[cut..],
                Pos {
                    offset: cut as u64,
                    line: lines + 1,
                },
            ));
            assert_eq!(a, whole, "cut at {cut}");
            at = cut;
            line = lines;
        }
        assert_eq!((at, line), (buf.len(), 6));
        let mut e = Enc::default();
        whole.encode(&mut e);
        let back = Sieve::decode(&mut Dec::new(&e.buf)).unwrap();
        assert_eq!(back, whole);
    }
}
