//! The rows `csift agents` prints: one [`LaneRow`] per lane (file lanes, inline
//! sidechains, and spawns whose lane was never written), one [`RunRow`] per
//! workflow run. These are the JSON Lines shapes; the tree printer reads the same
//! structs. Field names follow the spec's §13 and the wording.

use serde::Serialize;

use super::acc::Tokens;
use super::carriers::Footer;

#[derive(Debug, Clone, Default, Serialize)]
pub struct Teammate {
    pub name: Option<String>,
    pub team_name: Option<String>,
    /// Messages sent TO the teammate: `SendMessage` calls naming it, from other lanes.
    pub messages_in: usize,
    /// Messages FROM the teammate: `<teammate-message teammate_id="<name>">`
    /// sections recorded in other lanes.
    pub messages_out: usize,
    /// Of those, control signals by type (SUB-017, CLS-011); the rest is prose.
    pub signals_in: Vec<(String, usize)>,
    pub signals_out: Vec<(String, usize)>,
    pub terminated: bool,
    pub control_hint: &'static str,
}

/// SUB-020: a teammate has no background-task id and no process of its own.
pub const TEAMMATE_HINT: &str = "steer with SendMessage to its name; stop with SendMessage message {\"type\":\"shutdown_request\"}; TaskStop does not know teammates";

#[derive(Debug, Clone, Default, Serialize)]
pub struct LaneRow {
    #[serde(rename = "type")]
    pub row: &'static str,
    pub session_id: String,
    pub project: String,
    pub main_present: bool,
    /// The lane's own id (usable as `@<agent_id>`); null for a lane-less spawn
    /// whose id the parent never recorded.
    pub agent_id: Option<String>,
    /// The lane's transcript (JSON `file`, as every command names it); for an
    /// inline sidechain the main file, with `line` its first record's.
    #[serde(rename = "file")]
    pub path: Option<String>,
    pub line: Option<usize>,
    pub shape: &'static str,
    pub kind: &'static str,
    pub kind_basis: &'static str,
    pub agent_type: Option<String>,
    pub description: Option<String>,
    /// `main`, a parent agent id, or null (orphan).
    pub parent_id: Option<String>,
    pub spawn_tool_use_id: Option<String>,
    pub spawn_tool: Option<String>,
    pub join_rule: Option<&'static str>,
    pub join_agree: Vec<&'static str>,
    pub unresolved_reason: Option<&'static str>,
    pub depth: usize,
    #[serde(rename = "spawned")]
    pub spawn_utc: Option<String>,
    #[serde(rename = "started")]
    pub started_utc: Option<String>,
    #[serde(rename = "last_activity")]
    pub last_utc: Option<String>,
    #[serde(rename = "completed")]
    pub completed_utc: Option<String>,
    pub records: usize,
    pub tool_calls: usize,
    pub tokens: Tokens,
    /// A lane-less subagent whose records, tool calls and span come from its
    /// records nested in the parent's agent_progress records; `tokens` stay 0,
    /// as a nested usage copy holds the output count of a reply's first
    /// streamed chunk (the footer, where there is one, has the total). Only
    /// written when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nested_records: bool,
    pub malformed_lines: usize,
    pub state: &'static str,
    pub carrier: Option<&'static str>,
    pub state_evidence: Option<String>,
    pub pending_classification: Option<&'static str>,
    pub pending_tool_name: Option<String>,
    #[serde(rename = "pending_since")]
    pub pending_since_utc: Option<String>,
    pub generating: bool,
    pub last_stop_reason: Option<String>,
    pub returned_message_source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returned_message: Option<Option<String>>,
    pub footer: Option<Footer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child_final_text: Option<Option<String>>,
    /// Whether the parent's recorded return differs from the child's last words.
    pub returns_differ: Option<bool>,
    pub fork_parent_last_uuid: Option<String>,
    pub fork_context_length: Option<u64>,
    pub workflow_id: Option<String>,
    pub teammate: Option<Teammate>,
}

impl LaneRow {
    /// The id printed in the tree: the agent id, else the spawn id.
    pub fn label(&self) -> String {
        match (&self.agent_id, &self.spawn_tool_use_id) {
            (Some(a), _) => a.clone(),
            (None, Some(s)) => format!("spawn:{s}"),
            (None, None) => "?".into(),
        }
    }

    /// The id other rows name this lane by as their `parent_id`.
    pub fn key(&self) -> Option<&str> {
        self.agent_id.as_deref()
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RunRow {
    #[serde(rename = "type")]
    pub row: &'static str,
    pub session_id: String,
    pub workflow_id: String,
    pub parent_id: Option<String>,
    pub spawn_tool_use_id: Option<String>,
    pub task_id: Option<String>,
    pub workflow_name: Option<String>,
    pub manifest_present: bool,
    /// Manifest `status`, verbatim (open set, SUB-010); null without a manifest.
    pub status: Option<String>,
    pub manifest_agent_count: Option<u64>,
    pub lanes: usize,
    pub journal_present: bool,
    pub journal_started: usize,
    pub journal_results: usize,
    pub journal_failed: usize,
    pub depth: usize,
}
