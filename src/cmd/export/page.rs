//! The walk over one transcript in file order, emitting a page's events as it
//! goes: a turn section wherever the turn changes, each record's units
//! ([`super::units`]), the marks `audit` would leave (eaten text by the
//! bug report's adjacency rule, malformed lines, calls with no result), records
//! csift does not model shown raw, and content-less records listed in
//! collapsed runs. Lanes open inside the call that spawned them, so the walk
//! recurses. Nothing of the page is kept: only the current file's maps (tool
//! results by id, and which result records were already shown under their
//! call) live while it is walked.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::sync::Arc;

use crate::classify::{FileIndex, LabelSet};
use crate::discovery::Transcript;
use crate::lanes::Joins;
use crate::record::{glued_parsed, parse_line, MalformedKind, Parsed, Record, RECORD_TYPES};
use crate::scan::{lit, Line, Lines, Source};

use super::sink::{At, Sink};

/// Content-less records listed in one collapsed run at most.
const QUIET_RUN: usize = 200;

/// A lane of the session, opened once.
pub(crate) struct Lane {
    pub(crate) t: Transcript,
    pub(crate) src: Option<Arc<Source>>,
    pub(crate) placed: bool,
}

/// What the page counts while it is written (the footer).
#[derive(Debug, Default)]
pub(crate) struct Counts {
    pub(crate) records: usize,
    pub(crate) units: usize,
    pub(crate) images: usize,
    pub(crate) raw: usize,
    pub(crate) findings: BTreeMap<&'static str, usize>,
}

pub(crate) struct Page<'a> {
    pub(crate) sink: &'a mut dyn Sink,
    pub(crate) labels: Option<LabelSet>,
    pub(crate) joins: Joins,
    pub(crate) lanes: Vec<Lane>,
    /// Spawn tool_use id -> the lanes it made (indices into `lanes`).
    pub(crate) by_spawn: HashMap<String, Vec<usize>>,
    pub(crate) embeds: bool,
    pub(crate) n: Counts,
}

/// One transcript's state while it is walked.
pub(crate) struct File<'b> {
    pub(crate) buf: &'b [u8],
    pub(crate) idx: Arc<FileIndex>,
    /// tool_use id -> byte offset of the line holding its first result.
    pub(crate) results: HashMap<String, usize>,
    /// Result lines shown whole under their call, skipped when reached (with
    /// their sidechain flag: a user record still breaks eaten-text adjacency).
    pub(crate) consumed: HashMap<usize, bool>,
    /// `(line offset, block)` of results shown under their call, on a line
    /// that holds more than that result.
    pub(crate) shown_blocks: HashSet<(usize, Option<usize>)>,
    turn: Option<usize>,
    quiet: Vec<String>,
    /// The lane-less subagent whose nested records are open as a scope.
    pub(crate) nested: Option<String>,
    /// Per sidechain flag: the message id of the previous message record
    /// when it was an assistant record opening with thinking.
    thinking: [Option<String>; 2],
}

/// Every `"tool_use_id": "<id>"` (either spacing) of the file: the offset of
/// the line of its first occurrence. A quoted key cannot occur inside a JSON
/// string, so each hit is a real key; a memmem pass, no parse.
fn results_of(buf: &[u8]) -> HashMap<String, usize> {
    const KEY: &[u8] = b"\"tool_use_id\"";
    let mut out = HashMap::new();
    for at in lit!(KEY).find_iter(buf) {
        let Some(v) = crate::scan::pair::value_at(buf, at, KEY) else {
            continue;
        };
        let Some(body) = buf.get(v..).and_then(|b| b.strip_prefix(b"\"")) else {
            continue;
        };
        let Some(end) = memchr::memchr2(b'"', b'\\', body) else {
            continue;
        };
        if body[end] != b'"' {
            continue;
        }
        if let Ok(id) = std::str::from_utf8(&body[..end]) {
            if !out.contains_key(id) {
                out.insert(id.to_string(), crate::scan::lines::line_start(buf, at));
            }
        }
    }
    out
}

impl<'a> Page<'a> {
    /// Walk transcript `t` (bytes `buf`) into the page.
    /// `idx`: the file's index when the caller built it already.
    pub(crate) fn walk(
        &mut self,
        t: &Transcript,
        buf: &[u8],
        idx: Option<FileIndex>,
    ) -> io::Result<()> {
        let idx = idx.unwrap_or_else(|| FileIndex::build(buf, t.is_lane()));
        let idx = match self.embeds {
            true => idx.with_embeds(Arc::new(t.lane_files())),
            false => idx,
        };
        let mut f = File {
            buf,
            idx: Arc::new(idx),
            results: results_of(buf),
            consumed: HashMap::new(),
            shown_blocks: HashSet::new(),
            turn: None,
            quiet: Vec::new(),
            nested: None,
            thinking: [None, None],
        };
        for line in Lines::new(buf) {
            if let Some(side) = f.consumed.remove(&line.offset) {
                f.thinking[usize::from(side)] = None;
                continue;
            }
            self.line(&mut f, &line)?;
        }
        self.settle(&mut f)
    }

    fn line(&mut self, f: &mut File<'_>, line: &Line<'_>) -> io::Result<()> {
        match parse_line(line) {
            Parsed::Record(r) => {
                self.turn_of(f, line.no, r.timestamp.as_deref())?;
                self.record(f, &r, line)
            }
            Parsed::Malformed(m) => {
                self.turn_of(f, line.no, None)?;
                self.settle(f)?;
                let glued = m.kind == MalformedKind::Glued;
                let what = match glued {
                    true => {
                        "records glued on one line (each is shown below; the line is shown raw)"
                    }
                    false => "a line that is not one record",
                };
                let msg = format!("{}: L{} is {what}: {}", m.kind.name(), line.no, m.detail);
                self.finding(f, "malformed line", &msg)?;
                if self.labels.is_none() {
                    self.n.raw += 1;
                    let title = format!("L{} as written ({} bytes)", line.no, line.bytes.len());
                    self.sink.raw(&title, line.bytes)?;
                }
                if glued {
                    for (sub, r) in glued_parsed(line) {
                        self.record(f, &r, &sub)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Open a turn section when line `no` starts another turn (a draft
    /// belongs to none and stays where it is).
    fn turn_of(&mut self, f: &mut File<'_>, no: usize, ts: Option<&str>) -> io::Result<()> {
        let Some(n) = f.idx.turn(no) else {
            return Ok(());
        };
        if f.turn == Some(n) {
            return Ok(());
        }
        self.settle(f)?;
        f.turn = Some(n);
        self.sink.turn(n, ts)
    }

    /// Write what is pending (a run of content-less records) and close a
    /// lane-less subagent's scope.
    pub(crate) fn settle(&mut self, f: &mut File<'_>) -> io::Result<()> {
        self.flush_quiet(f)?;
        if f.nested.take().is_some() {
            self.sink.lane_end()?;
        }
        Ok(())
    }

    pub(crate) fn flush_quiet(&mut self, f: &mut File<'_>) -> io::Result<()> {
        if f.quiet.is_empty() {
            return Ok(());
        }
        let rows = std::mem::take(&mut f.quiet);
        self.sink.quiet(&rows)
    }

    pub(crate) fn finding(
        &mut self,
        f: &mut File<'_>,
        kind: &'static str,
        msg: &str,
    ) -> io::Result<()> {
        self.flush_quiet(f)?;
        *self.n.findings.entry(kind).or_default() += 1;
        self.sink.finding(kind, msg)
    }

    fn record(&mut self, f: &mut File<'_>, r: &Record<'_>, line: &Line<'_>) -> io::Result<()> {
        self.n.records += 1;
        self.eaten(f, r, line)?;
        let kind = r.kind();
        if !RECORD_TYPES.contains(&kind) {
            if self.labels.is_none() {
                self.settle(f)?;
                self.n.raw += 1;
                let what = match kind {
                    "" => "a record with no type".to_string(),
                    k => format!("a record of type `{k}`"),
                };
                let title = format!("L{}: {what}, which csift does not model", line.no);
                self.sink.raw(&title, line.bytes)?;
            }
            return Ok(());
        }
        let shown = self.units(f, r, line)?;
        let unknown: Vec<String> = r
            .unknown_blocks()
            .map(|(i, b)| format!("block {i} of type `{}`", b.kind()))
            .collect();
        if !unknown.is_empty() && self.labels.is_none() {
            self.settle(f)?;
            self.n.raw += 1;
            let title = format!(
                "L{}: {} csift does not model (the whole record)",
                line.no,
                unknown.join(", ")
            );
            self.sink.raw(&title, line.bytes)?;
        }
        if shown > 0 || self.labels.is_none() {
            self.images(f, line.bytes, None)?;
        }
        if shown == 0 && unknown.is_empty() && self.labels.is_none() {
            self.quiet_row(f, r, line)?;
        }
        Ok(())
    }

    fn quiet_row(&mut self, f: &mut File<'_>, r: &Record<'_>, line: &Line<'_>) -> io::Result<()> {
        let mut row = format!("L{} {}", line.no, r.kind());
        let sub = r
            .subtype
            .as_deref()
            .map(str::to_string)
            .or_else(|| r.attachment_kind());
        if let Some(s) = sub {
            row.push('/');
            row.push_str(&s);
        }
        if let Some(ts) = r.timestamp.as_deref() {
            row.push(' ');
            row.push_str(&super::sink::when(ts));
        }
        f.quiet.push(row);
        if f.quiet.len() >= QUIET_RUN {
            self.flush_quiet(f)?;
        }
        Ok(())
    }

    /// The bug report's adjacency rule: two adjacent assistant records of one
    /// `message.id`, both opening with thinking, lost the text between them.
    /// Records without a message do not break adjacency.
    fn eaten(&mut self, f: &mut File<'_>, r: &Record<'_>, line: &Line<'_>) -> io::Result<()> {
        if !r.has_message() || !matches!(r.kind(), "user" | "assistant") {
            return Ok(());
        }
        let side = usize::from(r.is_sidechain());
        let thinking_first =
            r.kind() == "assistant" && r.blocks().first().is_some_and(|b| b.kind() == "thinking");
        let mid = r.message_id().filter(|_| thinking_first);
        if let (Some(m), Some(prev)) = (mid, f.thinking[side].as_deref()) {
            if m == prev {
                let msg = format!(
                    "L{}: a second thinking-first record of response {m}: the text written between them was never saved (audit: eaten-text)",
                    line.no
                );
                self.finding(f, "eaten text", &msg)?;
            }
        }
        f.thinking[side] = mid.map(str::to_string);
        Ok(())
    }

    /// The images a record's line holds, inline; `only_results`: those of
    /// tool results (a result shown under its call).
    pub(crate) fn images(
        &mut self,
        f: &mut File<'_>,
        line: &[u8],
        only_results: Option<()>,
    ) -> io::Result<()> {
        if lit!(b"\"media_type\"").find(line).is_none() && lit!(b"\"base64\"").find(line).is_none()
        {
            return Ok(());
        }
        let rec = crate::images::skim::record(line, 0);
        for (i, img) in rec.images.iter().enumerate() {
            if only_results.is_some() && img.carrier == crate::images::Carrier::Block {
                continue;
            }
            let caption = format!(
                "image {} of this record ({}, {})",
                i + 1,
                img.media_type,
                img.carrier.name()
            );
            match super::units::payload(line, img) {
                Ok((mime, b64)) => {
                    self.flush_quiet(f)?;
                    self.n.images += 1;
                    self.sink.image(mime, &b64, &caption)?;
                }
                Err(why) => self.finding(f, "image not shown", &format!("{caption}: {why}"))?,
            }
        }
        Ok(())
    }

    /// Lane `li` (once), as a scope of its own under the current call.
    pub(crate) fn lane(&mut self, li: usize) -> io::Result<()> {
        let Some(l) = self.lanes.get_mut(li).filter(|l| !l.placed) else {
            return Ok(());
        };
        l.placed = true;
        let (t, src) = (l.t.clone(), l.src.clone());
        let agent = t.agent_id.clone().unwrap_or_default();
        let Some(src) = src else {
            let msg = format!("lane {agent} ({}) could not be read", t.path.display());
            return self.sink.finding("read error", &msg);
        };
        let (title, facts) = super::facts::lane(&t, &src, self.joins.spawn_of(&agent));
        self.sink.lane(&agent, &title, &facts)?;
        self.walk(&t, &src, None)?;
        self.sink.lane_end()
    }

    /// The lanes no call placed, after the transcript; returns how many.
    pub(crate) fn unplaced(&mut self) -> io::Result<usize> {
        let late: Vec<usize> = (0..self.lanes.len())
            .filter(|&i| !self.lanes[i].placed)
            .collect();
        if late.is_empty() {
            return Ok(0);
        }
        self.sink.part(
            "Lanes not placed under a call",
            "No key Claude Code wrote (the lane's meta toolUseId, the spawn result's agentId, an agentId line of its text, an agent_progress parentToolUseID) ties these lanes to a call in this session: a compaction lane, a lane whose spawn record is missing, or a kind csift agents joins by other keys.",
        )?;
        for &i in &late {
            self.lane(i)?;
        }
        Ok(late.len())
    }

    pub(crate) fn at<'r>(label: &'r str, line: &Line<'_>, r: &'r Record<'_>) -> At<'r> {
        At {
            label,
            line: line.no,
            ts: r.timestamp.as_deref(),
        }
    }
}
