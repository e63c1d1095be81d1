//! The byte form of `stats`' cache entries ([`super::cached`]): a finished
//! census, a token book and an unfinished scan, each written and read back
//! field by field in one fixed order (a change here bumps the kind's version).

use std::collections::BTreeMap;

use super::census::{Answer, Call, Scan};
use super::model::{Census, Counts, MalformedOut, Map, ToolRow};
use super::revisit::{Cand, Facts, Why};
use crate::cache::{Dec, Enc};
use crate::classify::index::Piece;
use crate::record::MalformedKind;
use crate::tokens::book::{Book, Notes};
use crate::tokens::copy::{Row, Vals};

mod book;

pub(super) use book::{decode_book, encode_book};

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

pub(super) fn encode_census(e: &mut Enc, c: &Census) {
    let mut c = c.clone();
    for x in census_nums(&mut c) {
        e.u64(*x);
    }
    for m in Map::ALL {
        encode_counts(e, c.map(m));
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
    MalformedKind::ALL
        .into_iter()
        .map(MalformedKind::name)
        .find(|n| *n == name)
}

pub(super) fn decode_census(d: &mut Dec<'_>) -> Option<Census> {
    let mut c = Census::new();
    for x in census_nums(&mut c) {
        *x = d.u64()?;
    }
    for m in Map::ALL {
        *c.map(m) = decode_counts(d)?;
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

/// Write a scan; its token book too unless `book` is false (the entry's
/// finished book is the same book: [`decode_scan`] is then given it).
pub(super) fn encode_scan(e: &mut Enc, s: &Scan, book: bool) {
    e.bool(s.lane);
    encode_census(e, &s.c);
    if book {
        encode_book(e, &s.book);
    }
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
            Why::Opener(None) => e.u8(0),
            Why::Opener(Some(f)) => {
                e.u8(3);
                e.u8(f.bits());
            }
            Why::Meta => e.u8(1),
            Why::Carrier(ids) => {
                e.u8(2);
                e.strs(ids.iter().map(String::as_str));
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

/// Read a scan [`encode_scan`] wrote, with `book` when it was written without.
pub(super) fn decode_scan(d: &mut Dec<'_>, book: Option<Book>) -> Option<Scan> {
    let mut s = Scan::new(d.bool()?);
    s.c = decode_census(d)?;
    s.book = match book {
        Some(b) => b,
        None => decode_book(d)?,
    };
    let mut calls = crate::scan::hash::FxMap::default();
    for _ in 0..d.len(25)? {
        let id = d.str()?.to_string();
        let c = Call {
            name: d.str()?.to_string(),
            line: d.usize()?,
            admitted: d.bool()?,
            // Only a chunk not yet merged is renumbered; a cached scan never is.
            idless: None,
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
            0 => Why::Opener(None),
            3 => Why::Opener(Some(Facts::from_bits(d.u8()?)?)),
            1 => Why::Meta,
            2 => Why::Carrier(d.owned_strs()?),
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
