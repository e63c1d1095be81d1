//! The cache's file format: a pack of entries, one per transcript, for one
//! group of transcripts (a project for `stats` and `audit`, or a single file
//! for `usage` and the status line). A pack is a header, an index (each entry's key and the
//! place and digest of its two parts), every entry's answer (what a hit
//! decodes), then every entry's resume state (what only a file that grew
//! decodes). A hit reads the header, the index and the answers, never the
//! resume states, and checks only the bytes it decodes.
//!
//! A pack is written whole to a temporary file and moved over the old one, so
//! a reader (or a map) never sees half of one; two runs writing at once leave
//! one of their packs whole. Every part carries a digest: a pack cut short,
//! corrupt, of another build or kind decodes to fewer entries (or none),
//! never to a wrong one.

use std::collections::HashMap;
use std::path::Path;

use super::{Dec, Enc};
use crate::scan::hash;
use crate::scan::Source;

/// The pack format's version, first in every pack: a pack of another (the
/// digests of `-1` were taken one 8-byte lane at a time) is not read, and is
/// rewritten by the next run that writes its group.
const MAGIC: &[u8] = b"csift-pack-2\0";
/// Packs of the formats before [`MAGIC`]: never read, but their group is
/// still named the same way, so the sweep can tell an orphan.
const OLD_MAGICS: [&[u8]; 1] = [b"csift-pack-1\0"];

/// Packs of this size or more are mapped, smaller ones read. Reading a pack
/// whole copies its resume states too, about 60% of a `stats` pack's bytes,
/// which a hit never reads: the 37 packs of the real home (median 460 KB)
/// were read below 1 MB, 4% of a warm run in the copy and the fresh
/// buffer's page faults.
const MAP_MIN: u64 = 64 << 10;

/// A transcript's identity when its entry was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ident {
    pub(super) dev: u64,
    pub(super) ino: u64,
    pub(super) size: u64,
    pub(super) mtime: (i64, u32),
}

/// What an entry covers: the whole lines its resume state reads (`consumed`
/// bytes, `lines` lines) with the digests of their first and last 4 KB, and
/// the digest of the file's last 4 KB at `ident.size` (the answer covers the
/// whole file where the kind splits its entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) ident: Ident,
    pub(super) consumed: u64,
    pub(super) lines: u64,
    pub(super) head: u64,
    pub(super) tail: u64,
    pub(super) end: u64,
}

/// Where a part lies in its region, and its digest.
#[derive(Debug, Clone, Copy)]
struct Part {
    off: u64,
    len: u64,
    sum: u64,
}

/// One entry of a loaded pack.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ix {
    pub(super) header: Header,
    answer: Part,
    resume: Part,
}

/// A new entry, to be written.
#[derive(Debug)]
pub(super) struct Fresh {
    pub(super) header: Header,
    pub(super) answer: Vec<u8>,
    pub(super) resume: Vec<u8>,
}

/// A pack read back: its bytes (mapped from [`MAP_MIN`]: a hit touches only
/// the index and the answers it decodes) and its index.
pub(super) struct Pack {
    bytes: Source,
    /// Each entry's key (where it lies in `bytes`) and place, in the order
    /// written, which is ascending by key ([`encode`]'s callers sort). No
    /// key is copied when a pack loads (a warm `list` of 5,044 files had
    /// copied each into a hash map of owned keys, SipHash-ed).
    index: Vec<(Span, Ix)>,
    /// Each key's [`hash::key`] with its entry's place in `index`, by hash:
    /// a lookup is a search over integers and one compare of the key (a
    /// binary search over the keys compared their long shared prefix, the
    /// group's path, at every step).
    by_hash: Vec<(u64, usize)>,
    /// Where the answers and the resume states start.
    answers_at: usize,
    resume_at: usize,
}

impl std::fmt::Debug for Pack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pack")
            .field("entries", &self.index.len())
            .finish()
    }
}

/// What names a pack's contents: the build, the kind (with its variant) and
/// version, and the group's key.
#[derive(Debug, Clone)]
pub(super) struct Tag<'a> {
    pub(super) build: &'a str,
    pub(super) kind: &'a str,
    pub(super) version: u32,
    pub(super) group: &'a [u8],
}

impl Tag<'_> {
    fn encode(&self, e: &mut Enc) {
        e.buf.extend_from_slice(MAGIC);
        e.str(self.build);
        e.str(self.kind);
        e.u32(self.version);
        e.bytes(self.group);
    }

    /// Whether `b` starts with this tag; what follows it.
    fn strip<'b>(&self, b: &'b [u8]) -> Option<Dec<'b>> {
        let mut d = Dec::new(b.strip_prefix(MAGIC)?);
        let ok = d.str()? == self.build
            && d.str()? == self.kind
            && d.u32()? == self.version
            && d.bytes()? == self.group;
        ok.then_some(d)
    }
}

/// The group key a pack's tag names, whatever build, kind, version or pack
/// format wrote it; `None` when `head` (the pack's first bytes) does not
/// start as a pack.
pub(super) fn group_of(head: &[u8]) -> Option<&[u8]> {
    let rest = std::iter::once(MAGIC)
        .chain(OLD_MAGICS)
        .find_map(|m| head.strip_prefix(m))?;
    let mut d = Dec::new(rest);
    d.str()?;
    d.str()?;
    d.u32()?;
    d.bytes()
}

impl Pack {
    /// The pack at `at`, when it is whole and of `tag`; `None` otherwise.
    pub(super) fn load(at: &Path, tag: &Tag<'_>) -> Option<Pack> {
        let bytes = Source::open_mapped(at, MAP_MIN).ok()?;
        let (index, answers_at, resume_at) = {
            let mut d = tag.strip(&bytes)?;
            let raw = d.bytes()?;
            if super::store::digest(raw) != d.u64()? {
                return None;
            }
            let base = raw.as_ptr() as usize - bytes.as_ptr() as usize;
            let (index, answers, resumes) = read_index(raw, base)?;
            let at = bytes.len() - d.rest();
            let answers = usize::try_from(answers).ok()?;
            let resumes = usize::try_from(resumes).ok()?;
            if answers.checked_add(resumes)? != d.rest() {
                return None; // cut short or grown: not a pack written whole
            }
            (index, at, at + answers)
        };
        let mut by_hash: Vec<(u64, usize)> = index
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (hash::key(key_at(&bytes, *k)), i))
            .collect();
        by_hash.sort_unstable();
        Some(Pack {
            bytes,
            index,
            by_hash,
            answers_at,
            resume_at,
        })
    }

    /// The entry for `key` (a transcript's absolute path).
    pub(super) fn get(&self, key: &[u8]) -> Option<&Ix> {
        let h = hash::key(key);
        let from = self.by_hash.partition_point(|&(x, _)| x < h);
        self.by_hash[from..]
            .iter()
            .take_while(|&&(x, _)| x == h)
            .filter_map(|&(_, i)| self.index.get(i))
            .find(|(k, _)| self.key(*k) == key)
            .map(|(_, ix)| ix)
    }

    fn key(&self, k: Span) -> &[u8] {
        key_at(&self.bytes, k)
    }

    /// An entry's answer, when its bytes are whole.
    pub(super) fn answer(&self, ix: &Ix) -> Option<&[u8]> {
        self.part(self.answers_at, ix.answer)
    }

    /// An entry's resume state, when its bytes are whole.
    pub(super) fn resume(&self, ix: &Ix) -> Option<&[u8]> {
        self.part(self.resume_at, ix.resume)
    }

    fn part(&self, base: usize, p: Part) -> Option<&[u8]> {
        let a = base.checked_add(usize::try_from(p.off).ok()?)?;
        let b = self
            .bytes
            .get(a..a.checked_add(usize::try_from(p.len).ok()?)?)?;
        // A pack cut under its map reads zeros past the cut (the map's
        // guard): bytes that still match the digest are the bytes written.
        (super::store::digest(b) == p.sum).then_some(b)
    }

    /// Every entry but those `skip` names and those `keep` refuses, as
    /// fresh entries (their bytes as they are; a part that fails its digest
    /// drops its entry).
    pub(super) fn carry(
        &self,
        skip: &HashMap<Vec<u8>, Fresh>,
        keep: impl Fn(&[u8]) -> bool,
    ) -> Vec<(Vec<u8>, Fresh)> {
        let mut out = Vec::new();
        for (k, ix) in &self.index {
            let k = self.key(*k);
            if skip.contains_key(k) || !keep(k) {
                continue;
            }
            let (Some(a), Some(r)) = (self.answer(ix), self.resume(ix)) else {
                continue;
            };
            let fresh = Fresh {
                header: ix.header,
                answer: a.to_vec(),
                resume: r.to_vec(),
            };
            out.push((k.to_vec(), fresh));
        }
        out
    }
}

/// The fewest bytes an index entry takes, its key empty: the key's length,
/// the identity (three u64, an i64 and a u32), five header u64 and two parts
/// of three u64. (150 refused the pack of a short key, such as `/t/a.jsonl`.)
const ENTRY_MIN: usize = 8 + 3 * 8 + 8 + 4 + 5 * 8 + 2 * 3 * 8;

/// Where a key lies in a pack's bytes: start and length.
type Span = (usize, usize);

/// The key at `k` in a pack's `bytes` (spans come from [`read_index`],
/// which took them from those bytes).
fn key_at(bytes: &[u8], k: Span) -> &[u8] {
    bytes.get(k.0..k.0 + k.1).unwrap_or_default()
}

type Index = (Vec<(Span, Ix)>, u64, u64);

/// The entries of the index `raw`, which starts `base` bytes into its pack;
/// `None` unless their keys ascend strictly, as they are written: so each
/// key names one entry, and a pack csift did not write whole is not read.
fn read_index(raw: &[u8], base: usize) -> Option<Index> {
    let mut d = Dec::new(raw);
    let answers = d.u64()?;
    let resumes = d.u64()?;
    let n = d.len(ENTRY_MIN)?;
    let mut index = Vec::with_capacity(n);
    let mut last: Option<&[u8]> = None;
    for _ in 0..n {
        let key = d.bytes()?;
        if last.is_some_and(|l| l >= key) {
            return None;
        }
        last = Some(key);
        let span = (
            base + (key.as_ptr() as usize - raw.as_ptr() as usize),
            key.len(),
        );
        let ident = Ident {
            dev: d.u64()?,
            ino: d.u64()?,
            size: d.u64()?,
            mtime: (d.i64()?, d.u32()?),
        };
        let header = Header {
            ident,
            consumed: d.u64()?,
            lines: d.u64()?,
            head: d.u64()?,
            tail: d.u64()?,
            end: d.u64()?,
        };
        if header.consumed > ident.size {
            return None;
        }
        let mut part = || {
            Some(Part {
                off: d.u64()?,
                len: d.u64()?,
                sum: d.u64()?,
            })
        };
        let (answer, resume) = (part()?, part()?);
        let fits = |p: Part, n: u64| p.off.checked_add(p.len).is_some_and(|e| e <= n);
        if !fits(answer, answers) || !fits(resume, resumes) {
            return None;
        }
        index.push((
            span,
            Ix {
                header,
                answer,
                resume,
            },
        ));
    }
    d.done().then_some((index, answers, resumes))
}

/// The bytes of a pack holding `entries`.
pub(super) fn encode(tag: &Tag<'_>, entries: &[(Vec<u8>, Fresh)]) -> Vec<u8> {
    let digest = super::store::digest;
    let answers: u64 = entries.iter().map(|(_, f)| f.answer.len() as u64).sum();
    let resumes: u64 = entries.iter().map(|(_, f)| f.resume.len() as u64).sum();
    let mut ix = Enc::default();
    ix.u64(answers);
    ix.u64(resumes);
    ix.u64(entries.len() as u64);
    let (mut a_off, mut r_off) = (0, 0);
    for (key, f) in entries {
        ix.bytes(key);
        let (h, i) = (f.header, f.header.ident);
        for v in [i.dev, i.ino, i.size] {
            ix.u64(v);
        }
        ix.i64(i.mtime.0);
        ix.u32(i.mtime.1);
        for v in [h.consumed, h.lines, h.head, h.tail, h.end] {
            ix.u64(v);
        }
        for (b, off) in [(&f.answer, &mut a_off), (&f.resume, &mut r_off)] {
            ix.u64(*off);
            ix.u64(b.len() as u64);
            ix.u64(digest(b));
            *off += b.len() as u64;
        }
    }
    let mut e = Enc::default();
    tag.encode(&mut e);
    e.bytes(&ix.buf);
    e.u64(digest(&ix.buf));
    let total = e.buf.len() + (answers + resumes) as usize;
    e.buf.reserve_exact(total - e.buf.len());
    for (_, f) in entries {
        e.buf.extend_from_slice(&f.answer);
    }
    for (_, f) in entries {
        e.buf.extend_from_slice(&f.resume);
    }
    e.buf
}

/// Write `bytes` as the pack at `at`: to a temporary file beside it, then
/// moved over it. Best effort: a cache that cannot be written only costs the
/// next run time.
pub(super) fn write(at: &Path, bytes: &[u8]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let Some(dir) = at.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = at.with_extension(format!("{}.{nonce}.{seq}.tmp", std::process::id()));
    if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, at).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
