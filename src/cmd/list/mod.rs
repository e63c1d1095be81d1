//! `csift list`: one summary row per session (or per lane with `list @session`),
//! sorted, filtered by time and cut by `--max-count`. By default each transcript
//! is read as a head and a tail window ([`read`]), which answer cwd, branch,
//! versions, start, last activity and the newest titles; a file that fits in the
//! windows, every file under `--full`, and the files of a one-session listing are
//! read whole, which adds exact turn counts, every model, titles written mid-file
//! and glued records anywhere ([`facts`], into a [`summary::Summary`]);
//! [`rows`] picks, joins, orders and cuts the rows, and [`print`] (human) or
//! [`json`] (JSON Lines) prints them. Every row is read through the census
//! cache ([`cached`]): a repeated `list` reads only each file's edges.

pub(crate) mod cached;
pub(crate) mod clones;
pub(crate) mod facts;
pub(crate) mod head;
pub(crate) mod json;
pub(crate) mod literals;
pub(crate) mod print;
pub mod read;
pub(crate) mod rows;
pub(crate) mod summary;
pub(crate) mod tail;

use std::time::Instant;

use crate::cache::{self, Cache};
use crate::cli::list::ListArgs;
use crate::output::{Format, Out};
use crate::timefmt;

use super::{Exit, Problems};

/// `csift list`: resolve, read, print. Found means sessions matched, shown or
/// not (as search and stats: `-m 0` counts without printing).
pub(crate) fn run(
    args: &ListArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let window =
        timefmt::Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    let ts = super::select(&args.common, &args.targets, problems)?;
    let home = crate::discovery::home::from_env(args.common.claude_home.clone())?;
    let cache = Cache::new(!args.no_cache, cache::state_root(), Some(&home.root));
    let listing = rows::listing(ts, &window, args.max_count, args.full, &cache, problems);
    cache.flush();
    if std::env::var_os("CSIFT_CACHE_STATS").is_some() {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift: {}",
            cache.report()
        )));
    }
    let style = out.style;
    match args.common.format {
        Format::Json => json::json(
            out,
            &listing,
            problems.count(),
            started.elapsed().as_millis(),
        )?,
        Format::Human => print::human(out, style, &listing)?,
    }
    let found = listing.rows.len() + listing.dropped > 0;
    // Freeing thousands of rows took 2-3 ms of a warm listing's wall time
    // on the main thread, after its output was made: an idle worker frees
    // them (the process may exit first, which frees them at once).
    rayon::spawn(move || drop(listing));
    Ok(Exit::from(found, problems.count()))
}
