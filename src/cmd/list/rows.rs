//! The rows of a listing: which transcripts get one, their summaries read in
//! parallel, the time window and `--max-count` applied, clones and forks
//! joined to their origins, and the order they print in.

use jiff::Timestamp;

use super::summary::Summary;
use super::{cached, clones, facts, read};
use crate::cache::Cache;
use crate::cmd::Problems;
use crate::discovery::Transcript;
use crate::scan;
use crate::scan::hash::{FxMap, FxSet};
use crate::timefmt;

/// One output row: a session (its main transcript) or a lane.
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) transcript: Transcript,
    /// Boxed: a row is moved as it is kept and sorted, and a summary is most
    /// of its size (5 MB of rows for 5,000 sessions, inline).
    pub(crate) summary: Box<Summary>,
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
    transcripts: Vec<Transcript>,
    window: &timefmt::Window,
    max: Option<usize>,
    full: bool,
    cache: &Cache,
    problems: &Problems,
) -> Listing {
    let sessions = Sessions::of(&transcripts);
    let wanted: Vec<usize> = (0..transcripts.len())
        .filter(|&i| sessions.wants(&transcripts[i]))
        .collect();
    let whole = full || sessions.one;
    if cache.is_on() {
        // One call a run of files in one project (they arrive in path
        // order): each call locks the run's map and copies the group's key.
        let mut runs =
            wanted.chunk_by(|&a, &b| transcripts[a].project_dir == transcripts[b].project_dir);
        for run in &mut runs {
            if let Some(&first) = run.first() {
                cache.will_read(&transcripts[first].project_dir, run.len());
            }
        }
    }
    let summaries = scan::par_map(&wanted, |&i| summary(&transcripts[i], whole, cache));
    let mut kept = Vec::with_capacity(wanted.len());
    let mut untimed_left_out = 0;
    for (&i, s) in wanted.iter().zip(summaries) {
        let t = &transcripts[i];
        match s {
            Ok(summary) if !window.overlaps(summary.started, summary.last_activity) => {
                untimed_left_out +=
                    usize::from(summary.started.is_none() && summary.last_activity.is_none());
            }
            Ok(summary) => kept.push((i, sessions.place(t, &summary), summary)),
            Err(e) => problems.report(&t.path, e),
        }
    }
    drop(sessions);
    // Each transcript is moved into its row, not copied: `kept` is in the
    // transcripts' order, so one walk over both pairs them.
    let mut rows: Vec<Row> = Vec::with_capacity(kept.len());
    let mut kept = kept.into_iter().peekable();
    for (i, t) in transcripts.into_iter().enumerate() {
        if let Some((_, (lanes, orphan), summary)) = kept.next_if(|k| k.0 == i) {
            rows.push(Row::new(t, summary, lanes, orphan));
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
fn summary(t: &Transcript, whole: bool, cache: &Cache) -> crate::error::Result<Box<Summary>> {
    if !cache.is_on() {
        return facts::summarize(t, whole).map(Box::new);
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
    Ok(Box::new(row.0))
}

/// The sessions the transcripts belong to: how many lane files each has,
/// and which have their main transcript among them.
struct Sessions<'t> {
    lanes_of: FxMap<&'t str, usize>,
    has_main: FxSet<&'t str>,
    /// Every transcript is of one session (`list @<session>`): its lanes get
    /// rows of their own, and its files are read whole.
    one: bool,
}

impl<'t> Sessions<'t> {
    fn of(transcripts: &'t [Transcript]) -> Sessions<'t> {
        let mut lanes_of: FxMap<&str, usize> = FxMap::default();
        let mut has_main: FxSet<&str> =
            FxSet::with_capacity_and_hasher(transcripts.len(), Default::default());
        for t in transcripts {
            if t.is_lane() {
                *lanes_of.entry(&t.session_id).or_default() += 1;
            } else {
                has_main.insert(&t.session_id);
            }
        }
        let one = transcripts
            .first()
            .is_some_and(|f| transcripts.iter().all(|t| t.session_id == f.session_id));
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

    /// The lane count and the orphan flag of `t`'s row, whose summary was
    /// read.
    fn place(&self, t: &Transcript, summary: &Summary) -> (usize, bool) {
        let lanes = if t.is_lane() {
            0
        } else {
            self.lanes_of
                .get(t.session_id.as_str())
                .copied()
                .unwrap_or(0)
                + summary.inline_lanes.unwrap_or(0)
        };
        // Missing means missing on disk, not just left out of this listing.
        let orphan = t.is_lane()
            && !self.has_main.contains(t.session_id.as_str())
            && !t
                .project_dir
                .join(format!("{}.jsonl", t.session_id))
                .is_file();
        (lanes, orphan)
    }
}

impl Row {
    fn new(t: Transcript, summary: Box<Summary>, lanes: usize, orphan: bool) -> Row {
        Row {
            lanes,
            orphan,
            transcript: Transcript {
                size: summary.bytes,
                ..t
            },
            summary,
            clone_of: None,
            forked_from: None,
        }
    }
}

/// Newest first; a session's own row before its lanes (an orphan lane, whose
/// session file is gone, is a row of its own and sorts by its time); path
/// breaks ties. Rows arrive in path order (discovery sorts what it finds,
/// [`crate::discovery::target::resolve`]), so a row's place breaks a tie as
/// its path would, without comparing paths component by component. Sorted as
/// keys and places, then moved once: a sort of the rows themselves moved
/// each many times (3 ms of a warm 5,000-row list).
fn sort(rows: &mut [Row]) {
    debug_assert!(rows
        .windows(2)
        .all(|w| w[0].transcript.path <= w[1].transcript.path));
    let under_a_session = |r: &Row| r.transcript.is_lane() && !r.orphan;
    let mut keys: Vec<_> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (under_a_session(r), std::cmp::Reverse(r.sort_key()), i))
        .collect();
    keys.sort_unstable();
    let mut order: Vec<usize> = keys.iter().map(|k| k.2).collect();
    permute(rows, &mut order);
}

/// Reorder `items` in place so that place `j` holds what was at
/// `order[j]` (each index once), following each cycle of the permutation
/// with swaps: no second vector of rows to fill. `order` is used up.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    const DONE: usize = usize::MAX;
    for i in 0..order.len() {
        let mut j = i;
        while order[j] != DONE {
            let from = std::mem::replace(&mut order[j], DONE);
            if from == i || from >= items.len() {
                break;
            }
            items.swap(j, from);
            j = from;
        }
    }
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
    // Only a clone is probed: a job per row cost more than the probes.
    let clones: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].summary.clone_boundary.is_some())
        .collect();
    let found: Vec<Option<clones::Origin>> = scan::par_map(&clones, |&i| {
        let r = &rows[i];
        r.summary
            .clone_boundary
            .as_deref()
            .map(|u| clones::origin(&r.transcript.path, &r.transcript.session_id, u))
    });
    let mut found = clones.into_iter().zip(found).peekable();
    for (i, r) in rows.iter_mut().enumerate() {
        let o = found.next_if(|f| f.0 == i).and_then(|f| f.1);
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

#[cfg(test)]
mod tests {
    /// Every permutation of up to six items lands each where its order
    /// says, cycles of every length included.
    #[test]
    fn permute_puts_each_item_where_order_says() {
        fn all(n: usize) -> Vec<Vec<usize>> {
            if n == 0 {
                return vec![vec![]];
            }
            let mut out = Vec::new();
            for p in all(n - 1) {
                for at in 0..n {
                    let mut q = p.clone();
                    q.insert(at, n - 1);
                    out.push(q);
                }
            }
            out
        }
        for n in 0..=6 {
            for order in all(n) {
                let mut items: Vec<char> = ('a'..).take(n).collect();
                let want: Vec<char> = order.iter().map(|&i| items[i]).collect();
                super::permute(&mut items, &mut order.clone());
                assert_eq!(items, want, "{order:?}");
            }
        }
    }
}
