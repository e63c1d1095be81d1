//! The cross-file dedupe every total uses: one small fixed-size entry per API
//! message, keyed by the 64-bit [`key_hash`](super::key_hash) of
//! `model \0 id`, its copies' values merged by per-field MAX (REC-035: a
//! subagent's opening context replays the parent's spawning message under the
//! same id; clones carry the origin's records, REC-041). No record text is
//! kept. Every merge here is commutative, so files may fold in any order.

use std::collections::HashMap;

use jiff::Timestamp;

use super::Vals;
use crate::cache::{Dec, Enc};

/// Which copies of a message were seen.
pub(crate) const TOP: u8 = 1;
/// A copy nested in an `agent_progress` record.
pub(crate) const NESTED: u8 = 2;

/// One API message, as far as the files folded so far know it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Msg {
    /// Index of its model in the ledger's (or a file book's) model list.
    pub(crate) model: u32,
    pub(crate) vals: Vals,
    /// The records its copies were written as.
    pub(crate) records: u64,
    /// The files holding a copy.
    pub(crate) files: u32,
    /// The earliest timestamp among its copies.
    pub(crate) first: Option<Timestamp>,
    /// [`TOP`] | [`NESTED`]: which kinds of copy were seen.
    pub(crate) seen: u8,
    /// The file its earliest copy is in, as an order key: (that copy's time,
    /// then a rank the caller gives each file). The owner names the message's
    /// session and project.
    pub(crate) owner: Owner,
}

/// Order key of a copy's file (smaller owns): the copy's time, no time last,
/// then the file's rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Owner {
    pub(crate) untimed: bool,
    pub(crate) at: Option<Timestamp>,
    pub(crate) rank: u32,
}

impl Owner {
    pub(crate) fn new(at: Option<Timestamp>, rank: u32) -> Owner {
        Owner {
            untimed: at.is_none(),
            at,
            rank,
        }
    }
}

impl Msg {
    /// A message as one file (or one copy) knows it.
    pub(crate) fn new(model: u32, vals: Vals, first: Option<Timestamp>, seen: u8) -> Msg {
        Msg {
            model,
            vals,
            records: 1,
            files: 1,
            first,
            seen,
            owner: Owner::new(first, 0),
        }
    }

    /// Fold another file's view of the same message in: values by
    /// per-field MAX, the earliest time, the smaller owner.
    pub(crate) fn merge(&mut self, o: &Msg) {
        self.merge_copy(o);
        self.files = self.files.saturating_add(o.files);
    }

    /// Fold another copy of the message from the same file in.
    pub(crate) fn merge_copy(&mut self, o: &Msg) {
        self.vals = self.vals.max(o.vals);
        self.records = self.records.saturating_add(o.records);
        self.first = match (self.first, o.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.seen |= o.seen;
        self.owner = self.owner.min(o.owner);
    }
}

impl Msg {
    /// Write this message (the census cache's form).
    pub(crate) fn encode(&self, e: &mut Enc) {
        let m = self;
        e.u32(m.model);
        m.vals.encode(e);
        e.u64(m.records);
        e.ts(m.first);
        e.u8(m.seen);
    }

    /// Read a message [`Msg::encode`] wrote; its model must index `models`.
    pub(crate) fn decode(d: &mut Dec<'_>, models: usize) -> Option<Msg> {
        let model = d.u32()?;
        if model as usize >= models {
            return None;
        }
        let vals = Vals::decode(d)?;
        let records = d.u64()?;
        let first = d.ts()?;
        let seen = d.u8()?;
        Some(Msg {
            records,
            ..Msg::new(model, vals, first, seen)
        })
    }
}

/// Messages of many files, deduplicated by key: packed [`Slot`]s in a
/// vector, kept sorted by key and merged at [`Ledger::settle`] (and whenever
/// the vector is full), so a message costs one 72-byte slot and no hash-table
/// slack (a `HashMap<u64, Msg>` cost about 170 bytes a message, up to twice
/// that between resizes: issue 37 measured 159 MB on a 5.6 GB home).
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    models: Vec<String>,
    model_idx: HashMap<String, u32>,
    slots: Vec<Slot>,
    /// `slots[..sorted]` are sorted by key, each key once.
    sorted: usize,
    /// Values of the rare messages whose counts do not fit a slot.
    wide: Vec<(Vals, u64)>,
}

/// One message packed: token fields and records as `u32` (a message whose
/// counts do not fit keeps them in the ledger's `wide` list, its slot
/// pointing there), its time as seconds and nanoseconds, its file count
/// saturating at `u16::MAX` (only "more than one" is ever asked).
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    secs: i64,
    /// [`Vals::fields`] order; with [`WIDE`] set, `vals[0]` indexes `wide`.
    vals: [u32; 9],
    records: u32,
    rank: u32,
    model: u32,
    /// [`NO_TIME`]: the message has no time.
    nanos: i32,
    files: u16,
    /// [`TOP`] | [`NESTED`] | [`WIDE`].
    seen: u8,
}

/// A slot whose values live in the ledger's `wide` list.
const WIDE: u8 = 0x80;
const NO_TIME: i32 = i32::MIN;

impl Ledger {
    /// The index of model `name`, added on first sight.
    pub(crate) fn model(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.model_idx.get(name) {
            return i;
        }
        let i = self.models.len() as u32;
        self.models.push(name.to_string());
        self.model_idx.insert(name.to_string(), i);
        i
    }

    /// How many models have an index.
    pub(crate) fn models(&self) -> u32 {
        self.models.len() as u32
    }

    pub(crate) fn model_name(&self, i: u32) -> &str {
        self.models.get(i as usize).map_or("", String::as_str)
    }

    /// Admit one file's view of the message `key` (its model already an index
    /// of this ledger). Copies of one key merge at the next [`Ledger::settle`].
    pub(crate) fn admit(&mut self, key: u64, m: Msg) {
        if self.slots.len() == self.slots.capacity() {
            self.settle();
            let len = self.slots.len();
            // Grow by a quarter, not double: the vector is most of the
            // ledger's memory, and a large one grows in place (mremap).
            if self.slots.capacity() - len < len / 8 + 1 {
                self.slots.reserve_exact((len / 4).max(1024));
            }
        }
        let s = self.pack(key, &m);
        self.slots.push(s);
    }

    /// Fold in every message of `o` (another ledger of other files), as if
    /// its files' copies had been admitted here: copies merge by the same
    /// per-field MAX, file counts add. Both are settled and merged in one
    /// pass (the ends of a parallel run: each worker's ledger absorbed in
    /// turn, on one thread).
    pub(crate) fn absorb(&mut self, mut o: Ledger) {
        o.settle();
        if self.slots.is_empty() && self.models.is_empty() && self.wide.is_empty() {
            *self = o;
            return;
        }
        let models: Vec<u32> = (0..o.models())
            .map(|i| self.model(o.model_name(i)))
            .collect();
        let mut tail = std::mem::take(&mut o.slots);
        tail.truncate(o.sorted);
        for s in &mut tail {
            let model = models.get(s.model as usize).copied().unwrap_or(s.model);
            if s.seen & WIDE == 0 {
                s.model = model;
            } else {
                let mut m = o.unpack(s);
                m.model = model;
                *s = self.pack(s.key, &m);
            }
        }
        drop(o);
        self.settle();
        self.merge_sorted(tail);
    }

    /// Merge every key's copies into one slot, sorted by key.
    pub(crate) fn settle(&mut self) {
        let a = self.sorted;
        if a == self.slots.len() {
            return;
        }
        let mut tail = self.slots.split_off(a);
        tail.sort_unstable_by_key(|s| s.key);
        self.merge_sorted(tail);
    }

    /// Merge `tail` (sorted by key) into the settled slots: the two sorted
    /// runs merge from the back in place, then each key's copies into one.
    fn merge_sorted(&mut self, tail: Vec<Slot>) {
        let a = self.slots.len();
        let b = tail.len();
        self.slots.reserve_exact(b);
        self.slots.resize(a + b, Slot::default());
        let (mut i, mut j) = (a, b);
        while j > 0 {
            let k = i + j - 1;
            if i > 0 && self.slots[i - 1].key > tail[j - 1].key {
                self.slots[k] = self.slots[i - 1];
                i -= 1;
            } else {
                self.slots[k] = tail[j - 1];
                j -= 1;
            }
        }
        drop(tail);
        let mut w = 0;
        for r in 0..self.slots.len() {
            let s = self.slots[r];
            if w > 0 && self.slots[w - 1].key == s.key {
                let mut m = self.unpack(&self.slots[w - 1]);
                m.merge(&self.unpack(&s));
                self.slots[w - 1] = self.pack(s.key, &m);
            } else {
                self.slots[w] = s;
                w += 1;
            }
        }
        self.slots.truncate(w);
        self.sorted = w;
    }

    /// Distinct messages (after [`Ledger::settle`]).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Every message with its key, in key order; only settled slots, so
    /// call [`Ledger::settle`] after the last admit.
    pub(crate) fn messages(&self) -> impl Iterator<Item = (u64, Msg)> + '_ {
        self.slots[..self.sorted]
            .iter()
            .map(|s| (s.key, self.unpack(s)))
    }

    fn pack(&mut self, key: u64, m: &Msg) -> Slot {
        let (secs, nanos) = match m.first {
            Some(t) => (t.as_second(), t.subsec_nanosecond()),
            None => (0, NO_TIME),
        };
        let mut s = Slot {
            key,
            secs,
            vals: [0; 9],
            records: 0,
            rank: m.owner.rank,
            model: m.model,
            nanos,
            files: u16::try_from(m.files).unwrap_or(u16::MAX),
            seen: m.seen & !WIDE,
        };
        let mut v = m.vals;
        let narrow = v.fields().iter().all(|x| u32::try_from(**x).is_ok())
            && u32::try_from(m.records).is_ok();
        if narrow {
            for (o, x) in s.vals.iter_mut().zip(v.fields()) {
                *o = *x as u32;
            }
            s.records = m.records as u32;
        } else {
            s.seen |= WIDE;
            s.vals[0] = self.wide.len() as u32;
            self.wide.push((m.vals, m.records));
        }
        s
    }

    fn unpack(&self, s: &Slot) -> Msg {
        let mut vals = Vals::default();
        let mut records = u64::from(s.records);
        if s.seen & WIDE == 0 {
            for (x, o) in vals.fields().into_iter().zip(s.vals) {
                *x = u64::from(o);
            }
        } else if let Some(&(v, r)) = self.wide.get(s.vals[0] as usize) {
            (vals, records) = (v, r);
        }
        let first = if s.nanos == NO_TIME {
            None
        } else {
            Timestamp::new(s.secs, s.nanos).ok()
        };
        Msg {
            model: s.model,
            vals,
            records,
            files: u32::from(s.files),
            first,
            seen: s.seen & !WIDE,
            owner: Owner::new(first, s.rank),
        }
    }
}

/// A set of 64-bit keys kept as a sorted vector (duplicates merged whenever
/// it is full and at [`KeySet::settle`]): 8 bytes a key, no hash-table slack.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    keys: Vec<u64>,
    sorted: usize,
}

impl KeySet {
    pub(crate) fn insert(&mut self, k: u64) {
        if self.keys.len() == self.keys.capacity() {
            self.settle();
            let len = self.keys.len();
            if self.keys.capacity() - len < len / 8 + 1 {
                self.keys.reserve_exact((len / 4).max(1024));
            }
        }
        self.keys.push(k);
    }

    /// Every key of `o` added: both settled, then merged from the back in
    /// place.
    pub(crate) fn absorb(&mut self, mut o: KeySet) {
        o.settle();
        if self.keys.is_empty() {
            *self = o;
            return;
        }
        self.settle();
        let (a, b) = (self.keys.len(), o.keys.len());
        self.keys.reserve_exact(b);
        self.keys.resize(a + b, 0);
        let (mut i, mut j) = (a, b);
        while j > 0 {
            let k = i + j - 1;
            if i > 0 && self.keys[i - 1] > o.keys[j - 1] {
                self.keys[k] = self.keys[i - 1];
                i -= 1;
            } else {
                self.keys[k] = o.keys[j - 1];
                j -= 1;
            }
        }
        self.keys.dedup();
        self.sorted = self.keys.len();
    }

    /// Sort and drop duplicates.
    pub(crate) fn settle(&mut self) {
        if self.sorted < self.keys.len() {
            self.keys.sort_unstable();
            self.keys.dedup();
            self.sorted = self.keys.len();
        }
    }

    /// Distinct keys (after [`KeySet::settle`]).
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Keys of this set not in `o` (both settled).
    pub(crate) fn count_not_in(&self, o: &KeySet) -> usize {
        self.keys
            .iter()
            .filter(|k| o.keys.binary_search(k).is_err())
            .count()
    }
}

#[cfg(test)]
mod tests;
