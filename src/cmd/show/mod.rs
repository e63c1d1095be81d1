//! `csift show`: print records exactly, addressed by physical line, uuid or turn,
//! rendered per label (default), as their original bytes (`--raw`) or as JSON
//! units shaped like search's matches; or list a transcript's branch points.
//! Addresses are resolved for every file first, so a missed address fails the run
//! before anything is printed (REC-093).

pub(crate) mod branch;
pub(crate) mod fetch;
pub(crate) mod print;
pub(crate) mod progress;

use std::collections::HashMap;
use std::io::Write;
use std::time::Instant;

use crate::classify::{classify, FileIndex, Label, LabelSet};
use crate::cli::show::ShowArgs;
use crate::discovery::Transcript;
use crate::error::Error;
use crate::exchange;
use crate::exchange::unit::UnitOut;
use crate::output::{Format, Out};
use crate::record::{glued_parsed, parse_line, MalformedKind, Parsed, Record};
use crate::scan::{lines, Source};
use crate::timefmt::{self, Window};
use crate::{address, render};

use super::{Exit, Problems};
use fetch::{Copy, Want};

/// Narrow to the transcript that owns line and turn numbers (REC-094): a session
/// with lanes means its main transcript; a lane is named by its own @agent-id.
pub(crate) fn owning(ts: Vec<Transcript>) -> Result<Vec<Transcript>, Error> {
    if ts.len() <= 1 {
        return Ok(ts);
    }
    let mains: Vec<Transcript> = ts.iter().filter(|t| !t.is_lane()).cloned().collect();
    match mains.len() {
        1 => Ok(mains),
        0 => Err(Error::Usage(format!(
            "this needs one transcript (line and turn numbers belong to one file), and the target selected {} lanes and no main transcript; name one with @<agent-id> (see `csift agents`)",
            ts.len()
        ))),
        n => Err(Error::Usage(format!(
            "this needs one transcript (line and turn numbers belong to one file), and the target selected {n} sessions; name one with @<session-id> (see `csift list`)"
        ))),
    }
}

/// A bare show printed every record of every session (53,000 lines on a real
/// home): a TARGET is required, unless `--uuid` looks for records everywhere.
fn require_target(args: &ShowArgs) -> Result<(), Error> {
    if !args.targets.is_empty() || !args.uuids.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(
        "show needs a TARGET: a session as `csift list` prints it (@<session-id>), a lane \
         (@<agent-id>), a .jsonl file or a project folder; --uuid alone looks in every transcript"
            .into(),
    ))
}

/// One file's resolved addresses, owned so the files can be resolved in parallel.
struct Resolved {
    src: Option<Source>,
    idx: Option<FileIndex>,
    picks: Vec<(usize, usize, Option<Copy>)>,
    misses: Vec<String>,
    error: Option<String>,
}

fn resolve(t: &Transcript, want: &Want, need_index: bool, embeds: bool) -> Resolved {
    let failed = |e: Error| Resolved {
        src: None,
        idx: None,
        picks: Vec::new(),
        misses: Vec::new(),
        error: Some(e.to_string()),
    };
    let src = match Source::open(&t.path) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let idx = need_index.then(|| {
        let idx = FileIndex::build(&src, t.is_lane());
        // A subagent's records nested in agent_progress records show as its
        // units, as search finds them (unless its lane file holds them).
        match embeds {
            true => idx.with_embeds(std::sync::Arc::new(t.lane_files())),
            false => idx,
        }
    });
    let (picks, misses) = {
        let picked = fetch::pick(&src, want, idx.as_ref());
        let picks = picked
            .picks
            .into_iter()
            .map(|p| (p.line.no, p.line.offset, p.copy))
            .collect();
        (picks, picked.misses)
    };
    // A file cut while mapped read zeros past the cut: nothing of it is shown.
    if let Err(e) = src.check() {
        return failed(e);
    }
    Resolved {
        src: Some(src),
        idx,
        picks,
        misses,
        error: None,
    }
}

pub(crate) fn run(
    args: &ShowArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    if args.raw && args.common.format == crate::output::Format::Json {
        // The raw bytes are not JSON Lines (a glued line holds two objects);
        // JSON already carries each record whole.
        return Err(Error::Usage(
            "--raw prints the lines' exact bytes and --format json prints records as JSON: choose one".into(),
        ));
    }
    require_target(args)?;
    let labels = match args.labels.is_empty() {
        true => None,
        false => Some(LabelSet::parse(&args.labels).map_err(Error::Usage)?),
    };
    let want = Want {
        lines: address::parse(&args.lines).map_err(Error::Usage)?,
        turns: address::parse(&args.turns).map_err(Error::Usage)?,
        uuids: args.uuids.clone(),
    };
    let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    let mut ts = super::select(&args.common, &args.targets, problems)?;
    if args.branch_points {
        return branch::run(&ts, out, args.common.format, problems, started);
    }
    if !want.lines.is_empty() || !want.turns.is_empty() {
        ts = owning(ts)?;
    }
    let need_index = !want.turns.is_empty() || !args.raw || labels.is_some();
    let files: Vec<Resolved> = crate::scan::par_map(&ts, |t| {
        resolve(t, &want, need_index, !args.common.no_subagents)
    });

    // A uuid misses only when no selected transcript holds it; other misses are
    // per-file and the address was narrowed to one file.
    let mut misses: Vec<String> = Vec::new();
    for (t, f) in ts.iter().zip(&files) {
        if let Some(e) = &f.error {
            problems.report(&t.path, e);
        }
        for m in &f.misses {
            let everywhere = !m.starts_with("uuid ")
                || files
                    .iter()
                    .filter(|g| g.error.is_none())
                    .all(|g| g.misses.contains(m));
            if everywhere && !misses.contains(m) {
                misses.push(m.clone());
            }
        }
    }
    if !misses.is_empty() {
        // Name where the address was looked for, so the user can check it.
        let place = match ts.as_slice() {
            [t] => format!(" in {}", crate::output::sanitize::path(&t.path)),
            many => format!(" (searched {} transcripts)", many.len()),
        };
        return Err(Error::NotFound(format!(
            "no such record(s){place}: {}",
            misses.join(", ")
        )));
    }

    let home_args = crate::discovery::home::from_env(args.common.claude_home.clone())?.flag_args();
    let mut shown = Shown::default();
    for (t, f) in ts.iter().zip(&files) {
        let Some(src) = &f.src else { continue };
        let ctx = FileCtx {
            t,
            buf: src,
            idx: f.idx.as_ref(),
            labels,
            window: &window,
            raw: args.raw,
            format: args.common.format,
            no_truncate: args.no_truncate,
            uuids: &args.uuids,
            home_args: &home_args,
        };
        for (no, offset, copy) in &f.picks {
            print_line(out, &ctx, *no, *offset, copy.as_ref(), &mut shown)?;
        }
        // Cut while it was printed: what was printed past the cut is not the file.
        if let Err(e) = src.check() {
            problems.report(&t.path, e);
        }
    }
    for (t, f) in ts.iter().zip(&files) {
        if f.picks.iter().any(|p| p.2.is_some()) && args.raw {
            problems.note(format_args!(
                "{}: a requested uuid has several lines; every copy was printed",
                crate::output::sanitize::path(&t.path)
            ));
        }
    }
    if args.common.format == Format::Json && !args.raw {
        out.json(&print::Summary {
            kind: "summary",
            files: ts.len(),
            records: shown.records,
            malformed: shown.malformed,
            units: shown.units,
            errors: problems.count(),
            elapsed_ms: started.elapsed().as_millis(),
        })?;
    }
    Ok(Exit::from(
        shown.records + shown.malformed > 0,
        problems.count(),
    ))
}

#[derive(Default)]
struct Shown {
    /// Records shown (a glued line's each count), never a malformed line.
    records: usize,
    /// Malformed lines shown (reported, with --raw printed as written).
    malformed: usize,
    units: usize,
    /// tool_use id -> tool name, from the calls printed so far.
    tools: HashMap<String, String>,
    /// `--raw` printed a file's unterminated last line: a newline is owed
    /// before anything printed after it.
    newline_owed: bool,
}

struct FileCtx<'a> {
    t: &'a Transcript,
    buf: &'a [u8],
    idx: Option<&'a FileIndex>,
    labels: Option<LabelSet>,
    window: &'a Window,
    raw: bool,
    format: Format,
    no_truncate: bool,
    /// The --uuid values: of a glued line they pick, only those records show.
    uuids: &'a [String],
    /// ` --claude-home DIR` for the commands it prints, when that flag chose the home.
    home_args: &'a str,
}

fn print_line(
    out: &mut Out,
    c: &FileCtx<'_>,
    no: usize,
    offset: usize,
    copy: Option<&Copy>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    let line = lines::line_at(c.buf, offset, no);
    let parsed = parse_line(&line);
    if !c.window.is_open() {
        // A line with no time of its own (a snapshot, a summary, a torn
        // line) stands at the time before it, as stats counts it.
        let own = match &parsed {
            Parsed::Record(r) => r.timestamp.as_deref(),
            Parsed::Malformed(_) => None,
        };
        let ts = match own {
            Some(ts) => timefmt::parse_ts(ts),
            None => crate::scan::pair::time_before(c.buf, offset)
                .and_then(|t| std::str::from_utf8(t).ok())
                .and_then(timefmt::parse_ts),
        };
        if !c.window.contains(ts) {
            return Ok(());
        }
    }
    if c.raw {
        // -t narrows raw lines too: a line is printed when one of its units
        // carries a selected label (a malformed line carries none).
        if let Some(set) = c.labels {
            let Parsed::Record(r) = &parsed else {
                return Ok(());
            };
            let empty = FileIndex::empty(c.t.is_lane());
            let mut units = Vec::new();
            classify(r, no, c.idx.unwrap_or(&empty), &mut units);
            if !units.iter().any(|u| u.labels().any(|l| set.contains(l))) {
                return Ok(());
            }
        }
        // Byte for byte: the file's last line, when the file ends without a
        // newline, gets none unless another line is printed after it.
        if std::mem::take(&mut shown.newline_owed) {
            out.write_all(b"\n")?;
        }
        let bytes = fetch::raw_bytes(c.buf, &line);
        let unterminated_end =
            bytes.as_ptr_range().end == c.buf.as_ptr_range().end && c.buf.last() != Some(&b'\n');
        out.write_all(bytes)?;
        match unterminated_end {
            true => shown.newline_owed = true,
            false => out.write_all(b"\n")?,
        }
        match &parsed {
            Parsed::Record(_) => shown.records += 1,
            Parsed::Malformed(m) if m.kind == MalformedKind::Glued => {
                shown.malformed += 1;
                shown.records += glued_parsed(&line).len();
            }
            Parsed::Malformed(_) => shown.malformed += 1,
        }
        return Ok(());
    }
    let file = c.t.path.display().to_string();
    let r = match parsed {
        Parsed::Record(r) => r,
        Parsed::Malformed(m) => {
            // Records glued on one line (a write race) are still records, shown
            // under the line's number after the line's own report, as search
            // finds them.
            if m.kind == MalformedKind::Glued {
                if c.labels.is_none() {
                    print_malformed(out, c, no, &file, &m)?;
                    shown.malformed += 1;
                }
                let records = glued_parsed(&line);
                // Picked by --uuid: that record, not its neighbours on the line.
                let own = |r: &Record<'_>| {
                    r.uuid
                        .as_deref()
                        .is_some_and(|u| c.uuids.iter().any(|x| x == u))
                };
                let picked = records.iter().any(|(_, r)| own(r));
                for (sub, r) in &records {
                    if !picked || own(r) {
                        print_record(out, c, r, sub, copy, shown)?;
                    }
                }
                return Ok(());
            }
            if c.labels.is_some() {
                return Ok(());
            }
            shown.malformed += 1;
            return print_malformed(out, c, no, &file, &m);
        }
    };
    print_record(out, c, &r, &line, copy, shown)
}

/// The report of a line that is not one record.
fn print_malformed(
    out: &mut Out,
    c: &FileCtx<'_>,
    no: usize,
    file: &str,
    m: &crate::record::Malformed,
) -> crate::error::Result<()> {
    match c.format {
        Format::Json => Ok(out.json(&print::JsonMalformed {
            kind: "malformed",
            file,
            line: no,
            malformed: m.kind.name(),
            detail: &m.detail,
        })?),
        Format::Human => {
            let st = out.style;
            writeln!(
                out,
                "{}── malformed line ({}) {}:{no}{}\n{}",
                st.warn,
                m.kind.name(),
                crate::output::sanitize::one_line(file),
                st.reset,
                crate::output::sanitize::one_line(&m.detail)
            )?;
            Ok(())
        }
    }
}

/// One record's units (or, when it has none, a line saying what it is).
fn print_record(
    out: &mut Out,
    c: &FileCtx<'_>,
    r: &Record<'_>,
    line: &crate::scan::Line<'_>,
    copy: Option<&Copy>,
    shown: &mut Shown,
) -> crate::error::Result<()> {
    let no = line.no;
    let file = c.t.path.display().to_string();
    let empty = FileIndex::empty(c.t.is_lane());
    let idx = c.idx.unwrap_or(&empty);
    let mut units = Vec::new();
    classify(r, no, idx, &mut units);
    let turn = idx.turn(no);
    let mut printed = 0;
    for u in &units {
        let label = match c.labels {
            None => u.label,
            Some(set) => match u.labels().find(|&l| set.contains(l)) {
                Some(l) => l,
                None => continue,
            },
        };
        let mut unit = UnitOut::new(c.t, r, u, label, no, turn);
        if u.labels().any(|l| l == Label::AgentToolUse) {
            if let (Some(id), Some(name)) = (u.tool_use_id, u.tool_name) {
                shown.tools.insert(id.to_string(), name.to_string());
            }
        } else if unit.tool_name.is_none() {
            unit.tool_name = u
                .tool_use_id
                .and_then(|id| shown.tools.get(id).cloned())
                .or_else(|| {
                    u.tool_use_id
                        .and_then(|id| idx.tool_name(id))
                        .map(str::to_string)
                })
                .or_else(|| {
                    // The call was not printed: find it in the same file (REC-094).
                    let id = u.tool_use_id?;
                    let near = exchange::Near {
                        offset: line.offset,
                        no,
                    };
                    exchange::tool_use_for(c.t, c.buf, idx, id, near).and_then(|p| p.tool_name)
                });
        }
        match c.format {
            Format::Json => out.json(&print::JsonUnit {
                kind: "unit",
                unit: &unit,
                copy: copy.map(|c| c.k),
                copies: copy.map(|c| c.n),
            })?,
            Format::Human => {
                print::header(out, &unit, printed > 0, copy)?;
                print::body(out, &render::unit_body(r, u), c.no_truncate)?;
            }
        }
        printed += 1;
    }
    // A block of a type csift does not model has no unit: say it is there
    // rather than print the record as if it were not (unknown shapes are
    // reported, never dropped silently).
    let mut blocks_said = 0;
    if c.labels.is_none() {
        for (i, b) in r.unknown_blocks() {
            match c.format {
                Format::Json => out.json(&print::JsonUnknownBlock {
                    kind: "unknown-block",
                    file: &file,
                    line: no,
                    uuid: r.uuid.as_deref(),
                    block: i,
                    block_type: b.kind(),
                })?,
                Format::Human => writeln!(
                    out,
                    "[block {i} of unknown type `{}` at {}:{no}: --raw prints it]",
                    crate::output::sanitize::one_line(b.kind()),
                    crate::output::sanitize::one_line(&file)
                )?,
            }
            blocks_said += 1;
        }
    }
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
    let kind = if r.kind().is_empty() { "?" } else { r.kind() };
    let progress_type = progress::kind(r);
    let subtype = r.subtype.as_deref().or(progress_type.as_deref());
    let progress = progress::line(r);
    match c.format {
        Format::Json => out.json(&print::JsonLine {
            kind: "line",
            session_id: &c.t.session_id,
            agent_id: c.t.agent_id.as_deref(),
            file: &file,
            line: no,
            uuid: r.uuid.as_deref(),
            record_type: kind,
            subtype,
            turn,
            timestamp: r.timestamp.as_deref(),
            progress_type: progress_type.clone(),
            text: progress.clone(),
        })?,
        Format::Human => {
            let st = out.style;
            let sub = subtype.map(|s| format!("/{s}")).unwrap_or_default();
            writeln!(
                out,
                "{}── {} {} {}{}{}{} {} {}:{no}{}{}{}",
                st.head,
                print::who(&c.t.session_id, c.t.agent_id.as_deref()),
                turn.map_or("·t-".to_string(), |t| format!("·t{t}")),
                st.dim,
                crate::output::sanitize::one_line(kind),
                crate::output::sanitize::one_line(&sub),
                st.head,
                print::when(r.timestamp.as_deref()),
                crate::output::sanitize::one_line(&file),
                st.warn,
                print::mark(copy),
                st.reset
            )?;
            // A subagent record nested here gives no unit when its lane file
            // holds it (search reads it there): say where.
            let in_lane = |a: &str| c.idx.is_some_and(|i| i.embeds_any() && !i.embeds(a));
            if let Some((agent, uuid)) = r.embedded().and_then(|e| {
                let a = e.agent_id.as_deref().filter(|a| in_lane(a))?;
                Some((a, e.record.uuid.as_deref().unwrap_or("?")))
            }) {
                let one = crate::output::sanitize::one_line;
                writeln!(
                    out,
                    "{}(subagent {a}'s record {u}, which its lane file holds: csift show @{}@{a} --uuid {u}{}){}",
                    st.dim,
                    one(&c.t.session_id),
                    crate::output::sanitize::clean(c.home_args),
                    st.reset,
                    a = one(agent),
                    u = one(uuid),
                )?;
            }
            // isMeta prose with no leaf of its own (R-U11) still reads as text.
            match crate::classify::unit::user_text(r).filter(|_| r.kind() == "user") {
                Some(text) => {
                    writeln!(out, "{}(unlabelled harness text){}", st.dim, st.reset)?;
                    print::body(out, &text, c.no_truncate)?;
                }
                None if progress.is_some() => {
                    let line = progress.as_deref().unwrap_or_default();
                    writeln!(out, "{}", crate::output::sanitize::one_line(line))?;
                }
                None => {
                    let raw = String::from_utf8_lossy(fetch::raw_bytes(c.buf, line));
                    let one = crate::output::sanitize::one_line(&raw);
                    writeln!(
                        out,
                        "{} {}(no content unit; --raw prints the line){}",
                        render::cut_chars(&one, 300),
                        st.dim,
                        st.reset
                    )?;
                }
            }
        }
    }
    Ok(())
}
