//! What the census counts of one parsed record: its units by label, its
//! type, subtype, attachment, system and progress kinds, its content blocks,
//! and its tool calls and results joined by id (REC-094, REC-075).

use super::super::known;
use super::{Call, Map, Scan};
use crate::classify::{classify_labels, FileIndex, Label};
use crate::record::Record;

impl Scan {
    /// The units classify gives a record, counted by label; `att` is its
    /// attachment type ([`Record::attachment_type`], read once by the caller
    /// for this and the type count: a second skim was 1.5% of stats'
    /// instructions).
    pub(super) fn labels(&mut self, r: &Record<'_>, no: usize, idx: &FileIndex, att: Option<&str>) {
        if r.kind() == "attachment" {
            // Same unit classify gives (one per object payload), without
            // its text: see `attachment_label`.
            if let Some(l) = attachment_label(r, att) {
                self.c.units += 1;
                self.c.labels[l as usize] += 1;
            }
            return;
        }
        let mut units = Vec::new();
        classify_labels(r, no, idx, &mut units);
        self.c.units += units.len() as u64;
        for u in &units {
            if u.via.is_some() {
                self.c.units_embedded += 1;
            }
            self.c.labels[u.label as usize] += 1;
            if u.label == Label::AgentThinkingNarration {
                // The message's model: a nested subagent record's own (NAR-004).
                let own = u.via.and_then(|_| r.embedded()).map_or(r, |e| &e.record);
                let model = own.model().unwrap_or("(unknown)");
                self.t.bump(Map::NarrationBlocks, model, &mut self.c);
            }
            if let Some(x) = u.also {
                self.c.labels_secondary[x as usize] += 1;
            }
        }
    }

    /// Tool calls and answers, joined over the whole file whatever the window.
    pub(super) fn join(&mut self, r: &Record<'_>, line: usize) {
        for b in r.blocks() {
            match (r.kind(), b.kind()) {
                ("assistant", "tool_use") => {
                    let name = b.name.as_deref().unwrap_or("(no name)");
                    let n = self.calls.len();
                    let (id, idless) = match b.id.as_deref() {
                        Some(id) => (id.to_string(), None),
                        None => (idless_key(line, n), Some(n)),
                    };
                    self.calls.entry(id).or_insert_with(|| Call {
                        name: name.to_string(),
                        line,
                        admitted: false,
                        idless,
                    });
                }
                ("user", "tool_result") => {
                    let Some(id) = b.tool_use_id.as_deref() else {
                        continue;
                    };
                    let a = self.answers.entry(id.to_string()).or_default();
                    a.error |= b.is_error();
                }
                _ => {}
            }
        }
    }

    /// Count a record inside the window: its type, version, subtype or
    /// payload kind (`att`: its attachment type), blocks, result shape,
    /// model and usage.
    pub(super) fn record(&mut self, r: &Record<'_>, line: usize, att: Option<&str>) {
        let kind = kind_name(r);
        self.t.bump(Map::RecordTypes, kind, &mut self.c);
        if let Some(v) = r.version.as_deref() {
            self.t.bump(Map::Versions, v, &mut self.c);
        }
        match kind {
            "system" => self.system(r),
            "attachment" => {
                let k = att.unwrap_or("(none)");
                self.t.bump(Map::AttachmentTypes, k, &mut self.c);
            }
            "progress" => self.progress(r),
            _ => {}
        }
        // A message.content that is neither a string nor an array is no shape
        // Claude Code writes: counted (and listed as unknown), never dropped.
        if let Some(crate::record::Content::Other(k)) = r.content() {
            self.t.bump(Map::ContentShapes, k, &mut self.c);
        }
        self.blocks(r);
        self.admit_calls(r, line);
        let (c, t) = (&mut self.c, &mut self.t);
        if let Some(raw) = r.tool_use_result() {
            t.bump(
                Map::ResultShapes,
                &known::result_shape(raw, r.echo_keys()),
                c,
            );
        }
        if kind == "assistant" && r.has_message() {
            t.bump(Map::Models, r.model().unwrap_or("(unknown)"), c);
            let usage = r.message.as_ref().and_then(|m| m.usage);
            self.book.admit(r.model(), r.message_id(), usage);
        }
    }

    /// A system record's subtype, turn duration or compaction.
    pub(super) fn system(&mut self, r: &Record<'_>) {
        let (c, t) = (&mut self.c, &mut self.t);
        let st = match r.subtype() {
            "" => "(none)",
            s => s,
        };
        t.bump(Map::SystemSubtypes, st, c);
        if st == "turn_duration" {
            c.turn_durations += 1;
            c.turn_duration_ms = c
                .turn_duration_ms
                .saturating_add(r.duration_ms().filter(|d| *d > 0.0).unwrap_or(0.0) as u64);
        } else if st == "compact_boundary" {
            c.compactions += 1;
        }
    }

    /// A progress record: its embedded usage id, and what it nests.
    pub(super) fn progress(&mut self, r: &Record<'_>) {
        if let Some(id) = progress_usage_id(r) {
            self.book.progress_ids.push(id);
        }
        let (c, t) = (&mut self.c, &mut self.t);
        if let Some(e) = r.embedded() {
            t.bump(Map::NestedRecordTypes, kind_name(&e.record), c);
            for b in e.record.blocks() {
                t.bump(Map::NestedBlockTypes, block_name(b), c);
            }
        } else if r.nested_unreadable() {
            t.bump(Map::NestedRecordTypes, "(unreadable)", c);
        }
    }

    /// A record's content blocks by type, images, and result part types.
    pub(super) fn blocks(&mut self, r: &Record<'_>) {
        let (c, t) = (&mut self.c, &mut self.t);
        for b in r.blocks() {
            let bk = block_name(b);
            t.bump(Map::BlockTypes, bk, c);
            match bk {
                "image" => c.images += 1,
                // Only an array has parts (images among them, REC-011);
                // asking a string content would build a serde error per
                // result. Each part's type is counted, so one csift does not
                // model is listed, not dropped.
                "tool_result" if b.content.is_some_and(|raw| raw.get().starts_with('[')) => {
                    b.result_part_kinds(|k| {
                        if k == "image" {
                            c.images += 1;
                        }
                        let k = if k.is_empty() { "(none)" } else { k };
                        t.bump(Map::ResultPartTypes, k, c);
                    });
                }
                _ => {}
            }
        }
    }

    /// Mark `r`'s calls and answers as inside the window, so they count.
    pub(super) fn admit_calls(&mut self, r: &Record<'_>, line: usize) {
        let assistant = r.kind() == "assistant";
        for b in r.blocks() {
            match b.kind() {
                "tool_result" => {
                    if let Some(a) = b
                        .tool_use_id
                        .as_deref()
                        .and_then(|i| self.answers.get_mut(i))
                    {
                        a.admitted = true;
                    }
                }
                "tool_use" if assistant => {
                    if let Some(call) = b.id.as_deref().and_then(|i| self.calls.get_mut(i)) {
                        call.admitted = true;
                    } else if b.id.is_none() {
                        for call in self.calls.values_mut().filter(|c| c.line == line) {
                            call.admitted = true;
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

/// The label `classify` gives an attachment record's one unit (CLS-019, CLS-020),
/// computed without building the unit's text: classify decodes hook output to
/// make it searchable, which a census never reads, and on 100k `hook_success`
/// payloads that decode dominated the run. `ty` is the record's attachment
/// type. A unit test pins it to classify.
pub(super) fn attachment_label(r: &Record<'_>, ty: Option<&str>) -> Option<Label> {
    r.attachment.filter(|raw| raw.get().starts_with('{'))?;
    Some(if ty == Some("hook_additional_context") {
        Label::HarnessMetaHook
    } else {
        Label::HarnessMetaAttachment
    })
}

/// The key of a tool call without an id: its line and the calls before it.
pub(super) fn idless_key(line: usize, n: usize) -> String {
    format!("(no id) {line}:{n}")
}

pub(super) fn kind_name<'r>(r: &'r Record<'_>) -> &'r str {
    match r.kind.as_deref() {
        None => "(none)",
        Some(k) => k,
    }
}

/// A content block's type as the census lists it.
fn block_name<'b>(b: &'b crate::record::Block<'_>) -> &'b str {
    match b.kind() {
        "" => "(none)",
        k => k,
    }
}

/// The [`key_hash`](crate::tokens::key_hash) of the id of an agent_progress
/// record's embedded usage-bearing message.
fn progress_usage_id(r: &Record<'_>) -> Option<u64> {
    let inner = r.embedded()?.record.message.as_ref()?;
    inner.usage.filter(|u| u.get().starts_with('{'))?;
    inner.id.as_deref().map(crate::tokens::key_hash)
}
