//! The census of one transcript: every physical line is parsed once (REC-001)
//! and counted by record type, subtype, attachment type, block type,
//! `toolUseResult` shape, label, model and version; usage copies go to the
//! token [`Book`]; tool calls and results are joined by id within the file
//! (REC-094, set membership, not file order: REC-075). A large file is cut into
//! line-aligned chunks scanned in parallel and merged in order; every piece of
//! state here merges that way (sums, min/max, set unions, MAX for tokens).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::known;
use super::tokens::{Book, Notes, Row, SYNTHETIC};
use crate::classify::markers::SPAWN_TOOLS;
use crate::classify::{classify, turns, FileIndex, Label};
use crate::discovery::Transcript;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan::{Line, Lines, Source};
use crate::timefmt::{parse_ts, Window};

pub type Counts = BTreeMap<String, u64>;

/// How many malformed lines a row names by line number.
pub const MALFORMED_SHOWN: usize = 5;
/// Files above this are scanned in parallel chunks of about this size.
const CHUNK: usize = 8 << 20;

pub fn bump(c: &mut Counts, k: &str, n: u64) {
    match c.get_mut(k) {
        Some(v) => *v += n,
        None => {
            c.insert(k.to_string(), n);
        }
    }
}

pub fn add_counts(a: &mut Counts, b: &Counts) {
    for (k, v) in b {
        bump(a, k, *v);
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct MalformedOut {
    pub file: String,
    pub line: usize,
    pub kind: &'static str,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ToolRow {
    pub calls: u64,
    pub errors: u64,
    pub unanswered: u64,
    /// Unanswered with no turn opener after the call: in flight or died (TAIL-001).
    pub unanswered_at_tail: u64,
}

impl ToolRow {
    pub fn add(&mut self, o: &ToolRow) {
        self.calls += o.calls;
        self.errors += o.errors;
        self.unanswered += o.unanswered;
        self.unanswered_at_tail += o.unanswered_at_tail;
    }
}

/// What one transcript (or a group, or the total) holds.
#[derive(Debug, Clone, Default)]
pub struct Census {
    pub lines: u64,
    pub bytes: u64,
    pub malformed_lines: u64,
    pub malformed: Vec<MalformedOut>,
    pub glued_records: Counts,
    pub outside_window: u64,
    pub record_types: Counts,
    pub system_subtypes: Counts,
    pub attachment_types: Counts,
    pub block_types: Counts,
    pub result_shapes: Counts,
    pub units: u64,
    pub labels: Vec<u64>,
    pub labels_secondary: Vec<u64>,
    pub turns: u64,
    pub genuine_user_turns: u64,
    pub compactions: u64,
    pub first_ts: Option<Timestamp>,
    pub last_ts: Option<Timestamp>,
    pub turn_durations: u64,
    pub turn_duration_ms: u64,
    pub spawns: u64,
    pub images: u64,
    pub lanes: u64,
    pub versions: Counts,
    pub models: Counts,
    pub tools: BTreeMap<String, ToolRow>,
    pub orphan_results: u64,
    pub tokens: BTreeMap<String, Row>,
    pub tokens_apart: BTreeMap<String, Row>,
    pub token_notes: Notes,
}

impl Census {
    fn new() -> Census {
        Census {
            labels: vec![0; Label::ALL.len()],
            labels_secondary: vec![0; Label::ALL.len()],
            ..Census::default()
        }
    }

    /// Add `o` into `self` (sums, min/max). Tokens are summed as rows; the
    /// cross-file dedupe of a total is done by the caller.
    pub fn add(&mut self, o: &Census) {
        if self.labels.is_empty() {
            self.labels = vec![0; Label::ALL.len()];
            self.labels_secondary = vec![0; Label::ALL.len()];
        }
        self.lines += o.lines;
        self.bytes += o.bytes;
        self.malformed_lines += o.malformed_lines;
        self.malformed.extend(o.malformed.iter().cloned());
        self.malformed.truncate(MALFORMED_SHOWN);
        add_counts(&mut self.glued_records, &o.glued_records);
        self.outside_window += o.outside_window;
        add_counts(&mut self.record_types, &o.record_types);
        add_counts(&mut self.system_subtypes, &o.system_subtypes);
        add_counts(&mut self.attachment_types, &o.attachment_types);
        add_counts(&mut self.block_types, &o.block_types);
        add_counts(&mut self.result_shapes, &o.result_shapes);
        self.units += o.units;
        for (a, b) in self.labels.iter_mut().zip(&o.labels) {
            *a += b;
        }
        for (a, b) in self.labels_secondary.iter_mut().zip(&o.labels_secondary) {
            *a += b;
        }
        self.turns += o.turns;
        self.genuine_user_turns += o.genuine_user_turns;
        self.compactions += o.compactions;
        self.first_ts = min_opt(self.first_ts, o.first_ts);
        self.last_ts = max_opt(self.last_ts, o.last_ts);
        self.turn_durations += o.turn_durations;
        self.turn_duration_ms += o.turn_duration_ms;
        self.spawns += o.spawns;
        self.images += o.images;
        self.lanes += o.lanes;
        add_counts(&mut self.versions, &o.versions);
        add_counts(&mut self.models, &o.models);
        for (k, v) in &o.tools {
            self.tools.entry(k.clone()).or_default().add(v);
        }
        self.orphan_results += o.orphan_results;
        for (k, v) in &o.tokens {
            self.tokens.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.tokens_apart {
            self.tokens_apart.entry(k.clone()).or_default().add(v);
        }
        self.token_notes.add(&o.token_notes);
    }

    /// The unknown names in each census map, by kind.
    pub fn unknown(&self) -> BTreeMap<&'static str, Counts> {
        let pick = |c: &Counts, list: &[&str]| -> Counts {
            c.iter()
                .filter(|(k, _)| !known::known(list, k))
                .map(|(k, v)| (k.clone(), *v))
                .collect()
        };
        let mut glued_and_types = self.record_types.clone();
        add_counts(&mut glued_and_types, &self.glued_records);
        let mut out = BTreeMap::new();
        out.insert("record_types", pick(&glued_and_types, known::RECORD_TYPES));
        out.insert(
            "system_subtypes",
            pick(&self.system_subtypes, known::SYSTEM_SUBTYPES),
        );
        out.insert(
            "attachment_types",
            pick(&self.attachment_types, known::ATTACHMENT_TYPES),
        );
        out.insert("block_types", pick(&self.block_types, known::BLOCK_TYPES));
        out.insert(
            "tool_use_result_shapes",
            pick(&self.result_shapes, known::RESULT_SHAPES),
        );
        out
    }

    /// The model with the most assistant records, and the version with the most records.
    pub fn dominant_model(&self) -> Option<&str> {
        top(&self.models)
    }

    pub fn dominant_version(&self) -> Option<&str> {
        top(&self.versions)
    }
}

fn top(c: &Counts) -> Option<&str> {
    c.iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(k, _)| k.as_str())
}

fn min_opt(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn max_opt(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

#[derive(Debug)]
struct Call {
    name: String,
    line: usize,
    admitted: bool,
}

#[derive(Debug, Default, Clone, Copy)]
struct Answer {
    error: bool,
    admitted: bool,
}

/// Scan state of one chunk; chunks merge in file order.
struct Scan {
    c: Census,
    book: Book,
    calls: HashMap<String, Call>,
    answers: HashMap<String, Answer>,
}

/// Census one transcript. Returns its census and its token book (for the
/// cross-file dedupe of totals), or the error that stopped it from being read.
pub fn census(t: &Transcript, window: &Window) -> Result<(Census, Book), String> {
    let src = Source::open(&t.path).map_err(|e| e.to_string())?;
    let (mut c, book) = census_buf(&src, t.is_lane(), window, CHUNK);
    for m in &mut c.malformed {
        m.file = t.path.display().to_string();
    }
    Ok((c, book))
}

/// Census a transcript's bytes, scanning chunks of about `chunk` bytes in parallel.
fn census_buf(buf: &[u8], lane: bool, window: &Window, chunk: usize) -> (Census, Book) {
    let idx = FileIndex::build(buf, lane);
    // A window needs file order to carry timestamps forward onto untimed lines.
    let chunks = if window.is_open() {
        split(buf, chunk)
    } else {
        vec![(0, buf.len(), 1)]
    };
    let parts = crate::scan::par_map(&chunks, |&(a, b, no)| scan(buf, a, b, no, &idx, window));
    let mut it = parts.into_iter();
    let mut s = it.next().unwrap_or_else(|| Scan {
        c: Census::new(),
        book: Book::default(),
        calls: HashMap::new(),
        answers: HashMap::new(),
    });
    for p in it {
        s.merge(p);
    }
    s.c.bytes = buf.len() as u64;
    s.finish(&idx)
}

/// Line-aligned `(start, end, first line number)` chunks of about `size` bytes.
fn split(buf: &[u8], size: usize) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let (mut a, mut no) = (0, 1);
    while a < buf.len() {
        let want = (a + size).min(buf.len());
        let b = match memchr::memchr(b'\n', &buf[want..]) {
            Some(i) if want < buf.len() => want + i + 1,
            _ => buf.len(),
        };
        out.push((a, b, no));
        no += memchr::memchr_iter(b'\n', &buf[a..b]).count();
        a = b;
    }
    if out.is_empty() {
        out.push((0, 0, 1));
    }
    out
}

fn scan(buf: &[u8], a: usize, b: usize, first_no: usize, idx: &FileIndex, w: &Window) -> Scan {
    let mut s = Scan {
        c: Census::new(),
        book: Book::default(),
        calls: HashMap::new(),
        answers: HashMap::new(),
    };
    let mut carried: Option<Timestamp> = None;
    for l in Lines::new(&buf[a..b]) {
        let line = Line {
            no: first_no + l.no - 1,
            offset: a + l.offset,
            ..l
        };
        s.c.lines += 1;
        match parse_line(&line) {
            Parsed::Malformed(m) => {
                s.c.malformed_lines += 1;
                if m.kind == MalformedKind::Glued {
                    s.glued(line.bytes);
                }
                if s.c.malformed.len() < MALFORMED_SHOWN {
                    s.c.malformed.push(MalformedOut {
                        file: String::new(),
                        line: m.line,
                        kind: m.kind.name(),
                        detail: m.detail,
                    });
                }
            }
            Parsed::Record(r) => {
                let ts = r.timestamp.as_deref().and_then(parse_ts);
                carried = ts.or(carried);
                s.join(&r, line.no);
                if !w.is_open() && !w.contains(carried) {
                    s.c.outside_window += 1;
                    continue;
                }
                s.c.first_ts = min_opt(s.c.first_ts, ts);
                s.c.last_ts = max_opt(s.c.last_ts, ts);
                s.record(&r, line.bytes, line.no);
                if r.kind() == "attachment" {
                    // Same unit classify gives (one per object payload), without
                    // its text: see `attachment_label`.
                    if let Some(l) = attachment_label(&r) {
                        s.c.units += 1;
                        s.c.labels[l as usize] += 1;
                    }
                } else {
                    let mut units = Vec::new();
                    classify(&r, line.no, idx, &mut units);
                    s.c.units += units.len() as u64;
                    for u in &units {
                        s.c.labels[u.label as usize] += 1;
                        if let Some(x) = u.also {
                            s.c.labels_secondary[x as usize] += 1;
                        }
                    }
                }
                if let Some(n) = idx.turn(line.no).filter(|&n| n > 0) {
                    if idx.turn_start(n) == Some(line.no) {
                        s.c.turns += 1;
                        s.c.genuine_user_turns += u64::from(turns::is_genuine_user(&r));
                    }
                }
            }
        }
    }
    s
}

#[derive(Deserialize)]
struct Progress<'a> {
    #[serde(borrow, default)]
    data: Option<ProgressData<'a>>,
}

#[derive(Deserialize)]
struct ProgressData<'a> {
    #[serde(borrow, default)]
    message: Option<Box<ProgressData<'a>>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

impl Scan {
    /// A glued line's records (a write race): their types are listed apart and
    /// their usage counts; they are not classified (search skips them too).
    fn glued(&mut self, bytes: &[u8]) {
        let stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Record<'_>>();
        for r in stream {
            let Ok(r) = r else { break };
            bump(&mut self.c.glued_records, kind_name(&r), 1);
            if r.kind() == "assistant" && r.has_message() {
                let m = r.message.as_ref();
                self.book
                    .admit(r.model(), r.message_id(), m.and_then(|m| m.usage));
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

    fn record(&mut self, r: &Record<'_>, bytes: &[u8], line: usize) {
        let c = &mut self.c;
        let kind = kind_name(r);
        bump(&mut c.record_types, kind, 1);
        if let Some(v) = r.version.as_deref() {
            bump(&mut c.versions, v, 1);
        }
        match kind {
            "system" => {
                let st = match r.subtype() {
                    "" => "(none)",
                    s => s,
                };
                bump(&mut c.system_subtypes, st, 1);
                if st == "turn_duration" {
                    c.turn_durations += 1;
                    c.turn_duration_ms += r.duration_ms.filter(|d| *d > 0.0).unwrap_or(0.0) as u64;
                } else if st == "compact_boundary" {
                    c.compactions += 1;
                }
            }
            "attachment" => {
                let k = r.attachment_kind();
                bump(&mut c.attachment_types, k.as_deref().unwrap_or("(none)"), 1);
            }
            "progress" if memchr::memmem::find(bytes, b"agent_progress").is_some() => {
                if let Some(id) = progress_usage_id(bytes) {
                    self.book.progress_ids.push(id);
                }
            }
            _ => {}
        }
        for b in r.blocks() {
            let bk = match b.kind() {
                "" => "(none)",
                k => k,
            };
            bump(&mut c.block_types, bk, 1);
            match bk {
                "image" => c.images += 1,
                "tool_result" => {
                    // Only an array can hold image parts; asking a string content
                    // builds (and formats) a serde error per result.
                    if b.content.is_some_and(|raw| raw.get().starts_with('[')) {
                        c.images += b.result_images() as u64;
                    }
                    if let Some(a) = b
                        .tool_use_id
                        .as_deref()
                        .and_then(|i| self.answers.get_mut(i))
                    {
                        a.admitted = true;
                    }
                }
                "tool_use" if kind == "assistant" => {
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
        if let Some(raw) = r.tool_use_result {
            bump(&mut c.result_shapes, &known::result_shape(raw), 1);
        }
        if kind == "assistant" && r.has_message() {
            bump(&mut c.models, r.model().unwrap_or("(unknown)"), 1);
            let usage = r.message.as_ref().and_then(|m| m.usage);
            self.book.admit(r.model(), r.message_id(), usage);
        }
    }

    fn merge(&mut self, o: Scan) {
        self.c.add(&o.c);
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

/// The id of an agent_progress record's embedded usage-bearing message.
fn progress_usage_id(bytes: &[u8]) -> Option<String> {
    let p: Progress<'_> = serde_json::from_slice(bytes).ok()?;
    let inner = p.data?.message?.message?;
    inner.usage.filter(|u| u.get().starts_with('{'))?;
    inner.id.map(Cow::into_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachment_label_is_what_classify_gives_cls_020() {
        let cases = [
            r#"{"type":"attachment","attachment":{"type":"hook_success","content":"out","hookEvent":"Stop"}}"#,
            r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":["a","b"]}}"#,
            r#"{"type":"attachment","attachment":{"type":"brand_new","x":1}}"#,
            r#"{"type":"attachment","attachment":{"content":"no type"}}"#,
            r#"{"type":"attachment","attachment":"a string payload"}"#,
            r#"{"type":"attachment","attachment":null}"#,
            r#"{"type":"attachment"}"#,
        ];
        let idx = FileIndex::empty(false);
        for (i, c) in cases.iter().enumerate() {
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
            classify(&r, line.no, &idx, &mut units);
            let want: Vec<(Label, Option<Label>)> =
                units.iter().map(|u| (u.label, u.also)).collect();
            let got: Vec<(Label, Option<Label>)> = attachment_label(&r)
                .map(|l| (l, None))
                .into_iter()
                .collect();
            assert_eq!(got, want, "{c}");
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
        let (one, book) = census_buf(buf.as_bytes(), false, &w, usize::MAX);
        assert_eq!(one.lines, 8);
        assert_eq!(one.malformed_lines, 1);
        assert_eq!(one.tools["Bash"].errors, 1);
        assert_eq!(one.tools["Read"].unanswered, 1);
        assert_eq!(book.rows()["x"].vals.output, 53);
        for size in 1..buf.len() {
            let (c, b) = census_buf(buf.as_bytes(), false, &w, size);
            assert_eq!(format!("{c:?}"), format!("{one:?}"), "chunk size {size}");
            assert_eq!(b.rows(), book.rows(), "chunk size {size}");
            assert_eq!(b.differing(), book.differing());
        }
    }

    #[test]
    fn chunks_are_line_aligned_and_numbered() {
        let buf = b"aaaa\nbb\ncccccc\nd\n";
        let c = split(buf, 3);
        assert_eq!(c, vec![(0, 5, 1), (5, 15, 2), (15, 17, 4)]);
        assert_eq!(split(b"", 3), vec![(0, 0, 1)]);
        assert_eq!(split(b"ab", 8), vec![(0, 2, 1)]);
    }
}
