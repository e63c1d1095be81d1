//! A picked record with no content unit (a progress record, an attachment, a
//! system or summary line …): one line saying its type, subtype and time, what it
//! holds, and where a lane it points to can be read.

use std::io::{self, Write};

use super::super::{fetch, print, progress};
use super::{FileCtx, Rec};
use crate::output::{json_line, Format};
use crate::record::Record;
use crate::render;

/// A record with no content unit: its type, subtype and time, and what it holds.
pub(super) fn print_bare<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    rec: &Rec<'_, '_, '_>,
) -> crate::error::Result<()> {
    let r = rec.r;
    let file = c.t.path.display().to_string();
    let kind = if r.kind().is_empty() { "?" } else { r.kind() };
    let progress_type = progress::kind(r);
    let subtype = r.subtype.as_deref().or(progress_type.as_deref());
    let progress = progress::line(r);
    match c.format {
        Format::Json => json_line(
            w,
            &print::JsonLine {
                kind: "line",
                session_id: &c.t.session_id,
                agent_id: c.t.agent_id.as_deref(),
                file: &file,
                line: rec.line.no,
                uuid: r.uuid.as_deref(),
                record_type: kind,
                subtype,
                turn: rec.turn,
                timestamp: r.timestamp.as_deref(),
                progress_type: progress_type.clone(),
                text: progress.clone(),
            },
        )?,
        Format::Human => {
            let st = c.st;
            let one = crate::output::sanitize::one_line;
            let sub = subtype.map(|s| format!("/{s}")).unwrap_or_default();
            writeln!(
                w,
                "{}── {} {} {}{}{}{} {} {}:{}{}{}{}",
                st.head,
                print::who(&c.t.session_id, c.t.agent_id.as_deref()),
                rec.turn.map_or("·t-".to_string(), |t| format!("·t{t}")),
                st.dim,
                one(kind),
                one(&sub),
                st.head,
                print::when(r.timestamp.as_deref()),
                one(&file),
                rec.line.no,
                st.warn,
                print::mark(rec.copy),
                st.reset
            )?;
            lane_pointer(w, c, r)?;
            bare_body(w, c, rec, progress.as_deref())?;
        }
    }
    Ok(())
}

/// A subagent record nested here gives no unit when its lane file holds it
/// (search reads it there): say where.
fn lane_pointer<W: Write>(w: &mut W, c: &FileCtx<'_>, r: &Record<'_>) -> io::Result<()> {
    let in_lane = |a: &str| c.idx.is_some_and(|i| i.embeds_any() && !i.embeds(a));
    let Some((agent, uuid)) = r.embedded().and_then(|e| {
        let a = e.agent_id.as_deref().filter(|a| in_lane(a))?;
        Some((a, e.record.uuid.as_deref().unwrap_or("?")))
    }) else {
        return Ok(());
    };
    let one = crate::output::sanitize::one_line;
    let st = c.st;
    writeln!(
        w,
        "{}(subagent {a}'s record {u}, which its lane file holds: csift show @{}@{a} --uuid {u}{}){}",
        st.dim,
        one(&c.t.session_id),
        crate::output::sanitize::clean(c.home_args),
        st.reset,
        a = one(agent),
        u = one(uuid),
    )
}

/// What a unit-less record holds: harness text, a progress line, or the
/// start of its raw line.
fn bare_body<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    rec: &Rec<'_, '_, '_>,
    progress: Option<&str>,
) -> io::Result<()> {
    let st = c.st;
    // isMeta prose with no leaf of its own (R-U11) still reads as text.
    match rec.r.user_text().filter(|_| rec.r.kind() == "user") {
        Some(text) => {
            writeln!(w, "{}(unlabelled harness text){}", st.dim, st.reset)?;
            print::body(w, st, &text, c.no_truncate)
        }
        None if progress.is_some() => {
            let line = progress.unwrap_or_default();
            writeln!(w, "{}", crate::output::sanitize::one_line(line))
        }
        None => {
            let raw = String::from_utf8_lossy(fetch::raw_bytes(c.buf, rec.line));
            let one = crate::output::sanitize::one_line(&raw);
            writeln!(
                w,
                "{} {}(no content unit; --raw prints the line){}",
                render::cut_chars(&one, 300),
                st.dim,
                st.reset
            )
        }
    }
}
