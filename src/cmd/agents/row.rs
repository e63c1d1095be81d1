//! The rows `csift agents` prints: one [`LaneRow`] per lane (file lanes, inline
//! sidechains, and spawns whose lane was never written), one [`RunRow`] per
//! workflow run. These are the JSON Lines shapes; the tree printer reads the same
//! structs. Field names follow the spec's §13 and the issue's wording.

use serde::Serialize;

use super::acc::Tokens;
use super::carriers::Footer;
use crate::discovery::Shape;

/// Where a lane's records sit: its file's [`Shape`] (the name `list` and
/// `stats` give it), a 1.0.x sidechain inline in the main file, or nowhere
/// (a spawn whose lane was never written).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LaneShape {
    Main,
    Subagent,
    Compact,
    Workflow,
    Flat,
    #[serde(rename = "lane")]
    OtherLane,
    InlineSidechain,
    #[default]
    NoLaneFile,
}

impl From<&Shape> for LaneShape {
    fn from(s: &Shape) -> LaneShape {
        match s {
            Shape::Main => LaneShape::Main,
            Shape::Subagent => LaneShape::Subagent,
            Shape::Compact => LaneShape::Compact,
            Shape::Workflow { .. } => LaneShape::Workflow,
            Shape::Flat => LaneShape::Flat,
            Shape::OtherLane => LaneShape::OtherLane,
        }
    }
}

/// What spawned a lane and how it runs (spec §10, [`super::state::kind`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LaneKind {
    Compact,
    Fork,
    Workflow,
    Teammate,
    AsyncAgent,
    Task,
    #[default]
    Agent,
}

impl LaneKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            LaneKind::Compact => "compact",
            LaneKind::Fork => "fork",
            LaneKind::Workflow => "workflow",
            LaneKind::Teammate => "teammate",
            LaneKind::AsyncAgent => "async-agent",
            LaneKind::Task => "task",
            LaneKind::Agent => "agent",
        }
    }
}

/// Where a lane stands on disk (spec §11, [`super::state::state`]). Never
/// "running": slow, wedged and abandoned lanes look the same (SUB-024).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LaneState {
    StoppedByUser,
    Returned,
    Failed,
    Pending,
    Launched,
    #[default]
    Unknown,
}

impl LaneState {
    pub(crate) fn name(self) -> &'static str {
        match self {
            LaneState::StoppedByUser => "stopped-by-user",
            LaneState::Returned => "returned",
            LaneState::Failed => "failed",
            LaneState::Pending => "pending",
            LaneState::Launched => "launched",
            LaneState::Unknown => "unknown",
        }
    }
}

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
    pub(crate) shape: LaneShape,
    pub(crate) kind: LaneKind,
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
    pub(crate) state: LaneState,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn json<T: Serialize>(v: T) -> String {
        serde_json::to_string(&v).unwrap()
    }

    /// The JSON name and the tree's name of every value are one text.
    #[test]
    fn serde_names_are_the_printed_names() {
        assert_eq!(json(LaneShape::InlineSidechain), "\"inline-sidechain\"");
        assert_eq!(json(LaneShape::NoLaneFile), "\"no-lane-file\"");
        use LaneKind as K;
        for k in [
            K::Compact,
            K::Fork,
            K::Workflow,
            K::Teammate,
            K::AsyncAgent,
            K::Task,
            K::Agent,
        ] {
            assert_eq!(json(k), format!("\"{}\"", k.name()));
        }
        use LaneState as T;
        for t in [
            T::StoppedByUser,
            T::Returned,
            T::Failed,
            T::Pending,
            T::Launched,
            T::Unknown,
        ] {
            assert_eq!(json(t), format!("\"{}\"", t.name()));
        }
    }

    /// A lane file's shape is written as the name discovery gives it.
    #[test]
    fn a_file_shape_keeps_its_discovery_name() {
        for s in [
            Shape::Main,
            Shape::Subagent,
            Shape::Compact,
            Shape::Workflow { run: "r".into() },
            Shape::Flat,
            Shape::OtherLane,
        ] {
            assert_eq!(json(LaneShape::from(&s)), format!("\"{}\"", s.name()));
        }
    }
}
