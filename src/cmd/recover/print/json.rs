//! `recover`'s JSON Lines: the recovered text (or the coverage map) as one
//! object with its ranges and notes.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde::Serialize;

use super::super::Config;
use super::{source, why_name, Report, Source};
use crate::output::{json_line, Out};
use crate::recover::Range;

#[derive(Serialize)]
struct RangeJson<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    from: Option<usize>,
    to: Option<usize>,
    lines: Option<usize>,
    known: bool,
    source: Option<Source<'a>>,
    reason: Option<&'static str>,
}

#[derive(Serialize)]
struct NoteJson<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    source: Option<Source<'a>>,
    text: &'a str,
}

#[derive(Serialize)]
struct RecoveredJson<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    path: &'a str,
    point: &'a str,
    complete: bool,
    lines: Option<usize>,
    known_lines: usize,
    gaps: usize,
    steps: usize,
    deleted: Option<Source<'a>>,
    opaque: &'a BTreeMap<String, usize>,
    out: Option<String>,
    content: Option<String>,
}

pub(super) fn json(
    out: &mut Out,
    r: &Report<'_>,
    map: &[Range],
    cfg: &Config,
    written: Option<&Path>,
) -> io::Result<()> {
    for g in map {
        json_line(
            out,
            &RangeJson {
                tag: "range",
                from: g.from,
                to: g.to,
                lines: g.lines,
                known: g.known,
                source: g.step.and_then(|s| source(r, s)),
                reason: g.why.map(why_name),
            },
        )?;
    }
    for n in &r.rebuilt.notes {
        json_line(
            out,
            &NoteJson {
                tag: "note",
                source: source(r, n.step),
                text: &n.text,
            },
        )?;
    }
    let content = (!cfg.coverage && written.is_none() && r.rebuilt.evidence).then(|| {
        let mut t = String::new();
        r.rebuilt.doc.render(&mut t);
        t
    });
    json_line(out, &recovered(r, map, written, content))
}

fn recovered<'a>(
    r: &'a Report<'a>,
    map: &[Range],
    written: Option<&Path>,
    content: Option<String>,
) -> RecoveredJson<'a> {
    RecoveredJson {
        tag: "recovered",
        path: r.path,
        point: &r.point,
        complete: r.rebuilt.evidence && r.rebuilt.doc.is_whole(),
        lines: r.rebuilt.doc.total().filter(|_| r.rebuilt.evidence),
        known_lines: if r.rebuilt.evidence {
            r.rebuilt.doc.known_lines()
        } else {
            0
        },
        gaps: map.iter().filter(|g| !g.known).count(),
        steps: r.rebuilt.applied.len(),
        deleted: r.rebuilt.deleted.and_then(|s| source(r, s)),
        opaque: r.opaque,
        out: written.map(|p| p.to_string_lossy().into_owned()),
        content,
    }
}
