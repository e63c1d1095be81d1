//! Printing `recover`: the text (or the coverage map) on stdout, the summary
//! on stderr, or JSON Lines. The text is written byte for byte when stdout is
//! not a terminal; a terminal gets it cleaned of control sequences.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::Config;
use crate::discovery::Transcript;
use crate::output::{json_line, sanitize, Format, Out};
use crate::recover::doc::Why;
use crate::recover::events::Event;
use crate::recover::replay::Rebuilt;
use crate::recover::store::{Blob, Verdict};
use crate::recover::{ranges, Range};

pub(crate) struct Report<'a> {
    pub(crate) path: &'a str,
    pub(crate) timeline: &'a [Event],
    pub(crate) rebuilt: &'a Rebuilt,
    pub(crate) transcripts: &'a [Transcript],
    pub(crate) opaque: &'a BTreeMap<String, usize>,
    pub(crate) point: String,
}

#[derive(Serialize)]
struct Source<'a> {
    session_id: Option<&'a str>,
    agent_id: Option<&'a str>,
    file: Option<String>,
    line: Option<usize>,
    tool: &'static str,
    kind: &'static str,
    backup: Option<&'a str>,
}

fn source<'a>(r: &Report<'a>, step: usize) -> Option<Source<'a>> {
    let e = r.timeline.get(step)?;
    let tr = r.transcripts.get(e.file);
    Some(Source {
        session_id: tr.map(|t| t.session_id.as_str()),
        agent_id: e.agent.as_deref(),
        file: tr.map(|t| t.path.to_string_lossy().into_owned()),
        line: tr.map(|_| e.line),
        tool: e.tool,
        kind: e.kind,
        backup: e.backup.as_deref(),
    })
}

/// `@4d5611e5 L123 Edit (edit)`, or the backup it was.
fn step_name(r: &Report<'_>, step: usize) -> String {
    let Some(e) = r.timeline.get(step) else {
        return "?".into();
    };
    match r.transcripts.get(e.file) {
        Some(t) => {
            let short = crate::discovery::short;
            let agent = e
                .agent
                .as_deref()
                .map(|a| format!("@{}", short(a)))
                .unwrap_or_default();
            format!(
                "@{}{agent} L{} {} ({})",
                short(&t.session_id),
                e.line,
                e.tool,
                e.kind
            )
        }
        None => format!("file-history backup {}", e.backup.as_deref().unwrap_or("?")),
    }
}

fn why_name(w: Why) -> &'static str {
    match w {
        Why::NoEvidence => "no evidence",
        Why::Boundary(_) => "changed outside the transcript",
        Why::TrimmedHead => "bash stdout drops leading blank lines",
        Why::TrimmedTail => "bash stdout drops trailing whitespace and newlines",
        Why::Straddle => "an edit may have reached into unknown lines",
    }
}

/// `L40-L52`, `L40+`, `?` (after a gap of unknown length).
fn span(g: &Range) -> String {
    match (g.from, g.to) {
        (Some(a), Some(b)) if a == b => format!("L{a}"),
        (Some(a), Some(b)) => format!("L{a}-L{b}"),
        (Some(a), None) => format!("L{a}+"),
        _ => match g.lines {
            Some(n) => format!("?({n} lines)"),
            None => "?".into(),
        },
    }
}

pub(crate) fn report(
    out: &mut Out,
    r: &Report<'_>,
    cfg: &Config,
    written: Option<&Path>,
) -> io::Result<()> {
    let map = ranges(&r.rebuilt.doc);
    if cfg.format == Format::Json {
        return json(out, r, &map, cfg, written);
    }
    if cfg.coverage {
        coverage(out, r, &map)?;
    } else if written.is_none() && r.rebuilt.evidence {
        let mut text = String::new();
        r.rebuilt.doc.render(&mut text);
        if out.tty {
            out.write_all(sanitize::clean(&text).as_bytes())?;
        } else {
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()?;
    crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
        "csift: {}",
        summary(r, written)
    )));
    for n in &r.rebuilt.notes {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift:   {}: {}",
            step_name(r, n.step),
            n.text
        )));
    }
    if let Some(line) = opaque_line(r.opaque) {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!("csift:   {line}")));
    }
    Ok(())
}

fn summary(r: &Report<'_>, written: Option<&Path>) -> String {
    let path = sanitize::one_line(r.path);
    let doc = &r.rebuilt.doc;
    if !r.rebuilt.evidence {
        return format!(
            "{path} as of {}: no content evidence ({} touches, none with content)",
            r.point,
            r.rebuilt.applied.len()
        );
    }
    let gaps = ranges(doc).iter().filter(|g| !g.known).count();
    let size = match doc.total() {
        Some(t) => format!("{} of {t} lines known", doc.known_lines()),
        None => format!("{} lines known, length unknown", doc.known_lines()),
    };
    let state = if doc.is_whole() {
        "complete".to_string()
    } else {
        format!("{gaps} gap{}", if gaps == 1 { "" } else { "s" })
    };
    let deleted = match r.rebuilt.deleted {
        Some(s) => format!(" · deleted at {} (shown as before)", step_name(r, s)),
        None => String::new(),
    };
    let to = match written {
        Some(p) => format!(" → {}", sanitize::path(p)),
        None => String::new(),
    };
    format!(
        "{path} as of {}: {size}, {state} · {} steps{deleted}{to}",
        r.point,
        r.rebuilt.applied.len()
    )
}

fn opaque_line(opaque: &BTreeMap<String, usize>) -> Option<String> {
    if opaque.is_empty() {
        return None;
    }
    let n: usize = opaque.values().sum();
    let list: Vec<String> = opaque
        .iter()
        .map(|(k, v)| {
            if *v == 1 {
                sanitize::one_line(k)
            } else {
                format!("{}×{v}", sanitize::one_line(k))
            }
        })
        .collect();
    Some(format!(
        "after the last content: {n} command(s) that change files they do not name ({}) — not applied",
        list.join(", ")
    ))
}

fn coverage(out: &mut Out, r: &Report<'_>, map: &[Range]) -> io::Result<()> {
    let st = out.style;
    writeln!(
        out,
        "{}{}{}  as of {}",
        st.head,
        sanitize::one_line(r.path),
        st.reset,
        r.point
    )?;
    for g in map {
        let what = if g.known {
            format!(
                "known    {}",
                g.step
                    .map(|s| step_name(r, s))
                    .unwrap_or_else(|| "-".into())
            )
        } else {
            let why = g.why.map(why_name).unwrap_or("unknown");
            match (g.why, g.step) {
                (Some(Why::Boundary(_)), Some(s)) => {
                    format!("{}unknown  {why}: {}{}", st.warn, step_name(r, s), st.reset)
                }
                _ => format!("{}unknown  {why}{}", st.warn, st.reset),
            }
        };
        writeln!(out, "  {:<14} {what}", span(g))?;
    }
    Ok(())
}

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

fn json(
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

#[derive(Serialize)]
struct BackupJson<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    path: &'a str,
    session_id: &'a str,
    name: &'a str,
    version: Option<u64>,
    file: String,
    mtime: Option<String>,
    bytes: u64,
    trusted: bool,
    verdict: String,
}

/// `--list-backups`: every store file for the path, with its verdict.
pub(crate) fn backups(
    out: &mut Out,
    path: &str,
    listing: &[(Blob, Verdict)],
    format: Format,
) -> io::Result<()> {
    let st = out.style;
    if format == Format::Human {
        writeln!(
            out,
            "{}{}{}  store key {}",
            st.head,
            sanitize::one_line(path),
            st.reset,
            crate::recover::store::path_hash(path)
        )?;
    }
    for (b, v) in listing {
        let mtime = b.mtime.map(crate::timefmt::utc_exact);
        match format {
            Format::Json => json_line(
                out,
                &BackupJson {
                    tag: "backup",
                    path,
                    session_id: &b.session,
                    name: &b.name,
                    version: b.version,
                    file: b.path.to_string_lossy().into_owned(),
                    mtime,
                    bytes: b.size,
                    trusted: v.trusted(),
                    verdict: v.describe(),
                },
            )?,
            Format::Human => writeln!(
                out,
                "  @{} {:<6} {:<26} {:>9}  {}{}{}",
                crate::discovery::short(&b.session),
                b.version
                    .map_or_else(|| "v?".to_string(), |v| format!("v{v}")),
                mtime.unwrap_or_else(|| "-".into()),
                crate::cmd::human_bytes(b.size),
                if v.trusted() { "" } else { st.warn },
                v.describe(),
                st.reset
            )?,
        }
    }
    if format == Format::Human && listing.is_empty() {
        writeln!(out, "{}  no backups in the store for this path (the store keeps structured writes only, and is pruned){}", st.dim, st.reset)?;
    }
    if format == Format::Json {
        // The summary the human header and footer say: the key looked up, and
        // how many generations were found and trusted (0 is an answer too).
        #[derive(Serialize)]
        struct Summary<'a> {
            #[serde(rename = "type")]
            tag: &'static str,
            path: &'a str,
            store_key: String,
            backups: usize,
            trusted: usize,
        }
        json_line(
            out,
            &Summary {
                tag: "summary",
                path,
                store_key: crate::recover::store::path_hash(path),
                backups: listing.len(),
                trusted: listing.iter().filter(|(_, v)| v.trusted()).count(),
            },
        )?;
    }
    Ok(())
}
