//! Completion carriers: where a background task's end is written, and the
//! `<task-notification>` sections they hold.
//!
//! A notification rides THREE carriers in the main transcript (QT-008, BG-013):
//! a `queue-operation` `enqueue` line (a `remove` repeats it and delivers
//! nothing, BG-015), a `queued_command` attachment (mid-turn delivery), and a
//! `type:"user"` string record (idle delivery). A section is read only at a
//! boundary (`classify::markers::sections`), so prose quoting the tag is not a
//! carrier (SUB-025). Its inner tags: `<task-id>` (every one: an orphan summary
//! names several, BG-020), `<tool-use-id>`, `<status>` (an open set, BG-011),
//! `<event>` (a Monitor pulse, BG-016), `<summary>`.
//!
//! The legacy `<agent-notification>` (`<agent-id>`, `<status>`) is read the
//! same way, its agent id standing for the task id.
//!
//! Two more carriers end a task outside notifications: a `TaskOutput` retrieval
//! whose `toolUseResult.task.status` is terminal, and a `TaskStop`/`KillShell`
//! result that says it stopped one.

use std::borrow::Cow;

use crate::classify::markers::{sections as all_sections, xml_tag, SectionKind};
use crate::record::Record;

/// Which carrier a completion was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Carrier {
    /// A `type:"user"` record (the idle delivery).
    User,
    /// A `queue-operation` enqueue line (mid-turn delivery, BG-013).
    QueueOperation,
    /// A `queued_command` attachment (mid-turn delivery, QT-008).
    Attachment,
    /// A `TaskOutput` retrieval's `toolUseResult.task.status`.
    TaskOutput,
    /// A `TaskStop`/`KillShell` result.
    TaskStop,
}

/// Orphan sentinels (BG-020/021): `__orphan_summary__:<kind>` marks an
/// aggregate reconciliation; `__orphan_summary_live__:<id>` excludes a live task.
const ORPHAN: &str = "__orphan_summary__";
const ORPHAN_LIVE: &str = "__orphan_summary_live__:";

/// One `<task-notification>` section.
#[derive(Debug, Clone, Default)]
pub(crate) struct Section {
    /// Real task ids named (sentinels left out).
    pub(crate) task_ids: Vec<String>,
    /// Ids a `__orphan_summary_live__:` sentinel says are still live.
    pub(crate) live_ids: Vec<String>,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) status: Option<String>,
    pub(crate) event: Option<String>,
    pub(crate) summary: Option<String>,
    /// An aggregate orphan reconciliation, or a single orphan's summary.
    pub(crate) orphan: bool,
}

/// The boundary-anchored notification sections of a carrier text: every
/// `<task-notification>`, and the legacy `<agent-notification>` an async agent's
/// end was delivered in before it (Claude Code 2.0: `<agent-id>`, `<status>`,
/// `<summary>`, the same three carriers; the public corpus holds seven).
pub(crate) fn sections(text: &str) -> Vec<Section> {
    if !text.contains("<task-notification>") && !text.contains("<agent-notification>") {
        return Vec::new();
    }
    all_sections(text)
        .into_iter()
        .filter_map(|(k, a, b)| match k {
            SectionKind::Task => Some(section(&text[a..b])),
            SectionKind::AgentNote => Some(agent_section(&text[a..b])),
            _ => None,
        })
        .collect()
}

/// A legacy `<agent-notification>`: its `<agent-id>` is the task id.
fn agent_section(s: &str) -> Section {
    Section {
        task_ids: tag(s, "agent-id").into_iter().collect(),
        status: tag(s, "status"),
        summary: tag(s, "summary"),
        ..Section::default()
    }
}

fn tag(s: &str, name: &str) -> Option<String> {
    // `xml_tag` runs to the end when a close tag is missing; a section cut
    // short still names what it holds.
    let v = xml_tag(s, name)?.trim();
    (!v.is_empty()).then(|| v.to_string())
}

fn section(s: &str) -> Section {
    let mut out = Section {
        tool_use_id: tag(s, "tool-use-id"),
        status: tag(s, "status"),
        event: tag(s, "event"),
        summary: tag(s, "summary"),
        ..Section::default()
    };
    let mut at = 0;
    while let Some(i) = s[at..].find("<task-id>") {
        let start = at + i + "<task-id>".len();
        let end = s[start..].find("</task-id>").map_or(s.len(), |j| start + j);
        let id = s[start..end].trim();
        if let Some(live) = id.strip_prefix(ORPHAN_LIVE) {
            out.live_ids.push(live.to_string());
        } else if id.starts_with(ORPHAN) {
            out.orphan = true;
        } else if !id.is_empty() {
            out.task_ids.push(id.to_string());
        }
        at = end;
    }
    // A single orphan below the aggregate threshold is an ordinary notice whose
    // summary says the previous session left no completion record (BG-021).
    if out
        .summary
        .as_deref()
        .is_some_and(|s| s.contains("from the previous session"))
    {
        out.orphan = true;
    }
    out
}

/// Whether an `<event>` payload is a Monitor's timeout: the literal opens
/// `[Monitor timed out` (BG-017). A monitored command's own output that
/// merely says "timed out" is an ordinary event.
pub(crate) fn is_timeout_event(event: &str) -> bool {
    event
        .trim_start()
        .get(..18)
        .is_some_and(|h| h.eq_ignore_ascii_case("[Monitor timed out"))
}

/// A main-transcript record's carrier text, if it is one of the three carriers.
pub(crate) fn carrier_text<'r>(rec: &'r Record<'_>) -> Option<(Carrier, Cow<'r, str>)> {
    match rec.kind() {
        "queue-operation" => {
            if rec.operation.as_deref() != Some("enqueue") {
                return None;
            }
            rec.system_text().map(|t| (Carrier::QueueOperation, t))
        }
        "attachment" => {
            #[derive(serde::Deserialize)]
            struct Queued<'a> {
                #[serde(rename = "type", borrow, default)]
                kind: Option<Cow<'a, str>>,
                #[serde(borrow, default)]
                prompt: Option<Cow<'a, str>>,
            }
            let raw = rec.attachment?;
            let q: Queued<'_> = serde_json::from_str(raw.get()).ok()?;
            if q.kind.as_deref() != Some("queued_command") {
                return None;
            }
            q.prompt
                .map(|p| (Carrier::Attachment, Cow::Owned(p.into_owned())))
        }
        "user" => rec.user_text().map(|t| (Carrier::User, t)),
        _ => None,
    }
}

/// The agents-stopped notice (BG-025, CLS-008): plain text naming a count and
/// descriptions, never an id. `Some(count)` when `text` is one.
pub(crate) fn stopped_agents(text: &str) -> Option<usize> {
    if !crate::classify::markers::agents_stopped(text) {
        return None;
    }
    let t = text.trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    Some(digits.parse().unwrap_or(1))
}

/// A carrier line and the sections it holds.
#[derive(Debug, Clone)]
pub(crate) struct Hit {
    pub(crate) carrier: Carrier,
    pub(crate) file: std::path::PathBuf,
    pub(crate) line: usize,
    pub(crate) time: Option<String>,
    pub(crate) sections: Vec<Section>,
}

/// What one main-transcript record carries: a hit, or a note (the
/// agents-stopped notice, which names no id, BG-025, CLS-008).
pub(crate) enum Carried {
    Hit(Hit),
    Note(String),
}

/// The completion carriers of a main-transcript record at `line` of `file`.
pub(crate) fn carried(file: &std::path::Path, rec: &Record<'_>, line: usize) -> Option<Carried> {
    let (carrier, text) = carrier_text(rec)?;
    if let Some(n) = stopped_agents(&text) {
        let at = rec.timestamp.as_deref().unwrap_or("?");
        return Some(Carried::Note(format!(
            "{n} background agent(s) were stopped by the user at {} - the notice names no id, \
             so csift cannot mark which",
            at.get(..19).unwrap_or(at)
        )));
    }
    let sections = sections(&text);
    (!sections.is_empty()).then(|| {
        Carried::Hit(Hit {
            carrier,
            file: file.to_path_buf(),
            line,
            time: rec.timestamp.as_deref().map(str::to_string),
            sections,
        })
    })
}

/// A `TaskOutput` retrieval (its `task.status`) or a `TaskStop`/`KillShell`
/// result that says it stopped a task: a carrier from any lane, keyed by task id.
pub(crate) fn retrieval(
    file: &std::path::Path,
    rec: &Record<'_>,
    line: usize,
    echo: &super::echo::Echo,
    head: &str,
) -> Option<Hit> {
    let hit = |carrier, id: String, status: Option<String>| Hit {
        carrier,
        file: file.to_path_buf(),
        line,
        time: rec.timestamp.as_deref().map(str::to_string),
        sections: vec![Section {
            task_ids: vec![id],
            status,
            ..Section::default()
        }],
    };
    if let Some(r) = &echo.task {
        let (id, st) = (r.task_id.clone()?, r.status.clone()?);
        return Some(hit(Carrier::TaskOutput, id, Some(st)));
    }
    let message = echo.message.as_deref().unwrap_or(head);
    if !message.trim_start().starts_with("Successfully ")
        || !(message.contains("stopped") || message.contains("killed"))
    {
        return None;
    }
    let id = echo
        .stop_task_id
        .clone()
        .or_else(|| echo.shell_id.clone())
        .or_else(|| super::echo::after(message, ": "))?;
    Some(hit(Carrier::TaskStop, id, Some("killed".into())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BG-010, BG-016, BG-017, BG-020: every task id, the orphan sentinels, an
    /// event pulse whose own "timed out" is no Monitor timeout.
    #[test]
    fn sections_read_every_task_id_and_the_sentinels_bg_010_016_020() {
        let t = "<task-notification>\n<task-id>b1</task-id>\n<tool-use-id>toolu_1</tool-use-id>\n<status>completed</status>\n<summary>Background command \"x\" completed (exit code 0)</summary>\n</task-notification>\n<task-notification><task-id>bA</task-id><task-id>bB</task-id><task-id>__orphan_summary__:shell</task-id><task-id>__orphan_summary_live__:bC</task-id><status>stopped</status></task-notification>";
        let s = sections(t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].task_ids, ["b1"]);
        assert_eq!(s[0].tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(s[1].task_ids, ["bA", "bB"]);
        assert_eq!(s[1].live_ids, ["bC"]);
        assert!(s[1].orphan);
        let pulse = sections("<task-notification><task-id>bM</task-id><summary>Monitor event: \"w\"</summary><event>ssh: Connection timed out</event></task-notification>");
        assert_eq!(pulse[0].status, None);
        assert!(!is_timeout_event(pulse[0].event.as_deref().unwrap()));
        assert!(is_timeout_event(
            "[Monitor timed out \u{2014} re-arm if needed.]"
        ));
    }

    /// The legacy agent form (the public corpus, Claude Code 2.0.67): its
    /// agent id is the task id; quoted in prose it is no carrier either.
    #[test]
    fn an_agent_notification_names_its_agent() {
        let t = "<agent-notification>\n<agent-id>a8e9491</agent-id>\n<output-file>/tmp/claude/tasks/a8e9491.output</output-file>\n<status>completed</status>\n<summary>Agent \"Run ruff check\" completed.</summary>\nRead the output file to retrieve the full result.\n</agent-notification>";
        let s = sections(t);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].task_ids, ["a8e9491"]);
        assert_eq!(s[0].status.as_deref(), Some("completed"));
        assert_eq!(s[0].tool_use_id, None);
        assert!(
            sections("see <agent-notification><agent-id>x</agent-id></agent-notification>")
                .is_empty()
        );
    }

    /// SUB-025: a tag quoted in prose is no carrier.
    #[test]
    fn prose_quoting_the_tag_is_no_section_sub_025() {
        assert!(sections(
            "please parse <task-notification><task-id>x</task-id></task-notification>"
        )
        .is_empty());
    }
}
