//! `csift stats`: an exact census of what transcripts hold — lines, record and
//! block types, labels, turns, tools, and tokens counted once per API message.
//! Files are censused in parallel ([`census`]); each finished file is folded into
//! the total (and its `--by` group) at once and its token book dropped, so memory
//! holds per-file state plus one small entry per message for the cross-file
//! dedupe ([`total`]). Rows come back in path order and go to [`print`].

pub(crate) mod bymodel;
pub(crate) mod cached;
pub(crate) mod census;
mod codec;
pub(crate) mod known;
pub(crate) mod model;
pub(crate) mod print;
pub(crate) mod revisit;
pub(crate) mod total;

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Instant;

use crate::cache::{self, Cache};
use crate::cli::stats::{GroupBy, StatsArgs};
use crate::discovery::Transcript;
use crate::output::{Format, Out};
use crate::timefmt::Window;

use super::{Exit, Problems};
use census::Census;
use total::{Acc, Finished};

/// One printed row: a transcript or a group.
pub(crate) struct RowOut<'a> {
    pub(crate) transcript: Option<&'a Transcript>,
    /// A group's key (`None`: the group of transcripts with no such value).
    pub(crate) key: Option<String>,
    pub(crate) body: Body,
    pub(crate) transcripts: u64,
}

/// What a row keeps until it is printed. A group keeps its census; a
/// transcript's row is cut down as soon as its file is counted, to its JSON
/// line or to the numbers its human line shows: a whole census costs about
/// 5 KB a file, which grew stats' memory with the home (issue 37).
pub(crate) enum Body {
    Census(Box<Census>),
    Json(Vec<u8>),
    Line(print::Brief),
}

/// Everything the printers need.
pub(crate) struct Report<'a> {
    pub(crate) rows: Vec<RowOut<'a>>,
    pub(crate) rows_left_out: usize,
    pub(crate) total: Finished,
    pub(crate) by: Option<GroupBy>,
    /// Files or targets that could not be read (said on stderr; exit 2).
    pub(crate) errors: usize,
    pub(crate) elapsed_ms: u128,
}

#[derive(Default)]
struct Folds {
    total: Acc,
    /// Groups by key; `None`: transcripts with no such value.
    groups: BTreeMap<Option<String>, Acc>,
    /// Records of transcripts the window left out whole: still counted in
    /// the total's `outside_window`, so records + outside_window add up.
    outside_whole: u64,
}

impl Folds {
    /// Settle every ledger and key set (see [`Acc::settle`]).
    fn settle(&mut self) {
        self.total.settle();
        for acc in self.groups.values_mut() {
            acc.settle();
        }
    }

    /// Fold in the folds of other transcripts.
    fn absorb(&mut self, o: Folds) {
        self.total.absorb(o.total);
        for (k, acc) in o.groups {
            self.groups.entry(k).or_default().absorb(acc);
        }
        self.outside_whole += o.outside_whole;
    }
}

/// One [`Folds`] per worker thread, merged when every file is done: a single
/// one behind one lock had the two workers of a warm run (every file a cache
/// hit) waiting on each other for the ledger fold (about 5% of its CPU in
/// lock spins and futex calls).
struct Shards(Vec<Mutex<Folds>>);

impl Shards {
    fn new() -> Shards {
        let n = rayon::current_num_threads() + 1;
        Shards((0..n).map(|_| Mutex::default()).collect())
    }

    /// The calling worker's folds (a caller outside the pool shares the last).
    fn mine(&self) -> &Mutex<Folds> {
        let last = self.0.len() - 1;
        let i = rayon::current_thread_index().map_or(last, |i| i.min(last));
        &self.0[i]
    }

    /// Every worker's folds in one: each settled on its own thread first
    /// (sorting its ledger is most of a merge's work), then merged in turn.
    fn merge(self) -> crate::error::Result<Folds> {
        crate::scan::par_map(&self.0, |m| {
            if let Ok(mut f) = m.lock() {
                f.settle();
            }
        });
        let mut all = Folds::default();
        for m in self.0 {
            let f = m
                .into_inner()
                .map_err(|_| crate::error::Error::Internal("a census worker panicked".into()))?;
            all.absorb(f);
        }
        Ok(all)
    }
}

pub(crate) fn run(
    args: &StatsArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    let mut transcripts = super::select(&args.common, &args.targets, problems)?;
    order(&mut transcripts);
    let home = crate::discovery::home::from_env(args.common.claude_home.clone())?;
    let cache = Cache::new(!args.no_cache, cache::state_root(), Some(&home.root));
    let run = Run {
        args,
        window,
        cache: &cache,
        lanes: lane_counts(&transcripts),
    };
    let (folds, mut rows, mut counted) = run.census_all(&transcripts, problems)?;
    if std::env::var_os("CSIFT_CACHE_STATS").is_some() {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift: {}",
            cache.report()
        )));
    }
    if args.by.is_some() {
        rows = group_rows(folds.groups);
        counted = rows.len();
    }
    rows.truncate(args.max_count.unwrap_or(usize::MAX));
    let mut total = folds.total.finish();
    total.census.outside_window += folds.outside_whole;
    let report = Report {
        rows_left_out: counted.saturating_sub(rows.len()),
        rows,
        total,
        by: args.by,
        errors: problems.count(),
        elapsed_ms: started.elapsed().as_millis(),
    };
    match args.common.format {
        Format::Json => print::json(out, &report)?,
        Format::Human => print::human(out, &report)?,
    }
    // Found means a line was counted: a home of empty transcripts prints a
    // zero total and, like list, search and agents with nothing, exits 1.
    Ok(Exit::from(report.total.census.lines > 0, problems.count()))
}

/// Each main transcript, then its lanes (discovery may list a lane first).
fn order(transcripts: &mut [Transcript]) {
    transcripts.sort_by(|a, b| {
        (&a.project_dir, &a.session_id, a.is_lane(), &a.path).cmp(&(
            &b.project_dir,
            &b.session_id,
            b.is_lane(),
            &b.path,
        ))
    });
}

/// Lane files per session id.
fn lane_counts(transcripts: &[Transcript]) -> HashMap<&str, u64> {
    let mut lanes: HashMap<&str, u64> = HashMap::new();
    for t in transcripts.iter().filter(|t| t.is_lane()) {
        *lanes.entry(t.session_id.as_str()).or_default() += 1;
    }
    lanes
}

/// One `--by` row per group, in key order.
fn group_rows<'a>(groups: BTreeMap<Option<String>, Acc>) -> Vec<RowOut<'a>> {
    groups
        .into_iter()
        .map(|(k, acc)| {
            let f = acc.finish();
            RowOut {
                transcript: None,
                key: k,
                body: Body::Census(Box::new(f.census)),
                transcripts: f.transcripts,
            }
        })
        .collect()
}

/// What every file's census needs.
struct Run<'a> {
    args: &'a StatsArgs,
    window: Window,
    cache: &'a Cache,
    lanes: HashMap<&'a str, u64>,
}

/// A file's outcome: an error, left out whole by the window (`None`), or
/// counted, with its row when it is printed.
type FileOut = Result<Option<Option<Body>>, String>;

impl<'a> Run<'a> {
    /// Census every transcript in parallel, folding each into the totals as
    /// it finishes; the per-transcript rows in path order, and how many
    /// transcripts counted.
    fn census_all<'t>(
        &self,
        transcripts: &'t [Transcript],
        problems: &Problems,
    ) -> crate::error::Result<(Folds, Vec<RowOut<'t>>, usize)> {
        let shards = Shards::new();
        let items: Vec<(usize, &Transcript)> = transcripts.iter().enumerate().collect();
        if self.window.is_open() {
            // Each project's cache pack is written once its last file is done.
            for t in transcripts {
                self.cache.will_read(&t.project_dir, 1);
            }
        }
        // Files cut into chunks first: such a file ends in a sequential chunk
        // merge and settle (about 60 ms for the generated home's 320 MB
        // transcript), which started last ran alone on one core at the end.
        let chunked = census::CHUNK as u64;
        let results = crate::scan::par_map_larger_first(
            &items,
            |(_, t)| t.size,
            chunked,
            |&(i, t)| self.one(shards.mine(), i, t),
        );
        self.cache.flush();
        let mut rows = Vec::new();
        let mut counted = 0;
        for ((_, t), r) in items.iter().zip(results) {
            match r {
                Err(e) => problems.report(&t.path, e),
                Ok(None) => {}
                Ok(Some(c)) => {
                    counted += 1;
                    rows.extend(c.map(|body| RowOut {
                        transcript: Some(*t),
                        key: None,
                        body,
                        transcripts: 1,
                    }));
                }
            }
        }
        Ok((shards.merge()?, rows, counted))
    }

    /// Census transcript `i` and fold it in.
    fn one(&self, folds: &Mutex<Folds>, i: usize, t: &Transcript) -> FileOut {
        let (args, window) = (self.args, &self.window);
        let (mut c, book) = self.census(t)?;
        let counted_none =
            c.lines == c.outside_window + c.malformed_lines && c.glued_records.is_empty();
        if !window.is_open() && counted_none {
            if let Ok(mut f) = folds.lock() {
                f.outside_whole += c.outside_window;
            }
            return Ok(None);
        }
        if !t.is_lane() {
            let lanes = self.lanes.get(t.session_id.as_str()).copied();
            c.lanes = lanes.unwrap_or(0) + c.inline_lanes;
        }
        fold(folds, args.by, t, &c, &book);
        let keep = match (args.by, args.max_count) {
            (None, Some(m)) if window.is_open() => m,
            (None, _) => usize::MAX,
            (Some(_), _) => 0,
        };
        let body = match args.common.format {
            _ if i >= keep => return Ok(Some(None)),
            Format::Json => Body::Json(print::transcript_json(t, &c).map_err(|e| e.to_string())?),
            Format::Human => Body::Line(print::Brief::of(&c)),
        };
        Ok(Some(Some(body)))
    }

    /// One transcript's census: through the census cache unless a window is
    /// set ([`cached`]).
    fn census(&self, t: &Transcript) -> Result<(Census, crate::tokens::book::Book), String> {
        let embeds = !self.args.common.no_subagents;
        if !self.window.is_open() {
            return census::census(t, &self.window, embeds);
        }
        let ctx = cached::Ctx {
            lane: t.is_lane(),
            embeds: embeds.then(|| std::sync::Arc::new(t.lane_files())),
        };
        let (mut fc, _) = self
            .cache
            .census_grouped::<cached::FileCensus>(&t.project_dir, &t.path, &ctx)
            .map_err(|e| e.to_string())?;
        let Some((mut c, book)) = fc.take_sealed() else {
            return census::census(t, &self.window, embeds);
        };
        for m in &mut c.malformed {
            m.file = t.path.display().to_string();
        }
        Ok((c, book))
    }
}

/// Fold a finished transcript into the total and its `--by` group(s): per
/// model, each message's tokens go to its own model's group.
fn fold(
    folds: &Mutex<Folds>,
    by: Option<GroupBy>,
    t: &Transcript,
    c: &Census,
    book: &crate::tokens::book::Book,
) {
    let parts = match by {
        Some(GroupBy::Model) => bymodel::split(c, book),
        _ => Vec::new(),
    };
    let Ok(mut f) = folds.lock() else { return };
    f.total.fold(c, book, t.is_lane());
    for (key, pc, pb) in &parts {
        f.groups
            .entry(key.clone())
            .or_default()
            .fold(pc, pb, t.is_lane());
    }
    if let Some(by) = by.filter(|&b| b != GroupBy::Model) {
        f.groups
            .entry(group_key(by, t, c))
            .or_default()
            .fold(c, book, t.is_lane());
    }
}

/// A transcript's group; `None` when it has no such value (no timestamp, no
/// model, no version): JSON key null, printed `(none)`.
fn group_key(by: GroupBy, t: &Transcript, c: &Census) -> Option<String> {
    match by {
        GroupBy::Project => Some(t.project_name()),
        GroupBy::Day => c.first_ts.map(|ts| local_fmt(ts, "%Y-%m-%d")),
        GroupBy::Month => c.first_ts.map(|ts| local_fmt(ts, "%Y-%m")),
        // Not asked: a transcript joins each model's group (`bymodel::split`).
        GroupBy::Model => None,
        GroupBy::Version => c.dominant_version().map(str::to_string),
    }
}

fn local_fmt(ts: jiff::Timestamp, f: &str) -> String {
    ts.to_zoned(crate::timefmt::system_zone())
        .strftime(f)
        .to_string()
}
