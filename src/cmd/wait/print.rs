//! Printing how a wait ended: the event (a record with its exchange, as
//! search prints a hit; a sidecar ask; a verdict), what it last saw on a
//! timeout, the sessions' verdicts after it and what was read. Human or one
//! JSON object. Transcript text is cleaned before a terminal; a long body is
//! cut, with the count of what was left out and the `show` line that has it.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::{json, Value};

use crate::exchange::print::header;
use crate::exchange::unit::UnitOut;
use crate::live::session::SessionStatus;
use crate::live::watch::{Outcome, Source, Spec};
use crate::output::{sanitize, Out, Style};

const BODY_LINES: usize = 20;
const BODY_CHARS: usize = 2000;

/// A record source as units: the record's and its exchange's.
fn units(s: &Source) -> Option<(UnitOut, Vec<UnitOut>)> {
    match s {
        Source::Record {
            transcript,
            offset,
            tool_use_id,
        } => crate::exchange::at_offset(transcript, *offset, tool_use_id.as_deref()),
        _ => None,
    }
}

/// A record no label reads (a progress record, a hook's attachment): its
/// line, type, time and the start of its bytes.
struct Raw {
    file: String,
    line: usize,
    record: String,
    timestamp: Option<String>,
    excerpt: String,
}

fn raw(s: &Source) -> Option<Raw> {
    let Source::Record {
        transcript, offset, ..
    } = s
    else {
        return None;
    };
    let src = crate::scan::Source::open(&transcript.path).ok()?;
    let at = usize::try_from(*offset).ok()?.min(src.len());
    let end = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |i| at + i);
    let bytes = &src[at..end];
    let v: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let record = match (field("type"), field("subtype")) {
        (Some(t), Some(st)) => format!("{t}:{st}"),
        (Some(t), None) => t,
        _ => "(untyped)".into(),
    };
    let text = String::from_utf8_lossy(bytes);
    Some(Raw {
        file: transcript.path.display().to_string(),
        line: crate::live::tail::lines_at(&transcript.path, &[*offset])?
            .first()
            .copied()?,
        record,
        timestamp: field("timestamp"),
        excerpt: text.chars().take(300).collect(),
    })
}

fn body<W: Write>(w: &mut W, st: Style, u: &UnitOut) -> io::Result<()> {
    let text = u.shown.as_deref().unwrap_or(&u.text).trim_end_matches('\n');
    if text.is_empty() {
        return writeln!(w, "(empty)");
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = String::new();
    let mut kept = 0;
    for l in &lines {
        if kept == BODY_LINES || shown.len() + l.len() > BODY_CHARS {
            break;
        }
        shown.push_str(l);
        shown.push('\n');
        kept += 1;
    }
    if kept == 0 {
        let cut: String = lines[0].chars().take(BODY_CHARS).collect();
        shown = format!("{cut}\n");
        kept = 1;
    }
    write!(w, "{}", sanitize::clean(&shown))?;
    if kept < lines.len() {
        writeln!(
            w,
            "{}[… {} more lines: csift show {} --line {}]{}",
            st.dim,
            lines.len() - kept,
            sanitize::one_line(&u.file),
            u.line,
            st.reset
        )?;
    }
    Ok(())
}

fn exchange(out: &mut Out, u: &UnitOut, partners: &[UnitOut]) -> io::Result<()> {
    let st = out.style;
    header(out, u, false, !partners.is_empty())?;
    body(out, st, u)?;
    for p in partners {
        header(out, p, true, false)?;
        body(out, st, p)?;
    }
    Ok(())
}

fn verdicts<W: Write>(w: &mut W, st: Style, status: &[SessionStatus]) -> io::Result<()> {
    for s in status {
        let a = &s.assessment;
        let since = a
            .since
            .map(|t| format!(" since {}", crate::timefmt::local(t)))
            .unwrap_or_default();
        writeln!(
            w,
            "{}verdict {}{since}{} @{}",
            st.head,
            a.verdict.name(),
            st.reset,
            crate::discovery::short(&s.files.session_id)
        )?;
        if let Some(wf) = &a.waiting_for {
            let d = wf
                .detail
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            writeln!(
                w,
                "  waiting for {} ({}){}",
                sanitize::one_line(&wf.reason),
                wf.source,
                sanitize::one_line(&d)
            )?;
        }
        for b in &a.because {
            writeln!(w, "  {}", sanitize::one_line(b))?;
        }
    }
    Ok(())
}

pub(crate) fn human(out: &mut Out, st: Style, spec: &Spec, o: &Outcome) -> io::Result<()> {
    let waited = crate::timefmt::duration(o.waited.as_secs() as i64);
    match &o.fired {
        Some(e) => {
            writeln!(
                out,
                "{}fired {}{}: {} (after {waited})",
                st.head,
                sanitize::one_line(&e.cond),
                st.reset,
                sanitize::one_line(&e.why)
            )?;
            source(out, &e.source)?;
        }
        None => {
            let conds: Vec<&str> = spec.conds.iter().map(|c| c.spec.as_str()).collect();
            writeln!(
                out,
                "{}fired timeout{} after {waited}: none of {} held",
                st.head,
                st.reset,
                sanitize::one_line(&conds.join(" | "))
            )?;
            match &o.last {
                Some(s) => {
                    writeln!(out, "last seen:")?;
                    source(out, s)?;
                }
                None => writeln!(out, "nothing was written after the baseline")?,
            }
        }
    }
    verdicts(out, st, &o.status)?;
    let a = &o.activity;
    let tools: Vec<String> = a.tools.iter().map(|(k, v)| format!("{k} {v}")).collect();
    writeln!(
        out,
        "{}read: {} records from {} files ({} lanes), {} sidecar lines{}{}",
        st.dim,
        a.records,
        a.files,
        a.lanes,
        a.sidecar_lines,
        match tools.is_empty() {
            true => String::new(),
            false => format!("; calls: {}", sanitize::one_line(&tools.join(", "))),
        },
        st.reset
    )
}

fn source(out: &mut Out, s: &Source) -> io::Result<()> {
    match s {
        Source::Record {
            transcript, offset, ..
        } => match units(s) {
            Some((u, p)) => exchange(out, &u, &p),
            None => match raw(s) {
                Some(r) => {
                    let st = out.style;
                    writeln!(
                        out,
                        "{}── {} {}{}{} {} {}:{}{}",
                        st.head,
                        crate::discovery::short(&transcript.session_id),
                        st.label,
                        sanitize::one_line(&r.record),
                        st.head,
                        r.timestamp.as_deref().map_or("-", |t| t),
                        sanitize::one_line(&r.file),
                        r.line,
                        st.reset
                    )?;
                    writeln!(out, "{}", sanitize::one_line(&r.excerpt))
                }
                None => writeln!(
                    out,
                    "(the record at byte {offset} of {} could not be read back)",
                    sanitize::path(&transcript.path)
                ),
            },
        },
        Source::Sidecar { path, marker } => {
            writeln!(
                out,
                "── {} {} {} (elicitation sidecar {})",
                sanitize::one_line(&marker.phase),
                sanitize::one_line(&marker.kind),
                sanitize::one_line(&marker.key),
                sanitize::path(path)
            )?;
            match marker.detail() {
                Some(d) => writeln!(out, "{}", sanitize::one_line(&d)),
                None => Ok(()),
            }
        }
        Source::Verdict => Ok(()),
    }
}

#[derive(Serialize)]
struct SessionJson<'a> {
    session_id: &'a str,
    verdict: &'static str,
    #[serde(serialize_with = "crate::live::ser_ts")]
    since: Option<jiff::Timestamp>,
    because: &'a [String],
    notes: &'a [String],
    waiting_for: Option<&'a crate::live::verdict::WaitingFor>,
}

fn unit_json(s: &Source) -> Option<Value> {
    let Some((u, p)) = units(s) else {
        let r = raw(s)?;
        return Some(json!({"file": r.file, "line": r.line, "record": r.record,
            "timestamp": r.timestamp, "label": null, "text": r.excerpt}));
    };
    let mut v = serde_json::to_value(&u).ok()?;
    v["exchange"] = serde_json::to_value(&p).ok()?;
    Some(v)
}

pub(crate) fn json(out: &mut Out, o: &Outcome) -> io::Result<()> {
    let elicitation = o.fired.as_ref().and_then(|e| match &e.source {
        Source::Sidecar { path, marker } => Some(json!({
            "kind": marker.kind, "phase": marker.phase, "key": marker.key,
            "detail": marker.detail(), "file": path,
        })),
        _ => None,
    });
    let sessions: Vec<SessionJson<'_>> = o
        .status
        .iter()
        .map(|s| SessionJson {
            session_id: &s.files.session_id,
            verdict: s.assessment.verdict.name(),
            since: s.assessment.since,
            because: &s.assessment.because,
            notes: &s.assessment.notes,
            waiting_for: s.assessment.waiting_for.as_ref(),
        })
        .collect();
    let v = json!({
        "type": "wait",
        "fired": o.fired.as_ref().map_or("timeout", |e| e.cond.as_str()),
        "because": o.fired.as_ref().map(|e| e.why.as_str()),
        "waited_ms": o.waited.as_millis() as u64,
        "event": o.fired.as_ref().and_then(|e| unit_json(&e.source)),
        "elicitation": elicitation,
        "last": o.last.as_ref().and_then(unit_json),
        "activity": o.activity,
        "sessions": sessions,
    });
    out.json(&v)
}
