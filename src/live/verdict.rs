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
use steps::{
    bad_input, end_of_turn, running, stale_dead, unranked, unvouched, waiting_children,
    waiting_hitl,
};

mod steps;

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

#[cfg(test)]
mod tests;
