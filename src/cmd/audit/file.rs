//! One pass over one transcript feeding every selected detector. Each line is
//! skimmed for its top-level keys ([`super::skim`]); only the parts a detector
//! needs are parsed, and only when a byte prefilter says they can matter:
//! assistant messages (eaten-text, tool calls), carriers without an object
//! echo, `toolUseResult`s naming an agent or a persisted path, lines holding
//! `<persisted-output>`. Uuids are hashed from their bytes.
//!
//! A pass reads any run of a file's whole lines ([`scan`]): from the file's
//! start it folds each detector's state; from a later line (the census
//! cache's appended bytes, [`super::census`]) it keeps what an earlier line
//! decides in order, to be folded in after the earlier census.

use memchr::memmem;

use super::calls::{Calls, EchoPolicy};
use super::checked::{checked, Pre};
use super::dup::Dups;
use super::eaten::Eaten;
use super::finding::{At, FileCtx, Finding};
use super::refs::Refs;
use crate::cache::Pos;
use crate::cli::audit::Kind;
use crate::discovery::{Shape, Transcript};
use crate::loss::lite::{eaten_id, kinds, LiteMessage};
use crate::loss::skim::{skim_at, Flaw, Top};
use crate::record::{parse_line, Parsed};
use crate::scan::Line;

/// Which detectors run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Want {
    pub(crate) eaten: bool,
    pub(crate) adjacency: bool,
    pub(crate) malformed: bool,
    pub(crate) lanes: bool,
    pub(crate) outputs: bool,
    pub(crate) echo: bool,
    pub(crate) unanswered: bool,
    pub(crate) dup: bool,
}

impl Want {
    pub(crate) fn from(kinds: &[Kind]) -> Want {
        let on = |k| kinds.is_empty() || kinds.contains(&k);
        Want {
            eaten: on(Kind::EatenText),
            adjacency: on(Kind::EatenTextAdjacency),
            malformed: on(Kind::MalformedLine),
            lanes: on(Kind::MissingTranscript),
            outputs: on(Kind::MissingPersistedOutput),
            echo: on(Kind::MissingEcho),
            unanswered: on(Kind::UnansweredCall),
            dup: on(Kind::DuplicateUuid),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct FileAudit {
    pub(crate) findings: Vec<Finding>,
    pub(crate) bytes: u64,
    pub(crate) multi_block: usize,
    pub(crate) error: Option<String>,
}

fn has(hay: &[u8], needle: &[u8]) -> bool {
    memmem::find(hay, needle).is_some()
}

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

/// Echo rule for this file (see [`super::calls`]): top-level files always, a
/// teammate lane (meta `taskKind:"in_process_teammate"`, SUB-028) for writes.
fn policy(t: &Transcript) -> EchoPolicy {
    match t.shape {
        Shape::Main => EchoPolicy::Main,
        Shape::Subagent => {
            let meta = t.path.with_extension("meta.json");
            match crate::scan::source::small(&meta, 16 << 20) {
                Ok(b) if has(&b, b"\"in_process_teammate\"") => EchoPolicy::Teammate,
                _ => EchoPolicy::Never,
            }
        }
        _ => EchoPolicy::Never,
    }
}

/// The first `"timestamp"` string value in a line that would not skim (either
/// spacing, REC-038).
fn scraped_ts(b: &[u8]) -> Option<&[u8]> {
    crate::scan::pair::first_plain_str(b, crate::scan::lit!(b"\"timestamp\""))
        .filter(|v| v.len() <= 40)
}

/// The time of the last line of `before` that holds one (malformed lines are
/// rare, so walking back line by line costs nothing that matters).
fn ts_before(before: &[u8]) -> Option<&[u8]> {
    let mut end = before.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &before[..end - 1]).map_or(0, |i| i + 1);
        if let Some(ts) = scraped_ts(&before[start..end]) {
            return Some(ts);
        }
        end = start;
    }
    None
}

/// What a pass needs beside the bytes: the detectors wanted, the file's echo
/// rule and how findings name it.
pub(crate) struct Setup {
    pub(crate) want: Want,
    pub(crate) policy: EchoPolicy,
    pub(crate) file: FileCtx,
}

impl Setup {
    pub(crate) fn of(t: &Transcript, want: &Want) -> Setup {
        Setup {
            want: *want,
            policy: if want.echo {
                policy(t)
            } else {
                EchoPolicy::Never
            },
            file: FileCtx {
                file: t.path.display().to_string(),
                session_id: t.session_id.clone(),
                is_lane: t.is_lane(),
            },
        }
    }
}

/// Every detector's state over a run of a file's lines.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) eaten: Eaten,
    pub(crate) calls: Calls,
    pub(crate) dups: Dups,
    pub(crate) refs: Refs,
    /// Malformed-line findings in line order; for one whose time must come
    /// from a line before the run, its line's file offset ([`Scan::timed`]).
    pub(crate) malformed: Vec<(Finding, Option<usize>)>,
    pub(crate) bytes: u64,
}

/// The detectors' pass over `buf`, the lines of a file from `at` on (the
/// last one may be unterminated).
pub(crate) fn scan(buf: &[u8], at: Pos, setup: &Setup) -> Scan {
    let from_start = at.offset == 0;
    let mut s = Pass {
        want: setup.want,
        ctx: &setup.file,
        policy: setup.policy,
        base: at.offset as usize,
        first_no: at.line as usize,
        scan: Scan {
            eaten: if from_start {
                Eaten::default()
            } else {
                Eaten::logging()
            },
            dups: if from_start {
                Dups::default()
            } else {
                Dups::logging()
            },
            bytes: buf.len() as u64,
            ..Scan::default()
        },
        reported: 0,
    };
    if eaten_only(&setup.want) {
        s.eaten_fast(buf);
    } else {
        s.all_lines(buf);
    }
    s.scan
}

impl Scan {
    /// Fold in the scan of the lines that follow; false when a detector
    /// cannot do so exactly (the caller reads the file whole).
    pub(crate) fn extend(&mut self, later: Scan) -> bool {
        self.calls.extend(later.calls);
        self.refs.extend(later.refs);
        self.malformed.extend(later.malformed);
        self.bytes += later.bytes;
        self.eaten.extend(later.eaten) && self.dups.extend(later.dups)
    }

    /// Give each malformed line whose own time and the lines before it in
    /// its run held none the time of the last line before it in `buf` (the
    /// file from its start).
    pub(crate) fn timed(&mut self, buf: &[u8]) {
        for (f, at) in &mut self.malformed {
            if let Some(off) = at.take() {
                let ts = ts_before(&buf[..off.min(buf.len())]).filter(|t| !t.is_empty());
                f.timestamp = ts.map(|t| String::from_utf8_lossy(t).into_owned());
            }
        }
    }

    /// The findings of the rules that judge a file as a whole (eaten text,
    /// calls and echoes, duplicate uuids), as of `buf`, the file from its
    /// start up to where this scan ends.
    pub(crate) fn findings(&self, buf: &[u8], setup: &Setup) -> Vec<Finding> {
        let (w, ctx) = (&setup.want, &setup.file);
        let mut out = Vec::new();
        let offsets = eaten_only(w).then_some(buf);
        self.eaten
            .findings(ctx, (w.eaten, w.adjacency), offsets, &mut out);
        self.calls
            .findings(ctx, setup.policy, w.echo, w.unanswered, buf, &mut out);
        if w.dup {
            self.dups.findings(ctx, buf, &mut out);
        }
        out
    }
}

/// Only the eaten-text kinds: only assistant lines (and their neighbours while
/// adjacency waits) need reading.
fn eaten_only(w: &Want) -> bool {
    !(w.malformed || w.dup || w.lanes || w.outputs || w.echo || w.unanswered)
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
/// check, then a `str` parse that keeps nothing).
fn valid_json(line: &[u8]) -> bool {
    simdutf8::basic::from_utf8(line)
        .is_ok_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok())
}

/// Whether the line skim reads each message's eaten-text view as it walks it:
/// the eaten rule is wanted and no malformed-line check needs serde to read the
/// message instead (see [`Pass::assistant`]).
fn eaten_by_skim(w: &Want) -> bool {
    (w.eaten || w.adjacency) && !w.malformed
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

struct Pass<'c> {
    want: Want,
    ctx: &'c FileCtx,
    policy: EchoPolicy,
    /// The file offset of the buffer's first byte, and that line's number.
    base: usize,
    first_no: usize,
    scan: Scan,
    /// The line of the last malformed-line finding (0: none yet).
    reported: usize,
}

impl Pass<'_> {
    /// Every line, skimmed.
    fn all_lines(&mut self, buf: &[u8]) {
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
    fn eaten_fast(&mut self, buf: &[u8]) {
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
            Some(b"progress") if w.lanes => {
                if let Some(d) = top.data.filter(|d| hit(&pat().agent_id, d)) {
                    self.scan.refs.progress(d, &at());
                }
            }
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
