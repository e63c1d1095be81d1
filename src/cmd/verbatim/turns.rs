//! Rendering a transcript's turns as plain conversation text, newest first and
//! lazily, so a budget walk parses only the turns it keeps. Turn spans come from
//! FileIndex (the numbering search prints). A compaction summary is a turn member
//! and is rendered inside its turn under a banner, never treated as a boundary
//! (CMP-011). Records a resume replay wrote twice are rendered once, at their
//! latest copy (REC-091). Hook-injected context is left out, so a reconstruction
//! injected by a hook is never re-injected into the next one.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::pack::Turn;
use crate::classify::{classify, FileIndex, Label};
use crate::output::sanitize::{clean, one_line};
use crate::record::{line_records, parse_line, Parsed, Record};
use crate::render;
use crate::scan::Lines;
use crate::timefmt;

#[derive(Debug, Clone)]
pub(crate) struct Opts {
    pub(crate) thinking: bool,
    pub(crate) full_tools: bool,
    pub(crate) lane: bool,
    /// `csift show @S` (`@S@A` for a lane): the command a marker names to
    /// print a line it leaves out, runnable as printed.
    pub(crate) show: String,
}

/// Yields turns newest first, from the last turn down to turn 0.
pub(crate) struct Walker<'a> {
    buf: &'a [u8],
    idx: &'a FileIndex,
    opts: Opts,
    next: Option<usize>,
    seen: HashSet<String>,
}

impl<'a> Walker<'a> {
    pub(crate) fn new(buf: &'a [u8], idx: &'a FileIndex, opts: Opts) -> Walker<'a> {
        Walker {
            buf,
            idx,
            opts,
            next: Some(idx.turns()),
            seen: HashSet::new(),
        }
    }
}

impl Walker<'_> {
    /// Whether anything before the first prompt (turn 0) renders: a session
    /// opened by a slash command or tool work before any typed prompt.
    pub(crate) fn turn_zero_renders(&mut self) -> bool {
        self.idx.turns() > 0 && !self.render(0).text.is_empty()
    }
}

impl Iterator for Walker<'_> {
    type Item = Turn;
    fn next(&mut self) -> Option<Turn> {
        let n = self.next?;
        self.next = n.checked_sub(1);
        Some(self.render(n))
    }
}

fn may_be_message(line: &[u8]) -> bool {
    [
        &b"\"type\":\"user\""[..],
        b"\"type\":\"assistant\"",
        b"\"type\": \"user\"",
        b"\"type\": \"assistant\"",
    ]
    .iter()
    .any(|n| memchr::memmem::find(line, n).is_some())
}

/// A turn's records as read from its lines, before classification.
struct Read<'b> {
    /// The member records (user and assistant messages of this turn), with
    /// their line numbers; a glued line's records each count.
    recs: Vec<(usize, Box<Record<'b>>)>,
    /// Lines of this turn that look like a message but are not a record csift
    /// can read: said in place, never dropped silently.
    unread: Vec<(usize, &'static str)>,
    last_line: usize,
}

/// A turn's kept records classified: each with its units, and every tool
/// result by the id of the call it answers.
struct Classified<'r, 'b> {
    units_of: Vec<(usize, &'r Record<'b>, Vec<crate::classify::Unit<'r>>)>,
    results: HashMap<&'r str, Answer>,
}

/// A turn's rendered body and what it holds.
struct Body<'r> {
    text: String,
    acc: Acc,
    first_ts: Option<&'r str>,
}

impl<'a> Walker<'a> {
    fn render(&mut self, n: usize) -> Turn {
        let (no, off) = match n {
            0 => (1, 0),
            _ => self.idx.turn_opener(n).unwrap_or((1, 0)),
        };
        // Up to the next opener: a replayed copy of the history (REC-091)
        // is not this turn's again.
        let end = self.idx.turn_end(n).unwrap_or(self.buf.len());
        let region = &self.buf[..end.min(self.buf.len())];
        let read = self.read(n, region, off, no);
        let keep = self.latest_copies(&read.recs);
        let classified = self.classify(&read.recs, &keep);
        let body = self.body(&classified, read.unread);
        self.turn(n, no, read.last_line, body)
    }

    /// The member records and unreadable lines of turn `n` in `region`, from
    /// byte `off` (line `no`).
    fn read<'b>(&self, n: usize, region: &'b [u8], off: usize, no: usize) -> Read<'b> {
        let mut read = Read {
            recs: Vec::new(),
            unread: Vec::new(),
            last_line: no,
        };
        for line in Lines::from(region, off, no) {
            read.last_line = line.no;
            let ours = self.idx.turn(line.no) == Some(n);
            if !may_be_message(line.bytes) {
                if ours {
                    read.unread.extend(garbled(&line));
                }
                continue;
            }
            let records = line_records(&line);
            if records.is_empty() && ours {
                if let Parsed::Malformed(m) = parse_line(&line) {
                    read.unread.push((line.no, m.kind.name()));
                }
            }
            // A glued line's records (a write race) are records too.
            for (_, r) in records {
                let member = matches!(r.kind(), "user" | "assistant")
                    && r.has_message()
                    && (self.opts.lane || !r.is_sidechain())
                    && ours;
                if member {
                    read.recs.push((line.no, r));
                }
            }
        }
        read
    }

    /// Which records to render: later copies win, so walking newest first a
    /// uuid already seen (in this turn or a later one) is skipped.
    fn latest_copies(&mut self, recs: &[(usize, Box<Record<'_>>)]) -> Vec<bool> {
        let mut keep = vec![true; recs.len()];
        for (i, (_, r)) in recs.iter().enumerate().rev() {
            if let Some(u) = r.uuid.as_deref() {
                keep[i] = self.seen.insert(u.to_string());
            }
        }
        keep
    }

    fn classify<'r, 'b>(
        &self,
        recs: &'r [(usize, Box<Record<'b>>)],
        keep: &[bool],
    ) -> Classified<'r, 'b>
    where
        'a: 'r,
    {
        let mut c = Classified {
            units_of: Vec::new(),
            results: HashMap::new(),
        };
        for ((no, r), k) in recs.iter().zip(keep) {
            if !k {
                continue;
            }
            let mut units = Vec::new();
            classify(r, *no, self.idx, &mut units);
            for u in &units {
                if !u.labels().any(|l| l == Label::AgentToolResult) {
                    continue;
                }
                if let Some(id) = u.tool_use_id {
                    let full = self.opts.full_tools.then(|| render::unit_body(r, u));
                    let text = u.text.to_string();
                    let error = u.is_error;
                    c.results.insert(id, Answer { error, text, full });
                }
            }
            c.units_of.push((*no, &**r, units));
        }
        c
    }

    /// The turn's entries in line order, unreadable lines said in place.
    fn body<'r>(&self, c: &Classified<'r, '_>, unread: Vec<(usize, &'static str)>) -> Body<'r> {
        let mut body = Body {
            text: String::new(),
            acc: Acc::default(),
            first_ts: None,
        };
        let mut answered: HashSet<String> = HashSet::new();
        let mut unread = unread.into_iter().peekable();
        let show = &self.opts.show;
        for (no, r, units) in &c.units_of {
            while let Some((bad, kind)) = unread.next_if(|(bad, _)| bad < no) {
                unreadable(&mut body.text, bad, kind, show);
            }
            for u in units {
                let before = body.text.len();
                let ctx = Ctx {
                    no: *no,
                    results: &c.results,
                };
                let out = &mut body.text;
                self.entry(out, r, u, &ctx, &mut answered, &mut body.acc.summaries);
                if body.text.len() > before && body.first_ts.is_none() {
                    body.first_ts = r.timestamp.as_deref();
                }
                body.acc.note(u, *no, before..body.text.len());
            }
            unknown_blocks(&mut body.text, r, *no, show);
        }
        for (bad, kind) in unread {
            unreadable(&mut body.text, bad, kind, show);
        }
        body
    }

    /// The turn: its header over the body (none when nothing rendered), and
    /// the facts the budget walk reads, ranges shifted past the header.
    fn turn(&self, n: usize, first_line: usize, last_line: usize, body: Body<'_>) -> Turn {
        let mut head_len = 0;
        let text = if body.text.is_empty() {
            String::new()
        } else {
            let when = body
                .first_ts
                .and_then(timefmt::parse_ts)
                .map(timefmt::local)
                .unwrap_or_else(|| "-".into());
            let head = match n {
                0 => format!("── before the first prompt · {when} ──\n"),
                _ => format!("── turn {n} · {when} ──\n"),
            };
            head_len = head.len();
            format!("{head}{}\n", body.text)
        };
        let acc = body.acc;
        Turn {
            n,
            first_line,
            last_line,
            text,
            summaries: acc.summaries,
            show: self.opts.show.clone(),
            assistant: acc
                .assistant
                .into_iter()
                .map(|(r, l)| (r.start + head_len..r.end + head_len, l))
                .collect(),
            prompts: acc.prompts,
            summary_bodies: acc.summary_bodies,
        }
    }

    fn entry(
        &self,
        out: &mut String,
        r: &Record<'_>,
        u: &crate::classify::Unit<'_>,
        ctx: &Ctx<'_, '_>,
        answered: &mut HashSet<String>,
        summaries: &mut Vec<usize>,
    ) {
        let no = ctx.no;
        let text = u.text.trim();
        let is_use = u.labels().any(|l| l == Label::AgentToolUse);
        let is_result = u.labels().any(|l| l == Label::AgentToolResult);
        match u.label {
            // Rendered as show renders it: attached images are noted.
            Label::UserMessage => push(out, "[user]", render::unit_body(r, u).trim()),
            Label::UserAnswer => push(out, "[user answered]", text),
            Label::UserRejection => push(out, "[user rejected the tool call]", text),
            Label::AgentMessage => push(out, "[assistant]", text),
            Label::AgentThinking if self.opts.thinking => {
                push(out, "[thinking]", render::unit_body(r, u).trim())
            }
            Label::AgentThinkingNarration if self.opts.thinking => {
                push(out, "[thinking, narration]", text)
            }
            Label::HarnessCompactionSummary => {
                summaries.push(no);
                let _ = writeln!(
                    out,
                    "══ compaction summary (L{no}): what came before was compacted into ══\n{}",
                    clean(text)
                );
            }
            Label::HarnessInterruptUser => out.push_str("[interrupted by the user]\n"),
            Label::HarnessInterruptTool => {
                out.push_str("[interrupted by the user during a tool call]\n")
            }
            Label::HarnessNotificationBackground
            | Label::HarnessNotificationMonitor
            | Label::HarnessNotificationSubagent
            // Whole: a notification is what the model was told (a task's
            // output file, a subagent's result), as a prompt is.
            | Label::HarnessNotificationTask => push(out, "[notification]", &one_line(text)),
            // The isMeta prompt a command or skill expands to is not re-injected
            // (meta lines never are, as --help says): the invocation line is.
            Label::HarnessCommandInvocation if r.is_meta() => {}
            Label::HarnessCommandInvocation => push(
                out,
                "[command]",
                &one_line(&crate::classify::markers::slash_typed(text).unwrap_or(text.into())),
            ),
            Label::HarnessCommandStdout => self.command_stdout(out, text, no),
            _ if is_use => self.tool_call(out, r, u, ctx.results, answered),
            // A result whose call is in this turn was printed under it; one
            // whose call is not says which tool it answers.
            _ if is_result && self.opts.full_tools => {
                if u.tool_use_id.is_some_and(|id| answered.contains(id)) {
                    return;
                }
                let a = Answer {
                    error: u.is_error,
                    text: String::new(),
                    full: Some(render::unit_body(r, u)),
                };
                result_line(out, &a, Some(u.tool_name.unwrap_or("?")));
            }
            // In summary mode a result is the status on its call's line.
            _ if is_result => {}
            Label::AgentCommunicationInbox => push(out, "[message]", text),
            _ => {}
        }
    }

    /// A command's output is read as a tool result is: whole with --tools
    /// full, else its head and a marker counting the rest.
    fn command_stdout(&self, out: &mut String, text: &str, no: usize) {
        let (tag, body) = command_output(text);
        if self.opts.full_tools {
            push(out, tag, body)
        } else {
            push(
                out,
                tag,
                &head_said(body, COMMAND_HEAD, &self.opts.show, no),
            )
        }
    }

    /// A tool call: with --tools full, its input and its result right under
    /// it (parallel calls are answered out of order); else one line with the
    /// result's status.
    fn tool_call(
        &self,
        out: &mut String,
        r: &Record<'_>,
        u: &crate::classify::Unit<'_>,
        results: &HashMap<&str, Answer>,
        answered: &mut HashSet<String>,
    ) {
        let block = u.block.and_then(|i| r.blocks().get(i));
        let name = u.tool_name.unwrap_or("");
        let input = block.map_or(std::borrow::Cow::Borrowed("{}"), |b| b.input_text());
        if !self.opts.full_tools {
            let status = u
                .tool_use_id
                .and_then(|id| results.get(id))
                .map(|a| status(a.error, render::without_reminders(&a.text)))
                .unwrap_or_default();
            let _ = writeln!(out, "[tool] {}{status}", render::tool_line(name, &input));
            return;
        }
        // Every call, even one with no input (`{}`).
        let tag = format!("[tool {}]", one_line(name));
        let shown = render::tool_input(name, &input);
        match shown.trim() {
            "" => {
                let _ = writeln!(out, "{tag}");
            }
            s => push(out, &tag, s),
        }
        if let Some((id, a)) = u.tool_use_id.and_then(|id| results.get_key_value(id)) {
            answered.insert(id.to_string());
            result_line(out, a, None);
        }
    }
}

/// A line that does not look like a message and that the structural skim
/// does not read as a whole object: a torn or garbled line can lose its
/// `"type"` key (Claude Code writes it near the end of a record), so it is
/// said too. A glued line of records that are no messages is read; a blank
/// line is nothing.
fn garbled(line: &crate::scan::Line<'_>) -> Option<(usize, &'static str)> {
    if crate::scan::json::one_object(line.bytes).is_ok() || !line_records(line).is_empty() {
        return None;
    }
    match parse_line(line) {
        Parsed::Malformed(m) if m.kind != crate::record::MalformedKind::Blank => {
            Some((line.no, m.kind.name()))
        }
        _ => None,
    }
}

/// What a turn's entries are, beside its text: the parts [`super::fit`] and
/// [`super::carried`] read.
#[derive(Default)]
struct Acc {
    summaries: Vec<usize>,
    summary_bodies: Vec<String>,
    /// Body ranges of the agent's messages, and their lines.
    assistant: Vec<(std::ops::Range<usize>, usize)>,
    prompts: Vec<String>,
}

impl Acc {
    /// Note what unit `u` of line `no` rendered to (`range` of the body).
    fn note(&mut self, u: &crate::classify::Unit<'_>, no: usize, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        match u.label {
            Label::AgentMessage => self.assistant.push((range, no)),
            Label::UserMessage => self.prompts.push(u.text.trim().to_string()),
            Label::HarnessCompactionSummary => self.summary_bodies.push(u.text.to_string()),
            _ => {}
        }
    }
}

/// UTF-16 units of a command's output kept without --tools full.
const COMMAND_HEAD: usize = 500;

/// `text` whole when it fits in `n` UTF-16 units, else its head and a marker
/// that counts what was left out and names the command that prints line `no`.
fn head_said(text: &str, n: usize, show: &str, no: usize) -> String {
    let total = super::pack::units(text);
    if total <= n {
        return text.to_string();
    }
    let end = super::pack::head_at(text, n);
    let omitted = total - super::pack::units(&text[..end]);
    format!(
        "{}[… {omitted} {} cut; `{show} --line {no} --no-truncate` prints {} …]",
        &text[..end],
        if omitted == 1 {
            "character"
        } else {
            "characters"
        },
        if omitted == 1 { "it" } else { "them" },
    )
}

/// A local command's output without its wrapper tag, and the tag it reads
/// under (TURN-006: stdout or stderr).
fn command_output(text: &str) -> (&'static str, &str) {
    use crate::classify::markers::xml_tag;
    for (name, tag) in [
        ("local-command-stdout", "[command output]"),
        ("local-command-stderr", "[command error output]"),
    ] {
        if text.starts_with(&format!("<{name}>")) {
            return (tag, xml_tag(text, name).unwrap_or(text));
        }
    }
    ("[command output]", text)
}

/// A line of the turn that is not a record csift can read.
fn unreadable(out: &mut String, no: usize, kind: &str, show: &str) {
    let _ = writeln!(
        out,
        "[csift: line {no} is not a readable record ({kind}); left out: {show} --line {no} --raw]"
    );
}

/// Blocks of a type csift does not model, which classify gives no unit, and
/// message content that is neither text nor blocks (an object, a number …).
fn unknown_blocks(out: &mut String, r: &Record<'_>, no: usize, show: &str) {
    if let Some(crate::record::Content::Other(k)) = r.content() {
        let _ = writeln!(
            out,
            "[csift: line {no} has message content of JSON type `{k}`, neither text nor blocks; left out: {show} --line {no} --raw]"
        );
    }
    for (i, b) in r.unknown_blocks() {
        let _ = writeln!(
            out,
            "[csift: block {i} of line {no} has unknown type `{}`; left out: {show} --line {no} --raw]",
            one_line(b.kind())
        );
    }
}

/// A tool call's answer, as read from its result unit.
struct Answer {
    error: bool,
    /// The text the model was sent (summary mode's status).
    text: String,
    /// The rendered body (`--tools full`).
    full: Option<String>,
}

/// What [`Walker::entry`] reads beside the unit: its line and the turn's answers.
struct Ctx<'a, 'b> {
    no: usize,
    results: &'b HashMap<&'a str, Answer>,
}

/// `[tool result]` (naming the tool when its call is not just above) and the
/// rendered body, or `(no output)`.
fn result_line(out: &mut String, a: &Answer, tool: Option<&str>) {
    let name = tool
        .map(|t| format!(" of {}", one_line(t)))
        .unwrap_or_default();
    let tag = match a.error {
        true => format!("[tool result{name}, error]"),
        false => format!("[tool result{name}]"),
    };
    // Leading blank lines go, a first line's indentation stays (a numbered
    // Read line, indented code).
    let body = a.full.as_deref().unwrap_or("");
    match body.trim_end().trim_start_matches(['\n', '\r']) {
        b if b.trim().is_empty() => {
            let _ = writeln!(out, "{tag} (no output)");
        }
        b => push(out, &tag, b),
    }
}

fn push(out: &mut String, tag: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    let _ = writeln!(out, "{tag} {}", clean(text));
}

/// The line that says what went wrong: the first, unless it is Bash's bare
/// `Exit code N`, which is then followed by the first line that reads as an
/// error (`fatal: …`, `Error: …`), else by the output's last line.
fn error_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("");
    let bare_exit = first
        .strip_prefix("Exit code ")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !bare_exit {
        return one_line(first);
    }
    let rest: Vec<&str> = lines.collect();
    let says_error = |l: &&&str| {
        let l = l.to_ascii_lowercase();
        [
            "error",
            "fatal",
            "fail",
            "panic",
            "exception",
            "denied",
            "not found",
            "no such",
        ]
        .iter()
        .any(|w| l.contains(w))
    };
    match rest.iter().find(says_error).or(rest.last()) {
        Some(why) => format!("{first} · {}", one_line(why)),
        None => one_line(first),
    }
}

/// ` → 12 lines` or ` → error: first line` for a tool call's one-line summary.
fn status(err: bool, text: &str) -> String {
    if err {
        return format!(" → error: {}", render::cut_chars(&error_line(text), 160));
    }
    match text.lines().count() {
        0 => " → (no output)".to_string(),
        1 => format!(" → {}", render::cut_chars(&one_line(text), 120)),
        n => format!(" → {n} lines"),
    }
}

#[cfg(test)]
mod tests;
