//! Rendering a transcript's turns as plain conversation text, newest first and
//! lazily, so a budget walk parses only the turns it keeps. Turn spans come from
//! FileIndex (the numbering search prints). A compaction summary is a turn member
//! and is rendered inside its turn under a banner, never treated as a boundary
//! (CMP-011). Records a resume replay wrote twice are rendered once, at their
//! latest copy (REC-091). Hook-injected context is left out, so a reconstruction
//! injected by a hook is never re-injected into the next one.

use std::collections::{HashMap, HashSet};

use super::pack::Turn;
use crate::classify::{classify, FileIndex, Label};
use crate::record::{line_records, parse_line, Parsed, Record};
use crate::render;
use crate::scan::Lines;
use crate::timefmt;
use entry::{unknown_blocks, unreadable, Answer, Ctx};

mod entry;

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

#[cfg(test)]
mod tests;
