//! Printing shown records: one header per unit in search's shape (session, ·t<N>,
//! label, tool, local time, file:line; the 2nd+ unit of a record with an arrow),
//! a sanitised body cut to a readable size with an explicit count of what was left
//! out, copy marks for duplicated uuids, and the JSON rows.

use std::io::{self, Write};

use serde::Serialize;

use super::fetch::Copy;
use crate::exchange::unit::UnitOut;
use crate::output::{sanitize, Style};

/// Body size shown before cutting (unless --no-truncate).
const MAX_LINES: usize = 60;
const MAX_CHARS: usize = 6000;

pub(crate) use crate::exchange::print::{when, who};

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
    crate::exchange::print::unit_line(w, st, u, arrow, st.warn, &mark(copy))
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
