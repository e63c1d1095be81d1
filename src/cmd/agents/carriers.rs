//! The text shapes that carry a lane's outcome to its parent: the continuation
//! footer Claude Code appends to a synchronous return (SUB-019), the
//! `<task-notification>` sections of async completions (BG-004/005, BG-014/015),
//! the user-facing stop notices (BG-025), `<teammate-message>` sections and
//! `SendMessage` control signals (SUB-017, CLS-011). Pure string functions: no I/O.

use regex::Regex;
use serde::Serialize;

/// An async launch ack's text starts with this; match it as a prefix (SUB-016).
pub(crate) const ASYNC_ACK_PREFIX: &str = "Async agent launched successfully";
/// A workflow launch ack's text (CLS-009, BG-009).
pub(crate) const WORKFLOW_ACK_PREFIX: &str = "Workflow launched in background";
/// A synchronous return cut short by the user.
pub(crate) const INTERRUPT_PREFIX: &str = "[Request interrupted by user";

// SUB-019: the 2.1.258 template and the 2.1.3–2.1.62 one, anchored at the end.
// The `summary: '…'` clause is optional and its text any recap: the sample
// home's generator writes the template without it, and a recap Claude Code
// fills in would be text, not the placeholder.
// The regex crate has no back-references, so the SendMessage `to:` id is checked
// against the leading id in code.
fn footer() -> &'static Regex {
    crate::scan::re!(
        r"(?s)(?:\A|\n)agentId: ([A-Za-z0-9-]+) \((?:use SendMessage with to: '([A-Za-z0-9-]+)'(?:, summary: '[^'\n]*')? to continue this agent|for resuming to continue this agent's work if needed)\)(?:\n<usage>(.*?)</usage>)?\s*\z"
    )
}
fn notification() -> &'static Regex {
    crate::scan::re!(r"(?s)<task-notification>(.*?)</task-notification>")
}
fn stop_one() -> &'static Regex {
    crate::scan::re!(r#"^Background agent "(.*)" was stopped by the user\."#)
}
fn stop_many() -> &'static Regex {
    crate::scan::re!(r"(?s)^\d+ background agents were stopped by the user: (.*)\.$")
}
fn quoted() -> &'static Regex {
    crate::scan::re!(r#""((?:[^"\\]|\\.)*)""#)
}
fn teammate_msg() -> &'static Regex {
    crate::scan::re!(
        r#"(?s)<teammate-message\s+teammate_id="([^"]+)"[^>]*>(.*?)</teammate-message>"#
    )
}

/// The usage block of a continuation footer (CC ≥ 2.1.32).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Footer {
    pub(crate) agent_id: String,
    pub(crate) template: &'static str,
    pub(crate) total_tokens: Option<u64>,
    pub(crate) tool_uses: Option<u64>,
    pub(crate) duration_ms: Option<u64>,
}

/// Split Claude Code's continuation footer off a synchronous return: the agent's
/// words, and the footer when there was one (SUB-019).
pub(crate) fn split_footer(text: &str) -> (&str, Option<Footer>) {
    let Some(c) = footer().captures(text) else {
        return (text, None);
    };
    let id = c.get(1).map_or("", |m| m.as_str());
    if c.get(2).is_some_and(|to| to.as_str() != id) {
        return (text, None);
    }
    let mut f = Footer {
        agent_id: id.to_string(),
        template: if c.get(2).is_some() {
            "send-message"
        } else {
            "resume"
        },
        ..Footer::default()
    };
    if let Some(u) = c.get(3) {
        for line in u.as_str().lines() {
            let Some((k, v)) = line.split_once(':') else {
                continue;
            };
            let v = v.trim().parse::<u64>().ok();
            match k.trim() {
                "total_tokens" => f.total_tokens = v,
                "tool_uses" => f.tool_uses = v,
                "duration_ms" => f.duration_ms = v,
                _ => {}
            }
        }
    }
    let start = c.get(0).map_or(text.len(), |m| m.start());
    (text[..start].trim_end_matches('\n'), Some(f))
}

/// Every `agentId: <id>` line of a tool_result text (footer or async ack line; J4).
/// The engine's reading, shared with export's lane join ([`crate::lanes`]).
pub(crate) fn agent_id_lines(text: &str) -> impl Iterator<Item = &str> {
    crate::lanes::agent_id_lines(text)
}

/// Whether a spawn's tool_result text is an acknowledgement rather than a return.
pub(crate) fn is_ack_text(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with(ASYNC_ACK_PREFIX) || t.starts_with(WORKFLOW_ACK_PREFIX)
}

/// One `<task-notification>` section.
#[derive(Debug, Clone, Default)]
pub(crate) struct Notification {
    pub(crate) task_id: Option<String>,
    pub(crate) tool_use_id: Option<String>,
    pub(crate) status: Option<String>,
    pub(crate) result: Option<String>,
    pub(crate) line: usize,
    pub(crate) ts: Option<String>,
}

fn tag(section: &str, name: &str) -> Option<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let at = section.find(&open)? + open.len();
    let end = section[at..].find(&close)? + at;
    Some(section[at..end].trim().to_string())
}

/// The notification sections of one carrier text. Only a text that opens with a
/// notification carries one; prose that mentions the tag does not (SUB-025).
pub(crate) fn notifications(text: &str, line: usize, ts: Option<&str>) -> Vec<Notification> {
    if !text.trim_start().starts_with("<task-notification>") {
        return Vec::new();
    }
    notification()
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .map(|sec| {
            let s = sec.as_str();
            Notification {
                task_id: tag(s, "task-id"),
                tool_use_id: tag(s, "tool-use-id"),
                status: tag(s, "status"),
                result: tag(s, "result"),
                line,
                ts: ts.map(str::to_string),
            }
        })
        .collect()
}

/// Descriptions named by a "background agent(s) stopped by the user" notice
/// (BG-025, CLS-008). The notice carries no id: joins on it are by description.
pub(crate) fn stop_notice(text: &str) -> Vec<String> {
    let t = text.trim();
    if let Some(c) = stop_one().captures(t) {
        return c
            .get(1)
            .map(|m| vec![m.as_str().to_string()])
            .unwrap_or_default();
    }
    if let Some(list) = stop_many().captures(t).and_then(|c| c.get(1)) {
        return quoted()
            .captures_iter(list.as_str())
            .filter_map(|q| q.get(1).map(|m| m.as_str().to_string()))
            .collect();
    }
    Vec::new()
}

/// Whether a stop notice's description names the spawn's description (the notice
/// may shorten it with an ellipsis).
pub(crate) fn stop_matches(notice: &str, description: &str) -> bool {
    let n = notice.trim_end_matches(['.', '…']);
    !n.is_empty()
        && !description.is_empty()
        && (notice == description || description.starts_with(n))
}

/// `<teammate-message teammate_id="…">` sections: (sender name, signal type when
/// the body is a JSON object with a `type`; None for prose; CLS-011).
pub(crate) fn teammate_messages(text: &str) -> Vec<(String, Option<String>)> {
    if !text.contains("<teammate-message") {
        return Vec::new();
    }
    teammate_msg()
        .captures_iter(text)
        .map(|c| {
            let name = c.get(1).map_or("", |m| m.as_str()).to_string();
            let body = c.get(2).map_or("", |m| m.as_str()).trim();
            (name, json_type(body))
        })
        .collect()
}

fn json_type(body: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct T {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    if !body.starts_with('{') {
        return None;
    }
    serde_json::from_str::<T>(body).ok().and_then(|t| t.kind)
}

/// A `SendMessage` input's signal type: `type` (or `message.type`) other than
/// `message`/`direct` (SUB-017). None for a prose message.
pub(crate) fn send_signal(kind: Option<&str>, nested: Option<&str>) -> Option<String> {
    let k = kind.or(nested)?;
    (k != "message" && k != "direct").then(|| k.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every static pattern compiles (a typo would panic here, not turn a
    /// carrier shape silently off).
    #[test]
    fn static_patterns_compile() {
        for re in [
            footer(),
            notification(),
            stop_one(),
            stop_many(),
            quoted(),
            teammate_msg(),
        ] {
            assert!(!re.as_str().is_empty());
        }
    }

    #[test]
    fn footer_2_1_258_split_sub_019() {
        let t = "Report body\nline 2\nagentId: a0123456789abcdef (use SendMessage with to: 'a0123456789abcdef', summary: '<5-10 word recap>' to continue this agent)";
        let (body, f) = split_footer(t);
        assert_eq!(body, "Report body\nline 2");
        let f = f.unwrap();
        assert_eq!(f.agent_id, "a0123456789abcdef");
        assert_eq!(f.template, "send-message");
    }

    /// The template without its summary clause (the sample home's generator
    /// writes it so), or with a filled-in recap, is the same footer.
    #[test]
    fn footer_without_or_with_a_filled_summary_sub_019() {
        for t in [
            "Found it.\nagentId: a8eca4df3b343661c (use SendMessage with to: 'a8eca4df3b343661c' to continue this agent)",
            "Found it.\nagentId: a8eca4df3b343661c (use SendMessage with to: 'a8eca4df3b343661c', summary: 'trace the pool sizing' to continue this agent)",
        ] {
            let (body, f) = split_footer(t);
            assert_eq!(body, "Found it.", "{t}");
            assert_eq!(f.map(|f| f.agent_id), Some("a8eca4df3b343661c".into()));
        }
    }

    #[test]
    fn footer_legacy_with_usage_sub_019() {
        let t = "Done.\nagentId: a2898e3 (for resuming to continue this agent's work if needed)\n<usage>total_tokens: 5120\ntool_uses: 7\nduration_ms: 3300</usage>";
        let (body, f) = split_footer(t);
        assert_eq!(body, "Done.");
        let f = f.unwrap();
        assert_eq!(
            (f.total_tokens, f.tool_uses, f.duration_ms),
            (Some(5120), Some(7), Some(3300))
        );
    }

    #[test]
    fn footer_mismatched_to_is_not_a_footer() {
        let t = "x\nagentId: a1 (use SendMessage with to: 'a2', summary: '<5-10 word recap>' to continue this agent)";
        assert!(split_footer(t).1.is_none());
        assert!(split_footer("agentId: mentioned in prose").1.is_none());
    }

    #[test]
    fn notification_only_at_content_start_sub_025() {
        let n = notifications(
            "<task-notification>\n<task-id>a1</task-id>\n<tool-use-id>toolu_x</tool-use-id>\n<status>completed</status>\n<result>ok</result>\n</task-notification>",
            3,
            None,
        );
        assert_eq!(n.len(), 1);
        assert_eq!(n[0].result.as_deref(), Some("ok"));
        assert_eq!(n[0].tool_use_id.as_deref(), Some("toolu_x"));
        assert!(notifications(
            "see <task-notification><result>x</result></task-notification>",
            1,
            None
        )
        .is_empty());
    }

    #[test]
    fn stop_notices_bg_025() {
        assert_eq!(
            stop_notice("Background agent \"Fix tests\" was stopped by the user."),
            ["Fix tests"]
        );
        assert_eq!(
            stop_notice("2 background agents were stopped by the user: \"a b\", \"c\"."),
            ["a b", "c"]
        );
        assert!(stop_matches("Fix te…", "Fix tests now"));
        assert!(!stop_matches("Other", "Fix tests"));
    }

    #[test]
    fn teammate_signals_cls_011() {
        let m = teammate_messages("<teammate-message teammate_id=\"Rev-Bob\" color=\"blue\">{\"type\":\"idle_notification\"}</teammate-message>\n<teammate-message teammate_id=\"Rev-Bob\">hello</teammate-message>");
        assert_eq!(
            m,
            vec![
                ("Rev-Bob".into(), Some("idle_notification".into())),
                ("Rev-Bob".into(), None)
            ]
        );
        assert_eq!(send_signal(Some("message"), None), None);
        assert_eq!(
            send_signal(Some("shutdown_request"), None).as_deref(),
            Some("shutdown_request")
        );
        assert_eq!(
            send_signal(None, Some("shutdown_response")).as_deref(),
            Some("shutdown_response")
        );
    }
}
