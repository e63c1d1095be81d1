//! Searching one transcript: prefilter the raw bytes into candidate lines, and
//! only when there is one, index the file (turns, drafts, seeds), parse and
//! classify the candidates, match their selected units, and complete each hit's
//! exchange. A file with no candidate costs one prefilter pass and nothing else.
//! When every selected label has line needles ([`crate::classify::needles`]), a
//! candidate without one is not parsed, only checked for structure. Each
//! selected unit is matched in [`super::unit`].

use super::confirm::{Confirm, Confirmed, Verdict};
use super::hit::Hit;
use super::matcher::Matcher;
use super::prefilter::Prefilter;
use super::unit::At;
use crate::classify::{classify, FileIndex, LabelSet};
use crate::discovery::Transcript;
use crate::record::{glued_parsed, parse_line, Malformed, MalformedKind, Parsed, Record};
use crate::scan::lines;
use crate::scan::stream::{self, Held, Prefiltered};
use crate::scan::{Line, Lines, Source};
use crate::timefmt::{self, Window};

pub(crate) struct Config {
    pub(crate) matcher: Matcher,
    pub(crate) prefilter: Option<Prefilter>,
    /// The pattern over a candidate line's raw bytes ([`super::confirm`]): a
    /// line it misses holds no match and is not parsed; `None` reads every one.
    pub(crate) confirm: Option<Confirm>,
    pub(crate) labels: LabelSet,
    /// Bytes a line must hold to carry a unit of `labels`
    /// ([`crate::classify::needles`]); `None` reads every candidate line.
    pub(crate) needles: Option<Vec<&'static [u8]>>,
    /// Leave out units of `attachment` records (the default without -t or --attachments).
    pub(crate) skip_attachments: bool,
    pub(crate) tool: Option<crate::globs::NameGlobs>,
    pub(crate) model: Option<crate::globs::NameGlobs>,
    pub(crate) window: Window,
    pub(crate) resolve_persisted: bool,
    pub(crate) exchanges: bool,
    /// Name each tool result by the call it answers (printed hits and
    /// `--count-by tool`; counts and file lists need no name).
    pub(crate) tool_names: bool,
    /// Search subagent records nested in `agent_progress` records (whose
    /// agent has no lane file); off with --no-subagents.
    pub(crate) embeds: bool,
    /// `--count-by`: a key read from the record or its pairing is set on each
    /// hit ([`Hit::key`]) for `pairing` and `attachment`.
    pub(crate) count_by: Option<crate::cli::search::CountBy>,
    /// `--raw`: keep each matched line's bytes ([`FileResult::raw`]).
    pub(crate) raw: bool,
}

#[derive(Default)]
pub(crate) struct FileResult {
    pub(crate) hits: Vec<Hit>,
    pub(crate) malformed: Vec<Malformed>,
    pub(crate) bytes: u64,
    pub(crate) error: Option<String>,
    /// Notes to print on stderr (e.g. a persisted-output file that is gone).
    pub(crate) notes: Vec<String>,
    /// Lines where the pattern matched only in a record or block type csift
    /// does not model, and what that type is ([`super::unmodelled`]).
    pub(crate) unmodelled: Vec<(usize, String)>,
    /// Tool names and models the `--tool`/`--model` filters met, to name them
    /// when a glob matches none.
    pub(crate) tools_seen: std::collections::BTreeSet<String>,
    pub(crate) models_seen: std::collections::BTreeSet<String>,
    /// With `--raw`: each line holding a hit, once, with its bytes as read.
    pub(crate) raw: Vec<(usize, Vec<u8>)>,
}

/// One file's search under way: what each of its records and units is
/// matched with.
pub(super) struct File<'a> {
    pub(super) t: &'a Transcript,
    pub(super) buf: &'a [u8],
    pub(super) idx: &'a FileIndex,
    pub(super) cfg: &'a Config,
}

/// What the streaming prefilter pass left to do with a file.
enum Pass {
    /// Nothing more: no line can match, or the file could not be read.
    Done(FileResult),
    /// Read on from `first`, the first matching line's start, in the bytes the
    /// pass held when the file was small enough.
    Read { first: usize, held: Option<Held> },
}

pub(crate) fn search(t: &Transcript, cfg: &Config) -> FileResult {
    let (first, held) = match prefilter_pass(t, cfg) {
        Pass::Done(result) => return result,
        Pass::Read { first, held } => (first, held),
    };
    let src = match &held {
        Some(_) => None,
        None => match Source::open(&t.path) {
            Ok(s) => Some(s),
            Err(e) => return FileResult::failed(e),
        },
    };
    let buf: &[u8] = match (&held, &src) {
        (Some(h), _) => h,
        (None, Some(s)) => s,
        (None, None) => &[],
    };
    let mut out = FileResult {
        bytes: buf.len() as u64,
        ..FileResult::default()
    };
    let (mut idx, candidates) = index(t, cfg, buf, first);
    if candidates.is_empty() {
        return out;
    }
    if cfg.embeds {
        idx = idx.with_embeds(std::sync::Arc::new(t.lane_files()));
    }
    let file = File {
        t,
        buf,
        idx: &idx,
        cfg,
    };
    for (line, verdict) in candidates {
        file.search_line(&line, verdict, &mut out);
    }
    // A file cut while mapped gave zeros past the cut: its hits are not trusted.
    if let Some(Err(e)) = src.as_ref().map(Source::check) {
        return FileResult::failed(e);
    }
    out
}

/// Fast path: a streaming prefilter pass; most files end here. A file that
/// matches comes back held in the pass's buffer when it is small enough.
/// Its length is the opened file's own, not the tree walk's: a file
/// replaced by rename since is read as one version. Without a prefilter
/// the whole file is read from its start.
fn prefilter_pass(t: &Transcript, cfg: &Config) -> Pass {
    let Some(pre) = &cfg.prefilter else {
        return Pass::Read {
            first: 0,
            held: None,
        };
    };
    let passed = match &cfg.confirm {
        Some(c) => stream::prefilter(&t.path, &Confirmed::new(pre, c), u64::MAX),
        None => stream::prefilter(&t.path, pre, u64::MAX),
    };
    match passed {
        Ok(Prefiltered::Miss(len)) => Pass::Done(FileResult {
            bytes: len,
            ..FileResult::default()
        }),
        Ok(Prefiltered::Hit { first, held }) => Pass::Read { first, held },
        Err(e) => Pass::Done(FileResult {
            error: Some(e.to_string()),
            ..FileResult::default()
        }),
    }
}

/// A candidate line, and the confirm's verdict on it when the candidate pass
/// asked for it (never `Dropped`: such a line is no candidate); `None` when
/// it did not, or when there is no confirm.
type Candidate<'b> = (Line<'b>, Option<Verdict>);

/// The file's index (turns, drafts, seeds) and its candidate lines: with a
/// prefilter, the lines it matches from `first` on, found in the index's own
/// pass or, for a label search, in a pass of their own; without one, every
/// line.
fn index<'b>(
    t: &Transcript,
    cfg: &Config,
    buf: &'b [u8],
    first: usize,
) -> (FileIndex, Vec<Candidate<'b>>) {
    let unjudged = |lines: Vec<Line<'b>>| lines.into_iter().map(|l| (l, None)).collect();
    match &cfg.prefilter {
        // The candidates are found in the index's own pass, block by block.
        Some(re) => {
            // A line start in the bytes the pass read; snapped in case the file
            // was replaced since (REC-087: by rename).
            let first = lines::line_start(buf, first.min(buf.len()));
            let Some(needles) = cfg.needles.as_deref() else {
                let (idx, found) = FileIndex::build_finding(buf, t.is_lane(), re, first);
                return (idx, unjudged(found));
            };
            let (found, needed) = candidates(buf, re, cfg.confirm.as_ref(), first, needles);
            match needed {
                true => (FileIndex::build(buf, t.is_lane()), found),
                false => (FileIndex::empty(t.is_lane()), found),
            }
        }
        None => (
            FileIndex::build(buf, t.is_lane()),
            unjudged(Lines::new(buf).collect()),
        ),
    }
}

/// A label search's candidate lines from `first` (a line start) on, each
/// judged by the confirm once, and whether any may hold a hit: one that holds
/// a needle of the selected labels and that the confirm matches. When none
/// may, none is classified ([`File::search_line`]), so the file needs no
/// index: a dense pattern in a label search mostly matches other units' lines
/// (a file name in tool results, for `-t agent.tool.use`), and such a file
/// then costs this pass and the candidates' structure check, not an index of
/// the whole file.
fn candidates<'b>(
    buf: &'b [u8],
    pre: &Prefilter,
    confirm: Option<&Confirm>,
    first: usize,
    needles: &[&[u8]],
) -> (Vec<Candidate<'b>>, bool) {
    let no = lines::line_no_at(buf, first);
    let mut found = Vec::new();
    let mut needed = false;
    for (line, _) in lines::HitLines::from(buf, pre, first, no) {
        let verdict = confirm.map(|c| c.judge(line.bytes));
        if verdict == Some(Verdict::Dropped) {
            continue;
        }
        needed = needed
            || (verdict != Some(Verdict::Broken)
                && crate::classify::needles::line_has(line.bytes, needles));
        found.push((line, verdict));
    }
    (found, needed)
}

impl FileResult {
    fn failed(e: crate::error::Error) -> FileResult {
        FileResult {
            error: Some(e.to_string()),
            ..FileResult::default()
        }
    }
}

impl File<'_> {
    /// Search one candidate line: its record, or each record glued on it.
    /// `verdict` is the confirm's on it in the candidate pass, if it judged.
    fn search_line(&self, line: &Line<'_>, verdict: Option<Verdict>, out: &mut FileResult) {
        let cfg = self.cfg;
        let verdict = match (verdict, &cfg.confirm) {
            (Some(v), _) => Some(v),
            (None, Some(c)) => Some(c.judge(line.bytes)),
            (None, None) => None,
        };
        let may_hold = verdict.is_none_or(|v| v == Verdict::Confirmed)
            && cfg
                .needles
                .as_deref()
                .is_none_or(|n| crate::classify::needles::line_has(line.bytes, n));
        if !may_hold {
            // No hit can be on it. A line broken in its structure or its
            // UTF-8 is still reported; it is checked (once), not parsed.
            let broken = match verdict {
                Some(Verdict::Confirmed) | None => super::confirm::unreadable(line.bytes),
                Some(v) => v == Verdict::Broken,
            };
            if broken {
                if let Parsed::Malformed(m) = parse_line(line) {
                    out.malformed.push(m);
                }
            }
            return;
        }
        match parse_line(line) {
            Parsed::Record(r) => self.search_record(&r, line, out),
            Parsed::Malformed(m) => {
                let glued = m.kind == MalformedKind::Glued;
                out.malformed.push(m);
                // Records glued on one line (a write race) are still records:
                // reported as malformed above, and searched one by one under
                // the line's number, as stats counts them. Each is matched as
                // on the physical line, so exchanges look past its end.
                if glued {
                    for (_, r) in glued_parsed(line) {
                        self.search_record(&r, line, out);
                    }
                }
            }
        }
    }

    /// Match one record's units and collect its hits.
    fn search_record(&self, r: &Record<'_>, line: &Line<'_>, out: &mut FileResult) {
        let cfg = self.cfg;
        if !self.in_window(r, line) || !self.model_allows(r, out) {
            return;
        }
        if cfg.skip_attachments && r.kind() == "attachment" {
            return;
        }
        let mut units = Vec::new();
        classify(r, line.no, self.idx, &mut units);
        let before = out.hits.len();
        for u in &units {
            // Selected by either label; reported by its primary one (its true leaf).
            if !u.labels().any(|l| cfg.labels.contains(l)) {
                continue;
            }
            if let Some(hit) = self.match_unit(&At::new(r, u, line), out) {
                out.hits.push(hit);
            }
        }
        if out.hits.len() == before {
            if let Some(what) = super::unmodelled::matched(r, line.bytes, &cfg.matcher.regex) {
                out.unmodelled.push((line.no, what));
            }
        } else if cfg.raw && out.raw.last().is_none_or(|(no, _)| *no != line.no) {
            // A glued line's records share the line: it is printed once, whole.
            out.raw.push((line.no, line.bytes.to_vec()));
        }
    }

    /// `--since`/`--until`: whether the record's time is in the window. An
    /// untimed record stands at the time before it, as stats counts it.
    fn in_window(&self, r: &Record<'_>, line: &Line<'_>) -> bool {
        let window = &self.cfg.window;
        if window.is_open() {
            return true;
        }
        let ts = match r.timestamp.as_deref() {
            Some(ts) => timefmt::parse_ts(ts),
            None => crate::scan::pair::time_before(self.buf, line.offset)
                .and_then(|t| std::str::from_utf8(t).ok())
                .and_then(timefmt::parse_ts),
        };
        window.contains(ts)
    }

    /// `--model`: whether the record's model matches a glob (always, without
    /// --model); each model met is noted.
    fn model_allows(&self, r: &Record<'_>, out: &mut FileResult) -> bool {
        let Some(m) = &self.cfg.model else {
            return true;
        };
        // A subagent record nested in a progress record has its own model.
        let model = r
            .model()
            .or_else(|| r.embedded().and_then(|e| e.record.model()));
        if let Some(x) = model.filter(|x| !out.models_seen.contains(*x)) {
            out.models_seen.insert(x.to_string());
        }
        model.is_some_and(|x| m.is_match(x))
    }
}
