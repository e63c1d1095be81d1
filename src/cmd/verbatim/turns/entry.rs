//! What each unit of a turn writes into the conversation text: its tagged
//! line (`[user]`, `[assistant]`, `[tool …]` …), a tool call with its answer
//! (whole with `--tools full`, else a one-line status), a command's output
//! cut to its head, and the `[csift: …]` notes for lines and blocks csift
//! cannot read. [`super::Walker`] decides which units a turn holds.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::super::pack;
use super::Walker;
use crate::classify::Label;
use crate::output::sanitize::{clean, one_line};
use crate::record::Record;
use crate::render;

impl Walker<'_> {
    pub(super) fn entry(
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

/// UTF-16 units of a command's output kept without --tools full.
const COMMAND_HEAD: usize = 500;

/// `text` whole when it fits in `n` UTF-16 units, else its head and a marker
/// that counts what was left out and names the command that prints line `no`.
pub(super) fn head_said(text: &str, n: usize, show: &str, no: usize) -> String {
    let total = pack::units(text);
    if total <= n {
        return text.to_string();
    }
    let end = pack::head_at(text, n);
    let omitted = total - pack::units(&text[..end]);
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
pub(super) fn command_output(text: &str) -> (&'static str, &str) {
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
pub(super) fn unreadable(out: &mut String, no: usize, kind: &str, show: &str) {
    let _ = writeln!(
        out,
        "[csift: line {no} is not a readable record ({kind}); left out: {show} --line {no} --raw]"
    );
}

/// Blocks of a type csift does not model, which classify gives no unit, and
/// message content that is neither text nor blocks (an object, a number …).
pub(super) fn unknown_blocks(out: &mut String, r: &Record<'_>, no: usize, show: &str) {
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
pub(super) struct Answer {
    pub(super) error: bool,
    /// The text the model was sent (summary mode's status).
    pub(super) text: String,
    /// The rendered body (`--tools full`).
    pub(super) full: Option<String>,
}

/// What [`Walker::entry`] reads beside the unit: its line and the turn's answers.
pub(super) struct Ctx<'a, 'b> {
    pub(super) no: usize,
    pub(super) results: &'b HashMap<&'a str, Answer>,
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
pub(super) fn error_line(text: &str) -> String {
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
