//! Printing verdicts: a human block per session (header, evidence, what is
//! open, the lanes that are not settled, notes) or JSON Lines (`session`, then
//! `lane` rows, then a `summary`). Generic over the writer, so tests run it
//! in-process. Every transcript-derived string goes through `sanitize` in the
//! human form; JSON escapes what a terminal would obey.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::live::calls::Call;
use crate::live::lanes::{Lane, LaneState};
use crate::live::registry::Row;
use crate::live::session::{RegistryLeg, SessionStatus};
use crate::live::tail::Tail;
use crate::live::verdict::{Verdict, WaitingFor};
use crate::output::sanitize::{clean, one_line};
use crate::output::{json_line, Style};
pub(crate) use summary::{footer, Summary};

mod summary;

fn ts(t: Option<jiff::Timestamp>) -> Option<String> {
    t.map(crate::timefmt::utc_exact)
}

#[derive(Serialize)]
struct RegistryOut<'a> {
    file: String,
    pid: Option<u32>,
    status: Option<&'a str>,
    waiting_for: Option<&'a str>,
    status_updated_at: Option<String>,
    status_age_secs: Option<i64>,
    proc_start: Option<&'a str>,
    pid_domain: Option<&'a str>,
    kind: Option<&'a str>,
    version: Option<&'a str>,
}

fn registry_out(r: &Row, now: jiff::Timestamp) -> RegistryOut<'_> {
    let at = r
        .status_updated_at_ms
        .and_then(|m| jiff::Timestamp::from_millisecond(m).ok());
    RegistryOut {
        file: r.file.to_string_lossy().into_owned(),
        pid: r.pid,
        status: r.status.as_deref(),
        waiting_for: r.waiting_for.as_deref(),
        status_updated_at: ts(at),
        status_age_secs: at.map(|t| (now.as_second() - t.as_second()).max(0)),
        proc_start: r.proc_start.as_deref(),
        pid_domain: r.pid_domain.as_deref(),
        kind: r.kind.as_deref(),
        version: r.version.as_deref(),
    }
}

#[derive(Serialize)]
struct PendingOut<'a> {
    tool: &'a str,
    tool_use_id: &'a str,
    since: Option<String>,
    age_secs: Option<i64>,
    bound_secs: Option<i64>,
    wait: crate::live::calls::Wait,
    detail: Option<&'a str>,
    line: Option<usize>,
}

#[derive(Serialize)]
struct TailOut<'a> {
    time: Option<String>,
    record: Option<&'a str>,
    line: Option<usize>,
    stop_reason: Option<&'a str>,
    pending: Option<PendingOut<'a>>,
    torn: bool,
    malformed: usize,
    bytes: u64,
}

fn pending_out(c: &Call, now: jiff::Timestamp) -> PendingOut<'_> {
    PendingOut {
        tool: &c.name,
        tool_use_id: &c.id,
        since: ts(c.time),
        age_secs: c.age(now),
        bound_secs: c.bound_secs,
        wait: c.wait,
        detail: c.detail.as_deref(),
        line: c.line,
    }
}

fn tail_out(t: &Tail, now: jiff::Timestamp) -> TailOut<'_> {
    TailOut {
        time: ts(t.time()),
        record: t.last.as_ref().map(|a| a.record.as_str()),
        line: t.last.as_ref().and_then(|a| a.line),
        stop_reason: t.stop_reason.as_deref(),
        pending: t.newest_pending().map(|c| pending_out(c, now)),
        torn: t.torn,
        malformed: t.malformed,
        bytes: t.len,
    }
}

#[derive(Serialize)]
struct LanesOut {
    total: usize,
    read: usize,
    live: usize,
    unread: usize,
}

#[derive(Serialize)]
struct SessionOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    project: String,
    file: Option<String>,
    verdict: Verdict,
    since: Option<String>,
    because: &'a [String],
    notes: &'a [String],
    registry: Option<RegistryOut<'a>>,
    registry_state: &'static str,
    pid_alive: Option<bool>,
    pid: Option<String>,
    tail: Option<TailOut<'a>>,
    open_background: usize,
    background: BTreeMap<&'static str, usize>,
    task_list_open: Option<usize>,
    waiting_for: Option<&'a WaitingFor>,
    lanes: LanesOut,
    workflow_in_flight: usize,
}

#[derive(Serialize)]
struct LaneOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    agent_id: Option<&'a str>,
    shape: &'static str,
    file: String,
    state: LaneState,
    since: Option<String>,
    because: &'a [String],
    tail: Option<TailOut<'a>>,
}

fn registry_state(r: &RegistryLeg) -> &'static str {
    match r {
        RegistryLeg::NoRegistry => "no-registry",
        RegistryLeg::NoRow => "no-row",
        RegistryLeg::Unreadable(_) => "unreadable",
        RegistryLeg::Row(_) => "row",
    }
}

/// One session's JSON lines: the session, then each lane read.
pub(crate) fn json<W: Write>(w: &mut W, s: &SessionStatus) -> io::Result<()> {
    let a = &s.assessment;
    let mut background = BTreeMap::new();
    for t in &s.ledger.tasks {
        *background.entry(t.state.name()).or_insert(0) += 1;
    }
    json_line(
        w,
        &SessionOut {
            kind: "session",
            session_id: &s.files.session_id,
            agent_id: None,
            project: crate::discovery::file_name(&s.files.project_dir),
            file: s
                .files
                .main
                .as_ref()
                .map(|m| m.path.to_string_lossy().into_owned()),
            verdict: a.verdict,
            since: ts(a.since),
            because: &a.because,
            notes: &a.notes,
            registry: s.registry.row().map(|r| registry_out(r, s.now)),
            registry_state: registry_state(&s.registry),
            pid_alive: s.pid.as_ref().and_then(|p| p.alive()),
            pid: s.pid.as_ref().map(|p| p.evidence()),
            tail: s.main.as_ref().map(|t| tail_out(t, s.now)),
            open_background: s.ledger.open().count(),
            background,
            task_list_open: s.task_list.as_ref().map(|l| l.open.len()),
            waiting_for: a.waiting_for.as_ref(),
            lanes: LanesOut {
                total: s.lanes.total(),
                read: s.lanes.read.len(),
                live: s.lanes.live().count(),
                unread: s.lanes.unread,
            },
            workflow_in_flight: s.lanes.journal_in_flight(),
        },
    )?;
    for l in &s.lanes.read {
        json_line(w, &lane_out(s, l))?;
    }
    Ok(())
}

fn lane_out<'a>(s: &'a SessionStatus, l: &'a Lane) -> LaneOut<'a> {
    LaneOut {
        kind: "lane",
        session_id: &s.files.session_id,
        agent_id: l.transcript.agent_id.as_deref(),
        shape: l.transcript.shape.name(),
        file: l.transcript.path.to_string_lossy().into_owned(),
        state: l.state,
        since: ts(l.since),
        because: &l.because,
        tail: l.tail.as_ref().map(|t| tail_out(t, s.now)),
    }
}

/// `2026-12-01 22:03 (2m10s ago)`.
fn when(t: Option<jiff::Timestamp>, now: jiff::Timestamp) -> String {
    match t {
        Some(t) => format!(
            "{} ({} ago)",
            crate::timefmt::local(t),
            crate::timefmt::duration(now.as_second() - t.as_second())
        ),
        None => "(no time on record)".to_string(),
    }
}

/// One session's human block.
pub(crate) fn human<W: Write>(w: &mut W, st: Style, s: &SessionStatus) -> io::Result<()> {
    let a = &s.assessment;
    let waiting = a
        .waiting_for
        .as_ref()
        .map(|x| format!(" ({})", one_line(&x.reason)))
        .unwrap_or_default();
    writeln!(
        w,
        "{}@{}{}  {}{}{}{}  since {}  {}{}{}",
        st.head,
        clean(&s.files.session_id),
        st.reset,
        st.label,
        a.verdict.name(),
        waiting,
        st.reset,
        when(a.since, s.now),
        st.dim,
        clean(&crate::discovery::file_name(&s.files.project_dir)),
        st.reset
    )?;
    if let Some(d) = a.waiting_for.as_ref().and_then(|x| x.detail.as_deref()) {
        writeln!(w, "  asks: {}", one_line(d))?;
    }
    for b in &a.because {
        writeln!(w, "  · {}", clean(b))?;
    }
    open_line(w, s)?;
    for l in s
        .lanes
        .read
        .iter()
        .filter(|l| l.state != LaneState::Settled)
    {
        writeln!(
            w,
            "  lane @{}  {}  {}",
            clean(l.transcript.agent_id.as_deref().unwrap_or("?")),
            l.state.name(),
            clean(&l.because.join("; "))
        )?;
    }
    let settled = s
        .lanes
        .read
        .iter()
        .filter(|l| l.state == LaneState::Settled)
        .count();
    if settled + s.lanes.unread > 0 {
        let unread = match s.lanes.unread {
            0 => String::new(),
            n => format!(", {n} not written in the last hour (unread)"),
        };
        writeln!(
            w,
            "  {}lanes: {settled} settled{unread}{}",
            st.dim, st.reset
        )?;
    }
    for n in &a.notes {
        writeln!(w, "  {}note: {}{}", st.dim, clean(n), st.reset)?;
    }
    Ok(())
}

/// `open: 2 background tasks (csift tasks @id --open) · task list 3 open`.
fn open_line<W: Write>(w: &mut W, s: &SessionStatus) -> io::Result<()> {
    let mut parts = Vec::new();
    let open = s.ledger.open().count();
    if open > 0 {
        let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
        for t in s.ledger.open() {
            *by_kind.entry(t.kind.name()).or_insert(0) += 1;
        }
        let kinds: Vec<String> = by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
        parts.push(format!(
            "{open} background task(s) ({}; csift tasks @{} --open)",
            kinds.join(", "),
            clean(&s.files.session_id)
        ));
    }
    if let Some(l) = s.task_list.as_ref().filter(|l| !l.open.is_empty()) {
        parts.push(format!("task list {} open", l.open.len()));
    }
    if !parts.is_empty() {
        writeln!(w, "  open: {}", parts.join(" · "))?;
    }
    Ok(())
}
