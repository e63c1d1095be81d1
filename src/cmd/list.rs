//! `csift list`: one summary row per session (or per lane with `list @session`).
//! Heads and tails answer most fields (cwd, branch, versions, start, last
//! activity, titles near the end); one literal-set pass over the whole file
//! answers the rest (genuine-user turns, models, titles written mid-file, glued
//! records) without parsing any line that cannot matter.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use jiff::Timestamp;
use regex::bytes::Regex;

use crate::classify::{turns, FileIndex};
use crate::discovery::Transcript;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan::{self, Lines, Source};
use crate::timefmt;

const HEAD_MAX: usize = 1024 * 1024;
const TAIL: usize = 64 * 1024;
/// Records parsed at the head for the start time (timestamps are not monotone,
/// REC-089, so the minimum over a few) and at the tail for the last activity.
const HEAD_RECORDS: usize = 12;
const TAIL_RECORDS: usize = 12;

/// Where a row's title came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
    /// A session opened by a slash command with no typed args (TURN-007).
    FirstCommand,
}

#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub cwd: Option<String>,
    pub git_branch: Option<String>,
    pub versions: BTreeSet<String>,
    pub models: BTreeSet<String>,
    pub started: Option<Timestamp>,
    pub last_activity: Option<Timestamp>,
    pub turns: usize,
    pub custom_title: Option<String>,
    pub ai_title: Option<String>,
    pub summary: Option<String>,
    pub first_prompt: Option<String>,
    /// `/name` of the first slash command, for sessions with no typed prompt.
    pub first_command: Option<String>,
    /// `(line, kind)` of malformed lines found by this pass: glued records (a
    /// structural `}{"`) and a torn final line. Full validation is `stats`/`audit`.
    pub malformed: Vec<(usize, MalformedKind)>,
    /// The newest branch seen while reading the tail backwards.
    tail_branch: Option<String>,
}

impl Summary {
    pub fn title(&self) -> Option<(&str, TitleSource)> {
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

fn interesting() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        // REC-038: tolerate `"type": "x"` as well as the compact form.
        Regex::new(r#""type":\s?"(?:ai-title|custom-title|summary)"|"model":"|\}\{""#).ok()
    })
    .as_ref()
}

/// Summarise one transcript.
pub fn summarize(t: &Transcript) -> crate::error::Result<Summary> {
    let src = Source::open(&t.path)?;
    let buf: &[u8] = &src;
    let mut s = Summary::default();
    let lane = t.is_lane();

    // Head: cwd, branch, first version, start (min over the window, REC-089), and the
    // first genuine prompt (extended up to HEAD_MAX when preambles push it out).
    let head = scan::head(buf, HEAD_MAX);
    for (parsed, line) in Lines::new(head).enumerate() {
        // Enough once the prompt and envelope are known and a few timestamps seen.
        if parsed >= HEAD_RECORDS && s.first_prompt.is_some() && s.cwd.is_some() {
            break;
        }
        let Parsed::Record(r) = parse_line(&line) else {
            continue;
        };
        if s.cwd.is_none() {
            s.cwd = r.cwd.as_deref().map(str::to_string);
        }
        if s.git_branch.is_none() {
            s.git_branch = r
                .git_branch
                .as_deref()
                .filter(|b| !b.is_empty())
                .map(str::to_string);
        }
        if let Some(v) = r.version.as_deref() {
            if s.versions.is_empty() {
                s.versions.insert(v.to_string());
            }
        }
        if parsed < HEAD_RECORDS {
            if let Some(ts) = r.timestamp.as_deref().and_then(timefmt::parse_ts) {
                s.started = Some(s.started.map_or(ts, |x: Timestamp| x.min(ts)));
            }
        }
        if s.first_prompt.is_none() && (lane || !r.is_sidechain()) {
            s.first_prompt = turns::prompt_text(&r).map(|p| crate::output::sanitize::one_line(&p));
            if s.first_command.is_none() && r.kind() == "user" && !r.is_meta() {
                s.first_command = crate::classify::unit::user_text(&r)
                    .and_then(|t| {
                        crate::classify::markers::xml_tag(&t, "command-name")
                            .map(crate::output::sanitize::one_line)
                    })
                    .filter(|c| !c.is_empty());
            }
        }
    }

    // Tail: the last few records, read backwards from EOF: last activity (max over
    // them, REC-089), last version and branch.
    let (tail_at, tail) = scan::tail(buf, TAIL);
    let mut end = tail.len();
    let mut seen = 0;
    while end > 0 && seen < TAIL_RECORDS {
        let body_end = if tail[end - 1] == b'\n' { end - 1 } else { end };
        let start = memchr::memrchr(b'\n', &tail[..body_end]).map_or(0, |i| i + 1);
        let line = scan::Line {
            no: 0,
            offset: start,
            bytes: &tail[start..body_end],
            terminated: body_end < end,
        };
        end = start;
        seen += 1;
        let Parsed::Record(r) = parse_line(&line) else {
            if !line.terminated && tail_at + body_end == buf.len() && !line.bytes.is_empty() {
                let no = scan::lines::count(buf);
                if let Parsed::Malformed(m) = parse_line(&scan::Line { no, ..line }) {
                    s.malformed.push((no, m.kind));
                }
            }
            continue;
        };
        if let Some(ts) = r.timestamp.as_deref().and_then(timefmt::parse_ts) {
            s.last_activity = Some(s.last_activity.map_or(ts, |x: Timestamp| x.max(ts)));
        }
        if let Some(v) = r.version.as_deref() {
            s.versions.insert(v.to_string());
        }
        if s.tail_branch.is_none() {
            s.tail_branch = r
                .git_branch
                .as_deref()
                .filter(|b| !b.is_empty())
                .map(str::to_string);
        }
    }
    if let Some(b) = s.tail_branch.take() {
        s.git_branch = Some(b);
    }
    if s.started.is_none() {
        s.started = s.last_activity;
    }
    if s.last_activity.is_none() {
        s.last_activity = s.started;
    }

    whole_file_pass(buf, &mut s);
    s.turns = FileIndex::build(buf, lane).turns();
    Ok(s)
}

/// One pass over the whole file with a literal set: models, titles written
/// anywhere, and glued records (confirmed by a parse).
fn whole_file_pass(buf: &[u8], s: &mut Summary) {
    let Some(re) = interesting() else { return };
    for (l, hit) in scan::lines::HitLines::new(buf, re) {
        let line = l.bytes;
        // `}{"` also ends strings like "x }{" in code; only a parse can confirm glue.
        if memchr::memmem::find(line, b"}{\"").is_some() {
            if let Parsed::Malformed(bad) = parse_line(&l) {
                if bad.kind == MalformedKind::Glued {
                    s.malformed.push((l.no, MalformedKind::Glued));
                    continue;
                }
            }
        }
        if let Some(at) = memchr::memmem::find(line, b"\"model\":\"") {
            // The first "model" on an assistant line is message.model.
            let v = &line[at + 9..];
            if let Some(q) = memchr::memchr(b'"', v) {
                if let Ok(model) = std::str::from_utf8(&v[..q]) {
                    if !model.is_empty()
                        && q < 100
                        && memchr::memmem::find(line, b"\"type\":\"assistant\"").is_some()
                    {
                        s.models.insert(model.to_string());
                    }
                }
            }
        }
        if hit.ends_with(b"title\"") || hit.ends_with(b"summary\"") {
            if let Parsed::Record(r) = parse_line(&l) {
                take_titles(&r, s);
            }
        }
    }
}

fn take_titles(r: &Record<'_>, s: &mut Summary) {
    let keep = |v: &Option<std::borrow::Cow<'_, str>>| {
        v.as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(crate::output::sanitize::one_line)
    };
    match r.kind() {
        "custom-title" => s.custom_title = keep(&r.custom_title).or(s.custom_title.take()),
        "ai-title" => s.ai_title = keep(&r.ai_title).or(s.ai_title.take()),
        "summary" => s.summary = keep(&r.summary).or(s.summary.take()),
        _ => {}
    }
}

/// One output row: a session (its main transcript) or a lane.
#[derive(Debug)]
pub struct Row {
    pub transcript: Transcript,
    pub summary: Summary,
    /// Lane files belonging to this session (0 for a lane row).
    pub lanes: usize,
    /// A lane whose session has no main transcript on disk.
    pub orphan: bool,
}

impl Row {
    pub fn sort_key(&self) -> Option<Timestamp> {
        self.summary.last_activity.or_else(|| {
            self.transcript
                .mtime
                .and_then(|m| Timestamp::try_from(m).ok())
        })
    }
}

pub struct Listing {
    pub rows: Vec<Row>,
    /// Rows that matched but were cut by --max-count.
    pub dropped: usize,
    pub files: usize,
    pub bytes: u64,
}

/// Compute the rows for `transcripts`: one per session, newest first; lane rows too
/// when every transcript belongs to one session (`list @<session>`), and for lanes
/// whose session has no main transcript.
pub fn run(
    transcripts: &[Transcript],
    window: &timefmt::Window,
    max: Option<usize>,
    problems: &super::Problems,
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
    let summaries = scan::par_map(&wanted, |t| summarize(t));
    let mut rows = Vec::new();
    for (t, s) in wanted.into_iter().zip(summaries) {
        match s {
            Ok(summary) => {
                if !window.overlaps(summary.started, summary.last_activity) {
                    continue;
                }
                rows.push(Row {
                    lanes: if t.is_lane() {
                        0
                    } else {
                        lanes_of.get(t.session_id.as_str()).copied().unwrap_or(0)
                    },
                    orphan: t.is_lane() && !has_main.contains(t.session_id.as_str()),
                    transcript: t.clone(),
                    summary,
                })
            }
            Err(e) => problems.report(&t.path, e),
        }
    }
    // Newest first; a session's own row before its lanes; path breaks ties.
    rows.sort_by(|a, b| {
        a.transcript
            .is_lane()
            .cmp(&b.transcript.is_lane())
            .then_with(|| b.sort_key().cmp(&a.sort_key()))
            .then_with(|| a.transcript.path.cmp(&b.transcript.path))
    });
    let files = rows.len();
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
        files,
        bytes,
    }
}
