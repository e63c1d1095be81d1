//! The per-line work of audit's pass ([`super::file::scan`]): each line
//! skimmed (or read by the validating serde walk, [`super::checked`]) and
//! dispatched to the detectors it can matter to, behind byte prefilters:
//! assistant messages (eaten text, tool calls), user lines (answers, echoes,
//! persisted outputs, agent results), malformed lines with their time.

use memchr::memmem;

use super::calls::{string_contents, EchoPolicy};
use super::checked::{checked, Pre};
use super::file::{scraped_ts, ts_before, Scan, Want};
use super::finding::{At, FileCtx};
use crate::cli::audit::Kind;
use crate::loss::lite::{eaten_id, kinds, LiteMessage};
use crate::loss::skim::{skim_at, Flaw, Top};
use crate::record::{parse_line, Parsed};
use crate::scan::Line;

/// Precompiled byte prefilters (a `Finder` is built once, not per line).
struct Pat {
    tool_use: memmem::Finder<'static>,
    tool_result: memmem::Finder<'static>,
    persisted: memmem::Finder<'static>,
    assistant: memmem::Finder<'static>,
    agent_id: memmem::Finder<'static>,
    persisted_path: memmem::Finder<'static>,
}

fn pat() -> &'static Pat {
    static P: std::sync::OnceLock<Pat> = std::sync::OnceLock::new();
    P.get_or_init(|| Pat {
        tool_use: memmem::Finder::new(b"\"tool_use\""),
        tool_result: memmem::Finder::new(b"\"tool_result\""),
        persisted: memmem::Finder::new(b"<persisted-output>"),
        assistant: memmem::Finder::new(b"\"assistant\""),
        agent_id: memmem::Finder::new(b"\"agentId\""),
        persisted_path: memmem::Finder::new(b"\"persistedOutputPath\""),
    })
}

fn hit(f: &memmem::Finder<'_>, hay: &[u8]) -> bool {
    f.find(hay).is_some()
}

/// Line `no`, bytes `pos..end` of `buf` (`end` is its newline or the end), without
/// a final `\r`.
fn line_at(buf: &[u8], pos: usize, end: usize, no: usize) -> Line<'_> {
    let mut bytes = &buf[pos..end];
    if let [head @ .., b'\r'] = bytes {
        bytes = head;
    }
    Line {
        no,
        offset: pos,
        bytes,
        terminated: end < buf.len(),
    }
}

/// serde's verdict on the grammar of a line the skim accepted (one SIMD UTF-8
/// check, then the fast reader's check of serde_json's grammar; serde_json
/// itself only for a line that check refuses).
fn valid_json(line: &[u8]) -> bool {
    simdutf8::basic::from_utf8(line).is_ok_and(|t| {
        crate::record::fast::valid(t) || serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()
    })
}

/// Whether the line skim reads each message's eaten-text view as it walks it:
/// the eaten rule is wanted and no malformed-line check needs serde to read the
/// message instead (see [`Pass::assistant`]).
fn eaten_by_skim(w: &Want) -> bool {
    (w.eaten || w.adjacency) && !w.malformed
}

pub(super) struct Pass<'c> {
    pub(super) want: Want,
    pub(super) ctx: &'c FileCtx,
    pub(super) policy: EchoPolicy,
    /// The file offset of the buffer's first byte, and that line's number.
    pub(super) base: usize,
    pub(super) first_no: usize,
    pub(super) scan: Scan,
    /// The line of the last malformed-line finding (0: none yet).
    pub(super) reported: usize,
}

impl Pass<'_> {
    /// Every line, skimmed.
    pub(super) fn all_lines(&mut self, buf: &[u8]) {
        let mut pos = 0;
        let mut no = self.first_no - 1;
        while pos < buf.len() {
            no += 1;
            pos = self.one(buf, pos, no) + 1;
        }
    }

    /// Skim and dispatch the line at `pos` numbered `no`; returns its end.
    fn one(&mut self, buf: &[u8], pos: usize, no: usize) -> usize {
        if self.want.malformed {
            // The line's grammar is judged too: serde reads the fields and
            // validates in one walk; a line it refuses is skimmed below.
            let end = memchr::memchr(b'\n', &buf[pos..]).map_or(buf.len(), |k| pos + k);
            let line = line_at(buf, pos, end, no);
            if let Some(c) = checked(line.bytes) {
                self.line(buf, &line, &c.top, c.pre.as_ref());
                return end;
            }
        }
        let (top, end) = skim_at(buf, pos, eaten_by_skim(&self.want));
        let line = line_at(buf, pos, end, no);
        match top {
            Ok(top) => {
                self.line(buf, &line, &top, None);
                // The skim checks structure only: serde refused this line above,
                // so it may still be valid JSON (a repeated key) or not, and
                // serde's grammar verdict decides.
                if self.want.malformed && self.reported != no && !valid_json(line.bytes) {
                    self.malformed(&line, None, &buf[..pos]);
                }
            }
            Err(Flaw::Blank) => {}
            Err(Flaw::Glued) => {
                self.malformed(&line, None, &buf[..pos]);
                self.glued(buf, &line);
            }
            Err(_) => self.malformed(&line, None, &buf[..pos]),
        }
        end
    }

    /// Records glued on one line (a write race) are still records: besides the
    /// malformed-line finding, each is read as a line of its own under the
    /// line's number, as stats counts them, so a uuid it repeats or a call it
    /// makes is seen. (The survey script's `json.loads` skips the whole line.)
    fn glued(&mut self, buf: &[u8], line: &Line<'_>) {
        for sub in crate::record::glued_records(line) {
            if let Ok(top) = crate::loss::skim::skim(sub.bytes) {
                self.line(buf, &sub, &top, None);
            }
        }
    }

    /// The eaten-text-only path: jump between `"assistant"` occurrences with one
    /// memmem search over the buffer instead of framing every line; lines in
    /// between are read only while a thinking-first record waits for its
    /// neighbour. Lines are numbered by byte offset here and renumbered at the end.
    pub(super) fn eaten_fast(&mut self, buf: &[u8]) {
        let finder = &pat().assistant;
        let mut pos = 0;
        // After a file's start, a record before the run may be waiting: every
        // line is read (the run is a file's appended bytes).
        let logging = self.base > 0;
        while pos < buf.len() {
            let waiting =
                logging || self.scan.eaten.waiting(false) || self.scan.eaten.waiting(true);
            let start = if waiting {
                pos
            } else {
                match finder.find(&buf[pos..]) {
                    Some(k) => memchr::memrchr(b'\n', &buf[..pos + k]).map_or(0, |i| i + 1),
                    None => break,
                }
            };
            pos = self.one(buf, start, self.base + start) + 1;
        }
    }

    /// A malformed-line finding; `before` is the file up to the line, for the
    /// time of the last record before it when the line holds none (a torn
    /// final line).
    fn malformed(&mut self, line: &Line<'_>, why: Option<String>, before: &[u8]) {
        if !self.want.malformed {
            return;
        }
        let from_before = why.is_none();
        let (kind, detail) = match (why, parse_line(line)) {
            (Some(w), _) => ("invalid-json", w),
            (None, Parsed::Malformed(m)) => {
                if m.kind == crate::record::MalformedKind::Blank {
                    return;
                }
                (m.kind.name(), format!("{} (column {})", m.detail, m.column))
            }
            // The skim is stricter than serde on scalars; serde's verdict wins.
            (None, Parsed::Record(_)) => return,
        };
        let ts = scraped_ts(line.bytes).or_else(|| ts_before(before));
        // A run after the file's start may need a time from before it.
        let earlier = from_before && ts.is_none() && self.base > 0;
        // A line that is no record states no isSidechain: a lane's lines are all
        // sidechain (SUB-001), a main file's taken as main.
        let at = At::new(line.no, self.ctx.is_lane, ts, None);
        self.reported = line.no;
        let f = self
            .ctx
            .finding(Kind::MalformedLine, &at, None, format!("{kind}: {detail}"));
        let off = earlier.then_some(self.base + line.offset);
        self.scan.malformed.push((f, off));
    }

    /// Dispatch one line; `pre` is what [`checked`] read of its message and
    /// result, when it read them.
    fn line(&mut self, buf: &[u8], line: &Line<'_>, top: &Top<'_>, pre: Option<&Pre<'_>>) {
        let at = || At::new(line.no, top.is_sidechain, top.timestamp, top.version);
        let w = self.want;
        if w.dup {
            if let Some(u) = top.uuid {
                let (start, end) = (line.offset, line.offset + line.bytes.len());
                let place = (line.no, self.base + start, self.base + end);
                self.scan.dups.uuid((buf, self.base), u, place, at);
            }
        }
        match top.kind {
            Some(b"assistant") => self.assistant(line, top, pre, &at),
            Some(b"user") => self.user(line, top, pre, &at),
            Some(b"progress") if w.lanes => self.progress(top, pre, &at),
            Some(b"system") if top.subtype == Some(b"compact_boundary") => {
                self.scan.dups.boundary(line.no);
            }
            Some(b"attachment") if w.outputs && hit(&pat().persisted, line.bytes) => {
                self.scan.refs.attachment_output(line.bytes, &at());
            }
            _ => {}
        }
    }

    fn assistant(
        &mut self,
        line: &Line<'_>,
        top: &Top<'_>,
        pre: Option<&Pre<'_>>,
        at: &dyn Fn() -> At,
    ) {
        let w = self.want;
        let Some(msg) = top.message else { return };
        let eaten = w.eaten || w.adjacency;
        let tools = (w.echo && self.policy != EchoPolicy::Never) || w.unanswered;
        // The tool_use prefilter only decides whether to skip the message (no
        // eaten rule) or to take the skim's view of it; serde reading it for
        // the eaten rule reads its calls too.
        let uses = || tools && hit(&pat().tool_use, msg);
        if !eaten && !uses() {
            return;
        }
        // No tool call to read and no malformed-line check (which relies on serde
        // validating every message it reads): the eaten rule needs only the id and
        // the block types, which a skim finds without serde walking the bodies.
        // The line skim read them in its own walk of the message (`eaten_by_skim`
        // holds here); a view it declined goes to serde below.
        if eaten_by_skim(&w) && !uses() {
            let view = top.eaten.and_then(|(id, k)| Some((eaten_id(id)?, k)));
            if let Some((mid, kinds)) = view {
                match (mid, kinds) {
                    (Some(mid), Some(k)) => {
                        let side = top.is_sidechain;
                        self.scan.eaten.record(&mid, top.uuid, k, side, at)
                    }
                    _ => self.scan.eaten.other_message(top.is_sidechain),
                }
                return;
            }
        }
        let parsed;
        let m: &LiteMessage<'_> = match pre.and_then(|p| p.message.as_ref()) {
            Some(m) => m,
            None => match serde_json::from_slice(msg) {
                Ok(m) => {
                    parsed = m;
                    &parsed
                }
                Err(e) => {
                    self.scan.eaten.other_message(top.is_sidechain);
                    self.malformed(line, Some(format!("message does not parse: {e}")), &[]);
                    return;
                }
            },
        };
        let Some(blocks) = m.blocks() else {
            self.scan.eaten.other_message(top.is_sidechain);
            return;
        };
        if tools {
            self.scan.calls.uses(blocks, at);
        }
        match m.id() {
            Some(mid) if eaten => {
                let side = top.is_sidechain;
                self.scan
                    .eaten
                    .record(&mid, top.uuid, kinds(blocks), side, at)
            }
            _ => self.scan.eaten.other_message(top.is_sidechain),
        }
    }

    fn user(&mut self, line: &Line<'_>, top: &Top<'_>, pre: Option<&Pre<'_>>, at: &dyn Fn() -> At) {
        let w = self.want;
        // The structured pointer wins over scraping the inline marker (REC-015).
        let structured = match top.tool_use_result {
            Some(tur) => self.tool_use_result(tur, pre, at),
            None => false,
        };
        let Some(msg) = top.message else { return };
        self.scan.eaten.other_message(top.is_sidechain);
        if w.unanswered {
            match pre.and_then(|p| p.message.as_ref()) {
                Some(m) => self.scan.calls.answers_around(msg, string_contents(msg, m)),
                None => self.scan.calls.answers(msg),
            }
        }
        let object_echo = top.tool_use_result.is_some_and(|r| r.starts_with(b"{"));
        if w.echo
            && self.policy != EchoPolicy::Never
            && !object_echo
            && hit(&pat().tool_result, msg)
        {
            match pre.and_then(|p| p.message.as_ref()) {
                Some(m) => self
                    .scan
                    .calls
                    .bare_carrier(m.blocks().unwrap_or_default(), &at()),
                None => match serde_json::from_slice::<LiteMessage<'_>>(msg) {
                    Ok(m) => self
                        .scan
                        .calls
                        .bare_carrier(m.blocks().unwrap_or_default(), &at()),
                    Err(e) => {
                        self.malformed(line, Some(format!("message does not parse: {e}")), &[])
                    }
                },
            }
        }
        if w.outputs && !structured && hit(&pat().persisted, msg) {
            match pre.and_then(|p| p.message.as_ref()) {
                Some(m) => self.scan.refs.inline_output_read(m, &at()),
                None => self.scan.refs.inline_output(msg, &at()),
            }
        }
    }

    /// A progress record's `data` naming a subagent. The `agentId` key the
    /// line's serde walk read at the top level of `data` stands in for the
    /// prefilter and the object's parse (the parse reads that key only);
    /// an escaped one, which the prefilter would not see, goes the plain way.
    fn progress(&mut self, top: &Top<'_>, pre: Option<&Pre<'_>>, at: &dyn Fn() -> At) {
        if let Some(s) = pre.and_then(|p| p.data.as_ref()).filter(|s| !s.escaped) {
            if s.names().0 {
                self.scan.refs.progress_read(s, &at());
            }
            return;
        }
        if let Some(d) = top.data.filter(|d| hit(&pat().agent_id, d)) {
            self.scan.refs.progress(d, &at());
        }
    }

    /// A user record's `toolUseResult` (raw) naming a lane or a persisted
    /// output; true when it names the output. What the line's serde walk read
    /// stands in for the byte prefilters and the object's parse wherever it
    /// answers exactly as they would.
    fn tool_use_result(&mut self, tur: &[u8], pre: Option<&Pre<'_>>, at: &dyn Fn() -> At) -> bool {
        let w = self.want;
        if let Some(p) = pre {
            let Some(s) = &p.tur else {
                return false; // not an object: nothing to parse
            };
            let (agent, path) = s.names();
            if !s.escaped {
                if (w.lanes && agent) || (w.outputs && path) {
                    // The prefilter's key is there at the top level.
                    return self.scan.refs.tool_use_result_read(s, &at());
                }
                if !(agent || path) {
                    // The parse would name nothing, whatever the prefilters say.
                    return false;
                }
            }
        }
        if (w.lanes && hit(&pat().agent_id, tur)) || (w.outputs && hit(&pat().persisted_path, tur))
        {
            return self.scan.refs.tool_use_result(tur, &at());
        }
        false
    }
}
