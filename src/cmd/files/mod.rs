//! `csift files`: every path a session touched, one row per path or per touch.
//! Config → the touch engine ([`crate::files`]) → [`print`].

pub(crate) mod print;

use std::time::Instant;

use crate::cli::files::{By, FilesArgs};
use crate::discovery::Transcript;
use crate::files::{self, FileTouches, Touch};
use crate::output::{Format, Out};
use crate::timefmt::{self, Window};

use super::{Exit, Problems};

/// The resolved configuration of one `files` run.
pub(crate) struct Config {
    pub(crate) by: By,
    pub(crate) path: Option<regex::Regex>,
    pub(crate) window: Window,
    pub(crate) format: Format,
    pub(crate) nested: bool,
}

impl Config {
    fn from_args(args: &FilesArgs) -> crate::error::Result<Config> {
        let path = match &args.path {
            Some(p) => Some(
                regex::Regex::new(p)
                    .map_err(|e| crate::error::Error::Usage(format!("--path: {e}")))?,
            ),
            None => None,
        };
        Ok(Config {
            by: args.by,
            path,
            window: Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?,
            format: args.common.format,
            nested: !args.common.no_subagents,
        })
    }
}

/// One touch with the transcript it came from.
pub(crate) struct Event<'a> {
    pub(crate) t: &'a Touch,
    pub(crate) tr: &'a Transcript,
    /// The time used to order it: its own, or the last one before it in its file.
    pub(crate) order_ts: Option<&'a str>,
}

pub(crate) fn run(
    args: &FilesArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let cfg = Config::from_args(args)?;
    let transcripts = super::select(&args.common, &args.targets, problems)?;
    let opts = files::Options {
        recover: false,
        want: None,
        nested: cfg.nested,
    };
    let all = files::scan_all(&transcripts, &opts);
    for (t, ft) in transcripts.iter().zip(&all) {
        if let Some(e) = &ft.error {
            problems.report(&t.path, e);
        }
    }
    let events = select_events(&cfg, &transcripts, &all);
    let stats = print::Stats {
        transcripts: transcripts.len(),
        malformed: all.iter().map(|f| f.malformed).sum(),
        errors: problems.count(),
        elapsed_ms: started.elapsed().as_millis(),
    };
    match (cfg.format, cfg.by) {
        (Format::Json, _) => print::json(out, &events, cfg.by, &stats)?,
        (Format::Human, By::File) => print::by_file(out, &events, &stats)?,
        (Format::Human, By::Timeline) => print::timeline(out, &events, &stats)?,
    }
    Ok(Exit::from(!events.is_empty(), problems.count()))
}

/// The touches the window and `--path` keep, each with the time it sorts by.
fn select_events<'a>(
    cfg: &Config,
    transcripts: &'a [Transcript],
    all: &'a [FileTouches],
) -> Vec<Event<'a>> {
    let mut events = Vec::new();
    for (tr, ft) in transcripts.iter().zip(all) {
        let mut order: Vec<&Touch> = ft.touches.iter().collect();
        order.sort_by_key(|t| (t.line, t.sub));
        let mut last: Option<&str> = None;
        for t in order {
            let own = t.ts.as_deref();
            let order_ts = own.or(last);
            last = order_ts;
            if !cfg.window.is_open() && !cfg.window.contains(own.and_then(timefmt::parse_ts)) {
                continue;
            }
            if cfg.path.as_ref().is_some_and(|re| !re.is_match(&t.path)) {
                continue;
            }
            events.push(Event { t, tr, order_ts });
        }
    }
    events
}
