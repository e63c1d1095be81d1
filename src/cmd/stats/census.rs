//! The census of one transcript: every physical line is parsed once (REC-001)
//! and counted by record type, subtype, attachment type, block type,
//! `toolUseResult` shape, label, model and version; usage copies go to the
//! token [`Book`]; tool calls and results are joined by id within the file
//! (REC-094, set membership, not file order: REC-075). A large file is cut into
//! line-aligned chunks scanned in parallel and merged in order; every piece of
//! state here merges that way (sums, min/max, set unions, MAX for tokens).

use std::collections::HashMap;
use std::sync::Arc;

use jiff::Timestamp;

use super::known;
pub(crate) use super::model::{bump, Census, Counts, MalformedOut, ToolRow, MALFORMED_SHOWN};
use super::model::{max_opt, min_opt};
use super::revisit;
use crate::classify::index::Piece;
use crate::classify::markers::SPAWN_TOOLS;
use crate::classify::{classify_labels, FileIndex, Label};
use crate::discovery::Transcript;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan::{Line, Lines, Source};
use crate::timefmt::{parse_ts, Window};
use crate::tokens::book::Book;
use crate::tokens::SYNTHETIC;

/// Files above this are scanned in parallel chunks of about this size.
pub(super) const CHUNK: usize = 8 << 20;

#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) admitted: bool,
}

#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Answer {
    pub(super) error: bool,
    pub(super) admitted: bool,
}

/// Scan state of one chunk; chunks merge in file order. Also what the
/// census cache keeps of a file ([`super::cached`]), so a file that grew
/// merges the scan of its appended lines the same way.
#[derive(Debug, Clone)]
pub(super) struct Scan {
    pub(super) lane: bool,
    pub(super) c: Census,
    pub(super) book: Book,
    pub(super) calls: HashMap<String, Call>,
    pub(super) answers: HashMap<String, Answer>,
    /// This chunk's part of the file index, from the census's own parse.
    pub(super) piece: Piece,
    /// Records whose labels wait on the finished index.
    pub(super) cands: Vec<revisit::Cand>,
    /// `(uuid, parentUuid)` of a main file's sidechain records, in file
    /// order: its 1.0.x inline lanes ([`crate::classify::sidechain`]).
    pub(super) sidechain: Vec<(Option<String>, Option<String>)>,
    /// Agents of agent_progress records, and whether their nested records
    /// counted here (no lane file of their own).
    pub(super) agents: std::collections::BTreeMap<String, bool>,
}

/// Census one transcript. Returns its census and its token book (for the
/// cross-file dedupe of totals), or the error that stopped it from being read.
/// With `embeds`, the subagent records nested in `agent_progress` records are
/// counted under their labels, as search finds them (unless the agent's lane
/// file holds them).
pub(crate) fn census(
    t: &Transcript,
    window: &Window,
    embeds: bool,
) -> Result<(Census, Book), String> {
    let src = Source::open(&t.path).map_err(|e| e.to_string())?;
    let embeds = embeds.then(|| Arc::new(t.lane_files()));
    let (mut c, book) = census_buf(&src, t.is_lane(), window, CHUNK, embeds);
    src.check().map_err(|e| e.to_string())?;
    for m in &mut c.malformed {
        m.file = t.path.display().to_string();
    }
    Ok((c, book))
}

/// Census a transcript's bytes, scanning chunks of about `chunk` bytes in parallel.
fn census_buf(
    buf: &[u8],
    lane: bool,
    window: &Window,
    chunk: usize,
    embeds: Embeds,
) -> (Census, Book) {
    let whole = Part {
        bytes: buf,
        base: 0,
        first_no: 1,
    };
    scan_chunked(whole, lane, window, chunk, embeds).finalize(buf)
}

/// Scan `p` in line-aligned chunks of about `chunk` bytes in parallel,
/// merged in file order (one chunk under a window: it needs file order to
/// carry timestamps forward onto untimed lines).
pub(super) fn scan_chunked(
    p: Part<'_>,
    lane: bool,
    window: &Window,
    chunk: usize,
    embeds: Embeds,
) -> Scan {
    let chunks = if window.is_open() {
        crate::scan::chunks(p.bytes, chunk)
    } else {
        vec![crate::scan::Chunk {
            start: 0,
            end: p.bytes.len(),
            first_no: 1,
        }]
    };
    let parts = crate::scan::par_map(&chunks, |c| {
        let part = Part {
            bytes: &p.bytes[c.start..c.end],
            base: p.base + c.start,
            first_no: p.first_no + c.first_no - 1,
        };
        scan(part, lane, window, embeds.clone())
    });
    let mut it = parts.into_iter();
    let mut s = it.next().unwrap_or_else(|| Scan::new(lane));
    for p in it {
        s.merge(p);
    }
    s
}

impl Scan {
    /// The census of the whole file `buf` this scan (with those merged into
    /// it) was read from: its index built, its candidates revisited, its
    /// calls joined.
    pub(super) fn finalize(mut self, buf: &[u8]) -> (Census, Book) {
        self.c.bytes = buf.len() as u64;
        // Lanes inline in a 1.0.x main file, by the rule `agents` lists them by,
        // placed in file order once the chunks are merged.
        let mut inline = crate::classify::sidechain::InlineLanes::default();
        for (uuid, parent) in std::mem::take(&mut self.sidechain) {
            inline.place(uuid.as_deref(), parent.as_deref());
        }
        self.c.inline_lanes = inline.len() as u64;
        let piece = std::mem::replace(&mut self.piece, Piece::new(self.lane));
        let idx = piece.finish(buf);
        revisit::apply(&mut self.c, buf, &idx, self.lane, &self.cands);
        self.finish(&idx)
    }
}

/// Agents whose nested records count (all but those with a lane file), or
/// `None` when nested records do not count.
pub(super) type Embeds = Option<Arc<crate::discovery::LaneFiles>>;

/// A run of whole lines of a file: its bytes, where they start in the file,
/// and the number of their first line.
#[derive(Clone, Copy)]
pub(super) struct Part<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) base: usize,
    pub(super) first_no: usize,
}

/// Scan one run of lines: each line parsed once and counted.
pub(super) fn scan(p: Part<'_>, lane: bool, w: &Window, embeds: Embeds) -> Scan {
    let mut s = Scan::new(lane);
    // Classified first against no index; `revisit` settles what the index
    // changes (user records only: a progress record's nested units stay).
    let mut idx = FileIndex::empty(lane);
    if let Some(e) = embeds {
        idx = idx.with_embeds(e);
    }
    let mut carried = first_time(p.bytes, w);
    for l in Lines::new(p.bytes) {
        let line = Line {
            no: p.first_no + l.no - 1,
            offset: p.base + l.offset,
            ..l
        };
        s.c.lines += 1;
        match parse_line(&line) {
            Parsed::Malformed(m) => s.malformed(m, &line, &idx, w, &mut carried),
            Parsed::Record(r) => s.line_record(&r, &line, &idx, w, &mut carried),
        }
    }
    s
}

/// The time an untimed record before the first timed one takes: that one
/// (a leading snapshot or summary belongs to the session's start). Only a
/// window asks (it scans the file as one chunk, in order).
fn first_time(bytes: &[u8], w: &Window) -> Option<Timestamp> {
    if w.is_open() {
        return None;
    }
    crate::scan::pair::first_plain_str(bytes, crate::scan::lit!(b"\"timestamp\""))
        .and_then(|t| std::str::from_utf8(t).ok())
        .and_then(parse_ts)
}

/// The subagent record an agent_progress record nests, when its calls and
/// model count in this file: the agent has no lane file of its own, which
/// would count them ([`FileIndex::embeds`]). Its usage never counts: the
/// nested copy is written as the reply starts to stream (output_tokens 1–26
/// in all 193 of the public corpus).
fn nested_counted<'r, 'a>(r: &'r Record<'a>, idx: &FileIndex) -> Option<&'r Record<'a>> {
    if !idx.embeds_any() {
        return None;
    }
    let e = r.embedded()?;
    idx.embeds(e.agent_id.as_deref().unwrap_or(""))
        .then_some(&e.record)
}

impl Scan {
    pub(super) fn new(lane: bool) -> Scan {
        Scan {
            lane,
            agents: Default::default(),
            c: Census::new(),
            book: Book::default(),
            calls: HashMap::new(),
            answers: HashMap::new(),
            piece: Piece::new(lane),
            cands: Vec::new(),
            sidechain: Vec::new(),
        }
    }

    /// A line that is no record: counted, named (the first few), and a
    /// glued line's records read one by one.
    fn malformed(
        &mut self,
        m: crate::record::Malformed,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        self.c.malformed_lines += 1;
        if m.kind == MalformedKind::Glued {
            self.glued(line, idx, w, carried);
        }
        if self.c.malformed.len() < MALFORMED_SHOWN {
            self.c.malformed.push(MalformedOut {
                file: String::new(),
                line: m.line,
                kind: m.kind.name(),
                detail: m.detail,
            });
        }
    }

    /// A line's record: joined, noted for the index, and (inside the
    /// window) counted with the subagent record it nests.
    fn line_record(
        &mut self,
        r: &Record<'_>,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        self.c.repaired_surrogates += u64::from(r.repaired);
        if !self.lane && r.is_sidechain() {
            let id = |v: &Option<std::borrow::Cow<'_, str>>| v.as_deref().map(str::to_string);
            self.sidechain.push((id(&r.uuid), id(&r.parent_uuid)));
        }
        let ts = r.timestamp.as_deref().and_then(parse_ts);
        *carried = ts.or(*carried);
        self.join(r, line.no);
        self.note_agent(r, idx);
        let nested = nested_counted(r, idx);
        if let Some(n) = nested {
            self.join(n, line.no);
        }
        let counted = w.is_open() || w.contains(*carried);
        if let Some(cand) = revisit::note(&mut self.piece, r, line, counted) {
            self.cands.push(cand);
        }
        if !counted {
            self.c.outside_window += 1;
            return;
        }
        self.c.first_ts = min_opt(self.c.first_ts, ts);
        self.c.last_ts = max_opt(self.c.last_ts, ts);
        self.record(r, line.no);
        if let Some(n) = nested {
            self.admit_calls(n, line.no);
            if n.kind() == "assistant" && n.has_message() {
                bump(&mut self.c.models, n.model().unwrap_or("(unknown)"), 1);
            }
        }
        self.labels(r, line.no, idx);
    }

    /// Remember whether an agent_progress record's agent had a lane file:
    /// what the census counted depends on it, so a cached census checks it
    /// again ([`super::cached`]).
    fn note_agent(&mut self, r: &Record<'_>, idx: &FileIndex) {
        if !idx.embeds_any() {
            return;
        }
        if let Some(e) = r.embedded() {
            let agent = e.agent_id.as_deref().unwrap_or("");
            if !self.agents.contains_key(agent) {
                self.agents.insert(agent.to_string(), idx.embeds(agent));
            }
        }
    }

    /// A glued line's records (a write race): their types are listed apart,
    /// and their usage and labels count, as search matches each of them under
    /// the line's number (the public corpus's 130d7b7e…:128). A window counts
    /// each by its own time (one without a time takes the time before it, as
    /// any record does), never by the times of the rest of its file.
    fn glued(
        &mut self,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        for (sub, r) in crate::record::glued_parsed(line) {
            *carried = r.timestamp.as_deref().and_then(parse_ts).or(*carried);
            let counted = w.is_open() || w.contains(*carried);
            // A prompt glued behind another record opens its turn, as the
            // index search and show read has it (each object under the line's
            // number; the candidate keeps the object's own bytes).
            self.note_agent(&r, idx);
            if let Some(cand) = revisit::note(&mut self.piece, &r, &sub, counted) {
                self.cands.push(cand);
            }
            if !counted {
                continue;
            }
            bump(&mut self.c.glued_records, kind_name(&r), 1);
            if r.kind() == "assistant" && r.has_message() {
                let m = r.message.as_ref();
                self.book
                    .admit(r.model(), r.message_id(), m.and_then(|m| m.usage));
            }
            self.labels(&r, line.no, idx);
        }
    }

    /// The units classify gives a record, counted by label.
    fn labels(&mut self, r: &Record<'_>, no: usize, idx: &FileIndex) {
        if r.kind() == "attachment" {
            // Same unit classify gives (one per object payload), without
            // its text: see `attachment_label`.
            if let Some(l) = attachment_label(r) {
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
                bump(
                    &mut self.c.narration_blocks,
                    own.model().unwrap_or("(unknown)"),
                    1,
                );
            }
            if let Some(x) = u.also {
                self.c.labels_secondary[x as usize] += 1;
            }
        }
    }

    /// Tool calls and answers, joined over the whole file whatever the window.
    fn join(&mut self, r: &Record<'_>, line: usize) {
        for b in r.blocks() {
            match (r.kind(), b.kind()) {
                ("assistant", "tool_use") => {
                    let name = b.name.as_deref().unwrap_or("(no name)");
                    let id = b.id.as_deref().map_or_else(
                        || format!("(no id) {line}:{}", self.calls.len()),
                        str::to_string,
                    );
                    self.calls.entry(id).or_insert_with(|| Call {
                        name: name.to_string(),
                        line,
                        admitted: false,
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
    /// payload kind, blocks, result shape, model and usage.
    fn record(&mut self, r: &Record<'_>, line: usize) {
        let kind = kind_name(r);
        bump(&mut self.c.record_types, kind, 1);
        if let Some(v) = r.version.as_deref() {
            bump(&mut self.c.versions, v, 1);
        }
        match kind {
            "system" => self.system(r),
            "attachment" => {
                let k = r.attachment_kind();
                bump(
                    &mut self.c.attachment_types,
                    k.as_deref().unwrap_or("(none)"),
                    1,
                );
            }
            "progress" => self.progress(r),
            _ => {}
        }
        // A message.content that is neither a string nor an array is no shape
        // Claude Code writes: counted (and listed as unknown), never dropped.
        if let Some(crate::record::Content::Other(k)) = r.content() {
            bump(&mut self.c.content_shapes, k, 1);
        }
        self.blocks(r);
        self.admit_calls(r, line);
        let c = &mut self.c;
        if let Some(raw) = r.tool_use_result {
            bump(&mut c.result_shapes, &known::result_shape(raw), 1);
        }
        if kind == "assistant" && r.has_message() {
            bump(&mut c.models, r.model().unwrap_or("(unknown)"), 1);
            let usage = r.message.as_ref().and_then(|m| m.usage);
            self.book.admit(r.model(), r.message_id(), usage);
        }
    }

    /// A system record's subtype, turn duration or compaction.
    fn system(&mut self, r: &Record<'_>) {
        let c = &mut self.c;
        let st = match r.subtype() {
            "" => "(none)",
            s => s,
        };
        bump(&mut c.system_subtypes, st, 1);
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
    fn progress(&mut self, r: &Record<'_>) {
        if let Some(id) = progress_usage_id(r) {
            self.book.progress_ids.push(id);
        }
        let c = &mut self.c;
        if let Some(e) = r.embedded() {
            bump(&mut c.nested_record_types, kind_name(&e.record), 1);
            for b in e.record.blocks() {
                bump(&mut c.nested_block_types, block_name(b), 1);
            }
        } else if r.nested_unreadable() {
            bump(&mut c.nested_record_types, "(unreadable)", 1);
        }
    }

    /// A record's content blocks by type, images, and result part types.
    fn blocks(&mut self, r: &Record<'_>) {
        let c = &mut self.c;
        for b in r.blocks() {
            let bk = block_name(b);
            bump(&mut c.block_types, bk, 1);
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
                        bump(
                            &mut c.result_part_types,
                            if k.is_empty() { "(none)" } else { k },
                            1,
                        );
                    });
                }
                _ => {}
            }
        }
    }

    /// Mark `r`'s calls and answers as inside the window, so they count.
    fn admit_calls(&mut self, r: &Record<'_>, line: usize) {
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

    pub(super) fn merge(&mut self, o: Scan) {
        self.c.add(&o.c);
        for (k, v) in o.agents {
            self.agents.entry(k).or_insert(v);
        }
        self.piece.append(o.piece);
        self.cands.extend(o.cands);
        self.sidechain.extend(o.sidechain);
        self.book.merge(o.book);
        for (k, v) in o.calls {
            match self.calls.get_mut(&k) {
                Some(c) => c.admitted |= v.admitted,
                None => {
                    self.calls.insert(k, v);
                }
            }
        }
        for (k, v) in o.answers {
            let a = self.answers.entry(k).or_default();
            a.error |= v.error;
            a.admitted |= v.admitted;
        }
    }

    fn finish(mut self, idx: &FileIndex) -> (Census, Book) {
        let last_turn = idx.turns();
        for (id, call) in &self.calls {
            if !call.admitted {
                continue;
            }
            let row = self.c.tools.entry(call.name.clone()).or_default();
            row.calls += 1;
            self.c.spawns += u64::from(SPAWN_TOOLS.contains(&call.name.as_str()));
            match self.answers.get(id) {
                Some(a) => row.errors += u64::from(a.error),
                None => {
                    row.unanswered += 1;
                    // TAIL-001: no turn opener after the call — in flight or died.
                    if idx.turn(call.line) == Some(last_turn) {
                        row.unanswered_at_tail += 1;
                    }
                }
            }
        }
        self.c.orphan_results = self
            .answers
            .iter()
            .filter(|(id, a)| a.admitted && !self.calls.contains_key(*id))
            .count() as u64;
        self.book.notes.ids_with_differing_copies = self.book.differing();
        self.book.notes.progress_embedded_ids = {
            self.book.progress_ids.sort();
            self.book.progress_ids.dedup();
            self.book.progress_ids.len() as u64
        };
        for (model, row) in self.book.rows() {
            if model == SYNTHETIC {
                self.c.tokens_apart.insert(model, row);
            } else {
                self.c.tokens.insert(model, row);
            }
        }
        self.c.token_notes = self.book.notes;
        (self.c, self.book)
    }
}

/// The label `classify` gives an attachment record's one unit (CLS-019, CLS-020),
/// computed without building the unit's text: classify decodes hook output to
/// make it searchable, which a census never reads, and on 100k `hook_success`
/// payloads that decode dominated the run. A unit test pins it to classify.
fn attachment_label(r: &Record<'_>) -> Option<Label> {
    r.attachment.filter(|raw| raw.get().starts_with('{'))?;
    Some(
        if r.attachment_kind().as_deref() == Some("hook_additional_context") {
            Label::HarnessMetaHook
        } else {
            Label::HarnessMetaAttachment
        },
    )
}

fn kind_name<'r>(r: &'r Record<'_>) -> &'r str {
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

/// The id of an agent_progress record's embedded usage-bearing message.
fn progress_usage_id(r: &Record<'_>) -> Option<String> {
    let inner = r.embedded()?.record.message.as_ref()?;
    inner.usage.filter(|u| u.get().starts_with('{'))?;
    inner.id.as_deref().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The census builds its index from its own parse and revisits the records
    /// the index changes; every label and turn must equal what classifying each
    /// record against `FileIndex::build` gives, at every chunk size. Covers a
    /// lane seed (REC-031), a superseded draft (TURN-022), a spawn's result
    /// (CLS-010) and an armed wakeup prompt (CLS-015).
    #[test]
    fn own_index_census_equals_classifying_against_the_built_index() {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":true,"message":{"role":"user","content":"do the task"},"timestamp":"2026-07-01T00:00:00Z"}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"child"}},{"type":"tool_use","id":"w1","name":"ScheduleWakeup","input":{"prompt":"wake me up"}}]},"timestamp":"2026-07-01T00:00:01Z"}"#,
            r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"child report"},{"type":"tool_result","tool_use_id":"w1","content":"armed"}]},"timestamp":"2026-07-01T00:00:02Z"}"#,
            r#"{"type":"user","uuid":"u3","parentUuid":"u2","isMeta":true,"message":{"role":"user","content":"wake me up"},"timestamp":"2026-07-01T00:00:03Z"}"#,
            r#"{"type":"user","uuid":"u4","parentUuid":"u3","message":{"role":"user","content":"first try"},"timestamp":"2026-07-01T00:00:04Z"}"#,
            r#"{"type":"user","uuid":"u5","parentUuid":"u3","message":{"role":"user","content":"second try"},"timestamp":"2026-07-01T00:00:05Z"}"#,
            r#"{"type":"assistant","uuid":"a2","parentUuid":"u5","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"done"}]},"timestamp":"2026-07-01T00:00:06Z"}"#,
        ];
        let buf = lines.join("\n") + "\n";
        let idx = FileIndex::build(buf.as_bytes(), true);
        let mut want = Census::new();
        for l in Lines::new(buf.as_bytes()) {
            let Parsed::Record(r) = parse_line(&l) else {
                panic!("line {}", l.no)
            };
            let mut units = Vec::new();
            crate::classify::classify(&r, l.no, &idx, &mut units);
            for u in &units {
                want.units += 1;
                want.labels[u.label as usize] += 1;
                if let Some(x) = u.also {
                    want.labels_secondary[x as usize] += 1;
                }
            }
        }
        // The fixture exercises what it names.
        assert!(want.labels[Label::UserUnsent as usize] == 1);
        assert!(want.labels[Label::HarnessScheduleWakeup as usize] == 1);
        assert!(want.labels[Label::AgentCommunicationInbox as usize] >= 2);
        let w = Window::parse(None, None).unwrap();
        for size in 1..buf.len() + 1 {
            let (c, _) = census_buf(buf.as_bytes(), true, &w, size, None);
            assert_eq!(c.labels, want.labels, "chunk size {size}");
            assert_eq!(
                c.labels_secondary, want.labels_secondary,
                "chunk size {size}"
            );
            assert_eq!(c.units, want.units, "chunk size {size}");
            assert_eq!(c.turns, idx.turns() as u64, "chunk size {size}");
        }
    }

    /// CLS-020: an attachment's payload `type` marks it; the census labels it
    /// as classify does, and both give the label the payload calls for (the
    /// two agreeing on a wrong label, or on none, used to pass).
    #[test]
    fn attachment_label_is_what_classify_gives_cls_020() {
        use Label::{HarnessMetaAttachment as Att, HarnessMetaHook as Hook};
        let cases = [
            (
                r#"{"type":"attachment","attachment":{"type":"hook_success","content":"out","hookEvent":"Stop"}}"#,
                Some(Att),
            ),
            (
                r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":["a","b"]}}"#,
                Some(Hook),
            ),
            (
                r#"{"type":"attachment","attachment":{"type":"brand_new","x":1}}"#,
                Some(Att),
            ),
            (
                r#"{"type":"attachment","attachment":{"content":"no type"}}"#,
                Some(Att),
            ),
            (
                r#"{"type":"attachment","attachment":"a string payload"}"#,
                None,
            ),
            (r#"{"type":"attachment","attachment":null}"#, None),
            (r#"{"type":"attachment"}"#, None),
        ];
        let idx = FileIndex::empty(false);
        for (i, (c, label)) in cases.iter().enumerate() {
            let line = Line {
                no: i + 1,
                offset: 0,
                bytes: c.as_bytes(),
                terminated: true,
            };
            let Parsed::Record(r) = parse_line(&line) else {
                panic!("{c}")
            };
            let mut units = Vec::new();
            crate::classify::classify(&r, line.no, &idx, &mut units);
            let want: Vec<(Label, Option<Label>)> =
                units.iter().map(|u| (u.label, u.also)).collect();
            let got: Vec<(Label, Option<Label>)> = attachment_label(&r)
                .map(|l| (l, None))
                .into_iter()
                .collect();
            assert_eq!(got, want, "{c}");
            assert_eq!(
                want,
                label.map(|l| (l, None)).into_iter().collect::<Vec<_>>(),
                "{c}"
            );
        }
    }

    #[test]
    fn chunked_scan_equals_one_pass() {
        let lines = [
            r#"{"type":"user","uuid":"u1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"assistant","version":"2.1.1","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"output_tokens":1}}}"#,
            r#"{"type":"assistant","message":{"id":"m1","model":"x","role":"assistant","content":[{"type":"text","text":"a"}],"usage":{"output_tokens":50,"cache_read_input_tokens":9}}}"#,
            "{broken",
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":true}]},"toolUseResult":"Error: x"}"#,
            r#"{"type":"assistant","message":{"id":"m2","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}],"usage":{"output_tokens":3}}}"#,
            r#"{"type":"system","subtype":"turn_duration","durationMs":1200,"timestamp":"2026-01-01T00:01:00Z"}"#,
            r#"{"type":"attachment","attachment":{"type":"hook_success"}}"#,
        ];
        let buf = lines.join("\n") + "\n";
        let w = Window::default();
        let (one, book) = census_buf(buf.as_bytes(), false, &w, usize::MAX, None);
        assert_eq!(one.lines, 8);
        assert_eq!(one.malformed_lines, 1);
        assert_eq!(one.tools["Bash"].errors, 1);
        assert_eq!(one.tools["Read"].unanswered, 1);
        assert_eq!(book.rows()["x"].vals.output, 53);
        for size in 1..buf.len() {
            let (c, b) = census_buf(buf.as_bytes(), false, &w, size, None);
            assert_eq!(format!("{c:?}"), format!("{one:?}"), "chunk size {size}");
            assert_eq!(b.rows(), book.rows(), "chunk size {size}");
            assert_eq!(b.differing(), book.differing());
        }
    }
}
