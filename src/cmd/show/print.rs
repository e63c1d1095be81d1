//! Printing shown records: one header per unit in search's shape (session, ·t<N>,
//! label, tool, local time, file:line; the 2nd+ unit of a record with an arrow),
//! a sanitised body cut to a readable size with an explicit count of what was left
//! out, copy marks for duplicated uuids, and the JSON rows.

use std::io::{self, Write};

use serde::Serialize;

use super::fetch::Copy;
use crate::exchange::unit::UnitOut;
use crate::output::{sanitize, Style};
use crate::timefmt;

/// Body size shown before cutting (unless --no-truncate).
const MAX_LINES: usize = 60;
const MAX_CHARS: usize = 6000;

pub(crate) fn when(ts: Option<&str>) -> String {
    ts.and_then(timefmt::parse_ts)
        .map(timefmt::local)
        .unwrap_or_else(|| "-".into())
}

/// `session@agent` for a header, cleaned: ids come from file names.
pub(crate) fn who(session_id: &str, agent_id: Option<&str>) -> String {
    let who = match agent_id {
        Some(a) => format!("{}@{}", crate::discovery::short(session_id), a),
        None => crate::discovery::short(session_id).to_string(),
    };
    sanitize::one_line(&who)
}

pub(crate) fn mark(copy: Option<&Copy>) -> String {
    match copy {
        None => String::new(),
        Some(c) => {
            let lines: Vec<String> = c.lines.iter().map(|l| format!("L{l}")).collect();
            format!(" [copy {}/{} of this uuid: {}]", c.k, c.n, lines.join(" "))
        }
    }
}

pub(crate) fn header<W: Write>(
    w: &mut W,
    st: Style,
    u: &UnitOut,
    arrow: bool,
    copy: Option<&Copy>,
) -> io::Result<()> {
    let turn = u.turn.map_or("·t-".to_string(), |t| format!("·t{t}"));
    let tool = u
        .tool_name
        .as_deref()
        .map(|n| format!(" {}", sanitize::one_line(n)))
        .unwrap_or_default();
    let err = if u.is_error { " error" } else { "" };
    let lead = if arrow { "  ↳" } else { "──" };
    let via = u.via_mark();
    writeln!(
        w,
        "{}{lead} {} {turn} {}{}{}{tool}{err}{via} {} {}:{}{}{}{}",
        st.head,
        who(&u.session_id, u.agent_id.as_deref()),
        st.label,
        u.label,
        st.head,
        when(u.timestamp.as_deref()),
        sanitize::one_line(&u.file),
        u.line,
        st.warn,
        mark(copy),
        st.reset
    )
}

/// A body, sanitised; cut after [`MAX_LINES`] lines or [`MAX_CHARS`] chars.
pub(crate) fn body<W: Write>(
    w: &mut W,
    st: Style,
    text: &str,
    no_truncate: bool,
) -> io::Result<()> {
    let text = text.trim_end_matches('\n');
    if text.is_empty() {
        return writeln!(w, "(empty)");
    }
    let clean = sanitize::clean(text);
    if no_truncate {
        return writeln!(w, "{clean}");
    }
    let mut end = clean.len();
    let mut lines = 0;
    for (chars, (i, c)) in clean.char_indices().enumerate() {
        if chars == MAX_CHARS || lines == MAX_LINES {
            end = i;
            break;
        }
        lines += usize::from(c == '\n');
    }
    writeln!(w, "{}", clean[..end].trim_end_matches('\n'))?;
    if end < clean.len() {
        let rest = &clean[end..];
        crate::output::omitted_styled(w, st, rest)?;
    }
    Ok(())
}

#[derive(Serialize)]
pub(crate) struct JsonUnit<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    #[serde(flatten)]
    pub(crate) unit: &'a UnitOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) copy: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) copies: Option<usize>,
}

/// A content block of a type csift does not model, said rather than skipped.
#[derive(Serialize)]
pub(crate) struct JsonUnknownBlock<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) file: &'a str,
    pub(crate) line: usize,
    pub(crate) uuid: Option<&'a str>,
    pub(crate) block: usize,
    pub(crate) block_type: &'a str,
}

#[derive(Serialize)]
pub(crate) struct JsonLine<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) session_id: &'a str,
    pub(crate) agent_id: Option<&'a str>,
    pub(crate) file: &'a str,
    pub(crate) line: usize,
    pub(crate) uuid: Option<&'a str>,
    pub(crate) record_type: &'a str,
    pub(crate) subtype: Option<&'a str>,
    pub(crate) turn: Option<usize>,
    pub(crate) timestamp: Option<&'a str>,
    /// A progress record's `data.type` and its one readable line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) progress_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct JsonMalformed<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) file: &'a str,
    pub(crate) line: usize,
    /// Serialised as `kind`, the name `--help` documents (and `list` uses).
    #[serde(rename = "kind")]
    pub(crate) malformed: &'static str,
    pub(crate) detail: &'a str,
}

#[derive(Serialize)]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) files: usize,
    pub(crate) records: usize,
    pub(crate) malformed: usize,
    pub(crate) units: usize,
    /// Files or targets that could not be read (said on stderr; exit 2).
    pub(crate) errors: usize,
    pub(crate) elapsed_ms: u128,
}
