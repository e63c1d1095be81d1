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

use super::launch::{needle_pattern, needles};
use crate::cache::{Census, Dec, Enc, Pos};
use crate::record::line_records;
use crate::scan::lines::HitLines;
use crate::scan::Line;

/// Lines a ledger scan reads, and lines holding a `tool_use` block.
fn sieve() -> &'static regex::bytes::Regex {
    crate::scan::re!(bytes concat!(needle_pattern!(), r#"|"tool_use""#))
}

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
    /// Every `tool_use` id's 64-bit hash with its tool (an index into
    /// [`TOOLS`]), sorted, each id once (a repeated id is one call written
    /// again, as a resume replays it: the first is kept). A hash, not the id:
    /// a big session holds tens of thousands of calls, decoded on every run;
    /// two ids of one file colliding is a 1-in-10^10 event at 20,000 calls.
    calls: Vec<(u64, u8)>,
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
        let h = crate::loss::fnv1a(id.as_bytes());
        self.calls
            .binary_search_by(|(k, _)| k.cmp(&h))
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
                self.calls.push((crate::loss::fnv1a(id.as_bytes()), class));
            }
        }
    }

    /// Sorted by id, the first of each id kept (a stable sort keeps file order).
    fn settle(&mut self) {
        self.calls.sort_by_key(|c| c.0);
        self.calls.dedup_by(|later, first| later.0 == first.0);
    }
}

impl Census for Sieve {
    const KIND: &'static str = "ledger";
    const VERSION: u32 = 2;
    type Ctx = ();

    fn scan(buf: &[u8], at: Pos, _: &()) -> Sieve {
        let mut s = Sieve::default();
        for (line, _) in HitLines::new(buf, sieve()) {
            if needles().is_match(line.bytes) {
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
        for (h, class) in &self.calls {
            e.u64(*h);
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
            calls.push((d.u64()?, d.u8()?));
        }
        Some(Sieve { lines, calls })
    }
}

/// The files of one session known to hold no ledger line, while their size
/// and modification time hold: the status line skips their entries (a session
/// with hundreds of lanes would otherwise open hundreds per prompt). Kept in
/// the cache directory, one small file per session; a file that changed is
/// read again, and a sieve with lines is never remembered as quiet.
#[derive(Debug, Default)]
pub(crate) struct Quiet {
    at: Option<std::path::PathBuf>,
    known: std::collections::HashSet<(u64, u64, i64, u32)>,
    changed: bool,
}

/// A transcript's key in [`Quiet`]: its path's hash, size and mtime.
fn quiet_key(t: &crate::discovery::Transcript) -> Option<(u64, u64, i64, u32)> {
    let m = jiff::Timestamp::try_from(t.mtime?).ok()?;
    let path = t.path.to_string_lossy();
    Some((
        crate::loss::fnv1a(path.as_bytes()),
        t.size,
        m.as_second(),
        m.subsec_nanosecond() as u32,
    ))
}

impl Quiet {
    const MAGIC: &'static [u8] = b"csift-ledger-quiet-1\0";

    /// The quiet set of the session `key` names (its project and id).
    pub(crate) fn load(cache: &crate::cache::Cache, key: &str) -> Quiet {
        // `.bin` as every file of the cache directory is (tests/readonly.rs).
        let name = format!("{:016x}.bin", crate::loss::fnv1a(key.as_bytes()));
        let at = cache.side_file(&format!("{}-v{}-quiet", Sieve::KIND, Sieve::VERSION), &name);
        let mut q = Quiet {
            at,
            ..Quiet::default()
        };
        let Some(b) = q.at.as_ref().and_then(|p| std::fs::read(p).ok()) else {
            return q;
        };
        let Some(rest) = b.strip_prefix(Self::MAGIC) else {
            return q;
        };
        let mut d = Dec::new(rest);
        let Some(n) = d.len(28) else { return q };
        for _ in 0..n {
            let k = (|| Some((d.u64()?, d.u64()?, d.i64()?, d.u32()?)))();
            match k {
                Some(k) => {
                    q.known.insert(k);
                }
                None => {
                    return Quiet {
                        at: q.at,
                        ..Quiet::default()
                    }
                }
            }
        }
        q
    }

    pub(crate) fn has(&self, t: &crate::discovery::Transcript) -> bool {
        quiet_key(t).is_some_and(|k| self.known.contains(&k))
    }

    /// Remember `t` as quiet when its sieve holds no line.
    pub(crate) fn note(&mut self, t: &crate::discovery::Transcript, sieve: &Sieve) {
        if !sieve.lines.is_empty() {
            return;
        }
        if let Some(k) = quiet_key(t) {
            self.changed |= self.known.insert(k);
        }
    }

    /// Keep only `files`' current keys, and write the set if it changed.
    pub(crate) fn save(mut self, files: &[&crate::discovery::Transcript]) {
        let live: std::collections::HashSet<_> =
            files.iter().filter_map(|t| quiet_key(t)).collect();
        let before = self.known.len();
        self.known.retain(|k| live.contains(k));
        self.changed |= self.known.len() != before;
        let (Some(at), true) = (self.at, self.changed) else {
            return;
        };
        let mut keys: Vec<_> = self.known.into_iter().collect();
        keys.sort_unstable();
        let mut e = Enc::default();
        e.buf.extend_from_slice(Self::MAGIC);
        e.u64(keys.len() as u64);
        for (a, b, c, d) in keys {
            e.u64(a);
            e.u64(b);
            e.i64(c);
            e.u32(d);
        }
        // Best effort, by rename: a reader never sees half a file.
        let Some(dir) = at.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let tmp = at.with_extension(format!("{}.tmp", std::process::id()));
        if std::fs::write(&tmp, &e.buf).is_ok() && std::fs::rename(&tmp, &at).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
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
        let whole = Sieve::scan(buf, Pos { offset: 0, line: 1 }, &());
        assert_eq!(whole.lines().count(), 2, "the two launch-shaped results");
        assert_eq!(whole.lines().map(|l| l.no).collect::<Vec<_>>(), [4, 5]);
        assert_eq!(whole.tool_of("toolu_b"), Some("Bash"));
        assert_eq!(whole.tool_of("toolu_r"), Some("(other)"));
        assert_eq!(whole.tool_of("toolu_none"), None);
        let mut at = 0;
        let mut line = 1;
        for cut in memchr::memchr_iter(b'\n', buf).map(|i| i + 1) {
            let mut a = Sieve::scan(&buf[..cut], Pos { offset: 0, line: 1 }, &());
            let lines = memchr::memchr_iter(b'\n', &buf[..cut]).count() as u64;
            a.extend(Sieve::scan(
                &buf[cut..],
                Pos {
                    offset: cut as u64,
                    line: lines + 1,
                },
                &(),
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
