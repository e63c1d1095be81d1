//! One session's surfaces gathered and judged: its registry row and process,
//! its main tail, its lanes and journals, its background ledger, its
//! elicitation sidecar. This is the call a command (or `wait`, or the status
//! line) makes; the result carries every surface read, so a printer can show
//! the evidence and a caller can decide again without re-reading
//! ([`SessionStatus::rejudge`]: a fresh registry row and pid probe, the lanes'
//! tails judged at a later instant, no transcript read).

use std::path::PathBuf;

use jiff::Timestamp;

use super::lanes::{self, Lanes};
use super::ledger::{self, Ledger};
use super::procs::{self, PidCheck};
use super::registry::{Leg, Registry, Row};
use super::tail::{self, Tail};
use super::tasklist::TaskList;
use super::verdict::{self, Assessment, Surfaces};
use crate::discovery::session::SessionFiles;

/// What to read of a session.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Leave the lanes out (their tails, not their launches: the ledger reads
    /// every lane unless `ledger.main_only`).
    pub(crate) no_lanes: bool,
    /// Read every lane's tail, not only those written within the hour.
    pub(crate) all_lanes: bool,
    pub(crate) ledger: ledger::Options,
}

/// The registry's word on a session, owned.
#[derive(Debug, Clone)]
pub(crate) enum RegistryLeg {
    NoRegistry,
    NoRow,
    Unreadable(PathBuf),
    Row(Box<Row>),
}

impl RegistryLeg {
    pub(crate) fn row(&self) -> Option<&Row> {
        match self {
            RegistryLeg::Row(r) => Some(r),
            _ => None,
        }
    }

    fn borrow(&self) -> Leg<'_> {
        match self {
            RegistryLeg::NoRegistry => Leg::NoRegistry,
            RegistryLeg::NoRow => Leg::NoRow,
            RegistryLeg::Unreadable(p) => Leg::Unreadable(p),
            RegistryLeg::Row(r) => Leg::Row(r),
        }
    }
}

/// A session judged.
#[derive(Debug, Clone)]
pub(crate) struct SessionStatus {
    pub(crate) files: SessionFiles,
    pub(crate) registry: RegistryLeg,
    pub(crate) pid: Option<PidCheck>,
    pub(crate) main: Option<Tail>,
    pub(crate) lanes: Lanes,
    pub(crate) ledger: Ledger,
    pub(crate) assessment: Assessment,
    /// The session task list; `None` when `<home>/tasks` does not exist.
    pub(crate) task_list: Option<TaskList>,
    /// Pending asks of the elicitation sidecar ([`crate::elicitation`]).
    pub(crate) elicitations: crate::elicitation::Sidecar,
    /// Files that could not be read: (path, error).
    pub(crate) problems: Vec<(PathBuf, String)>,
    pub(crate) now: Timestamp,
}

fn leg_of(registry: &Registry, session_id: &str) -> RegistryLeg {
    match registry.leg(session_id) {
        Leg::NoRegistry => RegistryLeg::NoRegistry,
        Leg::NoRow => RegistryLeg::NoRow,
        Leg::Unreadable(p) => RegistryLeg::Unreadable(p.to_path_buf()),
        Leg::Row(r) => RegistryLeg::Row(Box::new(r.clone())),
    }
}

impl SessionStatus {
    /// Judge again at `now` from what was read, with the registry re-read
    /// (`registry`) and the process probed again: what a watcher needs when
    /// time passes or a row changes but no transcript grew.
    pub(crate) fn rejudge(&mut self, registry: &Registry, now: Timestamp) {
        self.registry = leg_of(registry, &self.files.session_id);
        // The same live process keeps its start: while its pid is still there
        // the last probe stands (no `ps` spawned per look).
        let prev = self.pid.take();
        self.pid = self.registry.row().map(|r| match prev {
            Some(p @ procs::PidCheck::Same { pid }) if r.pid == Some(pid) && procs::exists(pid) => {
                p
            }
            _ => procs::check(r),
        });
        let read = std::mem::take(&mut self.lanes.read);
        self.lanes.read = read
            .into_iter()
            .map(|l| match l.tail {
                Some(t) => lanes::judge(l.transcript, t, now),
                None => l,
            })
            .collect();
        self.now = now;
        self.assessment = self.judge();
    }

    fn judge(&self) -> Assessment {
        verdict::assess(&Surfaces {
            now: self.now,
            registry: self.registry.borrow(),
            pid: self.pid.as_ref(),
            main: self.main.as_ref(),
            lanes: &self.lanes,
            open_background: self.ledger.open().count(),
            elicitations: &self.elicitations.pending,
        })
    }
}

/// Gather and judge one session of the home at `home` at `now`.
pub(crate) fn assess(
    home: &std::path::Path,
    files: &SessionFiles,
    registry: &Registry,
    now: Timestamp,
    opts: Options,
) -> SessionStatus {
    let leg = leg_of(registry, &files.session_id);
    let pid = leg.row().map(procs::check);
    let mut problems = Vec::new();
    let main = files
        .main
        .as_ref()
        .and_then(|m| match tail::read(&m.path, true) {
            Ok(t) => Some(t),
            Err(e) => {
                problems.push((m.path.clone(), e.to_string()));
                None
            }
        });
    let lanes = if opts.no_lanes {
        Lanes::default()
    } else {
        lanes::assess(&files.lanes, &files.journals, now, opts.all_lanes)
    };
    problems.extend(lanes.problems.iter().cloned());
    let ledger = ledger::build(files, opts.ledger, now);
    problems.extend(ledger.problems.iter().cloned());
    // The sidecar is keyed by the top-level session (ELI-014): read beside a
    // main transcript only.
    let elicitations = match &files.main {
        Some(m) => crate::elicitation::read(
            crate::cache::state_root().as_deref(),
            &files.project_dir,
            &files.session_id,
            Some(&m.path),
        ),
        None => crate::elicitation::Sidecar::default(),
    };
    let mut st = SessionStatus {
        task_list: super::tasklist::read(home, &files.session_id),
        files: files.clone(),
        registry: leg,
        pid,
        main,
        lanes,
        ledger,
        assessment: Assessment {
            verdict: verdict::Verdict::Unknown,
            since: None,
            because: Vec::new(),
            notes: Vec::new(),
            waiting_for: None,
        },
        elicitations,
        problems,
        now,
    };
    st.assessment = st.judge();
    st
}
