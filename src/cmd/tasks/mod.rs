//! `csift tasks`: every background task a session launched and whether it came
//! back, and the session task list. Flags → [`Config`] → the ledger
//! ([`crate::live::ledger::build`]) and task list per session → [`print`].

pub(crate) mod print;

use std::time::Instant;

use jiff::Timestamp;

use crate::cli::status::{KindArg, TasksArgs};
use crate::discovery::home::{self, ClaudeHome};
use crate::discovery::session::{self, SessionFiles};
use crate::discovery::target;
use crate::live::ledger::{self, Kind, Ledger, State};
use crate::live::tasklist::{self, TaskList};
use crate::output::{Format, Out};
use crate::timefmt::Window;

use super::{Exit, Problems};

/// `tasks`, resolved once.
pub(crate) struct Config {
    pub(crate) home: ClaudeHome,
    pub(crate) targets: Vec<String>,
    pub(crate) window: Window,
    pub(crate) open_only: bool,
    pub(crate) kind: Option<Kind>,
    pub(crate) main_only: bool,
    pub(crate) format: Format,
}

impl Config {
    pub(crate) fn new(args: &TasksArgs) -> crate::error::Result<Config> {
        let c = &args.common;
        Ok(Config {
            home: home::from_env(c.claude_home.clone())?,
            targets: args.targets.clone(),
            window: Window::parse(c.since.as_deref(), c.until.as_deref())?,
            open_only: args.open,
            kind: args.kind.map(|k| match k {
                KindArg::Shell => Kind::Shell,
                KindArg::Monitor => Kind::Monitor,
                KindArg::Agent => Kind::Agent,
                KindArg::Workflow => Kind::Workflow,
            }),
            main_only: c.no_subagents,
            format: c.format,
        })
    }
}

/// One session's ledger and task list, filtered.
pub(crate) struct SessionTasks {
    pub(crate) files: SessionFiles,
    pub(crate) ledger: Ledger,
    /// Indexes of the ledger's tasks to print.
    pub(crate) shown: Vec<usize>,
    pub(crate) task_list: Option<TaskList>,
}

impl SessionTasks {
    pub(crate) fn is_empty(&self) -> bool {
        self.shown.is_empty() && self.task_list.as_ref().is_none_or(|l| l.open.is_empty())
    }
}

pub(crate) fn run(
    args: &TasksArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let cfg = Config::new(args)?;
    let now = Timestamp::now();
    let sel = target::resolve(&cfg.home, &cfg.targets, true)?;
    for i in &sel.issues {
        problems.report(&i.path, &i.message);
    }
    let (sessions, issues) = session::group(&sel.transcripts, !cfg.targets.is_empty());
    for i in &issues {
        problems.report(&i.path, &i.message);
    }
    let opts = ledger::Options {
        turns: true,
        outputs: true,
        main_only: cfg.main_only,
    };
    let all: Vec<SessionTasks> = crate::scan::par_map(&sessions, |s| {
        let ledger = ledger::build(s, opts, now);
        let task_list = if cfg.kind.is_some() {
            None
        } else {
            tasklist::read(&cfg.home.root, &s.session_id)
        };
        let shown = (0..ledger.tasks.len())
            .filter(|&i| keep(&cfg, &ledger.tasks[i]))
            .collect();
        SessionTasks {
            files: s.clone(),
            ledger,
            shown,
            task_list,
        }
    });
    for s in &all {
        for (p, msg) in &s.ledger.problems {
            problems.report(p, msg);
        }
    }
    let notes = run_notes(&cfg, &all);
    for n in &notes {
        problems.note(format!("note: {n}"));
    }
    let st = out.style;
    let mut listed = 0usize;
    for s in all.iter().filter(|s| !s.is_empty()) {
        listed += s.shown.len() + s.task_list.as_ref().map_or(0, |l| l.open.len());
        match cfg.format {
            Format::Human => print::human(out, st, s, cfg.open_only)?,
            Format::Json => print::json(out, s, cfg.open_only)?,
        }
    }
    let summary = print::Summary::of(&all, notes, problems.count(), started);
    match cfg.format {
        Format::Human => print::footer(out, st, &summary)?,
        Format::Json => out.json(&summary)?,
    }
    Ok(Exit::from(listed > 0, problems.count()))
}

fn keep(cfg: &Config, t: &ledger::Task) -> bool {
    (!cfg.open_only || t.state == State::Open)
        && cfg.kind.is_none_or(|k| t.kind == k)
        // A launch with no time is kept only when no window is set.
        && cfg.window.contains(t.launched_at)
}

/// Said once per run: a missing task-list folder, ledger notes, task files skipped.
fn run_notes(cfg: &Config, all: &[SessionTasks]) -> Vec<String> {
    let mut notes = Vec::new();
    let tasks_dir = cfg.home.root.join("tasks");
    if cfg.kind.is_none() && !tasks_dir.is_dir() {
        notes.push(format!(
            "no task list folder at {} (Claude Code before the task tools, or a copied home): \
             task lists cannot be read",
            crate::output::sanitize::path(&tasks_dir)
        ));
    }
    for s in all {
        for n in &s.ledger.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
        for (p, why) in s.task_list.iter().flat_map(|l| &l.skipped) {
            notes.push(format!("{}: {why}", crate::output::sanitize::path(p)));
        }
    }
    notes
}
