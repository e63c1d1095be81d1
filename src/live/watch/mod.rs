//! `wait`'s engine: block until a session does something. It seeds a
//! byte-offset baseline per watched file (content before it is history and
//! never fires, MISC-020), says so once (the readiness line a caller orders its
//! trigger after), then wakes on filesystem notifications ([`notifier`]) or a
//! poll, reads what each file gained ([`cursor`]), rediscovers lanes and
//! sidecars ([`scope`]) and matches the conditions ([`cond`]) - record
//! conditions on each appended record, verdict conditions on the session's
//! verdict from [`crate::live::session`] once something changed after the
//! start. The first condition to hold wins; the deadline is required
//! (MISC-019: a background task may never return). Nothing here prints.

pub(crate) mod cond;
pub(crate) mod cursor;
mod judge;
pub(crate) mod notifier;
mod read;
pub(crate) mod scope;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use jiff::Timestamp;

use crate::discovery::home::ClaudeHome;
use crate::discovery::session::{self, SessionFiles};
use crate::discovery::{target, Transcript};
use crate::elicitation::Marker;
use crate::error::{Error, Result};
use crate::live::registry::Registry;
use crate::live::session::{Options, SessionStatus};
use cond::Cond;
use cursor::{Cursor, Role};
use notifier::Notifier;
use scope::Watched;

/// A wait, resolved.
pub(crate) struct Spec {
    pub(crate) home: ClaudeHome,
    pub(crate) targets: Vec<String>,
    pub(crate) conds: Vec<Cond>,
    pub(crate) timeout: Duration,
    /// Follow subagent lanes (off: `--no-subagents`).
    pub(crate) lanes: bool,
    pub(crate) wait_for_start: bool,
    pub(crate) poll: Duration,
    pub(crate) force_poll: bool,
    /// csift's state root, where the elicitation sidecar is.
    pub(crate) state: Option<PathBuf>,
}

/// Where an event was read.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// A transcript record starting at `offset`; `tool_use_id` names the call
    /// that matched, when one did.
    Record {
        transcript: Transcript,
        offset: u64,
        tool_use_id: Option<String>,
    },
    /// A sidecar marker line.
    Sidecar { path: PathBuf, marker: Box<Marker> },
    /// The session's verdict.
    Verdict,
}

/// A condition that held.
pub(crate) struct Event {
    pub(crate) cond: String,
    /// What matched, in a few words.
    pub(crate) why: String,
    pub(crate) source: Source,
}

/// What the wait saw after its baseline.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub(crate) struct Activity {
    pub(crate) files: usize,
    pub(crate) records: usize,
    /// Lanes that gained records.
    pub(crate) lanes: usize,
    pub(crate) sidecar_lines: usize,
    pub(crate) tools: BTreeMap<String, usize>,
    #[serde(skip)]
    lane_ids: std::collections::BTreeSet<String>,
}

/// How a wait ended (an error is the `Err` of [`run`]).
pub(crate) struct Outcome {
    /// `None`: the deadline passed.
    pub(crate) fired: Option<Event>,
    /// The newest record read after the baseline.
    pub(crate) last: Option<Source>,
    pub(crate) waited: Duration,
    pub(crate) activity: Activity,
    /// Each session judged at the end (the one that fired a verdict
    /// condition first).
    pub(crate) status: Vec<SessionStatus>,
}

/// Notes for stderr: the readiness line, a re-baseline, a fallback.
pub(crate) type Say<'a> = &'a mut dyn FnMut(&str);

/// Least time between two full reads of a session's surfaces while records flow.
const GATHER_EVERY: Duration = Duration::from_millis(250);
/// How often a target that names nothing yet is resolved again.
const START_POLL: Duration = Duration::from_secs(1);

struct Wait<'a> {
    spec: &'a Spec,
    sessions: Vec<Watched>,
    cursors: Vec<Cursor>,
    judges: Vec<Option<judge::Judge>>,
    dirty: Vec<bool>,
    notifier: Notifier,
    activity: Activity,
    last: Option<Source>,
    started: Instant,
    verdicts: bool,
}

/// Run a wait to its first event, its deadline or an error.
pub(crate) fn run(spec: &Spec, say: Say<'_>) -> Result<Outcome> {
    let started = Instant::now();
    let deadline = started + spec.timeout;
    let mut w = Wait {
        spec,
        sessions: Vec::new(),
        cursors: Vec::new(),
        judges: Vec::new(),
        dirty: Vec::new(),
        notifier: Notifier::new(spec.poll, spec.force_poll),
        activity: Activity::default(),
        last: None,
        started,
        verdicts: spec.conds.iter().any(Cond::on_verdict),
    };
    match select(spec) {
        Ok((sessions, only)) => w.start(sessions, only.as_deref(), false),
        Err(e) if spec.wait_for_start && matches!(e, Error::Target(_)) => {
            say(&format!(
                "csift: waiting for {} to appear; until {}; timeout {}",
                spec.targets.join(" "),
                conds_text(spec),
                secs(spec.timeout)
            ));
        }
        Err(e) => return Err(e),
    }
    if let Some(why) = &w.notifier.fallback {
        say(&format!("csift: note: {why}: polling instead"));
    }
    if !w.sessions.is_empty() {
        say(&w.readiness());
    }
    loop {
        if let Some(e) = w.step(say)? {
            return Ok(w.finish(Some(e)));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(w.finish(None));
        }
        let mut limit = deadline - now;
        if w.dirty.iter().any(|d| *d) {
            limit = limit.min(GATHER_EVERY);
        }
        if w.sessions.is_empty() {
            // --wait-for-start: nothing to be notified about yet.
            limit = limit.min(START_POLL);
        }
        match w.notifier.wait(limit) {
            Some(paths) if !paths.is_empty() && !w.concerns(&paths) => {
                // Another session's write: wait on without a step.
                while Instant::now() < deadline {
                    match w.notifier.wait(deadline - Instant::now()) {
                        Some(p) if !p.is_empty() && !w.concerns(&p) => continue,
                        _ => break,
                    }
                }
            }
            _ => {}
        }
    }
}

/// The sessions the targets name; `Some(files)` when they named lanes only
/// (only those are read).
fn select(spec: &Spec) -> Result<(Vec<SessionFiles>, Option<Vec<PathBuf>>)> {
    let sel = target::resolve(&spec.home, &spec.targets, spec.lanes)?;
    if sel.transcripts.is_empty() {
        return Err(Error::Target(format!(
            "{}: names no transcript",
            spec.targets.join(" ")
        )));
    }
    let only = sel
        .transcripts
        .iter()
        .all(Transcript::is_lane)
        .then(|| sel.transcripts.iter().map(|t| t.path.clone()).collect());
    let (sessions, _) = session::group(&sel.transcripts, true);
    Ok((sessions, only))
}

fn conds_text(spec: &Spec) -> String {
    let c: Vec<&str> = spec.conds.iter().map(|c| c.spec.as_str()).collect();
    c.join(" | ")
}

fn secs(d: Duration) -> String {
    let ms = d.as_millis();
    match ms % 1000 {
        0 => format!("{}s", ms / 1000),
        _ => format!("{:.1}s", d.as_secs_f64()),
    }
}

impl Wait<'_> {
    /// Seed the sessions' cursors: at each file's length, or at 0 for
    /// sessions that appeared after the start (`born`).
    fn start(&mut self, sessions: Vec<SessionFiles>, only: Option<&[PathBuf]>, born: bool) {
        for files in sessions {
            let index = self.sessions.len();
            let follow = self.spec.lanes && only.is_none();
            let watched = Watched::new(files, follow, self.spec.state.as_deref());
            let mut cursors = scope::baseline(&watched, index, only);
            if born {
                for c in &mut cursors {
                    c.offset = 0;
                    c.baseline = 0;
                }
            }
            for (dir, recursive) in watched.folders() {
                self.notifier.watch(&dir, recursive);
            }
            self.cursors.extend(cursors);
            self.sessions.push(watched);
            self.dirty.push(false);
            self.judges.push(None);
            if self.verdicts {
                self.gather(index, true);
            }
        }
        self.activity.files = self.cursors.len();
    }

    fn readiness(&self) -> String {
        let shown: Vec<String> = self
            .cursors
            .iter()
            .take(4)
            .map(|c| {
                format!(
                    "{} ({})",
                    c.baseline,
                    crate::output::sanitize::one_line(&crate::discovery::file_name(&c.path))
                )
            })
            .collect();
        let more = match self.cursors.len().saturating_sub(4) {
            0 => String::new(),
            n => format!(", and {n} more"),
        };
        format!(
            "csift: watching {} files from byte offsets {}{more}; until {}; timeout {}",
            self.cursors.len(),
            shown.join(", "),
            conds_text(self.spec),
            secs(self.spec.timeout)
        )
    }

    /// Whether any of the event paths concerns a watched session (or the
    /// registry a verdict reads, or a target still to appear).
    fn concerns(&self, paths: &[PathBuf]) -> bool {
        let registry = self.spec.home.root.join("sessions");
        paths.iter().any(|p| {
            self.sessions.iter().any(|s| s.concerns(p))
                || (self.verdicts && p.starts_with(&registry))
                || self.sessions.is_empty()
        })
    }

    /// One look at everything: rediscover, read, match.
    fn step(&mut self, say: Say<'_>) -> Result<Option<Event>> {
        if self.sessions.is_empty() {
            // --wait-for-start: the target may have appeared.
            if let Ok((sessions, only)) = select(self.spec) {
                self.start(sessions, only.as_deref(), true);
                say(&self.readiness());
            }
            return Ok(None);
        }
        self.rediscover();
        for i in 0..self.cursors.len() {
            if let Some(e) = self.read(i, say)? {
                return Ok(Some(e));
            }
        }
        if self.verdicts {
            return Ok(self.judge_all());
        }
        Ok(None)
    }

    /// New lanes and sidecars join at offset 0 (MISC-021, TAIL-017).
    fn rediscover(&mut self) {
        self.notifier.forget_missing();
        if self.verdicts {
            // A registry row's transition is a verdict's event.
            self.notifier
                .watch(&self.spec.home.root.join("sessions"), false);
        }
        for i in 0..self.sessions.len() {
            for (dir, recursive) in self.sessions[i].folders() {
                self.notifier.watch(&dir, recursive);
            }
            for lane in self.sessions[i].new_lanes() {
                self.cursors
                    .push(Cursor::new(&lane.path, Role::Lane, i, lane.agent_id, true));
            }
            let sidecars = self.sessions[i].sidecars.clone();
            for s in sidecars {
                if s.is_file() && !self.cursors.iter().any(|c| c.path == s) {
                    self.cursors
                        .push(Cursor::new(&s, Role::Sidecar, i, None, true));
                }
            }
        }
        self.activity.files = self.cursors.len();
    }

    fn finish(mut self, fired: Option<Event>) -> Outcome {
        let mut status: Vec<SessionStatus> = Vec::new();
        for i in 0..self.sessions.len() {
            let fresh = match (&fired, self.judges[i].take()) {
                (
                    Some(Event {
                        source: Source::Verdict,
                        ..
                    }),
                    Some(j),
                ) => Some(j.status),
                _ => None,
            };
            status.push(fresh.unwrap_or_else(|| {
                let registry = Registry::read(&self.spec.home.root);
                crate::live::session::assess(
                    &self.spec.home.root,
                    &self.sessions[i].files,
                    &registry,
                    Timestamp::now(),
                    Options::default(),
                )
            }));
        }
        Outcome {
            fired,
            last: self.last,
            waited: self.started.elapsed(),
            activity: self.activity,
            status,
        }
    }
}
