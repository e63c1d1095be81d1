//! The background-task ledger of a session: every task it sent off-turn, and
//! whether each came back. No disk store holds this state - the registry rows
//! and `<home>/tasks/` carry none (BG-035/036, REG-015) - so it is rebuilt from
//! the transcripts, as Claude Code itself does on resume (BG-027):
//!
//! - launches ([`launch`]), from EVERY lane (BG-014): a `Bash`/`PowerShell`
//!   `run_in_background` call (BG-001), a foreground call moved to the
//!   background on its timeout or by the user (BASH-027/029), a `Monitor` arm
//!   (BG-006/007), an async agent (BG-004) and a background workflow (CLS-009).
//!   The kind comes from the tool, never the id's prefix (BG-008/009);
//! - completions ([`notice`]), from the MAIN transcript's three carriers
//!   (QT-008, BG-013/015, SUB-025), plus `TaskOutput` retrievals and
//!   `TaskStop` results from any lane; joined ([`join`]) on `<tool-use-id>`
//!   first, then any `<task-id>` (BG-010/012), the latest carrier winning
//!   (BG-019).
//!
//! The whole file is read (BG-030: a never-returned launch sits anywhere, most
//! beyond any tail window) behind a byte prefilter, so only the few lines that
//! can matter are parsed. `ScheduleWakeup` mints no task and is not one (BG-033).

pub(crate) mod echo;
pub(crate) mod join;
pub(crate) mod launch;
pub(crate) mod notice;
pub(crate) mod sieve;

use std::path::PathBuf;

use jiff::Timestamp;
use serde::Serialize;

use crate::discovery::session::SessionFiles;

/// What was launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    Shell,
    Monitor,
    Agent,
    Workflow,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Monitor => "monitor",
            Kind::Agent => "agent",
            Kind::Workflow => "workflow",
        }
    }
}

/// Where a task stands. `raw_status` keeps the notification's own word: the
/// set is open (BG-011), and a status csift does not know is `unknown`,
/// never booked as completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum State {
    Open,
    Completed,
    Failed,
    Killed,
    TimedOut,
    Unknown,
}

impl State {
    pub(crate) fn name(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Completed => "completed",
            State::Failed => "failed",
            State::Killed => "killed",
            State::TimedOut => "timed-out",
            State::Unknown => "unknown",
        }
    }

    /// A notification's `<status>` (BG-011: completed, failed, killed,
    /// stopped - a stop is a kill; anything else is unknown).
    pub(crate) fn from_status(s: &str) -> State {
        match s.trim() {
            "completed" => State::Completed,
            "failed" => State::Failed,
            "killed" | "stopped" => State::Killed,
            "running" | "pending" => State::Open,
            _ => State::Unknown,
        }
    }

    pub(crate) const ALL: [State; 6] = [
        State::Open,
        State::Completed,
        State::Failed,
        State::Killed,
        State::TimedOut,
        State::Unknown,
    ];
}

/// How a shell got into the background (BASH-029's five triggers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Trigger {
    /// `run_in_background: true` on the call.
    Explicit,
    /// A foreground call that outran its timeout (BASH-027).
    Timeout,
    /// Backgrounded by the user.
    User,
    /// Moved so a message that arrived could reach the model.
    Message,
    /// Backgrounded with no trigger on record.
    Unmarked,
}

/// The carrier that ended a task.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Ended {
    pub(crate) carrier: notice::Carrier,
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
    pub(crate) time: Option<String>,
    /// Claude Code's own reconciliation at a later session start (BG-020/021):
    /// no completion record, and the process may have outlived it (BG-027).
    pub(crate) orphan_reconciliation: bool,
    pub(crate) summary: Option<String>,
}

/// One background task.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Task {
    pub(crate) session_id: String,
    /// The lane that launched it; `None` for the main transcript.
    pub(crate) agent_id: Option<String>,
    pub(crate) task_id: Option<String>,
    pub(crate) tool_use_id: String,
    pub(crate) kind: Kind,
    pub(crate) tool: String,
    pub(crate) trigger: Option<Trigger>,
    pub(crate) state: State,
    pub(crate) raw_status: Option<String>,
    pub(crate) launched: Option<String>,
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
    pub(crate) turn: Option<usize>,
    pub(crate) command: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) persistent: Option<bool>,
    pub(crate) ended_by: Option<Ended>,
    /// Carriers that named it (repeats happen, BG-019).
    pub(crate) notifications: usize,
    /// Monitor event pulses: they keep a monitor open (BG-016).
    pub(crate) events: usize,
    pub(crate) output_file: Option<String>,
    pub(crate) output_bytes: Option<u64>,
    pub(crate) output_age_secs: Option<i64>,
    /// The output file is named but gone (an OS temp clean-up says nothing of
    /// the task, BG-028).
    pub(crate) output_gone: bool,
    pub(crate) notes: Vec<String>,
    #[serde(skip)]
    pub(crate) launched_at: Option<Timestamp>,
    /// Byte offset of the launching record, for turn numbering.
    #[serde(skip)]
    pub(crate) offset: usize,
}

/// A session's ledger.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger {
    pub(crate) tasks: Vec<Task>,
    /// Notification sections naming no launch in scope: (task ids, status).
    pub(crate) unjoined: Vec<(Vec<String>, Option<String>)>,
    pub(crate) notes: Vec<String>,
    pub(crate) problems: Vec<(PathBuf, String)>,
}

impl Ledger {
    pub(crate) fn open(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter().filter(|t| t.state == State::Open)
    }
}

/// What a ledger scan reads and adds.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Number each launch's turn (a classify pass over files with launches).
    pub(crate) turns: bool,
    /// Stat each task's output file (BG-028).
    pub(crate) outputs: bool,
    /// Read launches from the main transcript only.
    pub(crate) main_only: bool,
}

/// The files a ledger reads: the main transcript, then its lanes.
fn files_of(s: &SessionFiles, opts: Options) -> Vec<(&crate::discovery::Transcript, bool)> {
    s.main
        .iter()
        .map(|t| (t, true))
        .chain(
            s.lanes
                .iter()
                .filter(|_| !opts.main_only)
                .map(|t| (t, false)),
        )
        .collect()
}

/// Build the ledger of one session.
pub(crate) fn build(s: &SessionFiles, opts: Options, now: Timestamp) -> Ledger {
    let files = files_of(s, opts);
    let scans = crate::scan::par_map(&files, |(t, is_main)| {
        launch::scan_file(t, &s.session_id, *is_main, opts.turns)
    });
    assemble(s, &files, scans, opts, now)
}

/// The same ledger, read through the census cache ([`sieve::Sieve`]): a
/// file read before is re-read only from where it grew. The tasks and their
/// states are [`build`]'s; a launch first seen at its result lacks its call's
/// command and time (the status line counts; `tasks` prints `build`'s).
pub(crate) fn build_cached(
    s: &SessionFiles,
    cache: &crate::cache::Cache,
    now: Timestamp,
) -> Ledger {
    let opts = Options::default();
    let files = files_of(s, opts);
    let key = format!("{}\0{}", s.project_dir.to_string_lossy(), s.session_id);
    let quiet = std::sync::Mutex::new(sieve::Quiet::load(cache, &key));
    let scans = crate::scan::par_map(&files, |(t, is_main)| {
        if quiet.lock().is_ok_and(|q| q.has(t)) {
            return Ok(launch::FileScan::default());
        }
        let (sv, _) = cache.census::<sieve::Sieve>(&t.path)?;
        if let Ok(mut q) = quiet.lock() {
            q.note(t, &sv);
        }
        Ok(launch::scan_sieve(t, &s.session_id, *is_main, &sv))
    });
    if let Ok(q) = quiet.into_inner() {
        q.save(&files.iter().map(|(t, _)| *t).collect::<Vec<_>>());
    }
    assemble(s, &files, scans, opts, now)
}

/// Join each file's launches and carriers into the session's ledger.
fn assemble(
    s: &SessionFiles,
    files: &[(&crate::discovery::Transcript, bool)],
    scans: Vec<crate::error::Result<launch::FileScan>>,
    opts: Options,
    now: Timestamp,
) -> Ledger {
    let mut ledger = Ledger::default();
    let mut hits = Vec::new();
    for (i, r) in scans.into_iter().enumerate() {
        match r {
            Ok(f) => {
                ledger.tasks.extend(f.tasks);
                hits.extend(f.carriers.into_iter().map(|c| (i, c)));
                for n in f.notes {
                    if !ledger.notes.contains(&n) {
                        ledger.notes.push(n);
                    }
                }
            }
            Err(e) => ledger
                .problems
                .push((files[i].0.path.clone(), e.to_string())),
        }
    }
    join::apply(&mut ledger, hits);
    for t in &mut ledger.tasks {
        if opts.outputs {
            stat_output(t, now);
        }
        if t.kind == Kind::Agent && t.state == State::Open {
            agent_age_note(t, s, now);
        }
    }
    ledger
}

/// BG-028/029: the output file's size and age - an agent's is a symlink to its
/// transcript, a shell's a growing file - the one independent sign of life.
fn stat_output(t: &mut Task, now: Timestamp) {
    let Some(p) = t.output_file.as_deref() else {
        return;
    };
    match std::fs::metadata(p) {
        Ok(m) => {
            t.output_bytes = Some(m.len());
            t.output_age_secs = m
                .modified()
                .ok()
                .and_then(|m| Timestamp::try_from(m).ok())
                .map(|m| (now.as_second() - m.as_second()).max(0));
        }
        Err(_) => t.output_gone = true,
    }
}

/// BG-022: an open async agent whose lane was written within 48 hours may be
/// auto-resumed at the next session start rather than reconciled as stopped.
fn agent_age_note(t: &mut Task, s: &SessionFiles, now: Timestamp) {
    let Some(id) = t.task_id.as_deref() else {
        return;
    };
    let Some(lane) = s.lanes.iter().find(|l| l.agent_id.as_deref() == Some(id)) else {
        return;
    };
    let Some(age) = super::lanes::idle_secs(lane.mtime, now) else {
        return;
    };
    t.notes.push(if age < 48 * 3600 {
        "its lane was written within 48 h: a later session start may auto-resume it rather \
         than reconcile it"
            .to_string()
    } else {
        "its lane is older than 48 h: a later session start reconciles it as stopped or \
         failed, never resumes it"
            .to_string()
    });
}
