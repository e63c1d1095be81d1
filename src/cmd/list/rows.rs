//! The rows of a listing: which transcripts get one, their summaries read in
//! parallel, the time window and `--max-count` applied, clones and forks
//! joined to their origins, and the order they print in.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use super::summary::Summary;
use super::{cached, clones, facts, read};
use crate::cache::Cache;
use crate::cmd::Problems;
use crate::discovery::Transcript;
use crate::scan;
use crate::timefmt;

/// One output row: a session (its main transcript) or a lane.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) transcript: Transcript,
    pub(crate) summary: Summary,
    /// Lanes of this session: its lane files and the inline lanes its file
    /// holds (0 for a lane row).
    pub(crate) lanes: usize,
    /// A lane whose session has no main transcript on disk.
    pub(crate) orphan: bool,
    /// For a clone: the session it was copied from, when found beside it.
    pub(crate) clone_of: Option<String>,
    /// The session whose `continued-in` record names this one (a
    /// `--fork-session` fork), where that record was read.
    pub(crate) forked_from: Option<String>,
}

impl Row {
    /// Newest first by the last record time; a transcript with no timestamp
    /// at all sorts after every timed one, by file time among its kind (a copied
    /// home's file times say nothing of the session).
    pub(crate) fn sort_key(&self) -> (bool, Option<Timestamp>) {
        match self.summary.last_activity {
            Some(t) => (true, Some(t)),
            None => (
                false,
                self.transcript
                    .mtime
                    .and_then(|m| Timestamp::try_from(m).ok()),
            ),
        }
    }
}

pub(crate) struct Listing {
    pub(crate) rows: Vec<Row>,
    /// Rows that matched but were cut by --max-count.
    pub(crate) dropped: usize,
    /// Rows a time window left out because no record of theirs has a time to
    /// place them by (said, not dropped silently).
    pub(crate) untimed_left_out: usize,
    pub(crate) bytes: u64,
}

/// Compute the rows for `transcripts`: one per session, newest first; lane rows too
/// when every transcript belongs to one session (`list @<session>`), and for lanes
/// whose session has no main transcript. Files are read whole under `full` or when
/// the listing is one session (cheap, and exact); else as head and tail windows.
/// Every row is read through `cache` ([`cached`]).
pub(crate) fn listing(
    transcripts: &[Transcript],
    window: &timefmt::Window,
    max: Option<usize>,
    full: bool,
    cache: &Cache,
    problems: &Problems,
) -> Listing {
    let sessions = Sessions::of(transcripts);
    let wanted: Vec<&Transcript> = transcripts.iter().filter(|t| sessions.wants(t)).collect();
    let whole = full || sessions.one;
    if cache.is_on() {
        for t in &wanted {
            cache.will_read(&t.project_dir, 1);
        }
    }
    let summaries = scan::par_map(&wanted, |t| summary(t, whole, cache));
    let mut rows = Vec::new();
    let mut untimed_left_out = 0;
    for (t, s) in wanted.into_iter().zip(summaries) {
        match s {
            Ok(summary) if !window.overlaps(summary.started, summary.last_activity) => {
                untimed_left_out +=
                    usize::from(summary.started.is_none() && summary.last_activity.is_none());
            }
            Ok(summary) => rows.push(sessions.row(t, summary)),
            Err(e) => problems.report(&t.path, e),
        }
    }
    link_copies(&mut rows);
    sort(&mut rows);
    let bytes = rows.iter().map(|r| r.transcript.size).sum();
    let dropped = keep_first(&mut rows, max);
    Listing {
        rows,
        dropped,
        untimed_left_out,
        bytes,
    }
}

/// The row of `t`: read whole under `whole` or when small (a census of every
/// byte), else as windows, each through `cache` when it is on ([`cached`]).
fn summary(t: &Transcript, whole: bool, cache: &Cache) -> crate::error::Result<Summary> {
    if !cache.is_on() {
        return facts::summarize(t, whole);
    }
    let how = cached::How {
        lane: t.is_lane(),
        windows: !whole && t.size > read::WHOLE_MAX,
    };
    let (row, _) = match how.windows {
        false => cache.census_grouped::<cached::Row>(&t.project_dir, &t.path, &how)?,
        true => cache.read_own::<cached::Row>(&t.project_dir, &t.path, &how, |o| {
            let (s, sums) = facts::summarize_opened(o, t, false, true)?;
            Ok((cached::Row(s), sums))
        })?,
    };
    Ok(row.0)
}

/// The sessions the transcripts belong to: how many lane files each has,
/// and which have their main transcript among them.
struct Sessions<'t> {
    lanes_of: BTreeMap<&'t str, usize>,
    has_main: BTreeSet<&'t str>,
    /// Every transcript is of one session (`list @<session>`): its lanes get
    /// rows of their own, and its files are read whole.
    one: bool,
}

impl<'t> Sessions<'t> {
    fn of(transcripts: &'t [Transcript]) -> Sessions<'t> {
        let mut lanes_of: BTreeMap<&str, usize> = BTreeMap::new();
        let mut has_main: BTreeSet<&str> = BTreeSet::new();
        for t in transcripts {
            if t.is_lane() {
                *lanes_of.entry(&t.session_id).or_default() += 1;
            } else {
                has_main.insert(&t.session_id);
            }
        }
        let one = transcripts
            .iter()
            .map(|t| t.session_id.as_str())
            .collect::<BTreeSet<_>>()
            .len()
            == 1;
        Sessions {
            lanes_of,
            has_main,
            one,
        }
    }

    /// Whether `t` gets a row: a session's main transcript; a lane in a
    /// one-session listing, or whose session's main transcript is not here.
    fn wants(&self, t: &Transcript) -> bool {
        !t.is_lane() || self.one || !self.has_main.contains(t.session_id.as_str())
    }

    /// The row of `t`, whose summary was read.
    fn row(&self, t: &Transcript, summary: Summary) -> Row {
        Row {
            lanes: if t.is_lane() {
                0
            } else {
                self.lanes_of
                    .get(t.session_id.as_str())
                    .copied()
                    .unwrap_or(0)
                    + summary.inline_lanes.unwrap_or(0)
            },
            // Missing means missing on disk, not just left out of this listing.
            orphan: t.is_lane()
                && !self.has_main.contains(t.session_id.as_str())
                && !t
                    .project_dir
                    .join(format!("{}.jsonl", t.session_id))
                    .is_file(),
            transcript: Transcript {
                size: summary.bytes,
                ..t.clone()
            },
            summary,
            clone_of: None,
            forked_from: None,
        }
    }
}

/// Newest first; a session's own row before its lanes (an orphan lane, whose
/// session file is gone, is a row of its own and sorts by its time); path
/// breaks ties.
fn sort(rows: &mut [Row]) {
    let under_a_session = |r: &Row| r.transcript.is_lane() && !r.orphan;
    rows.sort_by(|a, b| {
        under_a_session(a)
            .cmp(&under_a_session(b))
            .then_with(|| b.sort_key().cmp(&a.sort_key()))
            .then_with(|| a.transcript.path.cmp(&b.transcript.path))
    });
}

/// Cut `rows` to the first `max` (`--max-count`); how many were dropped.
fn keep_first(rows: &mut Vec<Row>, max: Option<usize>) -> usize {
    match max {
        Some(n) if rows.len() > n => {
            let d = rows.len() - n;
            rows.truncate(n);
            d
        }
        _ => 0,
    }
}

/// Join each clone to its origin (a sweep of its siblings, paid only for a
/// clone) and each session a read `continued-in` record names to the session
/// that names it.
fn link_copies(rows: &mut [Row]) {
    let named: Vec<(String, Vec<String>)> = rows
        .iter()
        .filter(|r| !r.summary.continued_in.is_empty())
        .map(|r| {
            (
                r.transcript.session_id.clone(),
                r.summary.continued_in.clone(),
            )
        })
        .collect();
    let succ = clones::successors(&named);
    let found: Vec<Option<clones::Origin>> = scan::par_map(rows, |r| {
        r.summary
            .clone_boundary
            .as_deref()
            .map(|u| clones::origin(&r.transcript.path, &r.transcript.session_id, u))
    });
    for (r, o) in rows.iter_mut().zip(found) {
        if let Some(o) = o {
            if o.names_it {
                r.forked_from = o.session_id.clone();
            }
            r.clone_of = o.session_id;
        }
        if r.forked_from.is_none() && !r.transcript.is_lane() {
            r.forked_from = succ.get(&r.transcript.session_id).cloned();
        }
    }
}
