//! `csift usage`: token and cost reports by day, week, month, session,
//! project, model or 5-hour block, with one definition of what counts: every
//! distinct API message once (the engine's [`crate::tokens`] rule), usage
//! nested in agent_progress records included and deduplicated, each message
//! placed by its own earliest time. Files are read through the census cache
//! ([`crate::cache`]) and folded ([`crate::tokens::fold`]); [`group`] makes
//! the rows and [`print`] prints them.

pub(crate) mod group;
pub(crate) mod prices;
pub(crate) mod print;

use crate::cache::{self, Cache};
use crate::cli::usage::{UsageArgs, UsageFormat};
use crate::discovery::{home, Transcript};
use crate::error::Error;
use crate::output::Out;
use crate::timefmt::Window;
use crate::tokens::fold;
use crate::tokens::pricing::Pricer;

use super::{Exit, Problems};

/// Order transcripts as `stats` does: each main file, then its lanes.
fn sort(transcripts: &mut [Transcript]) {
    transcripts.sort_by(|a, b| {
        (&a.project_dir, &a.session_id, a.is_lane(), &a.path).cmp(&(
            &b.project_dir,
            &b.session_id,
            b.is_lane(),
            &b.path,
        ))
    });
}

pub(crate) fn run(
    args: &UsageArgs,
    out: &mut Out,
    problems: &Problems,
) -> crate::error::Result<Exit> {
    let pricer = Pricer::load(args.pricing.as_deref()).map_err(Error::Usage)?;
    if args.pricing_table {
        let st = out.style;
        prices::pricing(out, st, &pricer, args.format == UsageFormat::Json)?;
        return Ok(Exit::Found);
    }
    let common = args.common();
    let window = Window::parse(args.since.as_deref(), args.until.as_deref())?;
    let home = home::from_env(args.claude_home.clone())?;
    let mut transcripts = super::select(&common, &args.targets, problems)?;
    sort(&mut transcripts);
    let cache = Cache::new(!args.no_cache, cache::state_root(), Some(&home.root));
    let refs: Vec<&Transcript> = transcripts.iter().collect();
    let folded = fold::fold(&refs, &cache, !args.no_subagents, &|t, e| {
        problems.report(&t.path, e);
    });
    if std::env::var_os("CSIFT_CACHE_STATS").is_some() {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift: {}",
            cache.report()
        )));
    }
    let now = jiff::Timestamp::now();
    let report = group::build(
        &folded,
        &transcripts,
        &pricer,
        args.by,
        &window,
        args.breakdown,
        now,
    );
    for model in &report.total.tot.unpriced {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift: no price for model {} in the pricing table of {}: its cost is null \
             (give one with --pricing FILE; csift usage --pricing-table shows the table)",
            crate::output::sanitize::one_line(model),
            report.pricing_checked
        )));
    }
    let extra = print::Extra {
        notes: folded.notes,
        files: folded.files,
        errors: problems.count(),
    };
    let style = out.style;
    match args.format {
        UsageFormat::Json => print::json(out, &report, &extra)?,
        UsageFormat::Csv => print::csv(out, &report)?,
        UsageFormat::Human => print::human(out, style, &report, &extra)?,
    }
    Ok(Exit::from(report.total.tot.messages > 0, problems.count()))
}
