//! A lane's kind (spec §10) and state (§11) from the evidence on disk, and the
//! return its parent recorded, with the continuation footer split off (SUB-019).
//! A lane is never called running: slow, wedged and abandoned lanes look the same
//! on disk (SUB-024, BASH-018, TAIL-010), so a pending lane reports the tool it
//! waits on and since when, and the reader weighs it.

use jiff::Timestamp;

use super::acc::LaneStats;
use super::carriers::{self, Footer, Notification};
use super::facts::{Spawn, SpawnResult, TaskOutput};
use super::row::{LaneKind, LaneShape, LaneState};
use super::sidecar::{JournalEntry, Meta};

/// Everything known about one lane (or lane-less spawn) when deciding.
pub(crate) struct Evidence<'a> {
    pub(crate) shape: LaneShape,
    pub(crate) is_compact: bool,
    pub(crate) is_fork_ref: bool,
    pub(crate) meta: &'a Meta,
    pub(crate) spawn: Option<&'a Spawn>,
    pub(crate) result: Option<&'a SpawnResult>,
    pub(crate) notifications: Vec<&'a Notification>,
    pub(crate) task_output: Option<&'a TaskOutput>,
    pub(crate) journal: Option<&'a JournalEntry>,
    pub(crate) anchor: Option<&'a (usize, Option<String>)>,
    pub(crate) compact_summary: Option<&'a str>,
    pub(crate) stop_notices: &'a [String],
    pub(crate) stats: Option<&'a LaneStats>,
    pub(crate) now: Timestamp,
}

impl Evidence<'_> {
    fn ack_status(&self) -> Option<&str> {
        self.result.and_then(|r| r.ack.status.as_deref())
    }

    fn is_ack(&self) -> bool {
        matches!(
            self.ack_status(),
            Some("async_launched" | "teammate_spawned")
        ) || self.result.is_some_and(|r| carriers::is_ack_text(&r.text))
    }
}

/// K1–K7, first match wins; returns (kind, basis).
pub(crate) fn kind(e: &Evidence<'_>) -> (LaneKind, &'static str) {
    let wf_text = e.result.is_some_and(|r| {
        r.text
            .trim_start()
            .starts_with(carriers::WORKFLOW_ACK_PREFIX)
    });
    if e.is_compact {
        (LaneKind::Compact, "shape")
    } else if e.is_fork_ref || e.meta.is_fork() {
        (
            LaneKind::Fork,
            if e.is_fork_ref {
                "fork-context-ref"
            } else {
                "meta"
            },
        )
    } else if e.shape == LaneShape::Workflow || e.spawn.is_some_and(|s| s.tool == "Workflow") {
        (
            LaneKind::Workflow,
            if e.shape == LaneShape::Workflow {
                "shape"
            } else {
                "spawn"
            },
        )
    } else if e.meta.is_teammate() {
        (LaneKind::Teammate, "meta")
    } else if e.ack_status() == Some("teammate_spawned") {
        (LaneKind::Teammate, "ack")
    } else if !wf_text
        && (e.ack_status() == Some("async_launched")
            || e.result.is_some_and(|r| r.ack.is_async == Some(true)))
    {
        (LaneKind::AsyncAgent, "ack")
    } else if e
        .spawn
        .is_some_and(|s| s.input.run_in_background == Some(true))
    {
        (LaneKind::AsyncAgent, "spawn")
    } else if let Some(s) = e.spawn {
        (
            if s.tool == "Task" {
                LaneKind::Task
            } else {
                LaneKind::Agent
            },
            "spawn",
        )
    } else if e.shape == LaneShape::InlineSidechain {
        (LaneKind::Task, "shape")
    } else {
        (LaneKind::Agent, "shape")
    }
}

#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) state: LaneState,
    pub(crate) carrier: Option<&'static str>,
    pub(crate) evidence: Option<String>,
    pub(crate) completed_utc: Option<String>,
    pub(crate) pending_tool_name: Option<String>,
    pub(crate) pending_since_utc: Option<String>,
    pub(crate) pending_reason: Option<String>,
    pub(crate) generating: bool,
    pub(crate) source: Option<&'static str>,
    pub(crate) returned: Option<String>,
    pub(crate) footer: Option<Footer>,
}

fn at(line: usize, ts: Option<&str>) -> Option<String> {
    Some(match ts {
        Some(t) => format!("L{line} {t}"),
        None => format!("L{line}"),
    })
}

/// S1–S5 in order; the first hit wins.
pub(crate) fn state(e: &Evidence<'_>) -> Outcome {
    let mut o = Outcome::default();
    let res = e.result;
    let is_ack = e.is_ack();
    let stopped_notif = e
        .notifications
        .iter()
        .find(|n| matches!(n.status.as_deref(), Some("killed" | "stopped")) && n.result.is_none());
    let returned_notif = e.notifications.iter().find(|n| n.result.is_some());
    let failed_notif = e
        .notifications
        .iter()
        .find(|n| n.status.as_deref() == Some("failed"));
    let desc = e
        .spawn
        .and_then(|s| s.input.description.as_deref())
        .unwrap_or("");
    if e.meta.stopped_by_user == Some(true) {
        o.state = LaneState::StoppedByUser;
        o.carrier = Some("meta-stopped-by-user");
    } else if let Some(r) =
        res.filter(|r| r.text.trim_start().starts_with(carriers::INTERRUPT_PREFIX))
    {
        o.state = LaneState::StoppedByUser;
        o.carrier = Some("sync-tool-result");
        o.evidence = at(r.line, r.ts.as_deref());
        o.completed_utc = r.ts.clone();
    } else if let Some(n) = stopped_notif {
        o.state = LaneState::StoppedByUser;
        o.carrier = Some("task-notification");
        o.evidence = at(n.line, n.ts.as_deref());
        o.completed_utc = n.ts.clone();
    } else if let Some(r) = res.filter(|r| !is_ack && !r.is_error) {
        // S2(a): a synchronous return, footer split off (SUB-019).
        o.state = LaneState::Returned;
        o.carrier = Some("sync-tool-result");
        o.source = o.carrier;
        o.evidence = at(r.line, r.ts.as_deref());
        o.completed_utc = r.ts.clone();
        let (body, footer) = carriers::split_footer(&r.text);
        o.returned = Some(body.to_string());
        o.footer = footer;
    } else if let Some(n) = returned_notif {
        o.state = LaneState::Returned;
        o.carrier = Some("task-notification");
        o.source = o.carrier;
        o.evidence = at(n.line, n.ts.as_deref());
        o.completed_utc = n.ts.clone();
        o.returned = n.result.clone();
    } else if let Some(t) = e
        .task_output
        .filter(|t| t.status.as_deref() == Some("completed"))
    {
        o.state = LaneState::Returned;
        o.carrier = Some("task-output");
        o.source = o.carrier;
        o.evidence = at(t.line, None);
        o.returned = t.result.clone();
    } else if let Some(r) = e.journal.and_then(|j| j.result.as_ref()) {
        o.state = LaneState::Returned;
        o.carrier = Some("workflow-journal");
        o.source = o.carrier;
        o.returned = Some(r.clone());
    } else if let Some((line, ts)) = e.anchor.filter(|_| e.is_compact) {
        o.state = LaneState::Returned;
        o.carrier = Some("compact-summary");
        o.source = o.carrier;
        o.evidence = at(*line, ts.as_deref());
        o.completed_utc = ts.clone();
        o.returned = e.compact_summary.map(str::to_string);
    } else if res.is_some_and(|r| r.is_error)
        || e.journal.is_some_and(|j| j.failed)
        || failed_notif.is_some()
    {
        o.state = LaneState::Failed;
        o.carrier = Some(if res.is_some_and(|r| r.is_error) {
            "sync-tool-result"
        } else if failed_notif.is_some() {
            "task-notification"
        } else {
            "workflow-journal"
        });
        if let Some(r) = res.filter(|r| r.is_error) {
            o.evidence = at(r.line, r.ts.as_deref());
            o.returned = Some(r.text.clone());
            o.source = Some("sync-tool-result");
        }
    } else if e
        .stop_notices
        .iter()
        .any(|n| carriers::stop_matches(n, desc))
    {
        // S1′: the notice has no id, only a description (BG-025).
        o.state = LaneState::StoppedByUser;
        o.carrier = Some("stop-notice");
        o.evidence = Some("description-join".into());
    } else if let Some(p) = e.stats.and_then(|s| s.pending.as_ref()) {
        o.state = LaneState::Pending;
        // Escalation-blocked: Claude Code's dangerous-rm rule would hold this call
        // for a human (BASH-015, SUB-024, TAIL-010); else awaiting execution.
        o.carrier = Some(if p.escalation.is_some() {
            "escalation-blocked"
        } else {
            "awaiting-execution"
        });
        o.pending_reason = p.escalation.clone();
        o.pending_tool_name = Some(p.tool_name.clone());
        o.pending_since_utc = p.since.clone();
        o.evidence = at(p.line, p.since.as_deref());
    } else if is_ack || e.journal.is_some_and(|j| j.started) || (e.spawn.is_some() && res.is_none())
    {
        o.state = LaneState::Launched;
        o.carrier = Some(if e.journal.is_some_and(|j| j.started) {
            "journal-started"
        } else if is_ack {
            "ack"
        } else {
            "spawn-unanswered"
        });
    } else {
        o.state = LaneState::Unknown;
    }
    if matches!(o.state, LaneState::Launched | LaneState::Pending) {
        o.generating = generating(e);
    }
    o
}

/// TAIL-004/005/007: the tail is at most 300 s old and the last assistant record
/// did not end its turn. A hint for the reader, not a liveness verdict.
fn generating(e: &Evidence<'_>) -> bool {
    let Some(s) = e.stats else { return false };
    let Some(last) = s.last.as_deref().and_then(crate::timefmt::parse_ts) else {
        return false;
    };
    let age = e.now.as_second() - last.as_second();
    (0..=300).contains(&age) && s.last_stop_reason.as_deref() != Some("end_turn")
}
