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

impl Outcome {
    fn new(state: LaneState, carrier: &'static str) -> Outcome {
        Outcome {
            state,
            carrier: Some(carrier),
            ..Outcome::default()
        }
    }

    /// A return whose text (`returned`) came by `carrier`.
    fn returned(carrier: &'static str, returned: Option<String>) -> Outcome {
        Outcome {
            source: Some(carrier),
            returned,
            ..Outcome::new(LaneState::Returned, carrier)
        }
    }

    /// Decided by the record at `line`, whose time `ts` is when the lane ended.
    fn ended_at(mut self, line: usize, ts: Option<&String>) -> Outcome {
        self.evidence = at(line, ts.map(String::as_str));
        self.completed_utc = ts.cloned();
        self
    }
}

/// S1–S5 in order; the first hit wins.
pub(crate) fn state(e: &Evidence<'_>) -> Outcome {
    let mut o = stopped(e)
        .or_else(|| returned(e))
        .or_else(|| failed(e))
        .or_else(|| stopped_by_notice(e))
        .or_else(|| pending(e))
        .or_else(|| launched(e))
        .unwrap_or_default();
    if matches!(o.state, LaneState::Launched | LaneState::Pending) {
        o.generating = generating(e);
    }
    o
}

/// S1: stopped by the user, by the meta's flag, the interrupted result, or a
/// `killed`/`stopped` notification that carries no result.
fn stopped(e: &Evidence<'_>) -> Option<Outcome> {
    let by_user = |carrier| Outcome::new(LaneState::StoppedByUser, carrier);
    if e.meta.stopped_by_user == Some(true) {
        return Some(by_user("meta-stopped-by-user"));
    }
    let interrupted = e
        .result
        .filter(|r| r.text.trim_start().starts_with(carriers::INTERRUPT_PREFIX));
    if let Some(r) = interrupted {
        return Some(by_user("sync-tool-result").ended_at(r.line, r.ts.as_ref()));
    }
    let n = e.notifications.iter().find(|n| {
        matches!(n.status.as_deref(), Some("killed" | "stopped")) && n.result.is_none()
    })?;
    Some(by_user("task-notification").ended_at(n.line, n.ts.as_ref()))
}

/// S2: returned, by the first carrier that holds the return: the sync
/// tool_result, a notification's result, a completed `TaskOutput`, the
/// workflow journal, or (a compaction lane) main's compact summary.
fn returned(e: &Evidence<'_>) -> Option<Outcome> {
    if let Some(r) = e.result.filter(|r| !e.is_ack() && !r.is_error) {
        // S2(a): a synchronous return, footer split off (SUB-019).
        let (body, footer) = carriers::split_footer(&r.text);
        let o = Outcome {
            footer,
            ..Outcome::returned("sync-tool-result", Some(body.to_string()))
        };
        return Some(o.ended_at(r.line, r.ts.as_ref()));
    }
    if let Some(n) = e.notifications.iter().find(|n| n.result.is_some()) {
        let o = Outcome::returned("task-notification", n.result.clone());
        return Some(o.ended_at(n.line, n.ts.as_ref()));
    }
    let output = e
        .task_output
        .filter(|t| t.status.as_deref() == Some("completed"));
    if let Some(t) = output {
        return Some(Outcome {
            evidence: at(t.line, None),
            ..Outcome::returned("task-output", t.result.clone())
        });
    }
    if let Some(r) = e.journal.and_then(|j| j.result.as_ref()) {
        return Some(Outcome::returned("workflow-journal", Some(r.clone())));
    }
    let (line, ts) = e.anchor.filter(|_| e.is_compact)?;
    let o = Outcome::returned("compact-summary", e.compact_summary.map(str::to_string));
    Some(o.ended_at(*line, ts.as_ref()))
}

/// Failed, by the sync tool_result's error (its text is what the parent
/// received), a `failed` notification, or the workflow journal.
fn failed(e: &Evidence<'_>) -> Option<Outcome> {
    let error = e.result.filter(|r| r.is_error);
    let notified = e
        .notifications
        .iter()
        .any(|n| n.status.as_deref() == Some("failed"));
    let carrier = if error.is_some() {
        "sync-tool-result"
    } else if notified {
        "task-notification"
    } else if e.journal.is_some_and(|j| j.failed) {
        "workflow-journal"
    } else {
        return None;
    };
    let mut o = Outcome::new(LaneState::Failed, carrier);
    if let Some(r) = error {
        o.evidence = at(r.line, r.ts.as_deref());
        o.returned = Some(r.text.clone());
        o.source = Some("sync-tool-result");
    }
    Some(o)
}

/// S1′: a stop notice naming the spawn's description; the notice has no id,
/// only a description (BG-025).
fn stopped_by_notice(e: &Evidence<'_>) -> Option<Outcome> {
    let desc = e
        .spawn
        .and_then(|s| s.input.description.as_deref())
        .unwrap_or("");
    let named = e
        .stop_notices
        .iter()
        .any(|n| carriers::stop_matches(n, desc));
    named.then(|| Outcome {
        evidence: Some("description-join".into()),
        ..Outcome::new(LaneState::StoppedByUser, "stop-notice")
    })
}

/// Pending: the lane ends on a tool_use nothing answered.
fn pending(e: &Evidence<'_>) -> Option<Outcome> {
    let p = e.stats.and_then(|s| s.pending.as_ref())?;
    // Escalation-blocked: Claude Code's dangerous-rm rule would hold this call
    // for a human (BASH-015, SUB-024, TAIL-010); else awaiting execution.
    let carrier = if p.escalation.is_some() {
        "escalation-blocked"
    } else {
        "awaiting-execution"
    };
    Some(Outcome {
        pending_reason: p.escalation.clone(),
        pending_tool_name: Some(p.tool_name.clone()),
        pending_since_utc: p.since.clone(),
        evidence: at(p.line, p.since.as_deref()),
        ..Outcome::new(LaneState::Pending, carrier)
    })
}

/// Launched, by the journal's `started`, an ack, or a spawn with no
/// result yet.
fn launched(e: &Evidence<'_>) -> Option<Outcome> {
    let carrier = if e.journal.is_some_and(|j| j.started) {
        "journal-started"
    } else if e.is_ack() {
        "ack"
    } else if e.spawn.is_some() && e.result.is_none() {
        "spawn-unanswered"
    } else {
        return None;
    };
    Some(Outcome::new(LaneState::Launched, carrier))
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
