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
use crate::cmd::show::render;
use crate::output::sanitize::{clean, one_line};
use crate::record::{line_records, Record};
use crate::scan::Lines;
use crate::timefmt;

#[derive(Debug, Clone, Copy)]
pub struct Opts {
    pub thinking: bool,
    pub full_tools: bool,
    pub lane: bool,
}

/// Yields turns newest first, from the last turn down to turn 0.
pub struct Walker<'a> {
    buf: &'a [u8],
    idx: &'a FileIndex,
    opts: Opts,
    next: Option<usize>,
    seen: HashSet<String>,
}

impl<'a> Walker<'a> {
    pub fn new(buf: &'a [u8], idx: &'a FileIndex, opts: Opts) -> Walker<'a> {
        Walker {
            buf,
            idx,
            opts,
            next: Some(idx.turns()),
            seen: HashSet::new(),
        }
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

impl Walker<'_> {
    fn render(&mut self, n: usize) -> Turn {
        let (no, off) = match n {
            0 => (1, 0),
            _ => self.idx.turn_opener(n).unwrap_or((1, 0)),
        };
        // Up to the next opener: a replayed copy of the history (REC-091)
        // is not this turn's again.
        let end = self.idx.turn_end(n).unwrap_or(self.buf.len());
        let region = &self.buf[..end.min(self.buf.len())];
        let mut recs: Vec<(usize, Box<Record<'_>>)> = Vec::new();
        let mut last_line = no;
        for line in Lines::from(region, off, no) {
            last_line = line.no;
            if !may_be_message(line.bytes) {
                continue;
            }
            // A glued line's records (a write race) are records too.
            for (_, r) in line_records(&line) {
                let member = matches!(r.kind(), "user" | "assistant")
                    && r.has_message()
                    && (self.opts.lane || !r.is_sidechain())
                    && self.idx.turn(line.no) == Some(n);
                if member {
                    recs.push((line.no, r));
                }
            }
        }
        // Later copies win: walking newest first, a uuid already seen is skipped.
        let mut keep = vec![true; recs.len()];
        for (i, (_, r)) in recs.iter().enumerate().rev() {
            if let Some(u) = r.uuid.as_deref() {
                keep[i] = self.seen.insert(u.to_string());
            }
        }
        let mut results: HashMap<&str, (bool, String)> = HashMap::new();
        let mut units_of = Vec::new();
        for ((no, r), k) in recs.iter().zip(&keep) {
            if !k {
                continue;
            }
            let mut units = Vec::new();
            classify(r, *no, self.idx, &mut units);
            for u in &units {
                if u.labels().any(|l| l == Label::AgentToolResult) {
                    if let Some(id) = u.tool_use_id {
                        results.insert(id, (u.is_error, u.text.to_string()));
                    }
                }
            }
            units_of.push((*no, r, units));
        }
        let mut body = String::new();
        let mut summaries = Vec::new();
        let mut first_ts: Option<&str> = None;
        for (no, r, units) in &units_of {
            for u in units {
                let before = body.len();
                self.entry(&mut body, r, u, *no, &results, &mut summaries);
                if body.len() > before && first_ts.is_none() {
                    first_ts = r.timestamp.as_deref();
                }
            }
        }
        let text = if body.is_empty() {
            String::new()
        } else {
            let when = first_ts
                .and_then(timefmt::parse_ts)
                .map(timefmt::local)
                .unwrap_or_else(|| "-".into());
            let head = match n {
                0 => format!("── before the first prompt · {when} ──\n"),
                _ => format!("── turn {n} · {when} ──\n"),
            };
            format!("{head}{body}\n")
        };
        Turn {
            n,
            first_line: no,
            last_line,
            text,
            summaries,
        }
    }

    fn entry(
        &self,
        out: &mut String,
        r: &Record<'_>,
        u: &crate::classify::Unit<'_>,
        no: usize,
        results: &HashMap<&str, (bool, String)>,
        summaries: &mut Vec<usize>,
    ) {
        let text = u.text.trim();
        let is_use = u.labels().any(|l| l == Label::AgentToolUse);
        let is_result = u.labels().any(|l| l == Label::AgentToolResult);
        match u.label {
            // Rendered as show renders it: attached images are noted.
            Label::UserMessage => push(out, "[user]", render::unit_body(r, u).trim()),
            Label::UserAnswer => push(out, "[user answered]", text),
            Label::UserRejection => push(out, "[user rejected the tool call]", text),
            Label::AgentMessage => push(out, "[assistant]", text),
            Label::AgentThinking if self.opts.thinking => push(out, "[thinking]", text),
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
            Label::HarnessInterruptUser | Label::HarnessInterruptTool => {
                out.push_str("[interrupted by the user]\n")
            }
            Label::HarnessNotificationBackground
            | Label::HarnessNotificationMonitor
            | Label::HarnessNotificationSubagent
            | Label::HarnessNotificationTask => push(
                out,
                "[notification]",
                &render::cut_chars(&one_line(text), 300),
            ),
            // The isMeta prompt a command or skill expands to is not re-injected
            // (meta lines never are, as --help says): the invocation line is.
            Label::HarnessCommandInvocation if r.is_meta() => {}
            Label::HarnessCommandInvocation => push(out, "[command]", &one_line(text)),
            Label::HarnessCommandStdout => {
                push(out, "[command output]", &render::cut_chars(text, 500))
            }
            _ if is_use => {
                let block = u.block.and_then(|i| r.blocks().get(i));
                let name = u.tool_name.unwrap_or("");
                let input = block.map_or(std::borrow::Cow::Borrowed("{}"), |b| b.input_text());
                if self.opts.full_tools {
                    push(
                        out,
                        &format!("[tool {}]", one_line(name)),
                        &render::tool_input(name, &input),
                    );
                } else {
                    let status = u
                        .tool_use_id
                        .and_then(|id| results.get(id))
                        .map(|(err, t)| status(*err, t))
                        .unwrap_or_default();
                    let _ = writeln!(out, "[tool] {}{status}", render::tool_line(name, &input));
                }
            }
            _ if is_result && self.opts.full_tools => {
                let body = render::unit_body(r, u);
                let tag = if u.is_error {
                    "[tool result, error]"
                } else {
                    "[tool result]"
                };
                push(out, tag, body.trim());
            }
            // In summary mode a result is the status on its call's line.
            _ if is_result => {}
            Label::AgentCommunicationInbox => push(out, "[message]", text),
            _ => {}
        }
    }
}

fn push(out: &mut String, tag: &str, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    let _ = writeln!(out, "{tag} {}", clean(text));
}

/// ` → 12 lines` or ` → error: first line` for a tool call's one-line summary.
fn status(err: bool, text: &str) -> String {
    if err {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return format!(" → error: {}", render::cut_chars(&one_line(first), 120));
    }
    match text.lines().count() {
        0 => " → (no output)".to_string(),
        1 => format!(" → {}", render::cut_chars(&one_line(text), 120)),
        n => format!(" → {n} lines"),
    }
}
