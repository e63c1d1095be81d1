//! `csift agents`: the exact subagent tree of a session. Discovery gives the
//! files; [`input`] reads them into lanes, [`index`] joins each lane to the
//! spawn that made it on the keys Claude Code writes, [`session`] decides kinds
//! and states ([`state`]) and the returns ([`carriers`]) row by row, [`order`]
//! puts the rows in tree order; [`print`] draws the tree or writes JSON Lines,
//! [`summary`] ends it with the counts.

pub(crate) mod acc;
pub(crate) mod carriers;
pub(crate) mod facts;
pub(crate) mod index;
pub(crate) mod input;
pub(crate) mod order;
pub(crate) mod print;
pub(crate) mod row;
pub(crate) mod session;
pub(crate) mod sidecar;
pub(crate) mod state;
pub(crate) mod summary;
pub(crate) mod teammate;
pub(crate) mod written;

use std::time::Instant;

use crate::cli::agents::{AgentsArgs, KindFilter, ReturnsArg};
use crate::discovery::session::SessionFiles;
use crate::discovery::Transcript;
use crate::error::Error;
use crate::output::{Format, Out};
use crate::timefmt::{self, Window};

use super::{Exit, Problems};
use row::LaneKind;
use session::Tree;

/// Which return texts rows carry (`--returns`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Returns(pub ReturnsArg);

impl Returns {
    pub(crate) fn parent(self) -> bool {
        self.0 != ReturnsArg::Child
    }

    pub(crate) fn child(self) -> bool {
        self.0 != ReturnsArg::Parent
    }
}

pub(crate) fn run(
    args: &AgentsArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    // Lanes are what this command is about: --no-subagents cannot apply, and
    // ignoring it would show the lanes it asked to leave out.
    if args.common.no_subagents {
        return Err(crate::error::Error::Usage(
            "agents shows subagent lanes: --no-subagents does not apply (use --depth or --kind to narrow the tree)".into(),
        ));
    }
    let common = args.common.clone();
    let picked = super::select(&common, &args.targets, problems)?;
    let sessions = sessions_of(&picked, problems);
    if !args.targets.is_empty() && sessions.len() > 1 {
        return Err(too_many(&sessions));
    }
    let now = jiff::Timestamp::now();
    let returns = Returns(args.returns);
    let mut trees: Vec<Tree> = crate::scan::par_map(&sessions, |s| {
        session::build(s, returns, now, args.order_by)
    });
    if args.with_files {
        for (t, s) in trees.iter_mut().zip(&sessions) {
            written::attach(t, s);
        }
    }
    for t in &trees {
        for (p, msg) in &t.problems {
            problems.report(p, msg);
        }
    }
    if args.targets.is_empty() {
        trees.retain(|t| !t.lanes.is_empty());
    }
    let mut shown = 0usize;
    let mut keeps_all = Vec::with_capacity(trees.len());
    let st = out.style;
    for t in &mut trees {
        let keep: Vec<bool> = t.lanes.iter().map(|r| keeps(args, &window, r)).collect();
        shown += keep.iter().filter(|k| **k).count();
        match args.common.format {
            Format::Json => print::json(out, t, &keep)?,
            Format::Human => print::tree(out, st, t, &keep, args)?,
        }
        keeps_all.push(keep);
    }
    match args.common.format {
        Format::Human => summary::footer(out, st, &trees, &keeps_all, started)?,
        Format::Json => summary::json_summary(out, &trees, &keeps_all, problems.count(), started)?,
    }
    Ok(Exit::from(shown > 0, problems.count()))
}

fn keeps(args: &AgentsArgs, window: &Window, r: &row::LaneRow) -> bool {
    let kind_ok = match args.kind {
        None => true,
        Some(KindFilter::Task) => matches!(
            r.kind,
            LaneKind::Task | LaneKind::Agent | LaneKind::AsyncAgent
        ),
        Some(KindFilter::Teammate) => r.kind == LaneKind::Teammate,
        Some(KindFilter::Workflow) => r.kind == LaneKind::Workflow,
        Some(KindFilter::Fork) => r.kind == LaneKind::Fork,
        Some(KindFilter::Compact) => r.kind == LaneKind::Compact,
    };
    let first = r
        .spawn_utc
        .as_deref()
        .or(r.started_utc.as_deref())
        .and_then(timefmt::parse_ts);
    let last = r.last_utc.as_deref().and_then(timefmt::parse_ts).or(first);
    // An orphan's depth is unknown (0 in its row), but it is a lane: at least 1.
    kind_ok && args.depth.is_none_or(|d| r.depth.max(1) <= d) && window.overlaps(first, last)
}

/// Group the selected transcripts by session, re-walking each session's project
/// so every lane of the session is read even when one lane was named (`@<id>`).
fn sessions_of(picked: &[Transcript], problems: &Problems) -> Vec<SessionFiles> {
    let (sessions, issues) = crate::discovery::session::group(picked, true);
    for i in &issues {
        problems.report(&i.path, &i.message);
    }
    sessions
}

fn too_many(sessions: &[SessionFiles]) -> Error {
    let list: Vec<String> = sessions
        .iter()
        .take(20)
        .map(|s| {
            format!(
                "  @{}  ({})",
                s.session_id,
                crate::discovery::file_name(&s.project_dir)
            )
        })
        .collect();
    let more = if sessions.len() > 20 {
        format!("\n  … and {} more", sessions.len() - 20)
    } else {
        String::new()
    };
    Error::Target(format!(
        "agents needs one session, but the target names {}:\n{}{more}\n(pass one of these, or no target for every session)",
        sessions.len(),
        list.join("\n")
    ))
}
