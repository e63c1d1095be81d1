//! The byte form of a token book in `stats`' cache entries: its models once,
//! then each keyed message with the hashes the total's dedupe keys it by, as
//! the book holds it: a hit and a file that grew read it back the same way,
//! building no string but the model names.

use super::{decode_notes, decode_rows, encode_notes, encode_rows};
use crate::cache::{Dec, Enc};
use crate::tokens::book::{Book, Entry};
use crate::tokens::copy::Vals;

/// Write a book as it is held: its models once, then each keyed message by
/// its key hash, the hash of its bare id and its model's index
/// ([`crate::tokens::book::Book`]), so reading it back builds no string but
/// the model names.
pub(in crate::cmd::stats) fn encode_book(e: &mut Enc, b: &Book) {
    e.u64(b.models.len() as u64);
    for m in &b.models {
        e.str(m);
    }
    e.u64(b.keyed.len() as u64);
    for (k, x) in &b.keyed {
        e.u64(*k);
        e.u64(x.id);
        e.u32(x.model);
        x.vals.encode(e);
        e.u64(x.records);
        e.bool(x.differs);
    }
    encode_rows(e, &b.idless);
    encode_notes(e, b.notes);
    e.u64(b.progress_ids.len() as u64);
    for id in &b.progress_ids {
        e.u64(*id);
    }
}

/// A book [`encode_book`] wrote; `None` for any byte out of place (a model
/// index past the models included).
pub(in crate::cmd::stats) fn decode_book(d: &mut Dec<'_>) -> Option<Book> {
    let mut b = Book::default();
    let n = d.len(8)?;
    b.models.reserve(n);
    for _ in 0..n {
        b.models.push(d.str()?.to_string());
    }
    let n = d.len(40)?;
    b.keyed.reserve(n);
    for _ in 0..n {
        let key = d.u64()?;
        let x = Entry {
            id: d.u64()?,
            model: d.u32()?,
            vals: Vals::decode(d)?,
            records: d.u64()?,
            differs: d.bool()?,
        };
        if x.model as usize >= b.models.len() || b.keyed.insert(key, x).is_some() {
            return None;
        }
    }
    b.idless = decode_rows(d)?;
    b.notes = decode_notes(d)?;
    let n = d.len(8)?;
    b.progress_ids.reserve(n);
    for _ in 0..n {
        b.progress_ids.push(d.u64()?);
    }
    Some(b)
}
