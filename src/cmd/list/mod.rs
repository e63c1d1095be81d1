//! `csift list`: one summary row per session (or per lane with `list @session`),
//! sorted, filtered by time and cut by `--max-count`. By default each transcript
//! is read as a head and a tail window ([`read`]), which answer cwd, branch,
//! versions, start, last activity and the newest titles; a file that fits in the
//! windows, every file under `--full`, and the files of a one-session listing are
//! read whole, which adds exact turn counts, every model, titles written mid-file
//! and glued records anywhere ([`facts`]), and [`print`] prints the rows.

pub(crate) mod clones;
pub(crate) mod facts;
pub(crate) mod print;
pub mod read;

use std::collections::BTreeSet;
use std::time::Instant;

use jiff::Timestamp;

use crate::cli::list::ListArgs;
use crate::discovery::Transcript;
use crate::output::{Format, Out};
use crate::record::MalformedKind;
use crate::scan;
use crate::timefmt;

use super::{Exit, Problems};

/// Where a row's title came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
    /// A session opened by a slash command with no typed args (TURN-007).
    FirstCommand,
}

/// How much of a transcript a row was computed from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ReadMode {
    /// Every line: exact turns, models, titles and malformed lines.
    #[default]
    Whole,
    /// A head and a tail window: no turn count; models, titles and malformed
    /// lines only from the windows.
    HeadTail,
}

/// A malformed line found while reading: glued records or a torn final line.
/// Full validation is `stats`/`audit`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bad {
    /// 1-based line number; `None` in a tail window, whose line numbers are
    /// unknown without counting every line before it.
    pub(crate) line: Option<usize>,
    /// Byte offset of the line's start.
    pub(crate) offset: u64,
    pub(crate) kind: MalformedKind,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    pub(crate) cwd: Option<String>,
    pub(crate) git_branch: Option<String>,
    pub(crate) versions: BTreeSet<String>,
    pub(crate) models: BTreeSet<String>,
    pub(crate) started: Option<Timestamp>,
    pub(crate) last_activity: Option<Timestamp>,
    /// Genuine-user turns; `None` when the file was not read whole.
    pub(crate) turns: Option<usize>,
    /// Lanes inline in a 1.0.x main file (`isSidechain:true` chains,
    /// [`crate::classify::sidechain`]); `None` when the file was not read whole.
    pub(crate) inline_lanes: Option<usize>,
    pub(crate) read: ReadMode,
    /// The file's length as it was read (at open), which the row shows: the
    /// tree walk's may be another version's (MISC-017).
    pub(crate) bytes: u64,
    pub(crate) custom_title: Option<String>,
    pub(crate) ai_title: Option<String>,
    /// The newest `summary` whose leaf is a record of this transcript.
    pub(crate) summary: Option<String>,
    /// Every `summary` line read, in file order: (title, leafUuid). Claude
    /// Code writes a resumed session's summaries of OTHER sessions at its top
    /// (7 of the 9 public transcripts with one name no record of their own), so
    /// one titles the row only once its leaf is found here ([`facts`]).
    pub(crate) summaries: Vec<(String, String)>,
    pub(crate) first_prompt: Option<String>,
    /// `/name` of the first slash command, for sessions with no typed prompt.
    pub(crate) first_command: Option<String>,
    /// Glued records (a structural `}{"`) and a torn final line, in file order.
    pub(crate) malformed: Vec<Bad>,
    /// The uuid of the compact_boundary that is the first timestamped record:
    /// the session was minted by copying another at that compaction
    /// ([`clones`], CMP-012). Main transcripts only.
    pub(crate) clone_boundary: Option<String>,
    /// Sessions this file's `continued-in` records name (MISC-028), among the
    /// lines read.
    pub(crate) continued_in: Vec<String>,
}

impl Summary {
    pub(crate) fn title(&self) -> Option<(&str, TitleSource)> {
        // Last-wins within a type (REC-002); an explicit rename outranks the AI title.
        self.custom_title
            .as_deref()
            .map(|t| (t, TitleSource::CustomTitle))
            .or(self.ai_title.as_deref().map(|t| (t, TitleSource::AiTitle)))
            .or(self.summary.as_deref().map(|t| (t, TitleSource::Summary)))
            .or(self
                .first_prompt
                .as_deref()
                .map(|t| (t, TitleSource::FirstPrompt)))
            .or(self
                .first_command
                .as_deref()
                .map(|t| (t, TitleSource::FirstCommand)))
    }
}

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
    let listing = listing(&ts, &window, args.max_count, args.full, problems);
    match args.common.format {
        Format::Json => print::json(
            out,
            &listing,
            problems.count(),
            started.elapsed().as_millis(),
        )?,
        Format::Human => print::human(out, &listing)?,
    }
    let found = listing.rows.len() + listing.dropped > 0;
    Ok(Exit::from(found, problems.count()))
}

/// Compute the rows for `transcripts`: one per session, newest first; lane rows too
/// when every transcript belongs to one session (`list @<session>`), and for lanes
/// whose session has no main transcript. Files are read whole under `full` or when
/// the listing is one session (cheap, and exact); else as head and tail windows.
pub(crate) fn listing(
    transcripts: &[Transcript],
    window: &timefmt::Window,
    max: Option<usize>,
    full: bool,
    problems: &Problems,
) -> Listing {
    use std::collections::BTreeMap;
    let mut lanes_of: BTreeMap<&str, usize> = BTreeMap::new();
    let mut has_main: BTreeSet<&str> = BTreeSet::new();
    for t in transcripts {
        if t.is_lane() {
            *lanes_of.entry(&t.session_id).or_default() += 1;
        } else {
            has_main.insert(&t.session_id);
        }
    }
    let one_session = transcripts
        .iter()
        .map(|t| t.session_id.as_str())
        .collect::<BTreeSet<_>>()
        .len()
        == 1;
    let wanted: Vec<&Transcript> = transcripts
        .iter()
        .filter(|t| !t.is_lane() || one_session || !has_main.contains(t.session_id.as_str()))
        .collect();
    let whole = full || one_session;
    let summaries = scan::par_map(&wanted, |t| facts::summarize(t, whole));
    let mut rows = Vec::new();
    let mut untimed_left_out = 0;
    for (t, s) in wanted.into_iter().zip(summaries) {
        match s {
            Ok(summary) => {
                if !window.overlaps(summary.started, summary.last_activity) {
                    untimed_left_out +=
                        usize::from(summary.started.is_none() && summary.last_activity.is_none());
                    continue;
                }
                rows.push(Row {
                    lanes: if t.is_lane() {
                        0
                    } else {
                        lanes_of.get(t.session_id.as_str()).copied().unwrap_or(0)
                            + summary.inline_lanes.unwrap_or(0)
                    },
                    // Missing means missing on disk, not just left out of this listing.
                    orphan: t.is_lane()
                        && !has_main.contains(t.session_id.as_str())
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
                })
            }
            Err(e) => problems.report(&t.path, e),
        }
    }
    link_copies(&mut rows);
    // Newest first; a session's own row before its lanes (an orphan lane, whose
    // session file is gone, is a row of its own and sorts by its time); path
    // breaks ties.
    let under_a_session = |r: &Row| r.transcript.is_lane() && !r.orphan;
    rows.sort_by(|a, b| {
        under_a_session(a)
            .cmp(&under_a_session(b))
            .then_with(|| b.sort_key().cmp(&a.sort_key()))
            .then_with(|| a.transcript.path.cmp(&b.transcript.path))
    });
    let bytes = rows.iter().map(|r| r.transcript.size).sum();
    let dropped = match max {
        Some(n) if rows.len() > n => {
            let d = rows.len() - n;
            rows.truncate(n);
            d
        }
        _ => 0,
    };
    Listing {
        rows,
        dropped,
        untimed_left_out,
        bytes,
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
