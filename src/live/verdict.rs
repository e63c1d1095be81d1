//! One verdict per session, joined from the surfaces Claude Code leaves on disk:
//! no single field answers "has this session stopped" (MISC-022). The surfaces
//! are the registry row ([`super::registry`]), its process ([`super::procs`]),
//! the main tail ([`super::tail`]), the child lanes ([`super::lanes`]) and the
//! background ledger ([`super::ledger`]). Precedence, highest first (MISC-022):
//!
//! 1. `stale-dead`: the row's process is gone or its pid was reused (REG-013);
//! 2. `waiting-hitl`: a `waiting` row (its `waitingFor` names the dialog:
//!    a permission prompt, an elicitation's `input needed`, ELI-013), an
//!    unreturned AskUserQuestion/ExitPlanMode at the tail (ELI-009), or a
//!    pending ask in the elicitation sidecar (ELI-008: a single-question ask is
//!    on no transcript while it waits; [`crate::elicitation`]);
//! 3. `running`: a `busy` row (REG-003: `busy` is the only working status), or
//!    an unreturned call within its plausible life ([`super::calls`]);
//! 4. `waiting-children`: a lane in flight or generating, or a fresh workflow
//!    journal with agents out (TAIL-004/008);
//! 5. `idle-background-open`: the turn ended but background tasks never came
//!    back (BG-003, QT-012: an end-of-turn record is no stop signal);
//! 6. `idle-eot`: a clean end of turn (an `end_turn`, or an `idle`/`shell` row
//!    of a live process; `turn_duration` is never read as one, QT-015/016);
//! 7. `unknown`: surfaces that cannot be ranked, said with the reason.
//!
//! Each verdict carries the evidence that decided it (`because`) and notes on
//! what the files cannot tell (a pending permission prompt leaves no transcript
//! trace, TAIL-010). Nothing here reads a file.

use jiff::Timestamp;
use serde::Serialize;

use super::calls::{Call, Wait};
use super::evidence;
use super::lanes::{Lanes, CHILD_RECENT_SECS};
use super::procs::PidCheck;
use super::registry::{Leg, Row};
use super::tail::{Tail, Turn};

/// The wire set of verdicts (kebab-case names, MISC-022's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    StaleDead,
    WaitingHitl,
    Running,
    WaitingChildren,
    IdleBackgroundOpen,
    IdleEot,
    Unknown,
}

impl Verdict {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Verdict::StaleDead => "stale-dead",
            Verdict::WaitingHitl => "waiting-hitl",
            Verdict::Running => "running",
            Verdict::WaitingChildren => "waiting-children",
            Verdict::IdleBackgroundOpen => "idle-background-open",
            Verdict::IdleEot => "idle-eot",
            Verdict::Unknown => "unknown",
        }
    }

    pub(crate) const ALL: [Verdict; 7] = [
        Verdict::StaleDead,
        Verdict::WaitingHitl,
        Verdict::Running,
        Verdict::WaitingChildren,
        Verdict::IdleBackgroundOpen,
        Verdict::IdleEot,
        Verdict::Unknown,
    ];
}

/// What a `waiting-hitl` session waits for.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WaitingFor {
    /// The registry's `waitingFor` verbatim, or the tool asking.
    pub(crate) reason: String,
    /// `registry`, `tail` or `sidecar`.
    pub(crate) source: &'static str,
    pub(crate) detail: Option<String>,
}

/// Everything the verdict is joined from.
pub(crate) struct Surfaces<'a> {
    pub(crate) now: Timestamp,
    pub(crate) registry: Leg<'a>,
    /// The row's process, when there is a row.
    pub(crate) pid: Option<&'a PidCheck>,
    pub(crate) main: Option<&'a Tail>,
    pub(crate) lanes: &'a Lanes,
    pub(crate) open_background: usize,
    /// Pending asks the elicitation sidecar records (ghosts dropped).
    pub(crate) elicitations: &'a [crate::elicitation::Pending],
}

/// A verdict with its evidence.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Assessment {
    pub(crate) verdict: Verdict,
    #[serde(serialize_with = "crate::live::ser_ts")]
    pub(crate) since: Option<Timestamp>,
    pub(crate) because: Vec<String>,
    pub(crate) notes: Vec<String>,
    pub(crate) waiting_for: Option<WaitingFor>,
}

const NOT_PROOF: &str = "not returned is not proof of running";

fn ms(ms: Option<i64>) -> Option<Timestamp> {
    Timestamp::from_millisecond(ms?).ok()
}

/// What every step reads, computed once from the surfaces.
struct Facts<'a> {
    s: &'a Surfaces<'a>,
    row: Option<&'a Row>,
    alive: Option<bool>,
    status: Option<&'a str>,
    pending: Option<&'a Call>,
    turn: Option<&'a Turn>,
    /// A reply the model owes (no call pending): what to, since when.
    owed: Option<(&'static str, Option<Timestamp>)>,
    live_lanes: usize,
    /// An `idle`/`shell` row of a live process.
    idle_row: bool,
    last_sign: Option<Timestamp>,
}

impl Facts<'_> {
    fn fresh(&self, t: Option<Timestamp>) -> bool {
        t.is_some_and(|t| self.s.now.as_second() - t.as_second() <= CHILD_RECENT_SECS)
    }

    /// The pending call is within its plausible life.
    fn call_live(&self) -> bool {
        self.pending.is_some_and(|c| match c.wait {
            Wait::Bounded => !c.past_bound(self.s.now),
            Wait::Spawn => self.live_lanes > 0 || self.fresh(c.time),
            Wait::Open | Wait::Human => self.fresh(c.time),
        })
    }

    fn owed_live(&self) -> bool {
        self.owed.is_some_and(|(_, t)| self.fresh(t))
    }
}

/// Join the surfaces into one verdict: the first step that decides wins.
pub(crate) fn assess(s: &Surfaces<'_>) -> Assessment {
    let row = match s.registry {
        Leg::Row(r) => Some(r),
        _ => None,
    };
    let pending = s.main.and_then(Tail::newest_pending);
    let turn = s.main.and_then(|t| t.turn.as_ref());
    let alive = s.pid.and_then(PidCheck::alive);
    let status = row.and_then(|r| r.status.as_deref());
    let f = Facts {
        s,
        row,
        alive,
        status,
        pending,
        turn,
        owed: match turn {
            Some(Turn::Owed { what, time }) if pending.is_none() => Some((*what, *time)),
            _ => None,
        },
        live_lanes: s.lanes.live().count() + s.lanes.journal_in_flight(),
        idle_row: matches!(status, Some("idle" | "shell")) && alive == Some(true),
        last_sign: evidence::last_sign_of_life(s),
    };
    let mut a = Assessment {
        verdict: Verdict::Unknown,
        since: None,
        because: evidence::rows(s),
        notes: Vec::new(),
        waiting_for: None,
    };
    let steps: [fn(&Facts<'_>, &mut Assessment) -> bool; 7] = [
        stale_dead,
        bad_input,
        waiting_hitl,
        running,
        waiting_children,
        unvouched,
        end_of_turn,
    ];
    if !steps.iter().any(|step| step(&f, &mut a)) {
        unranked(&f, &mut a);
    }
    a
}

/// Step 1: a dead or reused pid outranks every other surface (REG-013).
fn stale_dead(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn bad_input(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn waiting_hitl(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn running(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn waiting_children(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn unvouched(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn end_of_turn(f: &Facts<'_>, a: &mut Assessment) -> bool {
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
fn unranked(f: &Facts<'_>, a: &mut Assessment) {
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
    pending: Option<&super::calls::Call>,
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

#[cfg(test)]
mod tests;
