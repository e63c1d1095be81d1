//! Printing `recover`: the text (or the coverage map) on stdout, the summary
//! on stderr, or JSON Lines. The text is written byte for byte when stdout is
//! not a terminal; a terminal gets it cleaned of control sequences.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::Config;
use crate::discovery::Transcript;
use crate::output::{sanitize, Format, Out};
use crate::recover::doc::Why;
use crate::recover::events::Event;
use crate::recover::replay::Rebuilt;
use crate::recover::{ranges, Range};
use json::json;

mod json;
pub(crate) use backups::backups;

mod backups;

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
