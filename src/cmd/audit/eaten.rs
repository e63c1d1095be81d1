//! The eaten-text rule, in both of the bug report's forms.
//!
//! Group form (the survey script's, which produced the published counts): per
//! file, assistant records with a non-empty `message.id` and list content are
//! grouped by `(isSidechain, message.id)`; a record is thinking-bearing when any
//! dict block has type `thinking` and text-bearing when any has type `text` (a
//! record can be both); a group with >=2 thinking-bearing and 0 text-bearing
//! records is one eaten response. The group keeps the line, timestamp and
//! version of its FIRST record (the script's `setdefault`).
//!
//! A resume replays the history into the same file under the same uuids
//! (REC-091), so a `[thinking][tool_use]` response and its replayed copy would
//! make two thinking-bearing records of one id. A record is counted once per
//! uuid: the replayed copy is the same record, not a second one whose text was
//! lost. (The survey script counted lines; on a file with no repeated uuid the
//! two agree.)
//!
//! Adjacency form (the report's "detection rule for scanning any transcript"):
//! two adjacent assistant records sharing `message.id`, both with
//! `content[0].type == "thinking"`; records without a `message` (queue-operation,
//! attachment, system, progress …) do not break adjacency, a user or assistant
//! record does. Adjacency is tracked per sidechain flag, like the groups.

use std::collections::HashMap;

use std::collections::hash_map::Entry;

use super::dup::{id_key, IdMap};
use super::finding::{At, FileCtx, Finding};
use crate::cache::{Dec, Enc};
use crate::cli::audit::Kind;
use crate::loss::lite::Kinds;

#[derive(Debug)]
struct Group {
    mid: String,
    thinking: u32,
    text: u32,
    /// Hashes of the uuids counted, so a replayed copy is not counted again.
    seen: Vec<u64>,
    /// Records not counted because their uuid already was (REC-091).
    replayed: u32,
    first: At,
    /// Two adjacent thinking-first records of this group were seen.
    adjacent: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Eaten {
    /// Groups in first-seen order, so findings come out in file order.
    groups: Vec<Group>,
    /// Per sidechain flag: the hash of `message.id` ([`id_key`]) -> index in
    /// `groups`, confirmed against the group's own id, so the id is kept
    /// once and a record of a known group allocates nothing.
    index: [IdMap<u64, usize>; 2],
    /// Per sidechain flag: groups whose id's hash another id had first
    /// (practically never).
    collided: [HashMap<String, usize>; 2],
    /// Per sidechain flag: the group of the previous message record when it was
    /// thinking-first.
    pending: [Option<usize>; 2],
    /// Admitted records with more than one dict block (the script's counter).
    pub(crate) multi_block: usize,
    /// A census of lines after a file's start ([`crate::cache`]): what came
    /// before is unknown (open groups, a waiting thinking-first record, uuids
    /// counted), so the records are kept in order and replayed into the
    /// earlier census by [`Eaten::extend`], exactly as one pass would fold them.
    log: Option<Vec<Event>>,
}

/// One step of the rule, as [`Eaten::extend`] replays it.
#[derive(Debug)]
enum Event {
    Record(String, Option<u64>, Kinds, At),
    Other(bool),
}

impl Eaten {
    /// Whether the next message record on this lane must be parsed to decide
    /// adjacency (a thinking-first record is waiting for its neighbour).
    pub(crate) fn waiting(&self, sidechain: bool) -> bool {
        self.pending[usize::from(sidechain)].is_some()
    }

    /// A user/assistant record with a `message` that is not an admitted
    /// assistant record: it breaks adjacency.
    pub(crate) fn other_message(&mut self, sidechain: bool) {
        if let Some(log) = &mut self.log {
            // Consecutive breaks on one lane are one.
            if !matches!(log.last(), Some(Event::Other(s)) if *s == sidechain) {
                log.push(Event::Other(sidechain));
            }
            return;
        }
        self.pending[usize::from(sidechain)] = None;
    }

    /// The rule over lines that follow others not seen here: records are
    /// kept for [`Eaten::extend`].
    pub(crate) fn logging() -> Eaten {
        Eaten {
            log: Some(Vec::new()),
            ..Eaten::default()
        }
    }

    /// An admitted assistant record on lane `side`, with its top-level uuid's
    /// raw bytes; `at` is built only for a group's first record (and for a log).
    pub(crate) fn record(
        &mut self,
        mid: &str,
        uuid: Option<&[u8]>,
        k: Kinds,
        side: bool,
        at: &dyn Fn() -> At,
    ) {
        let uuid = uuid.filter(|u| !u.is_empty()).map(crate::loss::fnv1a);
        if let Some(log) = &mut self.log {
            log.push(Event::Record(mid.to_string(), uuid, k, at()));
            return;
        }
        self.fold(mid, uuid, k, side, at);
    }

    /// Fold in the census of the lines that follow (a [`Eaten::logging`]
    /// one): its records are replayed in order. False when `later` is not a
    /// log (nothing is folded).
    pub(crate) fn extend(&mut self, later: Eaten) -> bool {
        let Some(log) = later.log else {
            return false;
        };
        for ev in log {
            match ev {
                Event::Record(mid, uuid, k, at) => match &mut self.log {
                    Some(mine) => mine.push(Event::Record(mid, uuid, k, at)),
                    None => {
                        let side = at.sidechain;
                        self.fold(&mid, uuid, k, side, &|| at.clone());
                    }
                },
                Event::Other(side) => self.other_message(side),
            }
        }
        true
    }

    /// One admitted record, its uuid hashed.
    fn fold(&mut self, mid: &str, uuid: Option<u64>, k: Kinds, side: bool, at: &dyn Fn() -> At) {
        if k.dict_blocks > 1 {
            self.multi_block += 1;
        }
        let i = match self.group(side, mid) {
            Some(i) => i,
            None => {
                let i = self.groups.len();
                self.index_group(side, mid, i);
                self.groups.push(Group {
                    mid: mid.to_string(),
                    thinking: 0,
                    text: 0,
                    seen: Vec::new(),
                    replayed: 0,
                    first: at(),
                    adjacent: false,
                });
                i
            }
        };
        let g = &mut self.groups[i];
        // A replayed copy is the same record: it counts for neither rule and
        // leaves adjacency as it was (the copy right after its original is no
        // second thinking-first record).
        if k.thinking || k.text {
            if let Some(h) = uuid {
                if g.seen.contains(&h) {
                    g.replayed += 1;
                    return;
                }
                g.seen.push(h);
            }
        }
        let slot = &mut self.pending[usize::from(side)];
        if k.first_thinking && *slot == Some(i) {
            g.adjacent = true;
        }
        *slot = k.first_thinking.then_some(i);
        g.thinking += u32::from(k.thinking);
        g.text += u32::from(k.text);
    }

    /// The group of `mid` on lane `side`.
    fn group(&self, side: bool, mid: &str) -> Option<usize> {
        let s = usize::from(side);
        match self.index[s].get(&id_key(mid.as_bytes())) {
            Some(&i) if self.groups[i].mid == mid => Some(i),
            Some(_) => self.collided[s].get(mid).copied(),
            None => None,
        }
    }

    /// Index a new group `i` of `mid` on lane `side`.
    fn index_group(&mut self, side: bool, mid: &str, i: usize) {
        let s = usize::from(side);
        match self.index[s].entry(id_key(mid.as_bytes())) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(_) => {
                self.collided[s].insert(mid.to_string(), i);
            }
        }
    }

    /// The fast path stamps byte offsets in `At::line`: the 1-based line
    /// number of each offset a finding will use, with one counting pass over
    /// `buf` (the file from its start).
    fn lines_of(&self, buf: &[u8]) -> HashMap<usize, usize> {
        let mut offs: Vec<usize> = self
            .groups
            .iter()
            .filter(|g| g.thinking >= 2 || g.adjacent)
            .map(|g| g.first.line)
            .collect();
        offs.sort_unstable();
        offs.dedup();
        let mut map = HashMap::new();
        let (mut at, mut no) = (0usize, 1usize);
        for o in offs {
            let o = o.min(buf.len());
            no += memchr::memchr_iter(b'\n', &buf[at..o]).count();
            at = o;
            map.insert(o, no);
        }
        map
    }

    /// Findings in file order: group hits (noting whether adjacency agrees) and
    /// adjacency-only hits. `offsets`: the file, when lines were numbered by
    /// byte offset (the eaten-text-only pass).
    pub(crate) fn findings(
        &self,
        ctx: &FileCtx,
        (want_group, want_adj): (bool, bool),
        offsets: Option<&[u8]>,
        out: &mut Vec<Finding>,
    ) {
        let lines = offsets.map(|buf| self.lines_of(buf));
        for g in &self.groups {
            let by_group = g.thinking >= 2 && g.text == 0;
            let by_adj = g.adjacent;
            if !((by_group && want_group) || (by_adj && !by_group && want_adj)) {
                continue;
            }
            let mut counts = format!(
                "{} thinking record(s), {} text record(s)",
                g.thinking, g.text
            );
            if g.replayed > 0 {
                counts.push_str(&format!(
                    " ({} replayed copies under the same uuid not counted)",
                    g.replayed
                ));
            }
            let mut first = g.first.clone();
            if let Some(&n) = lines.as_ref().and_then(|m| m.get(&first.line)) {
                first.line = n;
            }
            if by_group {
                let rule = if by_adj {
                    "adjacency rule agrees"
                } else {
                    "adjacency rule disagrees (thinking records not adjacent)"
                };
                out.push(ctx.finding(
                    Kind::EatenText,
                    &first,
                    Some(g.mid.clone()),
                    format!("streamed text never persisted: {counts}; {rule}"),
                ));
            } else {
                out.push(ctx.finding(
                    Kind::EatenTextAdjacency,
                    &first,
                    Some(g.mid.clone()),
                    format!("adjacent thinking-first records, but the group has {counts}"),
                ));
            }
        }
    }

    /// Write the folded rule for the census cache (a log is never kept:
    /// entries cover a file from its start).
    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.groups.len() as u64);
        for g in &self.groups {
            e.str(&g.mid);
            e.u32(g.thinking);
            e.u32(g.text);
            e.u64(g.seen.len() as u64);
            for h in &g.seen {
                e.u64(*h);
            }
            e.u32(g.replayed);
            g.first.encode(e);
            e.bool(g.adjacent);
        }
        for p in self.pending {
            e.u64(p.map_or(u64::MAX, |i| i as u64));
        }
        e.u64(self.multi_block as u64);
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Eaten> {
        let mut e = Eaten::default();
        for i in 0..d.len(8)? {
            let mid = d.str()?.to_string();
            let (thinking, text) = (d.u32()?, d.u32()?);
            let mut seen = Vec::new();
            for _ in 0..d.len(8)? {
                seen.push(d.u64()?);
            }
            let g = Group {
                mid,
                thinking,
                text,
                seen,
                replayed: d.u32()?,
                first: At::decode(d)?,
                adjacent: d.bool()?,
            };
            if e.group(g.first.sidechain, &g.mid).is_some() {
                return None; // one id twice on a lane: not a folded rule
            }
            e.index_group(g.first.sidechain, &g.mid, i);
            e.groups.push(g);
        }
        for p in &mut e.pending {
            let v = d.u64()?;
            *p = match v {
                u64::MAX => None,
                i => Some(usize::try_from(i).ok().filter(|&i| i < e.groups.len())?),
            };
        }
        e.multi_block = d.usize()?;
        Some(e)
    }
}

#[cfg(test)]
mod tests;
