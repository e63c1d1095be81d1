//! `duplicate-uuid`: one top-level `uuid` on several physical lines of a file
//! (REC-091/092). The uuid is hashed from its bytes (FNV-1a) and a hash match is
//! confirmed against the first copy's bytes, so memory is one small entry per
//! uuid-bearing line. Each repeat is classified: `resume-replay` (byte-identical,
//! or identical but for an added top-level `slug`), `compaction-straddle` (a
//! compact_boundary lies between the copies), `usage-divergent` (assistant copies
//! whose later usage is zeroed, QT-041), else plain `repeat`. Informational:
//! Claude Code does this itself; csift reports the copies as distinct lines.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::finding::{At, FileCtx, Finding};
use crate::cli::audit::Kind;

pub fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    line: usize,
    /// Byte range of the whole first line, and where its uuid value starts.
    start: usize,
    end: usize,
    uuid_at: usize,
}

/// The keys are already FNV hashes: use them as they are.
#[derive(Default, Clone, Copy)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type Map<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

#[derive(Debug, Default)]
pub struct Dups {
    seen: Map<Seen>,
    /// Distinct uuids whose hash collided with an earlier one (practically never).
    collided: HashMap<Vec<u8>, Seen>,
    boundaries: Vec<usize>,
    repeats: Vec<(Seen, At, usize, usize)>,
}

fn without_slug(line: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b",\"slug\":\"";
    match memchr::memmem::find(line, KEY) {
        Some(at) => {
            let rest = &line[at + KEY.len()..];
            match memchr::memchr(b'"', rest) {
                Some(end) => [&line[..at], &rest[end + 1..]].concat(),
                None => line.to_vec(),
            }
        }
        None => line.to_vec(),
    }
}

fn zero_usage(line: &[u8]) -> bool {
    let has = |p: &[u8]| memchr::memmem::find(line, p).is_some();
    has(b"\"input_tokens\":0,") && has(b"\"output_tokens\":0")
}

impl Dups {
    pub fn boundary(&mut self, line: usize) {
        self.boundaries.push(line);
    }

    /// A line (bytes `start..end` of `buf`) whose top-level `uuid` is `uuid`, a
    /// sub-slice of `buf`. `at` is built only for a repeat.
    pub fn uuid(
        &mut self,
        buf: &[u8],
        uuid: &[u8],
        (line, start, end): (usize, usize, usize),
        at: impl FnOnce() -> At,
    ) {
        let uuid_at = (uuid.as_ptr() as usize).saturating_sub(buf.as_ptr() as usize);
        let new = Seen {
            line,
            start,
            end,
            uuid_at,
        };
        let first = match self.seen.entry(fnv(uuid)) {
            Entry::Vacant(v) => {
                v.insert(new);
                return;
            }
            Entry::Occupied(o) => *o.get(),
        };
        let same = buf.get(first.uuid_at..first.uuid_at + uuid.len()) == Some(uuid)
            && buf.get(first.uuid_at + uuid.len()) == Some(&b'"');
        let first = if same {
            first
        } else {
            match self.collided.entry(uuid.to_vec()) {
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(new);
                    return;
                }
                std::collections::hash_map::Entry::Occupied(o) => *o.get(),
            }
        };
        self.repeats.push((first, at(), start, end));
    }

    pub fn finish(self, ctx: &FileCtx, buf: &[u8], out: &mut Vec<Finding>) {
        for (first, at, start, end) in self.repeats {
            let a = buf[first.start..first.end].trim_ascii_end();
            let b = buf[start..end].trim_ascii_end();
            let straddle = self
                .boundaries
                .iter()
                .any(|&l| l > first.line && l < at.line);
            let assistant = |l: &[u8]| memchr::memmem::find(l, b"\"type\":\"assistant\"").is_some();
            let class = if a == b {
                "resume-replay (byte-identical)"
            } else if without_slug(b) == without_slug(a) {
                "resume-replay (same record plus slug)"
            } else if straddle {
                "compaction-straddle"
            } else if assistant(a) && assistant(b) && zero_usage(b) && !zero_usage(a) {
                "usage-divergent (later copy's usage is zero, QT-041)"
            } else {
                "repeat"
            };
            out.push(ctx.finding(
                Kind::DuplicateUuid,
                &at,
                None,
                format!("uuid first seen on line {}: {class}", first.line),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_repeats_rec_091() {
        let buf = b"{\"uuid\":\"u1\",\"a\":1}\n{\"uuid\":\"u2\"}\n{\"uuid\":\"u1\",\"a\":1}\n{\"uuid\":\"u1\",\"slug\":\"x-y\",\"a\":1}\n";
        let mut d = Dups::default();
        let mut start = 0;
        for (i, l) in buf.split(|&b| b == b'\n').enumerate().take(4) {
            let u = &buf[start + 9..start + 11];
            let at = At {
                line: i + 1,
                ..At::default()
            };
            d.uuid(buf, u, (i + 1, start, start + l.len()), || at);
            start += l.len() + 1;
        }
        let ctx = FileCtx {
            file: "f".into(),
            session_id: "s".into(),
            is_lane: false,
        };
        let mut out = Vec::new();
        d.finish(&ctx, buf, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].line, 3);
        assert!(
            out[0].detail.contains("byte-identical"),
            "{}",
            out[0].detail
        );
        assert!(out[1].detail.contains("plus slug"), "{}", out[1].detail);
    }
}
