//! `audit` in the census cache ([`crate::cache`]): an entry splits. Its
//! answer is one transcript's audit as a run prints it: the findings of the
//! rules that judge the file as a whole (eaten text, calls and echoes,
//! duplicate uuids; sealed with the file's bytes at hand), its malformed-line
//! findings and the pointers to other files (subagent lanes, persisted
//! output), an unterminated final line included, so an unchanged file is not
//! read (Claude Code appends whole records and a torn tail was never caught
//! live, TAIL-012, but a copied or cut transcript keeps one: 19 of the 59
//! public ones). Its resume state is the same over the whole lines alone, sealed, with
//! the detectors' unfinished state, decoded only when the file grew: the
//! appended lines' pass ([`super::file::scan`] from a later line) is folded
//! into it as one pass over the whole file would fold it, and sealed again.
//!
//! The pointers are checked against the disk on every run (a lane file or a
//! persisted output can appear or vanish while the transcript stays the
//! same); nothing of another file is cached. Each set of kinds keeps its own
//! entries (a kind set runs its own pass: `-k eaten-text` reads assistant
//! lines alone), and an entry holds for the echo rule it was read under (a
//! lane's meta file names a teammate or not).

use std::sync::OnceLock;

use super::calls::{Calls, EchoPolicy};
use super::dup::Dups;
use super::eaten::Eaten;
use super::file::{scan, Scan, Setup};
use super::finding::{FileCtx, Finding};
use super::refs::Refs;
use crate::cache::{Dec, Enc, Pos};
use crate::discovery::Transcript;

/// One transcript's audit as the cache keeps it.
#[derive(Debug)]
pub(crate) struct FileCensus {
    /// The kinds, echo rule and lane flag it was read under ([`Key::of`]).
    key: Key,
    /// The state of every detector; its rules (eaten, calls, dups) may be
    /// still encoded, until a file that grew needs them.
    scan: Scan,
    rules: Rules,
    /// Assistant records with several blocks (eaten's count), as sealed.
    multi_block: usize,
    /// The whole-file rules' findings over exactly the lines covered;
    /// `None` once more lines are folded in, until sealed again.
    sealed: Option<Vec<Finding>>,
    /// A fold could not be exact: the next seal reads the file whole.
    rescan: bool,
}

#[derive(Debug)]
enum Rules {
    /// In `scan`.
    Open,
    /// An entry's encoded eaten, calls and dups, decoded on first need.
    Raw(Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    kinds: u8,
    policy: u8,
    lane: bool,
}

impl Key {
    fn of(s: &Setup) -> Key {
        let w = s.want;
        let bits = [
            w.eaten,
            w.adjacency,
            w.malformed,
            w.lanes,
            w.outputs,
            w.echo,
            w.unanswered,
            w.dup,
        ];
        let kinds = bits
            .iter()
            .enumerate()
            .fold(0u8, |k, (i, on)| k | (u8::from(*on) << i));
        let policy = match s.policy {
            EchoPolicy::Main => 0,
            EchoPolicy::Teammate => 1,
            EchoPolicy::Never => 2,
        };
        Key {
            kinds,
            policy,
            lane: s.file.is_lane,
        }
    }
}

impl FileCensus {
    fn of(scan: Scan, setup: &Setup) -> FileCensus {
        FileCensus {
            key: Key::of(setup),
            scan,
            rules: Rules::Open,
            multi_block: 0,
            sealed: None,
            rescan: false,
        }
    }

    /// Decode the rules of an entry, once; false when they do not read back
    /// (a corrupt entry past its digest: the caller reads the file whole).
    fn open(&mut self) -> bool {
        let Rules::Raw(raw) = &self.rules else {
            return true;
        };
        let mut d = Dec::new(raw);
        let rules = (|| {
            Some((
                Eaten::decode(&mut d)?,
                Calls::decode(&mut d)?,
                Dups::decode(&mut d)?,
            ))
        })();
        match rules.filter(|_| d.done()) {
            Some((e, c, u)) => {
                (self.scan.eaten, self.scan.calls, self.scan.dups) = (e, c, u);
                self.rules = Rules::Open;
                true
            }
            None => false,
        }
    }

    /// The file's findings in the order one pass makes them (malformed
    /// lines, the whole-file rules, then the pointers, checked on disk now),
    /// the bytes read and the multi-block count.
    pub(crate) fn finish(self, setup: &Setup, t: &Transcript) -> (Vec<Finding>, u64, usize) {
        let ctx = &setup.file;
        let w = setup.want;
        let named = |mut f: Finding| {
            f.file.clone_from(&ctx.file);
            f.session_id.clone_from(&ctx.session_id);
            f
        };
        let mut out: Vec<Finding> = self
            .scan
            .malformed
            .into_iter()
            .map(|(f, _)| named(f))
            .collect();
        out.extend(self.sealed.unwrap_or_default().into_iter().map(named));
        self.scan.refs.finish(ctx, t, w.lanes, w.outputs, &mut out);
        (out, self.scan.bytes, self.multi_block)
    }
}

/// Directory names of each kind set's entries: all eight kinds share the
/// plain `audit` one.
fn variant_name(kinds: u8) -> &'static str {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..=u8::MAX)
            .map(|k| match k {
                u8::MAX => String::new(),
                k => format!("-{k:02x}"),
            })
            .collect()
    });
    names.get(usize::from(kinds)).map_or("", String::as_str)
}

impl crate::cache::Census for FileCensus {
    const KIND: &'static str = "audit";
    const VERSION: u32 = 2;
    /// An entry splits: its answer is the sealed audit of the whole file (an
    /// unterminated final line too, so an unchanged file is answered without
    /// reading it), its resume state the detectors' state of the whole lines.
    const SPLIT: bool = true;
    const SEAL_RESUME: bool = true;
    type Ctx = Setup;

    fn scan(buf: &[u8], at: Pos, setup: &Setup) -> FileCensus {
        FileCensus::of(scan(buf, at, setup), setup)
    }

    fn variant(setup: &Setup) -> &'static str {
        variant_name(Key::of(setup).kinds)
    }

    fn valid(&self, setup: &Setup) -> bool {
        self.key == Key::of(setup)
    }

    fn extend(&mut self, later: FileCensus) {
        self.sealed = None;
        if self.rescan || !self.open() || !later.open_into(self) {
            self.rescan = true;
        }
    }

    fn seal(&mut self, covered: &[u8], setup: &Setup, kept: bool) {
        if self.rescan || !self.open() || !self.scan.dups.confirmed(covered) {
            // A fold that could not be exact (practically never: a 64-bit
            // hash collision of two uuids): the covered bytes, read whole.
            *self = FileCensus::of(scan(covered, Pos { offset: 0, line: 1 }, setup), setup);
        }
        self.scan.timed(covered);
        self.sealed = Some(self.scan.findings(covered, setup));
        self.multi_block = self.scan.eaten.multi_block;
        if !kept {
            // Nothing more is folded in: the rules' state goes now.
            self.rules = Rules::Raw(Vec::new());
            (self.scan.eaten, self.scan.calls, self.scan.dups) = Default::default();
        }
    }

    fn encode(&self, e: &mut Enc) {
        self.encode_with(e, false);
    }

    fn encode_resume(&self, e: &mut Enc) {
        self.encode_with(e, true);
    }

    /// A grown file resumes from the resume part alone (the answer's
    /// findings are sealed again over the grown file).
    fn resume(_answer: &[u8], d: &mut Dec<'_>) -> Option<FileCensus> {
        FileCensus::decode(d)
    }

    fn decode(d: &mut Dec<'_>) -> Option<FileCensus> {
        FileCensus::decode_entry(d)
    }
}

impl FileCensus {
    /// Write this census: with the detectors' state (`rules`) for a resume
    /// state; without it for an answer, which a hit reads for its findings
    /// alone.
    fn encode_with(&self, e: &mut Enc, rules: bool) {
        let k = self.key;
        e.u8(k.kinds);
        e.u8(k.policy);
        e.bool(k.lane);
        e.u64(self.scan.bytes);
        e.u64(self.multi_block as u64);
        let blank = Vec::new();
        let sealed = self.sealed.as_ref().unwrap_or(&blank);
        e.bool(self.sealed.is_some());
        for list in [
            sealed.iter().collect::<Vec<_>>(),
            self.scan.malformed.iter().map(|(f, _)| f).collect(),
        ] {
            e.u64(list.len() as u64);
            for f in list {
                f.encode(e);
            }
        }
        self.scan.refs.encode(e);
        match &self.rules {
            _ if !rules => e.bytes(&[]),
            Rules::Raw(raw) => e.bytes(raw),
            Rules::Open => {
                let mut inner = Enc::default();
                self.scan.eaten.encode(&mut inner);
                self.scan.calls.encode(&mut inner);
                self.scan.dups.encode(&mut inner);
                e.bytes(&inner.buf);
            }
        }
    }

    fn decode_entry(d: &mut Dec<'_>) -> Option<FileCensus> {
        let key = Key {
            kinds: d.u8()?,
            policy: d.u8()?,
            lane: d.bool()?,
        };
        let bytes = d.u64()?;
        let multi_block = d.usize()?;
        let is_sealed = d.bool()?;
        let blank = FileCtx {
            file: String::new(),
            session_id: String::new(),
            is_lane: key.lane,
        };
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            for _ in 0..d.len(20)? {
                list.push(Finding::decode(d, &blank)?);
            }
        }
        let [sealed, malformed] = lists;
        let refs = Refs::decode(d)?;
        let raw = d.bytes()?.to_vec();
        Some(FileCensus {
            key,
            scan: Scan {
                refs,
                malformed: malformed.into_iter().map(|f| (f, None)).collect(),
                bytes,
                ..Scan::default()
            },
            rules: Rules::Raw(raw),
            multi_block,
            sealed: is_sealed.then_some(sealed),
            rescan: false,
        })
    }
}

impl FileCensus {
    /// Fold this (later) census into `into`; false when that cannot be exact.
    fn open_into(self, into: &mut FileCensus) -> bool {
        let FileCensus { scan, rules, .. } = self;
        matches!(rules, Rules::Open) && into.scan.extend(scan)
    }
}
