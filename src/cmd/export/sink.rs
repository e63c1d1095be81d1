//! What a page is made of, independent of its language: the events the walk
//! ([`super::page`]) emits in transcript order, which the HTML
//! ([`super::html`]) and Markdown ([`super::md`]) writers turn into text as
//! they come. Nothing is held back but the page's running counts, so memory
//! stays flat whatever the length of the session.

use std::io;
use std::ops::Range;

/// The page header: what `list` would say of the session, and more.
#[derive(Debug, Default)]
pub(crate) struct Head {
    pub(crate) title: Option<String>,
    pub(crate) session: String,
    pub(crate) agent: Option<String>,
    pub(crate) file: String,
    pub(crate) bytes: u64,
    pub(crate) cwd: Option<String>,
    pub(crate) branch: Option<String>,
    /// First and last `version` written.
    pub(crate) versions: (Option<String>, Option<String>),
    pub(crate) models: Vec<String>,
    /// First and last timestamp.
    pub(crate) span: (Option<String>, Option<String>),
    pub(crate) turns: usize,
    pub(crate) lanes: usize,
    pub(crate) highlight: Option<String>,
    pub(crate) labels: Option<String>,
}

impl Head {
    /// The header's facts in the order both formats print them, each left
    /// out when empty; `highlight` says where the format puts its matches.
    pub(crate) fn rows(&self, highlight: &str) -> Vec<(&'static str, String)> {
        let mut rows = Vec::new();
        let mut push = |k: &'static str, v: Option<String>| {
            if let Some(v) = v.filter(|v| !v.is_empty()) {
                rows.push((k, v));
            }
        };
        // A span is said whole even when both ends are one time; a version
        // only when it changed.
        let both =
            |(a, b): &(Option<String>, Option<String>), same: bool, f: &dyn Fn(&str) -> String| {
                match (a, b) {
                    (Some(a), Some(b)) if same || a != b => Some(format!("{} → {}", f(a), f(b))),
                    (a, b) => a.as_deref().or(b.as_deref()).map(f),
                }
            };
        push("session", Some(self.session.clone()));
        push("agent", self.agent.clone());
        push("cwd", self.cwd.clone());
        push("branch", self.branch.clone());
        push("versions", both(&self.versions, false, &|v| v.to_string()));
        push("models", Some(self.models.join(", ")));
        push("span", both(&self.span, true, &when));
        push("turns", Some(self.turns.to_string()));
        push("lanes", (self.lanes > 0).then(|| self.lanes.to_string()));
        let size = crate::cmd::human_bytes(self.bytes);
        push("file", Some(format!("{} ({size})", self.file)));
        push("labels", self.labels.clone());
        push(
            "highlight",
            self.highlight
                .as_ref()
                .map(|re| format!("/{re}/ — {highlight}")),
        );
        rows
    }
}

/// The page footer: what was shown and what was found.
#[derive(Debug, Default)]
pub(crate) struct Foot {
    pub(crate) records: usize,
    pub(crate) units: usize,
    pub(crate) images: usize,
    pub(crate) raw: usize,
    /// `(kind, count)` of the marks left in the page.
    pub(crate) findings: Vec<(&'static str, usize)>,
    pub(crate) lanes_placed: usize,
    pub(crate) lanes_unplaced: usize,
    pub(crate) problems: usize,
}

/// How a text unit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A genuine prompt, an answer, a rejection, a slash command, inbox text.
    Prompt,
    /// The agent's visible text.
    Reply,
    /// Thinking: collapsed.
    Thinking,
    /// A compaction summary.
    Summary,
    /// Harness text (notifications, hook output, attachments): collapsed.
    Harness,
}

/// Where a unit is: its label, physical line and time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct At<'a> {
    pub(crate) label: &'a str,
    pub(crate) line: usize,
    pub(crate) ts: Option<&'a str>,
}

pub(crate) trait Sink {
    fn head(&mut self, h: &Head) -> io::Result<()>;
    /// A turn starts in the current scope (the main transcript or a lane):
    /// the previous one of that scope ends.
    fn turn(&mut self, n: usize, ts: Option<&str>) -> io::Result<()>;
    fn text(&mut self, kind: Kind, at: &At<'_>, body: &str) -> io::Result<()>;
    /// A tool call: `line` its one-line form, `input` its rendered input.
    /// Its result, lanes and marks follow until [`Sink::call_end`].
    fn call(&mut self, at: &At<'_>, line: &str, input: &str) -> io::Result<()>;
    /// A tool result; `note` says where its call is when it is not above.
    fn result(
        &mut self,
        at: &At<'_>,
        body: &str,
        error: bool,
        note: Option<&str>,
    ) -> io::Result<()>;
    fn call_end(&mut self) -> io::Result<()>;
    /// A lane (or a lane-less subagent's nested records) opens a scope of its
    /// own: `title` and its facts as `(name, value)` rows.
    fn lane(&mut self, id: &str, title: &str, facts: &[(&str, String)]) -> io::Result<()>;
    fn lane_end(&mut self) -> io::Result<()>;
    /// A compaction boundary.
    fn boundary(&mut self, at: &At<'_>, text: &str) -> io::Result<()>;
    /// An image: `mime` from a fixed list, `b64` its checked base64 payload.
    fn image(&mut self, mime: &str, b64: &[u8], caption: &str) -> io::Result<()>;
    /// Bytes csift does not model (or cannot parse), shown as they are.
    fn raw(&mut self, title: &str, bytes: &[u8]) -> io::Result<()>;
    /// A mark where `audit` would report something.
    fn finding(&mut self, kind: &str, msg: &str) -> io::Result<()>;
    /// Records with no content, one row each.
    fn quiet(&mut self, rows: &[String]) -> io::Result<()>;
    /// A part of the page after the transcript (lanes no call placed).
    fn part(&mut self, title: &str, note: &str) -> io::Result<()>;
    fn foot(&mut self, f: &Foot) -> io::Result<()>;
}

/// `2026-09-01 12:00:03Z` from a record's timestamp; the text as written when
/// it does not parse.
pub(crate) fn when(ts: &str) -> String {
    match crate::timefmt::parse_ts(ts) {
        Some(t) => t.strftime("%Y-%m-%d %H:%M:%SZ").to_string(),
        None => ts.to_string(),
    }
}

/// An id safe in an HTML `id` or a Markdown anchor: ASCII letters, digits, `-`, `_`.
pub(crate) fn anchor(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// Jump-index entries kept; the marks themselves are all written.
const INDEX_MAX: usize = 5000;

/// One `--highlight` match kept for the jump index: its number in the page,
/// the turn it falls in, the line of the record, and the match on one line.
pub(crate) struct Hit {
    pub(crate) n: usize,
    pub(crate) turn: String,
    pub(crate) line: usize,
    pub(crate) snippet: String,
}

/// A page's `--highlight` matches: every one counted, the first
/// [`INDEX_MAX`] kept for the jump index and the rest said as a number.
pub(crate) struct Hits {
    re: Option<regex::Regex>,
    count: usize,
    index: Vec<Hit>,
}

impl Hits {
    pub(crate) fn new(re: Option<regex::Regex>) -> Hits {
        Hits {
            re,
            count: 0,
            index: Vec::new(),
        }
    }

    /// The pattern, when the page highlights.
    pub(crate) fn re(&self) -> Option<&regex::Regex> {
        self.re.as_ref()
    }

    /// Whether `s` holds a match.
    pub(crate) fn any(&self, s: &str) -> bool {
        self.re.as_ref().is_some_and(|re| re.is_match(s))
    }

    /// Count the (non-empty) matches in `s`, text of record line `line` in
    /// `turn`: each one's byte range in `s` and its number in the page.
    pub(crate) fn find(&mut self, s: &str, turn: &str, line: usize) -> Vec<(Range<usize>, usize)> {
        let Some(re) = &self.re else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for m in re.find_iter(s).filter(|m| !m.is_empty()) {
            self.count += 1;
            if self.index.len() < INDEX_MAX {
                self.index.push(Hit {
                    n: self.count,
                    turn: turn.to_string(),
                    line,
                    snippet: crate::render::cut_chars(
                        &crate::output::sanitize::one_line(m.as_str()),
                        80,
                    ),
                });
            }
            found.push((m.range(), self.count));
        }
        found
    }

    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// The kept entries, in page order (taken: the index is written once).
    pub(crate) fn take(&mut self) -> Vec<Hit> {
        std::mem::take(&mut self.index)
    }

    /// Matches counted but not kept for the index.
    pub(crate) fn unlisted(&self) -> usize {
        self.count.saturating_sub(INDEX_MAX)
    }
}

#[cfg(test)]
mod tests;
