//! Printing one picked line of `show`: its raw bytes (`--raw`), its units under
//! search's headers, a malformed line's report, a glued line's records, or, for
//! a record with no content unit, a line saying what it is. Generic over the
//! writer so it is tested in-process.

use std::collections::HashMap;
use std::io::Write;

use super::fetch::{self, Copy};
use super::print;
use crate::classify::{classify, FileIndex, Label, LabelSet};
use crate::discovery::Transcript;
use crate::exchange;
use crate::exchange::unit::UnitOut;
use crate::output::{json_line, Format, Style};
use crate::record::{glued_parsed, parse_line, MalformedKind, Parsed, Record};
use crate::render;
use crate::scan::{lines, Line};
use crate::timefmt::{self, Window};
use bare::print_bare;

mod bare;

#[derive(Default)]
pub(super) struct Shown {
    /// Records shown (a glued line's each count), never a malformed line.
    pub(super) records: usize,
    /// Malformed lines shown (reported, with --raw printed as written).
    pub(super) malformed: usize,
    pub(super) units: usize,
    /// tool_use id -> tool name, from the calls printed so far.
    tools: HashMap<String, String>,
    /// `--raw` printed a file's unterminated last line: a newline is owed
    /// before anything printed after it.
    newline_owed: bool,
}

pub(super) struct FileCtx<'a> {
    pub(super) t: &'a Transcript,
    pub(super) buf: &'a [u8],
    pub(super) idx: Option<&'a FileIndex>,
    pub(super) labels: Option<LabelSet>,
    pub(super) window: &'a Window,
    pub(super) raw: bool,
    pub(super) format: Format,
    pub(super) no_truncate: bool,
    /// The --uuid values: of a glued line they pick, only those records show.
    pub(super) uuids: &'a [String],
    /// ` --claude-home DIR` for the commands it prints, when that flag chose the home.
    pub(super) home_args: &'a str,
    pub(super) st: Style,
}

pub(super) fn print_line<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    no: usize,
    offset: usize,
    copy: Option<&Copy>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    let line = lines::line_at(c.buf, offset, no);
    let parsed = parse_line(&line);
    if !in_window(c, &parsed, offset) {
        return Ok(());
    }
    if c.raw {
        return print_raw(w, c, &line, &parsed, shown);
    }
    match parsed {
        Parsed::Record(r) => print_record(w, c, &r, &line, copy, shown),
        // Records glued on one line (a write race) are still records, shown
        // under the line's number after the line's own report, as search
        // finds them.
        Parsed::Malformed(m) if m.kind == MalformedKind::Glued => {
            if c.labels.is_none() {
                print_malformed(w, c, no, &m)?;
                shown.malformed += 1;
            }
            print_glued(w, c, &line, copy, shown)
        }
        Parsed::Malformed(_) if c.labels.is_some() => Ok(()),
        Parsed::Malformed(m) => {
            shown.malformed += 1;
            print_malformed(w, c, no, &m)
        }
    }
}

/// Whether `--since/--until` admit the line. A line with no time of its own
/// (a snapshot, a summary, a torn line) stands at the time before it, as
/// stats counts it.
fn in_window(c: &FileCtx<'_>, parsed: &Parsed<'_>, offset: usize) -> bool {
    if c.window.is_open() {
        return true;
    }
    let own = match parsed {
        Parsed::Record(r) => r.timestamp.as_deref(),
        Parsed::Malformed(_) => None,
    };
    let ts = match own {
        Some(ts) => timefmt::parse_ts(ts),
        None => crate::scan::pair::time_before(c.buf, offset)
            .and_then(|t| std::str::from_utf8(t).ok())
            .and_then(timefmt::parse_ts),
    };
    c.window.contains(ts)
}

/// `--raw`: the line's exact bytes, when -t admits it.
fn print_raw<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    line: &Line<'_>,
    parsed: &Parsed<'_>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    // -t narrows raw lines too: a line is printed when one of its units
    // carries a selected label (a malformed line carries none).
    if let Some(set) = c.labels {
        let Parsed::Record(r) = parsed else {
            return Ok(());
        };
        let empty = FileIndex::empty(c.t.is_lane());
        let mut units = Vec::new();
        classify(r, line.no, c.idx.unwrap_or(&empty), &mut units);
        if !units.iter().any(|u| u.labels().any(|l| set.contains(l))) {
            return Ok(());
        }
    }
    // Byte for byte: the file's last line, when the file ends without a
    // newline, gets none unless another line is printed after it.
    if std::mem::take(&mut shown.newline_owed) {
        w.write_all(b"\n")?;
    }
    let bytes = fetch::raw_bytes(c.buf, line);
    let unterminated_end =
        bytes.as_ptr_range().end == c.buf.as_ptr_range().end && c.buf.last() != Some(&b'\n');
    w.write_all(bytes)?;
    match unterminated_end {
        true => shown.newline_owed = true,
        false => w.write_all(b"\n")?,
    }
    match parsed {
        Parsed::Record(_) => shown.records += 1,
        Parsed::Malformed(m) if m.kind == MalformedKind::Glued => {
            shown.malformed += 1;
            shown.records += glued_parsed(line).len();
        }
        Parsed::Malformed(_) => shown.malformed += 1,
    }
    Ok(())
}

/// The records of a glued line; picked by --uuid, that record alone, not its
/// neighbours on the line.
fn print_glued<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    line: &Line<'_>,
    copy: Option<&Copy>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    let records = glued_parsed(line);
    let own = |r: &Record<'_>| {
        r.uuid
            .as_deref()
            .is_some_and(|u| c.uuids.iter().any(|x| x == u))
    };
    let picked = records.iter().any(|(_, r)| own(r));
    for (sub, r) in &records {
        if !picked || own(r) {
            print_record(w, c, r, sub, copy, shown)?;
        }
    }
    Ok(())
}

/// The report of a line that is not one record.
fn print_malformed<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    no: usize,
    m: &crate::record::Malformed,
) -> crate::error::Result<()> {
    let file = c.t.path.display().to_string();
    match c.format {
        Format::Json => Ok(json_line(
            w,
            &print::JsonMalformed {
                kind: "malformed",
                file: &file,
                line: no,
                malformed: m.kind.name(),
                detail: &m.detail,
            },
        )?),
        Format::Human => {
            let st = c.st;
            writeln!(
                w,
                "{}── malformed line ({}) {}:{no}{}\n{}",
                st.warn,
                m.kind.name(),
                crate::output::sanitize::one_line(&file),
                st.reset,
                crate::output::sanitize::one_line(&m.detail)
            )?;
            Ok(())
        }
    }
}

/// One record being printed: where it sits, its turn, its copy mark.
struct Rec<'x, 'r, 'l> {
    r: &'x Record<'r>,
    line: &'x Line<'l>,
    idx: &'x FileIndex,
    turn: Option<usize>,
    copy: Option<&'x Copy>,
}

/// One record's units (or, when it has none, a line saying what it is).
fn print_record<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    r: &Record<'_>,
    line: &Line<'_>,
    copy: Option<&Copy>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    let empty = FileIndex::empty(c.t.is_lane());
    let idx = c.idx.unwrap_or(&empty);
    let rec = Rec {
        r,
        line,
        idx,
        turn: idx.turn(line.no),
        copy,
    };
    let printed = print_units(w, c, &rec, shown)?;
    // A block of a type csift does not model has no unit: say it is there
    // rather than print the record as if it were not (unknown shapes are
    // reported, never dropped silently).
    let blocks_said = match c.labels {
        None => print_unknown_blocks(w, c, &rec)?,
        Some(_) => 0,
    };
    shown.units += printed;
    if printed + blocks_said > 0 {
        shown.records += 1;
        return Ok(());
    }
    if c.labels.is_some() {
        return Ok(());
    }
    // A record with no content unit (session-state lines, content-less system
    // records): say what it is rather than skip an addressed line.
    shown.records += 1;
    print_bare(w, c, &rec)
}

/// The record's units -t admits, each under its header; how many were printed.
fn print_units<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    rec: &Rec<'_, '_, '_>,
    shown: &mut Shown,
) -> crate::error::Result<usize> {
    let mut units = Vec::new();
    classify(rec.r, rec.line.no, rec.idx, &mut units);
    let mut printed = 0;
    for u in &units {
        let label = match c.labels {
            None => u.label,
            Some(set) => match u.labels().find(|&l| set.contains(l)) {
                Some(l) => l,
                None => continue,
            },
        };
        let mut unit = UnitOut::new(c.t, rec.r, u, label, rec.line.no, rec.turn);
        if u.labels().any(|l| l == Label::AgentToolUse) {
            if let (Some(id), Some(name)) = (u.tool_use_id, u.tool_name) {
                shown.tools.insert(id.to_string(), name.to_string());
            }
        } else if unit.tool_name.is_none() {
            unit.tool_name = u.tool_use_id.and_then(|id| called(c, rec, id, shown));
        }
        match c.format {
            Format::Json => json_line(
                w,
                &print::JsonUnit {
                    kind: "unit",
                    unit: &unit,
                    copy: rec.copy.map(|c| c.k),
                    copies: rec.copy.map(|c| c.n),
                },
            )?,
            Format::Human => {
                print::header(w, c.st, &unit, printed > 0, rec.copy)?;
                print::body(w, c.st, &render::unit_body(rec.r, u), c.no_truncate)?;
            }
        }
        printed += 1;
    }
    Ok(printed)
}

/// The tool a result answers: from the calls printed so far, the index, or
/// the call found in the same file (REC-094).
fn called(c: &FileCtx<'_>, rec: &Rec<'_, '_, '_>, id: &str, shown: &Shown) -> Option<String> {
    shown
        .tools
        .get(id)
        .cloned()
        .or_else(|| rec.idx.tool_name(id).map(str::to_string))
        .or_else(|| {
            let near = exchange::Near {
                offset: rec.line.offset,
                no: rec.line.no,
            };
            exchange::tool_use_for(c.t, c.buf, rec.idx, id, near).and_then(|p| p.tool_name)
        })
}

/// One line per content block of a type csift does not model; how many.
fn print_unknown_blocks<W: Write>(
    w: &mut W,
    c: &FileCtx<'_>,
    rec: &Rec<'_, '_, '_>,
) -> crate::error::Result<usize> {
    let file = c.t.path.display().to_string();
    let no = rec.line.no;
    let mut said = 0;
    for (i, b) in rec.r.unknown_blocks() {
        match c.format {
            Format::Json => json_line(
                w,
                &print::JsonUnknownBlock {
                    kind: "unknown-block",
                    file: &file,
                    line: no,
                    uuid: rec.r.uuid.as_deref(),
                    block: i,
                    block_type: b.kind(),
                },
            )?,
            Format::Human => writeln!(
                w,
                "[block {i} of unknown type `{}` at {}:{no}: --raw prints it]",
                crate::output::sanitize::one_line(b.kind()),
                crate::output::sanitize::one_line(&file)
            )?,
        }
        said += 1;
    }
    Ok(said)
}
