//! `duplicate-uuid`: one top-level `uuid` on several physical lines of a file
//! (REC-091/092). The uuid is hashed from its bytes (FNV-1a) and a hash match is
//! confirmed against the first copy's bytes, so memory is one small entry per
//! uuid-bearing line. Each repeat is classified: `resume-replay` (byte-identical,
//! or identical but for an added top-level `slug`), `compaction-straddle` (a
//! compact_boundary lies between the copies), `usage-divergent` (assistant copies
//! whose later usage is zeroed, QT-041), else `repeat`, naming the top-level
//! fields that differ. Informational:
//! Claude Code does this itself; csift reports the copies as distinct lines.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::finding::{At, FileCtx, Finding};
use crate::cache::{Dec, Enc};
use crate::cli::audit::Kind;
use crate::scan::hash::key;
use crate::scan::pair;

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
pub(crate) struct PassThrough(u64);

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

/// An id's 64-bit key ([`key`]), for maps that confirm a match on the id
/// itself. Uuids are keyed the same way (FNV-1a's byte a step was most of the
/// duplicate-uuid rule's time); a match is confirmed on the bytes.
pub(crate) use crate::scan::hash::key as id_key;

/// A map keyed by ids read from a transcript ([`crate::scan::hash::Fx`]: SipHash took 2%
/// of a full audit).
pub(crate) type IdMap<K, V> = crate::scan::hash::FxMap<K, V>;

#[derive(Debug, Default)]
pub(crate) struct Dups {
    /// A uuid's hash -> its first line in `firsts` (a slot of 16 bytes,
    /// not the 40 of a `Seen`: the table of a large file is probed at
    /// random, once per line).
    seen: Map<usize>,
    firsts: Vec<Seen>,
    /// Distinct uuids whose hash collided with an earlier one (practically never).
    collided: HashMap<Vec<u8>, Seen>,
    boundaries: Vec<usize>,
    repeats: Vec<(Seen, At, usize, usize)>,
    /// A census of lines after a file's start ([`crate::cache`]): each
    /// uuid-bearing line (its hash, place, uuid length and envelope), replayed
    /// into the earlier census by [`Dups::extend`].
    log: Option<Vec<(u64, Seen, usize, At)>>,
    /// Repeats found by [`Dups::extend`] on a hash alone: `(first copy's
    /// uuid offset, this copy's, uuid length)`, confirmed against the bytes
    /// by [`Dups::confirmed`].
    unconfirmed: Vec<(usize, usize, usize)>,
}

/// The line without its top-level `,"slug":"…"` (either spacing, REC-038).
fn without_slug(line: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b"\"slug\"";
    for at in crate::scan::lit!(KEY).find_iter(line) {
        let Some(v) = pair::value_at(line, at, KEY).filter(|&v| line.get(v) == Some(&b'"')) else {
            continue;
        };
        let Some(end) = memchr::memchr(b'"', &line[v + 1..]) else {
            continue;
        };
        let before = line[..at].trim_ascii_end();
        if let Some(comma) = before.strip_suffix(b",") {
            return [comma, &line[v + 1 + end + 1..]].concat();
        }
    }
    line.to_vec()
}

/// Whether some `key` (quoted) has the number 0 as its value.
fn zero(line: &[u8], key: &memchr::memmem::Finder<'_>) -> bool {
    key.find_iter(line).any(|at| {
        pair::value_at(line, at, key.needle()).is_some_and(|v| {
            line.get(v) == Some(&b'0') && !line.get(v + 1).is_some_and(u8::is_ascii_digit)
        })
    })
}

fn zero_usage(line: &[u8]) -> bool {
    use crate::scan::lit;
    zero(line, lit!(b"\"input_tokens\"")) && zero(line, lit!(b"\"output_tokens\""))
}

impl Dups {
    pub(crate) fn boundary(&mut self, line: usize) {
        self.boundaries.push(line);
    }

    /// The rule over a file of `len` bytes read from its start, its uuid
    /// table reserved for a line per 2 KB (the generated homes' large files
    /// hold 2.2-2.8 KB a line): grown by rehashing, the table of the 336 MB
    /// transcript was rebuilt seven times, each time on fresh pages. Slots a
    /// file of longer lines leaves unused are never written, so never faulted in.
    pub(crate) fn for_len(len: usize) -> Dups {
        let lines = len / 2048;
        let mut d = Dups::default();
        d.seen.reserve(lines);
        d.firsts.reserve(lines);
        d
    }

    /// The rule over lines that follow others not seen here: uuids are kept
    /// for [`Dups::extend`].
    pub(crate) fn logging() -> Dups {
        Dups {
            log: Some(Vec::new()),
            ..Dups::default()
        }
    }

    /// A line (bytes `start..end` of `buf`) whose top-level `uuid` is `uuid`, a
    /// sub-slice of `buf`; `buf` starts at byte `base` of its file, and
    /// `start..end` are file offsets. `at` is built only for a repeat (and
    /// for every line of a log).
    pub(crate) fn uuid(
        &mut self,
        (buf, base): (&[u8], usize),
        uuid: &[u8],
        (line, start, end): (usize, usize, usize),
        at: impl FnOnce() -> At,
    ) {
        let uuid_at = base + (uuid.as_ptr() as usize).saturating_sub(buf.as_ptr() as usize);
        let new = Seen {
            line,
            start,
            end,
            uuid_at,
        };
        if let Some(log) = &mut self.log {
            log.push((key(uuid), new, uuid.len(), at()));
            return;
        }
        let first = match self.seen.entry(key(uuid)) {
            Entry::Vacant(v) => {
                v.insert(self.firsts.len());
                self.firsts.push(new);
                return;
            }
            Entry::Occupied(o) => self.firsts[*o.get()],
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

    /// Fold in the census of the lines that follow (a [`Dups::logging`]
    /// one). A uuid whose hash an earlier line has is a repeat of it, to be
    /// confirmed against the bytes; false when that cannot be exact (`later`
    /// is not a log, or this census already met a hash collision): the
    /// caller reads the file whole instead.
    pub(crate) fn extend(&mut self, later: Dups) -> bool {
        let Some(log) = later.log else {
            return false;
        };
        self.boundaries.extend(later.boundaries);
        if let Some(mine) = &mut self.log {
            mine.extend(log);
            return true;
        }
        if !self.collided.is_empty() {
            return false;
        }
        for (h, new, len, at) in log {
            match self.seen.entry(h) {
                Entry::Vacant(v) => {
                    v.insert(self.firsts.len());
                    self.firsts.push(new);
                }
                Entry::Occupied(o) => {
                    let first = self.firsts[*o.get()];
                    self.unconfirmed.push((first.uuid_at, new.uuid_at, len));
                    self.repeats.push((first, at, new.start, new.end));
                }
            }
        }
        true
    }

    /// Whether every repeat [`Dups::extend`] found on a hash is one: the same
    /// uuid bytes in `buf` (the file from its start). False on a hash
    /// collision between distinct uuids (the caller reads the file whole).
    pub(crate) fn confirmed(&mut self, buf: &[u8]) -> bool {
        let ok = self.unconfirmed.iter().all(|&(a, b, n)| {
            let uuid = buf.get(b..b + n);
            uuid.is_some() && buf.get(a..a + n) == uuid && buf.get(a + n) == Some(&b'"')
        });
        self.unconfirmed.clear();
        ok
    }

    pub(crate) fn findings(&self, ctx: &FileCtx, buf: &[u8], out: &mut Vec<Finding>) {
        for (first, at, start, end) in &self.repeats {
            let (first, start, end) = (*first, *start, *end);
            let a = buf[first.start..first.end].trim_ascii_end();
            let b = buf[start..end].trim_ascii_end();
            let straddle = self
                .boundaries
                .iter()
                .any(|&l| l > first.line && l < at.line);
            let assistant =
                |l: &[u8]| pair::has_pair(l, b"\"type\"", crate::scan::lit!(b"\"assistant\""));
            let class = if a == b {
                "resume-replay (byte-identical)"
            } else if without_slug(b) == without_slug(a) {
                "resume-replay (same record plus slug)"
            } else if straddle {
                "compaction-straddle"
            } else if assistant(a) && assistant(b) && zero_usage(b) && !zero_usage(a) {
                // QT-041: a compaction replay's copy carries zeroed usage.
                "usage-divergent (later copy's usage is zero)"
            } else {
                &repeat(a, b)
            };
            out.push(ctx.finding(
                Kind::DuplicateUuid,
                at,
                None,
                format!("uuid first seen on line {}: {class}", first.line),
            ));
        }
    }
}

impl Seen {
    fn encode(&self, e: &mut Enc) {
        for v in [self.line, self.start, self.end, self.uuid_at] {
            e.u64(v as u64);
        }
    }

    fn decode(d: &mut Dec<'_>) -> Option<Seen> {
        Some(Seen {
            line: d.usize()?,
            start: d.usize()?,
            end: d.usize()?,
            uuid_at: d.usize()?,
        })
    }
}

impl Dups {
    /// Write the folded rule for the census cache (entries cover a file from
    /// its start: no log, every repeat confirmed).
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.seen.len() as u64);
        for (h, &i) in &self.seen {
            e.u64(*h);
            self.firsts[i].encode(e);
        }
        e.u64(self.collided.len() as u64);
        for (u, s) in &self.collided {
            e.bytes(u);
            s.encode(e);
        }
        e.u64(self.boundaries.len() as u64);
        for b in &self.boundaries {
            e.u64(*b as u64);
        }
        e.u64(self.repeats.len() as u64);
        for (first, at, start, end) in &self.repeats {
            first.encode(e);
            at.encode(e);
            e.u64(*start as u64);
            e.u64(*end as u64);
        }
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Dups> {
        let mut x = Dups::default();
        let n = d.len(40)?;
        x.seen.reserve(n);
        x.firsts.reserve(n);
        for _ in 0..n {
            let h = d.u64()?;
            x.seen.insert(h, x.firsts.len());
            x.firsts.push(Seen::decode(d)?);
        }
        for _ in 0..d.len(40)? {
            let u = d.bytes()?.to_vec();
            x.collided.insert(u, Seen::decode(d)?);
        }
        for _ in 0..d.len(8)? {
            x.boundaries.push(d.usize()?);
        }
        for _ in 0..d.len(60)? {
            let first = Seen::decode(d)?;
            let at = At::decode(d)?;
            x.repeats.push((first, at, d.usize()?, d.usize()?));
        }
        Some(x)
    }
}

/// Copies none of the named classes explains: `repeat`, with the top-level
/// keys whose values differ (the public corpus's one: a resume on another
/// machine and version rewrote `cwd`, `version` and the message). Each copy is
/// read as its first JSON object (a glued line holds more); only repeats are
/// parsed, and they are rare.
fn repeat(a: &[u8], b: &[u8]) -> String {
    use serde_json::{Map, Value};
    let first = |l: &[u8]| {
        serde_json::Deserializer::from_slice(l)
            .into_iter::<Map<String, Value>>()
            .next()
            .and_then(Result::ok)
    };
    let (Some(a), Some(b)) = (first(a), first(b)) else {
        return "repeat".into();
    };
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let differ: Vec<&str> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(String::as_str)
        .collect();
    match differ.is_empty() {
        // Equal as JSON, written otherwise (spacing, key order, escapes).
        true => "repeat (the same JSON written otherwise)".into(),
        false => format!("repeat (differs in {})", differ.join(", ")),
    }
}

#[cfg(test)]
mod tests;
