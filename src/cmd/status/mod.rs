//! `csift status`: a verdict per session, with the evidence that decided it.
//! Flags → [`Config`] → the live engine ([`crate::live::session::assess`]) per
//! selected session → [`print`]. With no target only sessions active in the
//! window (by file time, plus every registered one) are read at all, so the
//! cost is the walk and a few tails, not the home.

pub(crate) mod print;

use std::ffi::OsStr;
use std::time::{Duration, Instant, SystemTime};

use jiff::{Timestamp, ToSpan};

use crate::cli::status::StatusArgs;
use crate::discovery::home::{self, ClaudeHome};
use crate::discovery::session::{self, SessionFiles};
use crate::discovery::{target, Transcript};
use crate::error::Error;
use crate::live::registry::Registry;
use crate::live::session::{Options, SessionStatus};
use crate::output::{Format, Out};
use crate::scan::hash::FxSet;

use super::{Exit, Problems};

/// The default activity window of `status` with no target.
const DEFAULT_WINDOW_HOURS: i64 = 24;

/// `status`, resolved once.
pub(crate) struct Config {
    pub(crate) home: ClaudeHome,
    pub(crate) targets: Vec<String>,
    /// Sessions written at or after this instant (none: every selected one).
    pub(crate) active_since: Option<Timestamp>,
    /// How the window was chosen, for the summary.
    pub(crate) window: String,
    pub(crate) opts: Options,
    pub(crate) format: Format,
}

impl Config {
    pub(crate) fn new(args: &StatusArgs, now: Timestamp) -> crate::error::Result<Config> {
        let c = &args.common;
        if c.until.is_some() {
            return Err(Error::Usage(
                "status judges the present: --until does not apply (--since sets the activity window)"
                    .into(),
            ));
        }
        let home = home::from_env(c.claude_home.clone())?;
        let (active_since, window) = match (&c.since, args.all) {
            (_, true) => (None, "all".to_string()),
            (Some(s), false) => {
                let t = crate::timefmt::parse_bound(s, now, false)?;
                (Some(t), format!("since {}", crate::timefmt::utc(t)))
            }
            (None, false) if args.targets.is_empty() => (
                now.checked_sub(DEFAULT_WINDOW_HOURS.hours()).ok(),
                format!("last {DEFAULT_WINDOW_HOURS} h"),
            ),
            (None, false) => (None, "targets".to_string()),
        };
        Ok(Config {
            home,
            targets: args.targets.clone(),
            active_since,
            window,
            opts: Options {
                no_lanes: c.no_subagents,
                all_lanes: args.all_lanes,
                ledger: crate::live::ledger::Options {
                    main_only: c.no_subagents,
                    ..crate::live::ledger::Options::default()
                },
            },
            format: c.format,
        })
    }
}

pub(crate) fn run(
    args: &StatusArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let now = Timestamp::now();
    let cfg = Config::new(args, now)?;
    let registry = Registry::read(&cfg.home.root);
    let sessions = select(&cfg, &registry, now, problems)?;
    let mut judged: Vec<SessionStatus> = crate::scan::par_map(&sessions, |s| {
        let mut st = crate::live::session::assess(&cfg.home.root, s, &registry, now, cfg.opts);
        number(&mut st);
        st
    });
    judged.sort_by(|a, b| {
        (last_sign(b), &a.files.session_id).cmp(&(last_sign(a), &b.files.session_id))
    });
    for st in &judged {
        for (p, msg) in &st.problems {
            problems.report(p, msg);
        }
    }
    let notes = run_notes(&cfg, &registry, &judged);
    for n in &notes {
        problems.note(format!("note: {n}"));
    }
    let st = out.style;
    for s in &judged {
        match cfg.format {
            Format::Human => print::human(out, st, s)?,
            Format::Json => print::json(out, s)?,
        }
    }
    let summary = print::Summary::of(
        &judged,
        &cfg.window,
        &registry,
        notes,
        problems.count(),
        started,
    );
    match cfg.format {
        Format::Human => print::footer(out, st, &summary)?,
        Format::Json => out.json(&summary)?,
    }
    Ok(Exit::from(!judged.is_empty(), problems.count()))
}

/// The sessions to judge: the targets' (or the home's), grouped, then those
/// active in the window or registered.
fn select(
    cfg: &Config,
    registry: &Registry,
    now: Timestamp,
    problems: &Problems,
) -> crate::error::Result<Vec<SessionFiles>> {
    let registered: FxSet<&str> = registry.session_ids().collect();
    // A session is active when one of its files was written in the window
    // (by the whole seconds `idle_secs` counts) or it is registered.
    let since = cfg.active_since;
    let cutoff = since.map(|s| now.as_second() - s.as_second());
    let active = |t: &Transcript| {
        registered.contains(t.session_id.as_str())
            || cutoff.is_some_and(|c| {
                crate::live::lanes::idle_secs(t.mtime, now).is_some_and(|i| i <= c)
            })
    };
    // With no target, the walk keeps only the files that can make a session
    // active (two seconds early, so whole-second rounding loses none), then
    // fetches the rest of those sessions' files: thousands of transcripts
    // are never built.
    let early = since.and_then(|s| SystemTime::from(s).checked_sub(Duration::from_secs(2)));
    let (sel, filtered) = match early {
        Some(early) if cfg.targets.is_empty() => {
            // Registry rows name top-level sessions only (REG-001, REG-006).
            let named = registered.iter().map(|s| s.to_string()).collect();
            let sel = target::resolve_active(&cfg.home, early, named, active)?;
            (sel, true)
        }
        _ => (target::resolve(&cfg.home, &cfg.targets, true)?, false),
    };
    for i in &sel.issues {
        problems.report(&i.path, &i.message);
    }
    // Only the sessions active in the window (or registered) are grouped at
    // all: with no target that is a few of thousands (already cut to them
    // when the walk picked).
    let picked: Vec<Transcript> = match since {
        Some(_) if !filtered => {
            // Keyed by the project directory's bytes, Fx-hashed: a path hashes
            // by its components, which for every transcript of a 5,044-file
            // home was a sixth of `status`'s time above its walk.
            let active: FxSet<(&OsStr, &str)> = sel
                .transcripts
                .iter()
                .filter(|t| active(t))
                .map(|t| (t.project_dir.as_os_str(), t.session_id.as_str()))
                .collect();
            sel.transcripts
                .iter()
                .filter(|t| active.contains(&(t.project_dir.as_os_str(), t.session_id.as_str())))
                .cloned()
                .collect()
        }
        _ => sel.transcripts,
    };
    let (sessions, issues) = session::group(&picked, !cfg.targets.is_empty());
    for i in &issues {
        problems.report(&i.path, &i.message);
    }
    Ok(sessions)
}

/// Line numbers for what is printed.
fn number(st: &mut SessionStatus) {
    if let Some(t) = st.main.as_mut() {
        t.number();
    }
    for l in &mut st.lanes.read {
        if let Some(t) = l.tail.as_mut() {
            t.number();
        }
    }
}

/// The newest sign of life of a session, for ordering.
fn last_sign(s: &SessionStatus) -> Option<Timestamp> {
    s.main
        .as_ref()
        .and_then(crate::live::tail::Tail::time)
        .into_iter()
        .chain(s.lanes.read.iter().filter_map(|l| l.tail.as_ref()?.time()))
        .max()
}

/// What is said once per run: a missing registry, rows skipped, ledger notes.
fn run_notes(cfg: &Config, registry: &Registry, judged: &[SessionStatus]) -> Vec<String> {
    let mut notes = Vec::new();
    if !registry.present {
        notes.push(format!(
            "no session registry at {} (Claude Code before it kept one, or a copied home): \
             verdicts come from the transcripts alone: a dead process cannot be told from \
             an idle one, and a pending permission prompt or single-question \
             AskUserQuestion, which leaves no transcript trace, cannot be ruled out",
            crate::output::sanitize::path(&registry.dir)
        ));
    }
    for (p, why) in &registry.skipped {
        notes.push(format!("{}: {why}", crate::output::sanitize::path(p)));
    }
    if !cfg.home.root.join("tasks").is_dir() {
        notes.push(format!(
            "no task list folder at {}: no session's task list can be read",
            crate::output::sanitize::path(&cfg.home.root.join("tasks"))
        ));
    }
    for s in judged {
        for n in &s.ledger.notes {
            if !notes.contains(n) {
                notes.push(n.clone());
            }
        }
    }
    notes
}
