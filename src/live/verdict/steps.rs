//! The precedence's steps, one function each, in the order [`super::assess`]
//! runs them: each reads the joined facts and, when its surfaces decide, sets the
//! verdict with its evidence and notes and says so.

use super::super::calls::{Call, Wait};
use super::super::evidence;
use super::super::procs::PidCheck;
use super::super::registry::{Leg, Row};
use super::super::tail::Turn;
use super::{ms, Assessment, Facts, Verdict, WaitingFor, NOT_PROOF};

/// Step 1: a dead or reused pid outranks every other surface (REG-013).
pub(super) fn stale_dead(f: &Facts<'_>, a: &mut Assessment) -> bool {
    if f.alive != Some(false) {
        return false;
    }
    a.verdict = Verdict::StaleDead;
    a.since = f.last_sign;
    a.because.push(match f.pending {
        Some(c) => format!(
            "the process ended mid-tool: its {} call ({}) never returned - {NOT_PROOF}",
            c.name,
            evidence::old(c.age(f.s.now))
        ),
        None => "the process ended; the tail shows no call in flight".to_string(),
    });
    true
}

/// Bad input on the registry leg: said, never guessed past (`unknown`).
pub(super) fn bad_input(f: &Facts<'_>, a: &mut Assessment) -> bool {
    if let Leg::Unreadable(p) = f.s.registry {
        a.since = f.last_sign;
        a.because.push(format!(
            "the registry row {} naming this session could not be parsed: its process cannot \
             be probed",
            crate::output::sanitize::path(p)
        ));
        return true;
    }
    if let Some(PidCheck::BadPid { .. } | PidCheck::UnknownStart { .. }) = f.s.pid {
        a.since = f.last_sign;
        return true;
    }
    false
}

/// Step 2: blocked on a human.
pub(super) fn waiting_hitl(f: &Facts<'_>, a: &mut Assessment) -> bool {
    // A dead process asks nobody: stale-dead outranked this step already, and
    // a registry with no row for the session means no process runs it (REG-001):
    // a sidecar ask left pending then waits on no one.
    let sidecar = match f.s.registry {
        Leg::NoRow => &[][..],
        _ => f.s.elicitations,
    };
    let Some(w) = hitl(f.row, f.pending, sidecar) else {
        return false;
    };
    a.verdict = Verdict::WaitingHitl;
    a.since = match w.source {
        "registry" => f.row.and_then(|r| ms(r.status_updated_at_ms)),
        "sidecar" => sidecar.last().and_then(|p| p.since),
        _ => f.pending.and_then(|c| c.time),
    };
    a.waiting_for = Some(w);
    true
}

/// Step 3, running: a busy row, a call within its plausible life, or a reply the
/// model owes that is fresh (the main lane writes a message when it ends).
pub(super) fn running(f: &Facts<'_>, a: &mut Assessment) -> bool {
    let (call_live, owed_live) = (f.call_live(), f.owed_live());
    if f.status != Some("busy") && !call_live && !owed_live {
        return false;
    }
    a.verdict = Verdict::Running;
    a.since = match (call_live, f.pending, f.owed) {
        (true, Some(c), _) => c.time,
        (_, _, Some((_, t))) if owed_live => t,
        _ => f.row.and_then(|r| ms(r.status_updated_at_ms)),
    };
    if (call_live || owed_live) && matches!(f.status, Some("idle" | "shell")) {
        a.notes.push(format!(
            "the registry reads {} while the tail shows a turn in progress: the surfaces \
             disagree (the row is written only on transitions)",
            f.status.unwrap_or_default()
        ));
    }
    if f.row.is_none() && f.pending.is_some() {
        a.notes.push(
            // TAIL-010: an approval prompt leaves no transcript trace.
            "if this call waits on an approval prompt, only a registry row would show it".into(),
        );
    }
    true
}

/// Step 4, children: a lane being written proves a live process.
pub(super) fn waiting_children(f: &Facts<'_>, a: &mut Assessment) -> bool {
    if f.live_lanes == 0 {
        return false;
    }
    a.verdict = Verdict::WaitingChildren;
    a.since =
        f.s.main
            .and_then(|t| t.assistant.as_ref())
            .and_then(|x| x.time);
    if let Some(c) = f.pending {
        a.notes.push(format!(
            "the main tail also holds an {} that no surface vouches for",
            c.describe(f.s.now)
        ));
    }
    evidence::permission_note(a, f.s.registry, f.alive);
    true
}

/// An unreturned call or an owed reply nothing vouches for: not running, not
/// provably stopped (`unknown`). A live idle row vouches for the end of turn.
pub(super) fn unvouched(f: &Facts<'_>, a: &mut Assessment) -> bool {
    if f.idle_row {
        return false;
    }
    if let Some(c) = f.pending {
        a.since = c.time;
        a.because.push(match c.bound_secs {
            Some(b) if c.past_bound(f.s.now) => format!(
                "the {} call is past its plausible life ({}): {NOT_PROOF}",
                c.name,
                crate::timefmt::duration(b)
            ),
            _ => format!(
                "no bound is known for a {} call and no live surface vouches for it: \
                 {NOT_PROOF}",
                c.name
            ),
        });
        return true;
    }
    let Some((what, t)) = f.owed else {
        return false;
    };
    a.since = t;
    a.because.push(format!(
        "the model owes a reply to {what} {} and no live surface vouches for it: the \
         process may have ended or been interrupted",
        evidence::old(t.map(|t| (f.s.now.as_second() - t.as_second()).max(0)))
    ));
    true
}

/// Steps 5 and 6, end of turn: an `end_turn` (or a final text message where none is
/// written), the user's interrupt, or a live idle row.
pub(super) fn end_of_turn(f: &Facts<'_>, a: &mut Assessment) -> bool {
    let main = f.s.main;
    let ended = main.is_some_and(|t| {
        matches!(t.stop_reason.as_deref(), Some("end_turn" | "stop_sequence"))
            || (t.stop_reason.is_none() && t.text_final)
    }) && matches!(f.turn, Some(Turn::Replied) | None);
    let interrupted = matches!(f.turn, Some(Turn::Interrupted { .. }));
    if !ended && !interrupted && !f.idle_row {
        return false;
    }
    a.verdict = if f.s.open_background > 0 {
        Verdict::IdleBackgroundOpen
    } else {
        Verdict::IdleEot
    };
    a.since = if f.idle_row {
        f.row.and_then(|r| ms(r.status_updated_at_ms))
    } else if let Some(Turn::Interrupted { time }) = f.turn {
        *time
    } else {
        main.and_then(|t| t.assistant.as_ref()).and_then(|x| x.time)
    };
    if a.verdict == Verdict::IdleBackgroundOpen {
        a.notes.push(
            "the turn ended but background task(s) never came back - by design (a dev \
             server, a watcher) or not: a UI stop, a Monitor timeout or agent teardown \
             leaves no transcript marker, and Claude Code reconciles only at the next \
             session start"
                .into(),
        );
    } else if f.status == Some("shell") {
        a.notes.push(
            "the registry reads shell (idle with a background shell open) but the \
             ledger counts none open: launched where csift did not read, or moved to the \
             background without a trace"
                .into(),
        );
    }
    if let Some(c) = f.pending {
        a.notes.push(format!(
            "the tail still holds an {}, never answered",
            c.describe(f.s.now)
        ));
    }
    evidence::permission_note(a, f.s.registry, f.alive);
    true
}

/// Step 7: unranked.
pub(super) fn unranked(f: &Facts<'_>, a: &mut Assessment) {
    a.since = f.last_sign;
    a.because.push(match f.s.main {
        None => "no main transcript: the session's own lane cannot be read".to_string(),
        Some(t) if t.records == 0 => "no records readable at the tail".to_string(),
        Some(t) => format!(
            "tail shape unranked: no pending call, last stop_reason {} - not an end_turn, not \
             provably running",
            t.stop_reason.as_deref().unwrap_or("(none)")
        ),
    });
}

/// The human-in-the-loop legs: a `waiting` row, a question at the tail, or a
/// pending ask in the sidecar (the newest).
fn hitl(
    row: Option<&Row>,
    pending: Option<&Call>,
    sidecar: &[crate::elicitation::Pending],
) -> Option<WaitingFor> {
    if let Some(r) = row.filter(|r| r.status.as_deref() == Some("waiting")) {
        return Some(WaitingFor {
            reason: r
                .waiting_for
                .clone()
                .unwrap_or_else(|| "a dialog (the row names none)".into()),
            source: "registry",
            detail: pending
                .filter(|c| c.wait == Wait::Human)
                .and_then(|c| c.detail.clone()),
        });
    }
    if let Some(c) = pending.filter(|c| c.wait == Wait::Human) {
        return Some(WaitingFor {
            reason: match c.escalation {
                Some(_) => "dangerous-rm".into(),
                None => c.name.clone(),
            },
            source: "tail",
            detail: match (&c.escalation, &c.detail) {
                (Some(e), Some(d)) => Some(format!("{e}: {d}")),
                (e, d) => e.clone().or_else(|| d.clone()),
            },
        });
    }
    let p = sidecar.last()?;
    Some(WaitingFor {
        reason: p.kind.clone(),
        source: "sidecar",
        detail: p.detail.clone(),
    })
}
