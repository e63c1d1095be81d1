//! The rows `csift agents` prints: one [`LaneRow`] per lane (file lanes, inline
//! sidechains, and spawns whose lane was never written), one [`RunRow`] per
//! workflow run. These are the JSON Lines shapes; the tree printer reads the same
//! structs. Field names follow the spec's §13 and the wording.

use serde::Serialize;

use super::acc::Tokens;
use super::carriers::Footer;

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Teammate {
    pub(crate) name: Option<String>,
    pub(crate) team_name: Option<String>,
    /// Messages sent TO the teammate: `SendMessage` calls naming it, from other lanes.
    pub(crate) messages_in: usize,
    /// Messages FROM the teammate: `<teammate-message teammate_id="<name>">`
    /// sections recorded in other lanes.
    pub(crate) messages_out: usize,
    /// Of those, control signals by type (SUB-017, CLS-011); the rest is prose.
    pub(crate) signals_in: Vec<(String, usize)>,
    pub(crate) signals_out: Vec<(String, usize)>,
    pub(crate) terminated: bool,
    pub(crate) control_hint: &'static str,
}

/// SUB-020: a teammate has no background-task id and no process of its own.
pub(crate) const TEAMMATE_HINT: &str = "steer with SendMessage to its name; stop with SendMessage message {\"type\":\"shutdown_request\"}; TaskStop does not know teammates";

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct LaneRow {
    #[serde(rename = "type")]
    pub(crate) row: &'static str,
    pub(crate) session_id: String,
    pub(crate) project: String,
    pub(crate) main_present: bool,
    /// The lane's own id (usable as `@<agent_id>`); null for a lane-less spawn
    /// whose id the parent never recorded.
    pub(crate) agent_id: Option<String>,
    /// The lane's transcript (JSON `file`, as every command names it); for an
    /// inline sidechain the main file, with `line` its first record's.
    #[serde(rename = "file")]
    pub(crate) path: Option<String>,
    pub(crate) line: Option<usize>,
    pub(crate) shape: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) kind_basis: &'static str,
    pub(crate) agent_type: Option<String>,
    pub(crate) description: Option<String>,
    /// `main`, a parent agent id, or null (orphan).
    pub(crate) parent_id: Option<String>,
    pub(crate) spawn_tool_use_id: Option<String>,
    pub(crate) spawn_tool: Option<String>,
    pub(crate) join_rule: Option<&'static str>,
    pub(crate) join_agree: Vec<&'static str>,
    pub(crate) unresolved_reason: Option<&'static str>,
    pub(crate) depth: usize,
    #[serde(rename = "spawned")]
    pub(crate) spawn_utc: Option<String>,
    #[serde(rename = "started")]
    pub(crate) started_utc: Option<String>,
    #[serde(rename = "last_activity")]
    pub(crate) last_utc: Option<String>,
    #[serde(rename = "completed")]
    pub(crate) completed_utc: Option<String>,
    pub(crate) records: usize,
    pub(crate) tool_calls: usize,
    pub(crate) tokens: Tokens,
    /// A lane-less subagent whose records, tool calls and span come from its
    /// records nested in the parent's agent_progress records; `tokens` stay 0,
    /// as a nested usage copy holds the output count of a reply's first
    /// streamed chunk (the footer, where there is one, has the total). Only
    /// written when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) nested_records: bool,
    pub(crate) malformed_lines: usize,
    pub(crate) state: &'static str,
    pub(crate) carrier: Option<&'static str>,
    pub(crate) state_evidence: Option<String>,
    pub(crate) pending_classification: Option<&'static str>,
    pub(crate) pending_tool_name: Option<String>,
    #[serde(rename = "pending_since")]
    pub(crate) pending_since_utc: Option<String>,
    /// Claude Code's reason for holding an escalation-blocked call (BASH-015).
    pub(crate) pending_reason: Option<String>,
    pub(crate) generating: bool,
    pub(crate) last_stop_reason: Option<String>,
    pub(crate) returned_message_source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) returned_message: Option<Option<String>>,
    pub(crate) footer: Option<Footer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) child_final_text: Option<Option<String>>,
    /// Whether the parent's recorded return differs from the child's last words.
    pub(crate) returns_differ: Option<bool>,
    pub(crate) fork_parent_last_uuid: Option<String>,
    pub(crate) fork_context_length: Option<u64>,
    pub(crate) workflow_id: Option<String>,
    pub(crate) teammate: Option<Teammate>,
    /// `--with-files`: the paths the lane wrote ([`super::written`]); the
    /// inner null where its records are not on disk apart. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) files_written: Option<Option<Vec<super::written::Written>>>,
    /// `--with-files`: its commands that change files they never name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) files_opaque: Option<usize>,
}

impl LaneRow {
    /// The id printed in the tree: the agent id, else the spawn id.
    pub(crate) fn label(&self) -> String {
        match (&self.agent_id, &self.spawn_tool_use_id) {
            (Some(a), _) => a.clone(),
            (None, Some(s)) => format!("spawn:{s}"),
            (None, None) => "?".into(),
        }
    }

    /// The id other rows name this lane by as their `parent_id`.
    pub(crate) fn key(&self) -> Option<&str> {
        self.agent_id.as_deref()
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct RunRow {
    #[serde(rename = "type")]
    pub(crate) row: &'static str,
    pub(crate) session_id: String,
    pub(crate) workflow_id: String,
    pub(crate) parent_id: Option<String>,
    pub(crate) spawn_tool_use_id: Option<String>,
    pub(crate) task_id: Option<String>,
    pub(crate) workflow_name: Option<String>,
    pub(crate) manifest_present: bool,
    /// Manifest `status`, verbatim (open set, SUB-010); null without a manifest.
    pub(crate) status: Option<String>,
    pub(crate) manifest_agent_count: Option<u64>,
    pub(crate) lanes: usize,
    pub(crate) journal_present: bool,
    pub(crate) journal_started: usize,
    pub(crate) journal_results: usize,
    pub(crate) journal_failed: usize,
    pub(crate) depth: usize,
}
