//! The eaten-text group rule as a foldable tally, for readers that keep it
//! per file between runs (the status line's warning, through the census
//! cache). The rule is `audit`'s eaten-text (group form, the bug report's
//! survey): assistant records with a non-empty `message.id` and list content
//! are grouped by `(isSidechain, message.id)`; a record is thinking-bearing
//! when a block is `thinking`, text-bearing when one is `text`; a replayed copy
//! under a uuid already counted is not counted again (REC-091); a group with
//! two or more thinking-bearing and no text-bearing record is one eaten
//! response.
//! `audit` reports where; this only counts, and can be extended with the
//! records of appended bytes.

use std::collections::HashMap;

use crate::cache::{Dec, Enc};

const THINKING: u8 = 1;
const TEXT: u8 = 2;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Group {
    /// Counted uuids (hashed) with the kinds of their first copy.
    uuids: Vec<(u64, u8)>,
    /// Kinds of records without a uuid, each counted.
    anon_thinking: u32,
    anon_text: u32,
}

impl Group {
    fn count(&self, bit: u8, anon: u32) -> u64 {
        self.uuids.iter().filter(|(_, k)| k & bit != 0).count() as u64 + u64::from(anon)
    }

    fn eaten(&self) -> bool {
        self.count(THINKING, self.anon_thinking) >= 2 && self.count(TEXT, self.anon_text) == 0
    }
}

/// Eaten-text groups of one file, by `(isSidechain, hash of message.id)`.
/// A tally read back from the cache stays in its encoded form, with its
/// count, until it is changed: most are only asked for their count, or not at
/// all (`usage` never asks).
#[derive(Debug, Default, Clone)]
pub(crate) struct Tally {
    groups: HashMap<(bool, u64), Group>,
    /// The encoded groups and their eaten count, not yet decoded.
    raw: Option<(Vec<u8>, u64)>,
}

impl PartialEq for Tally {
    fn eq(&self, o: &Tally) -> bool {
        let (mut a, mut b) = (self.clone(), o.clone());
        a.settle();
        b.settle();
        a.groups == b.groups
    }
}

impl Tally {
    /// Decode the encoded form, if any, into groups.
    fn settle(&mut self) {
        if let Some((raw, _)) = self.raw.take() {
            self.groups = Tally::read(&mut Dec::new(&raw))
                .map(|t| t.groups)
                .unwrap_or_default();
        }
    }

    /// One admitted assistant record (a non-empty id, list content).
    pub(crate) fn record(
        &mut self,
        sidechain: bool,
        mid: &str,
        uuid: Option<&str>,
        thinking: bool,
        text: bool,
    ) {
        if !(thinking || text) {
            return; // counts for neither side of the rule
        }
        self.settle();
        let kinds = if thinking { THINKING } else { 0 } | if text { TEXT } else { 0 };
        let g = self
            .groups
            .entry((sidechain, super::fnv1a(mid.as_bytes())))
            .or_default();
        match uuid.filter(|u| !u.is_empty()) {
            Some(u) => {
                let h = super::fnv1a(u.as_bytes());
                if !g.uuids.iter().any(|(x, _)| *x == h) {
                    g.uuids.push((h, kinds));
                }
            }
            None => {
                g.anon_thinking += u32::from(thinking);
                g.anon_text += u32::from(text);
            }
        }
    }

    /// Fold in the tally of the records that follow.
    pub(crate) fn extend(&mut self, mut later: Tally) {
        if later.groups.is_empty() && later.raw.is_none() {
            return;
        }
        self.settle();
        later.settle();
        for (k, g) in later.groups {
            let mine = self.groups.entry(k).or_default();
            for (h, kinds) in g.uuids {
                if !mine.uuids.iter().any(|(x, _)| *x == h) {
                    mine.uuids.push((h, kinds));
                }
            }
            mine.anon_thinking += g.anon_thinking;
            mine.anon_text += g.anon_text;
        }
    }

    /// Eaten responses: groups with >= 2 thinking-bearing records and no
    /// text-bearing one.
    pub(crate) fn eaten(&self) -> u64 {
        match &self.raw {
            Some((_, n)) => *n,
            None => self.groups.values().filter(|g| g.eaten()).count() as u64,
        }
    }

    pub(crate) fn encode(&self, e: &mut Enc) {
        if let Some((raw, _)) = &self.raw {
            e.buf.extend_from_slice(raw);
            return;
        }
        // Sorted, so one tally always encodes to the same bytes.
        let mut keys: Vec<_> = self.groups.keys().copied().collect();
        keys.sort_unstable();
        e.u64(keys.len() as u64);
        for k in keys {
            let g = &self.groups[&k];
            e.u8(u8::from(k.0));
            e.u64(k.1);
            e.u32(g.anon_thinking);
            e.u32(g.anon_text);
            e.u64(g.uuids.len() as u64);
            for (h, kinds) in &g.uuids {
                e.u64(*h);
                e.u8(*kinds);
            }
        }
    }

    /// A tally [`Tally::encode`] wrote, checked whole and counted (without
    /// building its groups), kept encoded until it changes.
    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Tally> {
        let at = d.mark();
        let mut eaten = 0;
        for _ in 0..d.len(25)? {
            d.u8()?;
            d.u64()?;
            let (mut thinking, mut text) = (u64::from(d.u32()?), u64::from(d.u32()?));
            for _ in 0..d.len(9)? {
                d.u64()?;
                let k = d.u8()?;
                thinking += u64::from(k & THINKING != 0);
                text += u64::from(k & TEXT != 0);
            }
            eaten += u64::from(thinking >= 2 && text == 0);
        }
        Some(Tally {
            groups: HashMap::new(),
            raw: Some((d.since(at).to_vec(), eaten)),
        })
    }

    /// Decode an encoded tally into groups.
    fn read(d: &mut Dec<'_>) -> Option<Tally> {
        let mut t = Tally::default();
        for _ in 0..d.len(25)? {
            let side = d.u8()? != 0;
            let mid = d.u64()?;
            let mut g = Group {
                anon_thinking: d.u32()?,
                anon_text: d.u32()?,
                ..Group::default()
            };
            for _ in 0..d.len(9)? {
                g.uuids.push((d.u64()?, d.u8()?));
            }
            t.groups.insert((side, mid), g);
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bug report's shape: [thinking][thinking][tool_use] under one id.
    #[test]
    fn two_thinking_records_and_no_text_is_one_eaten_response() {
        let mut t = Tally::default();
        t.record(false, "m", Some("u1"), true, false);
        t.record(false, "m", Some("u2"), true, false);
        t.record(false, "m", Some("u3"), false, false);
        assert_eq!(t.eaten(), 1);
        t.record(false, "m", Some("u4"), false, true);
        assert_eq!(t.eaten(), 0, "a kept text block clears it");
    }

    /// REC-091: a replayed copy under the same uuid is the same record.
    #[test]
    fn a_replayed_copy_is_not_a_second_record_rec_091() {
        let mut t = Tally::default();
        t.record(false, "m", Some("u1"), true, false);
        t.record(false, "m", Some("u1"), true, false);
        assert_eq!(t.eaten(), 0);
        t.record(true, "m", Some("u2"), true, false);
        assert_eq!(t.eaten(), 0, "sidechain groups apart");
    }

    /// Split anywhere, a tally extended with the rest equals one over all.
    #[test]
    fn extend_equals_one_pass() {
        let recs = [
            (false, "a", Some("1"), true, false),
            (false, "a", Some("1"), true, false),
            (false, "a", Some("2"), true, false),
            (false, "b", None, true, false),
            (false, "b", None, true, false),
            (false, "b", Some("3"), false, true),
            (true, "a", Some("4"), true, false),
        ];
        let fold = |rs: &[(bool, &str, Option<&str>, bool, bool)]| {
            let mut t = Tally::default();
            for r in rs {
                t.record(r.0, r.1, r.2, r.3, r.4);
            }
            t
        };
        let whole = fold(&recs);
        assert_eq!(whole.eaten(), 1);
        for cut in 0..=recs.len() {
            let mut t = fold(&recs[..cut]);
            t.extend(fold(&recs[cut..]));
            assert_eq!(t, whole, "cut at {cut}");
            let mut e = Enc::default();
            t.encode(&mut e);
            assert_eq!(Tally::decode(&mut Dec::new(&e.buf)), Some(whole.clone()));
        }
    }
}
