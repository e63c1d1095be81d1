//! The byte form of a token book in `stats`' cache entries: its models once,
//! then each keyed message with the hashes the total's dedupe keys it by, so
//! a hit folds a finished book without building a string
//! ([`decode_book_hashed`]) and a file that grew reads it back keyed by
//! strings ([`decode_book`]).

use std::collections::HashMap;

use super::{decode_notes, decode_rows, encode_notes, encode_rows};
use crate::cache::{Dec, Enc};
use crate::tokens::book::{Book, Entry, Hashed};
use crate::tokens::copy::Vals;

/// Write a book: its models once, then each keyed message with the hashes the
/// total's dedupe keys it by ([`crate::tokens::key_hash`] of its key and of
/// its bare id) before its key, so a hit reads it without building a string
/// ([`decode_book_hashed`]); a file that grew reads the keys
/// ([`decode_book`]).
pub(in crate::cmd::stats) fn encode_book(e: &mut Enc, b: &Book) {
    use crate::tokens::key_hash;
    let mut models: Vec<&str> = Vec::new();
    let mut idx: HashMap<&str, u32> = HashMap::new();
    for x in b.keyed.values() {
        idx.entry(&x.model).or_insert_with(|| {
            models.push(&x.model);
            models.len() as u32 - 1
        });
    }
    e.u64(models.len() as u64);
    for m in &models {
        e.str(m);
    }
    e.u64(b.keyed.len() as u64);
    for (k, x) in &b.keyed {
        e.u64(key_hash(k));
        match k.split_once('\0') {
            Some((_, id)) => {
                e.u8(1);
                e.u64(key_hash(id));
            }
            None => e.u8(0),
        }
        e.u32(idx.get(x.model.as_str()).copied().unwrap_or(0));
        x.vals.encode(e);
        e.u64(x.records);
        e.bool(x.differs);
        e.str(k);
    }
    encode_rows(e, &b.idless);
    encode_notes(e, b.notes);
    e.u64(b.progress_ids.len() as u64);
    for id in &b.progress_ids {
        e.u64(key_hash(id));
        e.str(id);
    }
}

/// The models of a book [`encode_book`] wrote.
fn decode_models(d: &mut Dec<'_>) -> Option<Vec<String>> {
    let n = d.len(8)?;
    let mut models = Vec::with_capacity(n);
    for _ in 0..n {
        models.push(d.str()?.to_string());
    }
    Some(models)
}

/// One keyed message of a book [`encode_book`] wrote, and its key.
fn decode_keyed<'a>(d: &mut Dec<'a>, models: usize) -> Option<(Hashed, &'a [u8])> {
    let key = d.u64()?;
    let id = match d.u8()? {
        0 => None,
        1 => Some(d.u64()?),
        _ => return None,
    };
    let model = d.u32()?;
    if model as usize >= models {
        return None;
    }
    let h = Hashed {
        key,
        id,
        model,
        vals: Vals::decode(d)?,
        records: d.u64()?,
        differs: d.bool()?,
    };
    Some((h, d.bytes()?))
}

/// A book as a file that grew merges into: keyed by strings.
pub(in crate::cmd::stats) fn decode_book(d: &mut Dec<'_>) -> Option<Book> {
    let mut b = Book::default();
    let models = decode_models(d)?;
    let n = d.len(50)?;
    b.keyed.reserve(n);
    for _ in 0..n {
        let (h, k) = decode_keyed(d, models.len())?;
        let x = Entry {
            model: models[h.model as usize].clone(),
            vals: h.vals,
            records: h.records,
            differs: h.differs,
        };
        b.keyed.insert(std::str::from_utf8(k).ok()?.to_string(), x);
    }
    b.idless = decode_rows(d)?;
    b.notes = decode_notes(d)?;
    for _ in 0..d.len(16)? {
        d.u64()?;
        b.progress_ids.push(d.str()?.to_string());
    }
    Some(b)
}

/// A finished book as a hit folds it: keyed messages by their hashes, no
/// string built but the model names ([`Book::hashed`]).
pub(in crate::cmd::stats) fn decode_book_hashed(d: &mut Dec<'_>) -> Option<Book> {
    let mut b = Book::default();
    b.hashed.models = decode_models(d)?;
    let n = d.len(50)?;
    b.hashed.keyed.reserve(n);
    for _ in 0..n {
        let (h, _) = decode_keyed(d, b.hashed.models.len())?;
        b.hashed.keyed.push(h);
    }
    b.idless = decode_rows(d)?;
    b.notes = decode_notes(d)?;
    let n = d.len(16)?;
    b.hashed.progress.reserve(n);
    for _ in 0..n {
        b.hashed.progress.push(d.u64()?);
        d.bytes()?;
    }
    Some(b)
}
