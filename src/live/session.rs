//! One session's surfaces gathered and judged: its registry row and process,
//! its main tail, its lanes and journals, its background ledger. This is the
//! call a command (or `wait`, or the status line) makes; the result carries
//! every surface read, so a printer can show the evidence and a caller can
//! decide again without re-reading.

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
    /// Files that could not be read: (path, error).
    pub(crate) problems: Vec<(PathBuf, String)>,
    pub(crate) now: Timestamp,
}

/// Gather and judge one session of the home at `home` at `now`.
pub(crate) fn assess(
    home: &std::path::Path,
    files: &SessionFiles,
    registry: &Registry,
    now: Timestamp,
    opts: Options,
) -> SessionStatus {
    let leg = match registry.leg(&files.session_id) {
        Leg::NoRegistry => RegistryLeg::NoRegistry,
        Leg::NoRow => RegistryLeg::NoRow,
        Leg::Unreadable(p) => RegistryLeg::Unreadable(p.to_path_buf()),
        Leg::Row(r) => RegistryLeg::Row(Box::new(r.clone())),
    };
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
    let assessment = verdict::assess(&Surfaces {
        now,
        registry: leg.borrow(),
        pid: pid.as_ref(),
        main: main.as_ref(),
        lanes: &lanes,
        open_background: ledger.open().count(),
    });
    SessionStatus {
        task_list: super::tasklist::read(home, &files.session_id),
        files: files.clone(),
        registry: leg,
        pid,
        main,
        lanes,
        ledger,
        assessment,
        problems,
        now,
    }
}
