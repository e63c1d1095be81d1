//! One transcript's pass, and the session post-pass for external writes.
//!
//! A streaming prefilter reads the file once; a file with no needle ends
//! there. Otherwise the turn index and the candidate lines come from one more
//! pass ([`FileIndex::build_finding`]), and only candidates are parsed.
//! Subagent records nested in `agent_progress` are read like lane records,
//! except for an agent whose lane file exists (its records are read there).

use std::sync::Arc;

use super::calls::{At, Intake};
use super::history::{self, Sighting};
use super::join::Want;
use super::{needles, FileTouches, Kind, Touch};
use crate::classify::FileIndex;
use crate::discovery::Transcript;
use crate::record::{glued_parsed, parse_line, MalformedKind, Parsed, Record};
use crate::scan::stream::{self, Prefiltered};
use crate::scan::{lines, Line, Source};

/// What a pass reads.
#[derive(Clone, Copy)]
pub(crate) struct Options<'w> {
    /// Also admit Bash results (a `cat` echo's stdout) and decode evidence.
    pub(crate) recover: bool,
    /// Paths whose touches carry content evidence.
    pub(crate) want: Want<'w>,
    /// Read the subagent records nested in `agent_progress` records.
    pub(crate) nested: bool,
}

/// Scan transcript `t` (index `file` in the caller's list).
pub(crate) fn scan(t: &Transcript, opts: &Options<'_>) -> FileTouches {
    let re = needles::finder(opts.recover);
    // Evidence is kept as places in the file: its identity before it is
    // opened, so a replacement at any point is refused at the reread.
    // (A file that cannot be stat'ed fails to open below, or is refused then.)
    let seen = opts
        .want
        .and_then(|_| std::fs::metadata(&t.path).ok())
        .map(|m| crate::scan::source::Seen::of(&m));
    let (first, held) = match stream::prefilter(&t.path, re, t.size) {
        Ok(Prefiltered::Miss(_)) => return FileTouches::default(),
        Ok(Prefiltered::Hit { first, held }) => (first, held),
        Err(e) => return failed(e.to_string()),
    };
    let src;
    let buf: &[u8] = match &held {
        Some(h) => h,
        None => match Source::open(&t.path) {
            Ok(s) => {
                src = s;
                &src
            }
            Err(e) => return failed(e.to_string()),
        },
    };
    let first = lines::line_start(buf, first.min(buf.len()));
    let (mut idx, candidates) = FileIndex::build_finding(buf, t.is_lane(), re, first);
    if opts.nested {
        idx = idx.with_embeds(Arc::new(t.lane_files()));
    }
    let mut intake = Intake::default();
    let mut out = FileTouches::default();
    let lane = t.agent_id.as_deref();
    for line in candidates
        .iter()
        .filter(|l| needles::admit(l.bytes, opts.recover))
    {
        // A tool-result carrier needs no parse in `files`: a skim reads what it
        // needs. `recover` decodes content, so it always parses.
        if !opts.recover {
            if let Some(c) = super::skim::carrier(line.bytes) {
                let at = At {
                    line: line.no,
                    turn: idx.turn(line.no),
                    agent: lane,
                    cwd: None,
                    ts: None,
                };
                intake.carrier(c, at);
                continue;
            }
        }
        match parse_line(line) {
            Parsed::Record(r) => take(&mut intake, &mut out, &idx, &r, line, lane, opts),
            Parsed::Malformed(m) => {
                out.malformed += 1;
                if m.kind == MalformedKind::Glued {
                    for (sub, r) in glued_parsed(line) {
                        take(&mut intake, &mut out, &idx, &r, &sub, lane, opts);
                    }
                }
            }
        }
    }
    if out.sightings.iter().any(|s| s.pending) {
        let cwd = intake.first_cwd.clone().or_else(|| first_cwd(buf));
        history::resolve_pending(&mut out.sightings, cwd.as_deref());
    }
    if opts.want.is_none() {
        out.sightings
            .retain(|s| super::path::is_settings_family(&s.path));
    }
    history::squeeze(&mut out.sightings);
    out.touches = intake.finish(opts.want, buf);
    out.seen = seen;
    out
}

fn failed(e: String) -> FileTouches {
    FileTouches {
        error: Some(e),
        ..FileTouches::default()
    }
}

fn take<'a>(
    intake: &mut Intake<'a>,
    out: &mut FileTouches,
    idx: &FileIndex,
    r: &Record<'a>,
    line: &Line<'a>,
    lane: Option<&str>,
    opts: &Options<'_>,
) {
    let kind = r.kind();
    if kind == "file-history-snapshot" || kind == "file-history-delta" {
        match history::sightings(line.bytes, line.no) {
            // Without evidence wanted (`files`, `agents`), a sighting serves
            // only the settings family's external writes: the others are
            // not kept (a snapshot re-lists every tracked path each turn).
            Some(s) => out.sightings.extend(
                s.into_iter()
                    .filter(|s| opts.want.is_some() || history::may_be_settings(s))
                    .map(|mut s| {
                        s.turn = idx.turn(line.no);
                        s
                    }),
            ),
            None => out.malformed += 1,
        }
        return;
    }
    let turn = idx.turn(line.no);
    let at = At {
        line: line.no,
        turn,
        agent: lane,
        cwd: None,
        ts: None,
    };
    intake.record(r, at);
    if !opts.nested {
        return;
    }
    if let Some(e) = r.embedded() {
        let agent = e.agent_id.as_deref();
        if agent.is_some_and(|a| idx.embeds(a)) {
            let at = At {
                agent,
                cwd: r.cwd.as_deref(),
                ts: r.timestamp.as_deref(),
                ..at
            };
            intake.record(&e.record, at);
        }
    }
}

/// The first `cwd` in a file's head: the session's directory, which relative
/// tracked paths are spelled against (FH-002).
fn first_cwd(buf: &[u8]) -> Option<String> {
    let head = crate::scan::head(buf, 512 * 1024);
    crate::scan::Lines::new(head)
        .take(400)
        .find_map(|l| match parse_line(&l) {
            Parsed::Record(r) => r
                .cwd
                .as_deref()
                .filter(|c| super::path::is_absolute(c))
                .map(str::to_string),
            Parsed::Malformed(_) => None,
        })
}

/// Add `external_write` touches: a settings-family version jump (FH-021,
/// FH-039) with no tool write of that path in its interval, by any file of
/// the same session (FH-020: a session's tracked set includes its
/// subagents' writes). `session_of[i]` groups the files.
pub(crate) fn external_writes(all: &mut [FileTouches], session_of: &[&str]) {
    let mut found: Vec<(usize, Touch)> = Vec::new();
    for (i, ft) in all.iter().enumerate() {
        for (prev, cur) in history::jumps(&ft.sightings) {
            if !super::path::is_settings_family(&cur.path) {
                continue;
            }
            let explained = all.iter().enumerate().any(|(j, other)| {
                session_of.get(j) == session_of.get(i)
                    && other.touches.iter().any(|t| {
                        *t.path == *cur.path
                            && (t.kind.is_structured_write() || t.kind.is_bash_write())
                            && within(t, i == j, prev, cur)
                    })
            });
            if !explained {
                found.push((i, external(cur)));
            }
        }
    }
    for (i, t) in found {
        if let Some(ft) = all.get_mut(i) {
            ft.touches.push(t);
        }
    }
}

fn within(t: &Touch, same_file: bool, prev: &Sighting, cur: &Sighting) -> bool {
    let ts = t.landed.as_deref().or(t.ts.as_deref());
    history::in_interval(t.line, ts, same_file, prev, cur)
}

fn external(cur: &Sighting) -> Touch {
    Touch {
        path: cur.path.as_str().into(),
        class: cur.class,
        kind: Kind::ExternalWrite,
        tool: "file-history",
        agent_id: None,
        line: cur.line,
        sub: 0,
        turn: cur.turn,
        ts: cur.ts.as_deref().map(Into::into),
        landed: cur.ts.as_deref().map(Into::into),
        evidence: None,
    }
}
