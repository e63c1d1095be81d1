//! `stats` in the census cache ([`crate::cache`]): what an entry keeps of one
//! transcript is its unfinished scan (counts, token book, call joins, the
//! pieces of its file index, the records waiting on that index), which a file
//! that grew merges the scan of its appended lines into exactly as a large
//! file merges its chunks, and the finished census of the lines it covers
//! (sealed with the whole file at hand), which an unchanged file returns with
//! no read of its bytes. The scan is decoded only when a file grew.
//!
//! Only a run with no `--since`/`--until` goes through the cache (a window
//! counts a record by the time carried from the records before it, so a
//! windowed census is not one of whole-file facts); such a run reads every
//! file whole, as before.
//!
//! A census depends on one thing outside its file: whether each agent named
//! by an `agent_progress` record has a lane file of its own (then its nested
//! records count there, not here). The entry lists those agents with the
//! answer the scan got; a different answer now is a miss.

use std::collections::{BTreeMap, HashMap};

use super::census::{scan_chunked, Answer, Call, Embeds, Part, Scan, CHUNK};
use super::model::{Census, Counts, MalformedOut, ToolRow};
use super::revisit::{Cand, Why};
use crate::cache::{Dec, Enc, Pos};
use crate::classify::index::Piece;
use crate::record::MalformedKind;
use crate::timefmt::Window;
use crate::tokens::book::{Book, Entry, Notes};
use crate::tokens::copy::{Row, Vals};

/// What a scan of a file's lines needs beside the bytes.
pub(crate) struct Ctx {
    pub(crate) lane: bool,
    pub(crate) embeds: Embeds,
}

impl Ctx {
    /// Whether `agent`'s nested records count in this file now.
    fn counts(&self, agent: &str) -> bool {
        self.embeds.as_ref().is_some_and(|l| !l.contains(agent))
    }
}

/// One transcript's `stats` census as the cache keeps it.
pub(crate) struct FileCensus {
    lane: bool,
    embeds: bool,
    /// The agents the scan asked about, and whether their records counted.
    agents: Vec<(String, bool)>,
    state: State,
    /// The finished census of exactly the lines `state` covers; `None` once
    /// more lines are merged in, until sealed again.
    sealed: Option<(Census, Book)>,
    /// The cached scan could not be read back: the caller censuses the file
    /// whole instead (never a wrong count).
    broken: bool,
}

enum State {
    Scan(Box<Scan>),
    /// An entry's encoded scan, decoded only if the file grew.
    Raw(Vec<u8>),
}

impl FileCensus {
    fn of(s: Scan, ctx: &Ctx) -> FileCensus {
        FileCensus {
            lane: ctx.lane,
            embeds: ctx.embeds.is_some(),
            agents: s.agents.iter().map(|(a, c)| (a.clone(), *c)).collect(),
            state: State::Scan(Box::new(s)),
            sealed: None,
            broken: false,
        }
    }

    /// The finished census and token book, or `None` when this census holds
    /// only a scan (the caller finishes it with the file's bytes) or could not
    /// be read back.
    pub(crate) fn take_sealed(&mut self) -> Option<(Census, Book)> {
        if self.broken {
            return None;
        }
        self.sealed.take()
    }

    /// The unfinished scan, when it could be read back.
    fn into_scan(self) -> Option<Scan> {
        match self.state {
            State::Scan(s) if !self.broken => Some(*s),
            _ => None,
        }
    }

    fn scan_mut(&mut self) -> Option<&mut Scan> {
        if let State::Raw(raw) = &self.state {
            let mut d = Dec::new(raw);
            let s = decode_scan(&mut d).filter(|_| d.done())?;
            self.state = State::Scan(Box::new(s));
        }
        match &mut self.state {
            State::Scan(s) => Some(s),
            State::Raw(_) => None,
        }
    }
}

impl crate::cache::Census for FileCensus {
    const KIND: &'static str = "stats";
    const VERSION: u32 = 1;
    type Ctx = Ctx;

    fn scan(buf: &[u8], at: Pos, ctx: &Ctx) -> FileCensus {
        let p = Part {
            bytes: buf,
            base: at.offset as usize,
            first_no: at.line as usize,
        };
        let s = scan_chunked(p, ctx.lane, &Window::default(), CHUNK, ctx.embeds.clone());
        FileCensus::of(s, ctx)
    }

    fn variant(ctx: &Ctx) -> &'static str {
        if ctx.embeds.is_some() {
            ""
        } else {
            "-own"
        }
    }

    fn valid(&self, ctx: &Ctx) -> bool {
        self.lane == ctx.lane
            && self.embeds == ctx.embeds.is_some()
            && self.agents.iter().all(|(a, c)| ctx.counts(a) == *c)
    }

    fn extend(&mut self, later: FileCensus) {
        self.sealed = None;
        let Some(more) = later.into_scan() else {
            self.broken = true;
            return;
        };
        let Some(s) = self.scan_mut() else {
            self.broken = true;
            return;
        };
        s.merge(more);
        self.agents = s.agents.iter().map(|(a, c)| (a.clone(), *c)).collect();
    }

    fn seal(&mut self, covered: &[u8], _ctx: &Ctx, kept: bool) {
        if self.broken || matches!(self.state, State::Raw(_)) {
            return;
        }
        // The scan is encoded for the entry now (or given up when none is
        // written) and finished by move: no copy of it is made.
        let mut e = Enc::default();
        let State::Scan(s) = std::mem::replace(&mut self.state, State::Raw(Vec::new())) else {
            return;
        };
        if kept {
            encode_scan(&mut e, &s);
        }
        self.state = State::Raw(e.buf);
        self.sealed = Some(s.finalize(covered));
    }

    fn encode(&self, e: &mut Enc) {
        e.bool(self.lane);
        e.bool(self.embeds);
        e.u64(self.agents.len() as u64);
        for (a, c) in &self.agents {
            e.str(a);
            e.bool(*c);
        }
        match &self.sealed {
            None => e.bool(false),
            Some((c, b)) => {
                e.bool(true);
                encode_census(e, c);
                encode_book(e, b);
            }
        }
        match &self.state {
            State::Raw(raw) => e.bytes(raw),
            State::Scan(s) => {
                let mut inner = Enc::default();
                encode_scan(&mut inner, s);
                e.bytes(&inner.buf);
            }
        }
    }

    fn decode(d: &mut Dec<'_>) -> Option<FileCensus> {
        let lane = d.bool()?;
        let embeds = d.bool()?;
        let mut agents = Vec::new();
        for _ in 0..d.len(9)? {
            agents.push((d.str()?.to_string(), d.bool()?));
        }
        let sealed = match d.bool()? {
            false => None,
            true => Some((decode_census(d)?, decode_book(d)?)),
        };
        let state = State::Raw(d.bytes()?.to_vec());
        Some(FileCensus {
            lane,
            embeds,
            agents,
            state,
            sealed,
            broken: false,
        })
    }
}

fn encode_counts(e: &mut Enc, c: &Counts) {
    e.u64(c.len() as u64);
    for (k, v) in c {
        e.str(k);
        e.u64(*v);
    }
}

fn decode_counts(d: &mut Dec<'_>) -> Option<Counts> {
    let mut c = Counts::new();
    for _ in 0..d.len(16)? {
        let k = d.str()?.to_string();
        c.insert(k, d.u64()?);
    }
    Some(c)
}

fn encode_rows(e: &mut Enc, rows: &BTreeMap<String, Row>) {
    e.u64(rows.len() as u64);
    for (k, r) in rows {
        e.str(k);
        e.u64(r.messages);
        e.u64(r.records);
        r.vals.encode(e);
    }
}

fn decode_rows(d: &mut Dec<'_>) -> Option<BTreeMap<String, Row>> {
    let mut rows = BTreeMap::new();
    for _ in 0..d.len(96)? {
        let k = d.str()?.to_string();
        let r = Row {
            messages: d.u64()?,
            records: d.u64()?,
            vals: Vals::decode(d)?,
        };
        rows.insert(k, r);
    }
    Some(rows)
}

fn notes_fields(n: &mut Notes) -> [&mut u64; 5] {
    [
        &mut n.ids_with_differing_copies,
        &mut n.zeroed_copies_recovered,
        &mut n.idless_usage_records,
        &mut n.assistant_without_usage,
        &mut n.progress_embedded_ids,
    ]
}

fn encode_notes(e: &mut Enc, mut n: Notes) {
    for x in notes_fields(&mut n) {
        e.u64(*x);
    }
}

fn decode_notes(d: &mut Dec<'_>) -> Option<Notes> {
    let mut n = Notes::default();
    for x in notes_fields(&mut n) {
        *x = d.u64()?;
    }
    Some(n)
}

/// The census's maps, in one fixed order for both directions.
fn census_maps(c: &mut Census) -> [&mut Counts; 13] {
    [
        &mut c.glued_records,
        &mut c.record_types,
        &mut c.system_subtypes,
        &mut c.attachment_types,
        &mut c.block_types,
        &mut c.content_shapes,
        &mut c.result_part_types,
        &mut c.result_shapes,
        &mut c.nested_record_types,
        &mut c.nested_block_types,
        &mut c.versions,
        &mut c.models,
        &mut c.narration_blocks,
    ]
}

/// The census's counters, in one fixed order for both directions.
fn census_nums(c: &mut Census) -> [&mut u64; 17] {
    [
        &mut c.lines,
        &mut c.bytes,
        &mut c.malformed_lines,
        &mut c.repaired_surrogates,
        &mut c.outside_window,
        &mut c.units,
        &mut c.units_embedded,
        &mut c.turns,
        &mut c.genuine_user_turns,
        &mut c.compactions,
        &mut c.turn_durations,
        &mut c.turn_duration_ms,
        &mut c.spawns,
        &mut c.images,
        &mut c.lanes,
        &mut c.inline_lanes,
        &mut c.orphan_results,
    ]
}

fn encode_census(e: &mut Enc, c: &Census) {
    let mut c = c.clone();
    for x in census_nums(&mut c) {
        e.u64(*x);
    }
    for m in census_maps(&mut c) {
        encode_counts(e, m);
    }
    for v in [&c.labels, &c.labels_secondary] {
        e.u64(v.len() as u64);
        for x in v {
            e.u64(*x);
        }
    }
    e.ts(c.first_ts);
    e.ts(c.last_ts);
    e.u64(c.malformed.len() as u64);
    for m in &c.malformed {
        e.u64(m.line as u64);
        e.str(m.kind);
        e.str(&m.detail);
    }
    e.u64(c.tools.len() as u64);
    for (k, t) in &c.tools {
        e.str(k);
        for x in [t.calls, t.errors, t.unanswered, t.unanswered_at_tail] {
            e.u64(x);
        }
    }
    encode_rows(e, &c.tokens);
    encode_rows(e, &c.tokens_apart);
    encode_notes(e, c.token_notes);
}

fn malformed_kind(name: &str) -> Option<&'static str> {
    use MalformedKind::*;
    [Glued, Torn, NotObject, Blank, Invalid, UnexpectedValue]
        .into_iter()
        .map(MalformedKind::name)
        .find(|n| *n == name)
}

fn decode_census(d: &mut Dec<'_>) -> Option<Census> {
    let mut c = Census::new();
    for x in census_nums(&mut c) {
        *x = d.u64()?;
    }
    let mut maps = Vec::new();
    for _ in 0..13 {
        maps.push(decode_counts(d)?);
    }
    for (slot, m) in census_maps(&mut c).into_iter().zip(maps) {
        *slot = m;
    }
    for i in 0..2 {
        let n = d.len(8)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(d.u64()?);
        }
        if v.len() != c.labels.len() {
            return None;
        }
        *if i == 0 {
            &mut c.labels
        } else {
            &mut c.labels_secondary
        } = v;
    }
    c.first_ts = d.ts()?;
    c.last_ts = d.ts()?;
    for _ in 0..d.len(24)? {
        c.malformed.push(MalformedOut {
            file: String::new(),
            line: d.usize()?,
            kind: malformed_kind(d.str()?)?,
            detail: d.str()?.to_string(),
        });
    }
    for _ in 0..d.len(40)? {
        let k = d.str()?.to_string();
        let t = ToolRow {
            calls: d.u64()?,
            errors: d.u64()?,
            unanswered: d.u64()?,
            unanswered_at_tail: d.u64()?,
        };
        c.tools.insert(k, t);
    }
    c.tokens = decode_rows(d)?;
    c.tokens_apart = decode_rows(d)?;
    c.token_notes = decode_notes(d)?;
    Some(c)
}

fn encode_book(e: &mut Enc, b: &Book) {
    e.u64(b.keyed.len() as u64);
    for (k, x) in &b.keyed {
        e.str(k);
        e.str(&x.model);
        x.vals.encode(e);
        e.u64(x.records);
        e.bool(x.differs);
    }
    encode_rows(e, &b.idless);
    encode_notes(e, b.notes);
    e.u64(b.progress_ids.len() as u64);
    for id in &b.progress_ids {
        e.str(id);
    }
}

fn decode_book(d: &mut Dec<'_>) -> Option<Book> {
    let mut b = Book::default();
    let n = d.len(97)?;
    b.keyed.reserve(n);
    for _ in 0..n {
        let k = d.str()?.to_string();
        let x = Entry {
            model: d.str()?.to_string(),
            vals: Vals::decode(d)?,
            records: d.u64()?,
            differs: d.bool()?,
        };
        b.keyed.insert(k, x);
    }
    b.idless = decode_rows(d)?;
    b.notes = decode_notes(d)?;
    for _ in 0..d.len(8)? {
        b.progress_ids.push(d.str()?.to_string());
    }
    Some(b)
}

fn encode_scan(e: &mut Enc, s: &Scan) {
    e.bool(s.lane);
    encode_census(e, &s.c);
    encode_book(e, &s.book);
    e.u64(s.calls.len() as u64);
    for (id, c) in &s.calls {
        e.str(id);
        e.str(&c.name);
        e.u64(c.line as u64);
        e.bool(c.admitted);
    }
    e.u64(s.answers.len() as u64);
    for (id, a) in &s.answers {
        e.str(id);
        e.bool(a.error);
        e.bool(a.admitted);
    }
    s.piece.encode(e);
    e.u64(s.cands.len() as u64);
    for c in &s.cands {
        for x in [c.no, c.offset, c.len] {
            e.u64(x as u64);
        }
        match &c.why {
            Why::Opener => e.u8(0),
            Why::Meta => e.u8(1),
            Why::Carrier(ids) => {
                e.u8(2);
                e.u64(ids.len() as u64);
                for id in ids {
                    e.str(id);
                }
            }
        }
    }
    e.u64(s.sidechain.len() as u64);
    for (u, p) in &s.sidechain {
        e.opt_str(u.as_deref());
        e.opt_str(p.as_deref());
    }
    e.u64(s.agents.len() as u64);
    for (a, c) in &s.agents {
        e.str(a);
        e.bool(*c);
    }
}

fn decode_scan(d: &mut Dec<'_>) -> Option<Scan> {
    let mut s = Scan::new(d.bool()?);
    s.c = decode_census(d)?;
    s.book = decode_book(d)?;
    let mut calls = HashMap::new();
    for _ in 0..d.len(25)? {
        let id = d.str()?.to_string();
        let c = Call {
            name: d.str()?.to_string(),
            line: d.usize()?,
            admitted: d.bool()?,
        };
        calls.insert(id, c);
    }
    s.calls = calls;
    for _ in 0..d.len(10)? {
        let id = d.str()?.to_string();
        let a = Answer {
            error: d.bool()?,
            admitted: d.bool()?,
        };
        s.answers.insert(id, a);
    }
    s.piece = Piece::decode(d)?;
    for _ in 0..d.len(25)? {
        let (no, offset, len) = (d.usize()?, d.usize()?, d.usize()?);
        let why = match d.u8()? {
            0 => Why::Opener,
            1 => Why::Meta,
            2 => {
                let mut ids = Vec::new();
                for _ in 0..d.len(8)? {
                    ids.push(d.str()?.to_string());
                }
                Why::Carrier(ids)
            }
            _ => return None,
        };
        s.cands.push(Cand {
            no,
            offset,
            len,
            why,
        });
    }
    for _ in 0..d.len(2)? {
        let u = d.opt_str()?.map(str::to_string);
        s.sidechain.push((u, d.opt_str()?.map(str::to_string)));
    }
    for _ in 0..d.len(9)? {
        let a = d.str()?.to_string();
        s.agents.insert(a, d.bool()?);
    }
    Some(s)
}
