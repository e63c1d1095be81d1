//! The verdict conditions of a wait: each session's surfaces read through
//! [`crate::live::session`] (at most every [`super::GATHER_EVERY`] while
//! records flow) or judged again at a later instant
//! ([`SessionStatus::rejudge`]), and a verdict counted only once the session
//! moved after the start: history never fires (MISC-020).

use std::time::Instant;

use jiff::Timestamp;

use super::{Event, Source, Wait, GATHER_EVERY};
use crate::live::registry::Registry;
use crate::live::session::{Options, SessionStatus};

pub(super) struct Judge {
    pub(super) status: SessionStatus,
    /// What the verdict was judged from at the start ([`fingerprint`]).
    baseline: String,
    at: Instant,
    /// The session moved since the start: a turn went on, a call started or
    /// returned, a lane changed state, a row or the process changed, an ask
    /// came or went, or the verdict itself changed.
    moved: bool,
}

/// What a verdict is judged from, in one comparable string: a record that
/// moves none of it (a progress record, a hook's attachment) moves no session.
fn fingerprint(st: &SessionStatus) -> String {
    let main = st.main.as_ref();
    let row = st.registry.row();
    let lanes: Vec<String> = st
        .lanes
        .read
        .iter()
        .map(|l| format!("{}={}", l.transcript.path.display(), l.state.name()))
        .collect();
    let asks: Vec<&str> = st
        .elicitations
        .pending
        .iter()
        .map(|p| p.key.as_str())
        .collect();
    format!(
        "{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}|{}",
        st.assessment.verdict.name(),
        main.and_then(|t| t.assistant.as_ref()).map(|a| a.offset),
        main.and_then(|t| t.turn.as_ref()),
        main.map(|t| t.pending.iter().map(|c| c.id.as_str()).collect::<Vec<_>>()),
        row.map(|r| (r.status.as_deref(), r.status_updated_at_ms)),
        st.pid
            .as_ref()
            .and_then(crate::live::procs::PidCheck::alive),
        st.lanes.journal_in_flight(),
        lanes.join(","),
        asks.join(","),
        st.ledger.open().count(),
        st.assessment
            .waiting_for
            .as_ref()
            .map_or("", |w| w.reason.as_str()),
    )
}

impl Wait<'_> {
    /// Read session `i`'s surfaces and judge them (`first`: the baseline).
    pub(super) fn gather(&mut self, i: usize, first: bool) {
        let registry = Registry::read(&self.spec.home.root);
        let st = crate::live::session::assess(
            &self.spec.home.root,
            &self.sessions[i].files,
            &registry,
            Timestamp::now(),
            Options::default(),
        );
        let j = match self.judges[i].take() {
            Some(mut j) if !first => {
                j.moved |= fingerprint(&st) != j.baseline;
                j.status = st;
                j.at = Instant::now();
                j
            }
            _ => Judge {
                baseline: fingerprint(&st),
                status: st,
                at: Instant::now(),
                moved: false,
            },
        };
        self.judges[i] = Some(j);
        self.dirty[i] = false;
    }

    /// The verdict conditions over every session: a full read where records
    /// came (at most every [`GATHER_EVERY`]), else a re-judgement at this
    /// instant with the registry re-read and the process probed.
    pub(super) fn judge_all(&mut self) -> Option<Event> {
        for i in 0..self.sessions.len() {
            let due = self.judges[i]
                .as_ref()
                .is_none_or(|j| j.at.elapsed() >= GATHER_EVERY);
            if self.dirty[i] && due {
                self.gather(i, false);
            } else if let Some(j) = self.judges[i].as_mut() {
                let registry = Registry::read(&self.spec.home.root);
                j.status.rejudge(&registry, Timestamp::now());
                j.moved |= fingerprint(&j.status) != j.baseline;
            }
            let Some(j) = self.judges[i].as_ref() else {
                continue;
            };
            let v = j.status.assessment.verdict;
            // History never fires (MISC-020): a verdict counts once the
            // session moved after the start.
            if !j.moved {
                continue;
            }
            if let Some(c) = self.spec.conds.iter().find(|c| c.verdict(v)) {
                return Some(Event {
                    cond: c.spec.clone(),
                    why: format!("verdict {}", v.name()),
                    source: Source::Verdict,
                });
            }
        }
        None
    }
}
