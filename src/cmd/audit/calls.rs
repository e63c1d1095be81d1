//! Tool calls and their results within one file: `missing-echo` (a landed
//! result whose carrier lacks the structured `toolUseResult` object where Claude
//! Code always writes one) and `unanswered-call` (a tool_use no tool_result in
//! the file ever answers).
//!
//! Echo rule (REC-078, SUB-026…031, BASH-025, REC-073): in a top-level file every
//! successful Write/Edit/MultiEdit/NotebookEdit, Read and Bash result carries a
//! `toolUseResult` object; an errored result carries a string instead (normal).
//! In a teammate lane (meta `taskKind:"in_process_teammate"`) file writes always
//! carry it (SUB-028). Workflow lanes never do and built-in lanes vary per
//! operation and version (SUB-026/027/029), so those are never flagged.
//!
//! Unanswered rule: the result may precede the call (REC-075), so ids are joined
//! over the whole file. A call with no later turn opener is the live tail (in
//! flight, pending approval, or died mid-tool: indistinguishable, TAIL-001/010)
//! and is not reported; one followed by a turn opener is an orphan (REC-075
//! measured no cross-turn results). A background Bash launch is answered at
//! launch (TAIL-011), so an unanswered one is reported as an anomaly.

use super::dup::{id_key, IdMap};
use super::finding::{At, FileCtx, Finding};
use crate::cache::{Dec, Enc};
use crate::classify::FileIndex;
use crate::cli::audit::Kind;
use crate::loss::lite::{raw_str, LiteBlock, LiteMessage};
use answered::Answered;

mod answered;

/// Which results must carry the echo object in this file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EchoPolicy {
    /// Top-level transcript: file tools, Read and Bash (REC-078, SUB-029, BASH-025).
    Main,
    /// Teammate lane: file writes only (SUB-028).
    Teammate,
    /// Workflow and built-in lanes: absence is normal (SUB-026/027).
    Never,
}

impl EchoPolicy {
    fn watches(self, tool: &str) -> bool {
        const WRITES: [&str; 4] = ["Write", "Edit", "MultiEdit", "NotebookEdit"];
        match self {
            EchoPolicy::Main => WRITES.contains(&tool) || tool == "Read" || tool == "Bash",
            EchoPolicy::Teammate => WRITES.contains(&tool),
            EchoPolicy::Never => false,
        }
    }
}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    at: At,
    background: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Calls {
    uses: Vec<Call>,
    /// A call id's hash ([`id_key`]) -> its last call in `uses`, confirmed
    /// against that call's id (the id and name are kept once, in `uses`).
    names: IdMap<u64, usize>,
    /// Ids whose hash another id had first (practically never).
    collided: std::collections::HashMap<String, usize>,
    answered: Answered,
    /// Results whose carrier has no object echo: (tool_use_id, where).
    bare: Vec<(String, At)>,
}

impl Calls {
    /// The tool_use blocks of an assistant record.
    pub(crate) fn uses(&mut self, blocks: &[LiteBlock<'_>], at: &dyn Fn() -> At) {
        for b in blocks.iter().filter(|b| b.is("tool_use")) {
            let (Some(id), name) = (raw_str(b.id), raw_str(b.name)) else {
                continue;
            };
            let name = name.map(|n| n.into_owned()).unwrap_or_default();
            let background = name == "Bash"
                && b.input.is_some_and(|i| {
                    // Either spacing (REC-038).
                    crate::scan::pair::keys_valued(
                        i.get().as_bytes(),
                        crate::scan::lit!(b"\"run_in_background\""),
                        b"true",
                    )
                    .next()
                    .is_some()
                });
            self.name_call(&id, self.uses.len());
            self.uses.push(Call {
                id: id.into_owned(),
                name,
                at: at(),
                background,
            });
        }
    }

    /// Index call `i` (not yet in `uses`, or already there) as the last call of `id`.
    fn name_call(&mut self, id: &str, i: usize) {
        use std::collections::hash_map::Entry;
        match self.names.entry(id_key(id.as_bytes())) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(mut o) => {
                let first = *o.get();
                // The slot's own id (a call being pushed is the slot's when
                // it is `i` itself, which cannot be here yet).
                if self.uses.get(first).is_some_and(|c| c.id == id) {
                    o.insert(i);
                } else {
                    self.collided.insert(id.to_string(), i);
                }
            }
        }
    }

    /// The tool name of the last call of `id`.
    fn name(&self, id: &str) -> Option<&str> {
        let i = match self.names.get(&id_key(id.as_bytes())) {
            Some(&i) if self.uses[i].id == id => i,
            Some(_) => *self.collided.get(id)?,
            None => return None,
        };
        Some(&self.uses[i].name)
    }

    /// Every `tool_use_id` a user record's message answers, read from the bytes:
    /// inside `message`, that key only occurs on tool_result blocks.
    pub(crate) fn answers(&mut self, message: &[u8]) {
        self.answers_around(message, std::iter::empty());
    }

    /// The same, without searching the ranges `skip` of `message` (string
    /// values, in order): in valid JSON the key cannot begin inside one (a quote
    /// in a string is escaped, and the quote that ends it is never followed by
    /// `:`), so the search there finds nothing. A range out of order is searched.
    pub(crate) fn answers_around(
        &mut self,
        message: &[u8],
        skip: impl Iterator<Item = std::ops::Range<usize>>,
    ) {
        let mut from = 0;
        for r in skip {
            if r.start >= from && r.end <= message.len() {
                self.answers_in(message, from..r.start);
                from = r.end;
            }
        }
        self.answers_in(message, from..message.len());
    }

    /// The answers whose key begins in `range` of `message`.
    fn answers_in(&mut self, message: &[u8], range: std::ops::Range<usize>) {
        const KEY: &[u8] = b"\"tool_use_id\":";
        for at in crate::scan::lit!(KEY).find_iter(&message[range.clone()]) {
            let at = range.start + at;
            let rest = &message[at + KEY.len()..];
            let start = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
            if rest.get(start) != Some(&b'"') {
                continue;
            }
            let body = &rest[start + 1..];
            if let Some(end) = memchr::memchr(b'"', body) {
                self.answered.insert(&String::from_utf8_lossy(&body[..end]));
            }
        }
    }

    /// A carrier whose `toolUseResult` is absent or not an object: its successful
    /// tool_result blocks are echo candidates.
    pub(crate) fn bare_carrier(&mut self, blocks: &[LiteBlock<'_>], at: &At) {
        for b in blocks
            .iter()
            .filter(|b| b.is("tool_result") && !b.is_error())
        {
            if let Some(id) = raw_str(b.tool_use_id) {
                self.bare.push((id.into_owned(), at.clone()));
            }
        }
    }

    pub(crate) fn findings(
        &self,
        ctx: &FileCtx,
        policy: EchoPolicy,
        want_echo: bool,
        want_unanswered: bool,
        buf: &[u8],
        out: &mut Vec<Finding>,
    ) {
        if want_echo && policy != EchoPolicy::Never {
            for (id, at) in &self.bare {
                let Some(name) = self.name(id) else {
                    continue;
                };
                if policy.watches(name) {
                    out.push(ctx.finding(
                        Kind::MissingEcho,
                        at,
                        None,
                        // REC-078: Claude Code always writes the echo here.
                        format!(
                            "successful {name} result {id} has no toolUseResult object (always written here)"
                        ),
                    ));
                }
            }
        }
        if !want_unanswered {
            return;
        }
        let open: Vec<&Call> = self
            .uses
            .iter()
            .filter(|c| !self.answered.contains(&c.id))
            .collect();
        // Only a call that is no background launch asks for the file's turns.
        let idx = match open.iter().any(|c| !c.background) {
            true => FileIndex::build_turns(buf, ctx.is_lane),
            false => FileIndex::empty(ctx.is_lane),
        };
        for c in open {
            // TAIL-011: a background launch is answered at once; REC-075:
            // a call a later turn passed is an orphan.
            let detail = if c.background {
                format!(
                    "background {} launch {} never acknowledged (anomaly: launches are answered at once)",
                    c.name, c.id
                )
            } else if idx.turn(c.at.line).is_some_and(|t| t < idx.turns()) {
                format!(
                    "{} call {} has no result and a later turn began (orphan)",
                    c.name, c.id
                )
            } else {
                // The live tail: in flight or died mid-tool (TAIL-001); not reported.
                continue;
            };
            out.push(ctx.finding(Kind::UnansweredCall, &c.at, None, detail));
        }
    }
}

impl Calls {
    /// Fold in the calls and results of the lines that follow: every part
    /// is a set or a list in file order, so the union is one pass's.
    pub(crate) fn extend(&mut self, later: Calls) {
        for c in later.uses {
            self.name_call(&c.id, self.uses.len());
            self.uses.push(c);
        }
        self.answered.extend(later.answered);
        self.bare.extend(later.bare);
    }

    pub(crate) fn encode(&self, e: &mut Enc) {
        e.u64(self.uses.len() as u64);
        for c in &self.uses {
            e.str(&c.id);
            e.str(&c.name);
            c.at.encode(e);
            e.bool(c.background);
        }
        // Each id's last call, as a map of id to name (rebuilt from the
        // calls on decode).
        let last = self.names.values().chain(self.collided.values());
        e.u64((self.names.len() + self.collided.len()) as u64);
        for &i in last {
            e.str(&self.uses[i].id);
            e.str(&self.uses[i].name);
        }
        e.u64(self.answered.len() as u64);
        for id in self.answered.iter() {
            e.str(id);
        }
        e.u64(self.bare.len() as u64);
        for (id, at) in &self.bare {
            e.str(id);
            at.encode(e);
        }
    }

    pub(crate) fn decode(d: &mut Dec<'_>) -> Option<Calls> {
        let mut c = Calls::default();
        for _ in 0..d.len(28)? {
            let call = Call {
                id: d.str()?.to_string(),
                name: d.str()?.to_string(),
                at: At::decode(d)?,
                background: d.bool()?,
            };
            c.name_call(&call.id, c.uses.len());
            c.uses.push(call);
        }
        // The map of id to name that the calls give.
        for _ in 0..d.len(16)? {
            let (id, name) = (d.str()?, d.str()?);
            if c.name(id) != Some(name) {
                return None;
            }
        }
        for _ in 0..d.len(8)? {
            c.answered.insert(d.str()?);
        }
        for _ in 0..d.len(19)? {
            let id = d.str()?.to_string();
            c.bare.push((id, At::decode(d)?));
        }
        Some(c)
    }
}

/// Where in `msg` (the raw message `m` was read from) each block's `content`
/// string lies, in order: the bulk of a tool result's bytes.
pub(crate) fn string_contents<'m>(
    msg: &'m [u8],
    m: &'m LiteMessage<'_>,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'm {
    let base = msg.as_ptr() as usize;
    m.blocks()
        .unwrap_or_default()
        .iter()
        .filter_map(|b| b.content)
        .filter(|c| c.get().starts_with('"'))
        .filter_map(move |c| {
            let start = (c.get().as_ptr() as usize).checked_sub(base)?;
            let end = start + c.get().len();
            (end <= msg.len()).then_some(start..end)
        })
}
