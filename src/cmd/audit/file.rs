//! One pass over one transcript feeding every selected detector. Each line is
//! skimmed for its top-level keys ([`super::skim`]); only the parts a detector
//! needs are parsed, and only when a byte prefilter says they can matter:
//! assistant messages (eaten-text, tool calls), carriers without an object
//! echo, `toolUseResult`s naming an agent or a persisted path, lines holding
//! `<persisted-output>`. Uuids are hashed from their bytes.
//!
//! A pass reads any run of a file's whole lines ([`scan`]): from the file's
//! start it folds each detector's state; from a later line (the census
//! cache's appended bytes, [`super::census`]) it keeps what an earlier line
//! decides in order, to be folded in after the earlier census. The work on
//! each line is [`super::pass`]'s; this module owns what a pass is given and
//! what it leaves (a [`Scan`]: every detector's state).

use memchr::memmem;

use super::calls::{Calls, EchoPolicy};
use super::dup::Dups;
use super::eaten::Eaten;
use super::finding::{FileCtx, Finding};
use super::refs::Refs;
use crate::cache::Pos;
use crate::cli::audit::Kind;
use crate::discovery::{Shape, Transcript};

/// Which detectors run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Want {
    pub(crate) eaten: bool,
    pub(crate) adjacency: bool,
    pub(crate) malformed: bool,
    pub(crate) lanes: bool,
    pub(crate) outputs: bool,
    pub(crate) echo: bool,
    pub(crate) unanswered: bool,
    pub(crate) dup: bool,
}

impl Want {
    pub(crate) fn from(kinds: &[Kind]) -> Want {
        let on = |k| kinds.is_empty() || kinds.contains(&k);
        Want {
            eaten: on(Kind::EatenText),
            adjacency: on(Kind::EatenTextAdjacency),
            malformed: on(Kind::MalformedLine),
            lanes: on(Kind::MissingTranscript),
            outputs: on(Kind::MissingPersistedOutput),
            echo: on(Kind::MissingEcho),
            unanswered: on(Kind::UnansweredCall),
            dup: on(Kind::DuplicateUuid),
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct FileAudit {
    pub(crate) findings: Vec<Finding>,
    pub(crate) bytes: u64,
    pub(crate) multi_block: usize,
    pub(crate) error: Option<String>,
}

fn has(hay: &[u8], needle: &[u8]) -> bool {
    memmem::find(hay, needle).is_some()
}

/// Echo rule for this file (see [`super::calls`]): top-level files always, a
/// teammate lane (meta `taskKind:"in_process_teammate"`, SUB-028) for writes.
fn policy(t: &Transcript) -> EchoPolicy {
    match t.shape {
        Shape::Main => EchoPolicy::Main,
        Shape::Subagent => {
            let meta = t.path.with_extension("meta.json");
            match crate::scan::source::small(&meta, 16 << 20) {
                Ok(b) if has(&b, b"\"in_process_teammate\"") => EchoPolicy::Teammate,
                _ => EchoPolicy::Never,
            }
        }
        _ => EchoPolicy::Never,
    }
}

/// The first `"timestamp"` string value in a line that would not skim (either
/// spacing, REC-038).
pub(super) fn scraped_ts(b: &[u8]) -> Option<&[u8]> {
    crate::scan::pair::first_plain_str(b, crate::scan::lit!(b"\"timestamp\""))
        .filter(|v| v.len() <= 40)
}

/// The time of the last line of `before` that holds one (malformed lines are
/// rare, so walking back line by line costs nothing that matters).
pub(super) fn ts_before(before: &[u8]) -> Option<&[u8]> {
    let mut end = before.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &before[..end - 1]).map_or(0, |i| i + 1);
        if let Some(ts) = scraped_ts(&before[start..end]) {
            return Some(ts);
        }
        end = start;
    }
    None
}

/// What a pass needs beside the bytes: the detectors wanted, the file's echo
/// rule and how findings name it.
pub(crate) struct Setup {
    pub(crate) want: Want,
    pub(crate) policy: EchoPolicy,
    pub(crate) file: FileCtx,
}

impl Setup {
    pub(crate) fn of(t: &Transcript, want: &Want) -> Setup {
        Setup {
            want: *want,
            policy: if want.echo {
                policy(t)
            } else {
                EchoPolicy::Never
            },
            file: FileCtx {
                file: t.path.display().to_string(),
                session_id: t.session_id.clone(),
                is_lane: t.is_lane(),
            },
        }
    }
}

/// Every detector's state over a run of a file's lines.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) eaten: Eaten,
    pub(crate) calls: Calls,
    pub(crate) dups: Dups,
    pub(crate) refs: Refs,
    /// Malformed-line findings in line order; for one whose time must come
    /// from a line before the run, its line's file offset ([`Scan::timed`]).
    pub(crate) malformed: Vec<(Finding, Option<usize>)>,
    pub(crate) bytes: u64,
}

/// The detectors' pass over `buf`, the lines of a file from `at` on (the
/// last one may be unterminated).
pub(crate) fn scan(buf: &[u8], at: Pos, setup: &Setup) -> Scan {
    let from_start = at.offset == 0;
    let mut s = super::pass::Pass {
        want: setup.want,
        ctx: &setup.file,
        policy: setup.policy,
        base: at.offset as usize,
        first_no: at.line as usize,
        scan: Scan {
            eaten: if from_start {
                Eaten::default()
            } else {
                Eaten::logging()
            },
            dups: if from_start {
                Dups::for_len(buf.len())
            } else {
                Dups::logging()
            },
            bytes: buf.len() as u64,
            ..Scan::default()
        },
        reported: 0,
    };
    if eaten_only(&setup.want) {
        s.eaten_fast(buf);
    } else {
        s.all_lines(buf);
    }
    s.scan
}

impl Scan {
    /// Fold in the scan of the lines that follow; false when a detector
    /// cannot do so exactly (the caller reads the file whole).
    pub(crate) fn extend(&mut self, later: Scan) -> bool {
        self.calls.extend(later.calls);
        self.refs.extend(later.refs);
        self.malformed.extend(later.malformed);
        self.bytes += later.bytes;
        self.eaten.extend(later.eaten) && self.dups.extend(later.dups)
    }

    /// Give each malformed line whose own time and the lines before it in
    /// its run held none the time of the last line before it in `buf` (the
    /// file from its start).
    pub(crate) fn timed(&mut self, buf: &[u8]) {
        for (f, at) in &mut self.malformed {
            if let Some(off) = at.take() {
                let ts = ts_before(&buf[..off.min(buf.len())]).filter(|t| !t.is_empty());
                f.timestamp = ts.map(|t| String::from_utf8_lossy(t).into_owned());
            }
        }
    }

    /// The findings of the rules that judge a file as a whole (eaten text,
    /// calls and echoes, duplicate uuids), as of `buf`, the file from its
    /// start up to where this scan ends.
    pub(crate) fn findings(&self, buf: &[u8], setup: &Setup) -> Vec<Finding> {
        let (w, ctx) = (&setup.want, &setup.file);
        let mut out = Vec::new();
        let offsets = eaten_only(w).then_some(buf);
        self.eaten
            .findings(ctx, (w.eaten, w.adjacency), offsets, &mut out);
        self.calls
            .findings(ctx, setup.policy, w.echo, w.unanswered, buf, &mut out);
        if w.dup {
            self.dups.findings(ctx, buf, &mut out);
        }
        out
    }
}

/// Only the eaten-text kinds: only assistant lines (and their neighbours while
/// adjacency waits) need reading.
pub(super) fn eaten_only(w: &Want) -> bool {
    !(w.malformed || w.dup || w.lanes || w.outputs || w.echo || w.unanswered)
}
