//! Per-lane accumulation while a file is scanned: record and tool-call counts,
//! first and last record time, tokens deduplicated per `message.id` (max per field
//! across the copies of one message, REC-020), the child's own last words, and
//! whether the lane ends on an unanswered tool_use (SUB-024, BASH-018, TAIL-010).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::record::Record;

/// Tokens of one lane, each message id counted once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Tokens {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_creation: u64,
}

impl Tokens {
    fn max(&mut self, o: &Tokens) {
        self.input = self.input.max(o.input);
        self.output = self.output.max(o.output);
        self.cache_read = self.cache_read.max(o.cache_read);
        self.cache_creation = self.cache_creation.max(o.cache_creation);
    }

    fn add(&mut self, o: &Tokens) {
        // Saturating: a corrupt count near u64::MAX must not wrap to a small one.
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_creation = self.cache_creation.saturating_add(o.cache_creation);
    }
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

/// The unanswered tool_use a lane ends on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pending {
    pub(crate) tool_name: String,
    pub(crate) since: Option<String>,
    pub(crate) line: usize,
    /// Claude Code's reason when it would hold this call for a human "Yes"
    /// (its dangerous-rm rule on a Bash command, BASH-015, SUB-024, TAIL-010);
    /// `None`: awaiting execution, as far as the transcript can tell.
    pub(crate) escalation: Option<String>,
}

/// One tool_use of the lane's newest record: id, tool name, and the
/// dangerous-rm reason when Claude Code would hoist it ([`crate::bash::for_tool`]).
#[derive(Debug, Clone, Default)]
struct Use {
    id: String,
    name: String,
    escalation: Option<String>,
}

impl Use {
    fn new(b: &crate::record::Block<'_>, id: &str) -> Use {
        let name = b.name.as_deref().unwrap_or("").to_string();
        // Only a shell call's command is read, and only Bash's as bash (WIN-005).
        let command = b
            .input
            .filter(|_| crate::bash::is_bash_tool(&name))
            .and_then(|raw| crate::scan::json::field(raw.get().as_bytes(), b"command"))
            .and_then(crate::scan::json::string);
        let escalation = command
            .and_then(|c| crate::bash::for_tool(&name, &c))
            .and_then(|v| v.reason());
        Use {
            id: id.to_string(),
            name,
            escalation,
        }
    }
}

/// What one lane's records add up to.
#[derive(Debug, Clone, Default)]
pub(crate) struct LaneStats {
    pub(crate) id: String,
    /// Line of the lane's first record in its file (the chain root for inline lanes).
    pub(crate) root_line: usize,
    pub(crate) root_uuid: Option<String>,
    /// Text of the first user/assistant record (the spawn prompt on a normal lane).
    pub(crate) seed: Option<String>,
    pub(crate) started: Option<String>,
    pub(crate) last: Option<String>,
    pub(crate) records: usize,
    pub(crate) tool_calls: usize,
    pub(crate) tokens: Tokens,
    pub(crate) last_stop_reason: Option<String>,
    pub(crate) last_assistant_ts: Option<String>,
    /// The child's last assistant text (its own final words).
    pub(crate) child_final: Option<String>,
    pub(crate) pending: Option<Pending>,
}

#[derive(Default)]
struct LastMeaningful {
    assistant: bool,
    uses: Vec<Use>,
    ts: Option<String>,
    line: usize,
}

#[derive(Default)]
pub(crate) struct LaneAcc {
    stats: LaneStats,
    tool_ids: HashSet<String>,
    tokens: HashMap<String, Tokens>,
    answered: HashSet<String>,
    last: LastMeaningful,
    seeded: bool,
    /// The parsed times behind `stats.started` and `stats.last`.
    span: (Option<jiff::Timestamp>, Option<jiff::Timestamp>),
}

impl LaneAcc {
    pub(crate) fn new(id: &str, root_line: usize) -> LaneAcc {
        LaneAcc {
            stats: LaneStats {
                id: id.to_string(),
                root_line,
                ..LaneStats::default()
            },
            ..LaneAcc::default()
        }
    }

    pub(crate) fn id(&self) -> &str {
        &self.stats.id
    }

    /// Count a record that belongs to this lane.
    pub(crate) fn feed(&mut self, rec: &Record<'_>, line: usize) {
        let s = &mut self.stats;
        s.records += 1;
        if s.root_uuid.is_none() {
            s.root_uuid = rec.uuid.as_deref().map(str::to_string);
        }
        if let Some(ts) = rec.timestamp.as_deref() {
            self.span(ts);
        }
        let kind = rec.kind();
        if !rec.has_message() || !(kind == "user" || kind == "assistant") {
            return;
        }
        if !self.seeded {
            self.seeded = true;
            self.stats.seed = Some(message_text(rec));
        }
        let uses = self.calls(rec);
        if kind == "assistant" {
            self.assistant(rec, line);
        }
        self.last = LastMeaningful {
            assistant: kind == "assistant",
            uses,
            ts: rec.timestamp.as_deref().map(str::to_string),
            line,
        };
    }

    /// Widen the lane's span to `ts`. REC-089: timestamps are not monotone
    /// in file order (a replay, a writer's lag), so a lane's span is its
    /// earliest and latest time, as stats reports them, each kept as
    /// written. A time that does not parse only fills a gap.
    fn span(&mut self, ts: &str) {
        let s = &mut self.stats;
        let t = crate::timefmt::parse_ts(ts);
        let (lo, hi) = &mut self.span;
        if s.started.is_none() || t.is_some_and(|t| lo.is_none_or(|lo| t < lo)) {
            s.started = Some(ts.to_string());
            *lo = t.or(*lo);
        }
        if s.last.is_none() || t.is_some_and(|t| hi.is_none_or(|hi| t > hi)) {
            s.last = Some(ts.to_string());
            *hi = t.or(*hi);
        }
    }

    /// Count the record's tool calls (each id once), note the calls it
    /// answers, and return its own calls.
    fn calls(&mut self, rec: &Record<'_>) -> Vec<Use> {
        let mut uses = Vec::new();
        for b in rec.blocks() {
            match b.kind() {
                "tool_use" => {
                    if let Some(id) = b.id.as_deref() {
                        if self.tool_ids.insert(id.to_string()) {
                            self.stats.tool_calls += 1;
                        }
                        uses.push(Use::new(b, id));
                    }
                }
                "tool_result" => {
                    if let Some(id) = b.tool_use_id.as_deref() {
                        self.answered.insert(id.to_string());
                    }
                }
                _ => {}
            }
        }
        uses
    }

    /// An assistant record: its time and stop reason, its text as the
    /// child's last words, and its usage (max per field per message id).
    fn assistant(&mut self, rec: &Record<'_>, line: usize) {
        let s = &mut self.stats;
        s.last_assistant_ts = rec.timestamp.as_deref().map(str::to_string);
        s.last_stop_reason = rec
            .message
            .as_ref()
            .and_then(|m| m.stop_reason.as_deref())
            .map(str::to_string);
        let text = message_text(rec);
        if !text.trim().is_empty() {
            s.child_final = Some(text);
        }
        if let Some(t) = usage(rec) {
            let key = rec
                .message_id()
                .map_or_else(|| format!("line:{line}"), str::to_string);
            self.tokens.entry(key).or_default().max(&t);
        }
    }

    pub(crate) fn finish(mut self) -> LaneStats {
        let mut total = Tokens::default();
        for t in self.tokens.values() {
            total.add(t);
        }
        self.stats.tokens = total;
        if self.last.assistant {
            // Unanswered calls, newest first; one Claude Code would hoist to a
            // human wins, as that is what holds the lane (SUB-024, TAIL-010).
            let mut open = self
                .last
                .uses
                .iter()
                .rev()
                .filter(|u| !self.answered.contains(&u.id));
            let newest = open.clone().next();
            if let Some(u) = open.find(|u| u.escalation.is_some()).or(newest) {
                self.stats.pending = Some(Pending {
                    tool_name: u.name.clone(),
                    since: self.last.ts.clone(),
                    line: self.last.line,
                    escalation: u.escalation.clone(),
                });
            }
        }
        self.stats
    }
}

/// The tokens of an assistant record's `usage`.
fn usage(rec: &Record<'_>) -> Option<Tokens> {
    let raw = rec.message.as_ref().and_then(|m| m.usage)?;
    let u = serde_json::from_str::<Usage>(raw.get()).ok()?;
    Some(Tokens {
        input: u.input_tokens.unwrap_or(0),
        output: u.output_tokens.unwrap_or(0),
        cache_read: u.cache_read_input_tokens.unwrap_or(0),
        cache_creation: u.cache_creation_input_tokens.unwrap_or(0),
    })
}

/// A message's text: the string content, or its text blocks joined by newlines.
pub(crate) fn message_text(rec: &Record<'_>) -> String {
    if let Some(s) = rec.text_content() {
        return s.to_string();
    }
    let mut out = String::new();
    for b in rec.blocks() {
        if b.kind() == "text" {
            if let Some(t) = b.text.as_deref() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
    }
    out
}
