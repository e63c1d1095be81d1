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

/// Messages of many files, deduplicated by key.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    models: Vec<String>,
    model_idx: HashMap<String, u32>,
    pub(crate) keys: HashMap<u64, Msg>,
}

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
    /// of this ledger).
    pub(crate) fn admit(&mut self, key: u64, m: Msg) {
        self.keys
            .entry(key)
            .and_modify(|s| s.merge(&m))
            .or_insert(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(output: u64, cache_read: u64) -> Vals {
        Vals {
            output,
            cache_read,
            ..Vals::default()
        }
    }

    /// REC-035: the parent's copy and the child's replay of one spawning
    /// message are one message; every field takes its largest value, and the
    /// result is the same whichever file folds first.
    #[test]
    fn copies_across_files_merge_by_max_in_any_order_rec_035() {
        let t = |s: &str| s.parse::<Timestamp>().ok();
        let parent = Msg {
            owner: Owner::new(t("2026-01-01T10:00:00Z"), 1),
            ..Msg::new(0, vals(5598, 51101), t("2026-01-01T10:00:00Z"), TOP)
        };
        let child = Msg {
            owner: Owner::new(t("2026-01-01T10:00:02Z"), 0),
            ..Msg::new(0, vals(4, 51101), t("2026-01-01T10:00:02Z"), NESTED)
        };
        for order in [[parent, child], [child, parent]] {
            let mut l = Ledger::default();
            for m in order {
                l.admit(7, m);
            }
            let m = l.keys[&7];
            assert_eq!(m.vals, vals(5598, 51101));
            assert_eq!((m.files, m.records, m.seen), (2, 2, TOP | NESTED));
            assert_eq!(m.first, t("2026-01-01T10:00:00Z"));
            assert_eq!(m.owner.rank, 1, "the earliest copy's file owns it");
        }
    }

    #[test]
    fn an_untimed_copy_never_owns_over_a_timed_one() {
        let a = Owner::new(None, 0);
        let b = Owner::new("2026-01-01T00:00:00Z".parse().ok(), 9);
        assert!(b < a);
    }
}
