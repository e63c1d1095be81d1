//! The evidence rows a verdict shows, surface by surface, in words: the
//! registry's status and age (REG-004: an age, never a heartbeat), the pid
//! probe, the main tail, the lanes that are not settled, fresh workflow
//! journals and the open background count. Pure: nothing here reads a file.

use jiff::Timestamp;

use super::lanes::LaneState;
use super::registry::Leg;
use super::tail::{Tail, Turn};
use super::verdict::{Assessment, Surfaces};

pub(crate) fn ago(now: Timestamp, t: Option<Timestamp>) -> String {
    t.map_or("of unknown age".into(), |t| {
        crate::timefmt::duration(now.as_second() - t.as_second())
    })
}

/// `40s old`, or `of unknown age` (never "of unknown age old").
pub(crate) fn old(age_secs: Option<i64>) -> String {
    age_secs.map_or("of unknown age".into(), |a| {
        format!("{} old", crate::timefmt::duration(a))
    })
}

fn ms(ms: Option<i64>) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms?).ok()
}

/// TAIL-010: a pending permission prompt (or a single-question ask, ELI-008)
/// leaves no transcript trace; only a live registry row rules one out. With no
/// registry at all the run says so once, not each session.
pub(crate) fn permission_note(a: &mut Assessment, leg: Leg<'_>, alive: Option<bool>) {
    let live_row = matches!(leg, Leg::Row(_)) && alive == Some(true);
    if !live_row && !matches!(leg, Leg::NoRegistry) {
        a.notes.push(
            "a pending permission prompt or single-question AskUserQuestion leaves no \
             transcript trace: with no live registry row csift cannot \
             rule one out"
                .into(),
        );
    }
}

/// The newest record of any of the session's files.
pub(crate) fn last_sign_of_life(s: &Surfaces<'_>) -> Option<Timestamp> {
    s.main
        .and_then(Tail::time)
        .into_iter()
        .chain(
            s.lanes
                .read
                .iter()
                .filter_map(|l| l.tail.as_ref().and_then(Tail::time)),
        )
        .max()
}

/// Where the main tail's conversation stands, in words.
fn turn_words(t: &Tail) -> String {
    match &t.turn {
        Some(Turn::Owed { what, .. }) => format!("the model owes a reply to {what}"),
        Some(Turn::Interrupted { .. }) => "interrupted by the user".to_string(),
        _ => match t.stop_reason.as_deref() {
            Some(r) => format!("no pending call, last stop_reason {r}"),
            None if t.text_final => {
                "no pending call; the last message is text, no stop_reason written".to_string()
            }
            None if t.assistant.is_some() => "no pending call, no stop_reason written".to_string(),
            None => "no assistant record".to_string(),
        },
    }
}

/// The evidence rows every verdict shows, surface by surface.
pub(crate) fn rows(s: &Surfaces<'_>) -> Vec<String> {
    let mut out = Vec::new();
    match s.registry {
        Leg::Row(r) => {
            let age = ms(r.status_updated_at_ms).map(|t| ago(s.now, Some(t)));
            let status = match (r.status.as_deref(), r.waiting_for.as_deref()) {
                (None, _) => "status null".to_string(),
                (Some("waiting"), Some(w)) => format!("waiting ({w})"),
                (Some(st), _) => st.to_string(),
            };
            out.push(match age {
                Some(age) => format!("registry {status} {age}"),
                None => format!("registry {status}"),
            });
        }
        Leg::NoRow => out.push(
            // REG-001, REG-013: rows exist only while a top-level process runs.
            "no registry row (a row exists only while a top-level session's process runs)".into(),
        ),
        Leg::Unreadable(_) | Leg::NoRegistry => {}
    }
    if let Some(p) = s.pid {
        out.push(p.evidence());
    }
    if let Some(t) = s.main {
        out.push(match t.newest_pending() {
            Some(c) => match c.detail.as_deref() {
                Some(d) => format!("tail: {}: {d}", c.describe(s.now)),
                None => format!("tail: {}", c.describe(s.now)),
            },
            None => match t.time() {
                Some(at) => format!("tail: {} ({} ago)", turn_words(t), ago(s.now, Some(at))),
                None => format!("tail: {} (no timestamp at the tail)", turn_words(t)),
            },
        });
    }
    for p in s.elicitations {
        let what = match p.detail.as_deref() {
            Some(d) => format!(": {d}"),
            None => String::new(),
        };
        out.push(format!(
            "sidecar: pending {} ({} old){what}",
            p.kind,
            ago(s.now, p.since)
        ));
    }
    for l in s
        .lanes
        .read
        .iter()
        .filter(|l| l.state != LaneState::Settled)
    {
        let id = l.transcript.agent_id.as_deref().unwrap_or("?");
        out.push(format!(
            "lane {} {}: {}",
            crate::discovery::short(id),
            l.state.name(),
            l.because.join("; ")
        ));
    }
    for r in s.lanes.runs.iter().filter(|r| r.fresh && r.in_flight > 0) {
        out.push(format!(
            "workflow {}: {} agent(s) in flight (journal: {} started, {} returned, {} failed)",
            r.run, r.in_flight, r.started, r.returned, r.failed
        ));
    }
    if s.open_background > 0 {
        out.push(format!("{} background task(s) open", s.open_background));
    }
    out
}
