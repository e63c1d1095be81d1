//! `csift plan`: the plan file each session is bound to and what happened to
//! it, or (`--audit`) the plan files sessions edited without binding them. The
//! engine ([`crate::plan`]) reads bindings and events; this module runs them
//! over the targets and hands rows to [`print`].

pub(crate) mod audit;
pub(crate) mod print;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cli::plan::PlanArgs;
use crate::discovery::{home, Transcript};
use crate::error::Error;
use crate::output::{Format, Out};
use crate::plan::{self, events, Binding};
use crate::scan::Source;

use super::{Exit, Problems};
use print::PlanRow;

/// One transcript's binding and events.
pub(crate) struct Found {
    pub(crate) t: Transcript,
    pub(crate) binding: Option<Binding>,
    pub(crate) events: events::Events,
}

pub(crate) fn run(
    args: &PlanArgs,
    w: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    if args.common.since.is_some() || args.common.until.is_some() {
        return Err(Error::Usage(
            "plan reads a binding, not a time window: --since and --until do not apply".into(),
        ));
    }
    let home = home::from_env(args.common.claude_home.clone())?;
    let picked = super::select(&args.common, &args.targets, problems)?;
    if args.audit {
        return audit::run(args, &home, &picked, w, problems, started);
    }
    let found: Vec<Found> = crate::scan::par_map(&picked, |t| read(t, &home.root))
        .into_iter()
        .filter_map(|r| match r {
            Ok(f) => f,
            Err((p, e)) => {
                problems.report(&p, e);
                None
            }
        })
        .collect();
    let rows: Vec<PlanRow> = found.iter().map(|f| print::row(f, args.show)).collect();
    let mut summary = print::Summary::of(&rows);
    summary.errors = problems.count();
    summary.elapsed_ms = started.elapsed().as_millis();
    let style = w.style;
    match args.common.format {
        Format::Json => print::json(w, &rows, &summary)?,
        Format::Human => print::human(w, style, &rows, &summary)?,
    }
    Ok(Exit::from(!rows.is_empty(), problems.count()))
}

/// A transcript's binding and events; `None` when it has neither.
fn read(t: &Transcript, home: &Path) -> Result<Option<Found>, (PathBuf, String)> {
    let src = Source::open(&t.path).map_err(|e| (t.path.clone(), e.to_string()))?;
    let binding = plan::bind(&src, home, t.is_lane());
    let events = events::scan(&src);
    src.check().map_err(|e| (t.path.clone(), e.to_string()))?;
    if binding.is_none() && events.is_empty() {
        return Ok(None);
    }
    Ok(Some(Found {
        t: t.clone(),
        binding,
        events,
    }))
}
