//! What a launch's result and the carriers outside notifications say: the
//! `toolUseResult` keys read (BG-002, BG-004, BG-007, BASH-027/029), the
//! id and output path in the result text (BG-002: `with ID: `, `written to: `;
//! BG-007: `(task `; BASH-027: `(ID: `), and how a shell got into the
//! background (BASH-029's triggers). Pure: no I/O.

use serde::Deserialize;

use super::{Kind, Trigger};

/// The `toolUseResult` keys a launch or carrier is read from.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Echo {
    pub(crate) status: Option<serde_json::Value>,
    pub(crate) agent_id: Option<String>,
    pub(crate) background_task_id: Option<String>,
    pub(crate) task_id: Option<String>,
    pub(crate) output_file: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) workflow_name: Option<String>,
    pub(crate) timed_out_after_ms: Option<serde_json::Value>,
    pub(crate) backgrounded_by_user: Option<bool>,
    pub(crate) backgrounded_to_deliver_message: Option<bool>,
    pub(crate) task: Option<Retrieval>,
    #[serde(rename = "task_id")]
    pub(crate) stop_task_id: Option<String>,
    pub(crate) shell_id: Option<String>,
    pub(crate) message: Option<String>,
}

#[derive(Deserialize, Default)]
pub(crate) struct Retrieval {
    pub(crate) task_id: Option<String>,
    pub(crate) status: Option<String>,
}

#[derive(Deserialize, Default)]
pub(crate) struct Input {
    pub(crate) command: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) run_in_background: Option<bool>,
    pub(crate) persistent: Option<bool>,
    pub(crate) ws: Option<Ws>,
}

#[derive(Deserialize, Default)]
pub(crate) struct Ws {
    pub(crate) url: Option<String>,
}

/// The token after `marker` in `text`: up to a blank, `,` or `)`, or a `.`
/// that ends a sentence.
pub(crate) fn after(text: &str, marker: &str) -> Option<String> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| {
            c.is_whitespace()
                || c == ','
                || c == ')'
                || (c == '.' && rest[i + 1..].chars().next().is_none_or(char::is_whitespace))
        })
        .map_or(rest.len(), |(i, _)| i);
    let tok = rest[..end].trim_end_matches('.');
    (!tok.is_empty()).then(|| tok.to_string())
}

/// How a shell result says it went to the background, if it does (BASH-029):
/// the structured echo, else one of the four result templates, which all open
/// the text (a command's own output that mentions them does not).
pub(crate) fn shell_trigger(text: &str, echo: &Echo) -> Option<Trigger> {
    let t = text.trim_start();
    if echo.timed_out_after_ms.is_some() || t.starts_with("Command did not complete within") {
        Some(Trigger::Timeout)
    } else if echo.backgrounded_by_user == Some(true)
        || t.starts_with("Command was manually backgrounded")
    {
        Some(Trigger::User)
    } else if echo.backgrounded_to_deliver_message == Some(true)
        || (t.starts_with("Command was moved to the background")
            && t.contains("so that a message that arrived"))
    {
        Some(Trigger::Message)
    } else if echo.background_task_id.is_some()
        || t.starts_with("Command running in background with ID:")
        || t.starts_with("Command was moved to the background")
    {
        Some(Trigger::Unmarked)
    } else {
        None
    }
}

/// Whether a task first seen at its result was launched by a tool that makes
/// its kind: a result text alone (a file that quotes a template) is no launch.
pub(crate) fn tool_fits(kind: Kind, tool: &str) -> bool {
    match kind {
        Kind::Shell => matches!(tool, "Bash" | "PowerShell" | ""),
        Kind::Monitor => matches!(tool, "Monitor" | ""),
        Kind::Agent | Kind::Workflow => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BG-002, BG-007, BASH-027: the id and path markers of the launch results.
    #[test]
    fn result_markers_give_the_id_and_output_file_bg_002_007() {
        let shell = "Command running in background with ID: b7636e2. Output is being written to: /tmp/claude-1000/-p/s/tasks/b7636e2.output";
        assert_eq!(after(shell, "with ID: ").as_deref(), Some("b7636e2"));
        assert_eq!(
            after(shell, "written to: ").as_deref(),
            Some("/tmp/claude-1000/-p/s/tasks/b7636e2.output")
        );
        let moved = "Command did not complete within its 120s timeout and was moved to the background (ID: bx1y2z3w4). Output is being written to: /t/x.output.";
        assert_eq!(after(moved, "(ID: ").as_deref(), Some("bx1y2z3w4"));
        assert_eq!(after(moved, "written to: ").as_deref(), Some("/t/x.output"));
        assert_eq!(
            shell_trigger(moved, &Echo::default()),
            Some(Trigger::Timeout)
        );
        let mon =
            "Monitor started (task bmon12345, persistent - runs until TaskStop or session end).";
        assert_eq!(after(mon, "(task ").as_deref(), Some("bmon12345"));
    }
}
