//! Searching one transcript: prefilter the raw bytes into candidate lines, and
//! only when there is one, index the file (turns, drafts, seeds), parse and
//! classify the candidates, match their selected units, and complete each hit's
//! exchange. A file with no candidate costs one prefilter pass and nothing else.
//! When every selected label has line needles ([`crate::classify::needles`]), a
//! candidate without one is not parsed, only checked for structure.

use std::path::Path;

use super::hit::{Hit, Sub, UnitOut};
use super::matcher::Matcher;
use super::prefilter::Prefilter;
use crate::classify::{classify, FileIndex, Label, LabelSet, Unit};
use crate::cli::search::CountBy;
use crate::discovery::Transcript;
use crate::exchange;
use crate::record::{glued_parsed, parse_line, Malformed, MalformedKind, Parsed, Record};
use crate::scan::lines;
use crate::scan::stream::{self, Prefiltered};
use crate::scan::{Line, Lines, Source};
use crate::timefmt::{self, Window};

pub(crate) struct Config {
    pub(crate) matcher: Matcher,
    pub(crate) prefilter: Option<Prefilter>,
    pub(crate) labels: LabelSet,
    /// Bytes a line must hold to carry a unit of `labels`
    /// ([`crate::classify::needles`]); `None` reads every candidate line.
    pub(crate) needles: Option<Vec<&'static [u8]>>,
    /// Leave out units of `attachment` records (the default without -t or --attachments).
    pub(crate) skip_attachments: bool,
    pub(crate) tool: Option<crate::globs::NameGlobs>,
    pub(crate) model: Option<crate::globs::NameGlobs>,
    pub(crate) window: Window,
    pub(crate) resolve_persisted: bool,
    pub(crate) exchanges: bool,
    /// Name each tool result by the call it answers (printed hits and
    /// `--count-by tool`; counts and file lists need no name).
    pub(crate) tool_names: bool,
    /// Search subagent records nested in `agent_progress` records (whose
    /// agent has no lane file); off with --no-subagents.
    pub(crate) embeds: bool,
    /// `--count-by`: a key read from the record or its pairing is set on each
    /// hit ([`Hit::key`]) for `pairing` and `attachment`.
    pub(crate) count_by: Option<crate::cli::search::CountBy>,
    /// `--raw`: keep each matched line's bytes ([`FileResult::raw`]).
    pub(crate) raw: bool,
}

#[derive(Default)]
pub(crate) struct FileResult {
    pub(crate) hits: Vec<Hit>,
    pub(crate) malformed: Vec<Malformed>,
    pub(crate) bytes: u64,
    pub(crate) error: Option<String>,
    /// Notes to print on stderr (e.g. a persisted-output file that is gone).
    pub(crate) notes: Vec<String>,
    /// Lines where the pattern matched only in a record or block type csift
    /// does not model, and what that type is ([`super::unmodelled`]).
    pub(crate) unmodelled: Vec<(usize, String)>,
    /// Tool names and models the `--tool`/`--model` filters met, to name them
    /// when a glob matches none.
    pub(crate) tools_seen: std::collections::BTreeSet<String>,
    pub(crate) models_seen: std::collections::BTreeSet<String>,
    /// With `--raw`: each line holding a hit, once, with its bytes as read.
    pub(crate) raw: Vec<(usize, Vec<u8>)>,
}

pub(crate) fn search(t: &Transcript, cfg: &Config) -> FileResult {
    // Fast path: a streaming prefilter pass; most files end here. A file that
    // matches comes back held in the pass's buffer when it is small enough.
    // Its length is the opened file's own, not the tree walk's: a file
    // replaced by rename since is read as one version.
    let mut first = 0;
    let mut held = None;
    if let Some(pre) = &cfg.prefilter {
        match stream::prefilter(&t.path, pre, u64::MAX) {
            Ok(Prefiltered::Miss(len)) => {
                return FileResult {
                    bytes: len,
                    ..FileResult::default()
                }
            }
            Ok(Prefiltered::Hit { first: f, held: h }) => {
                first = f;
                held = h;
            }
            Err(e) => {
                return FileResult {
                    error: Some(e.to_string()),
                    ..FileResult::default()
                }
            }
        }
    }
    let src = match &held {
        Some(_) => None,
        None => match Source::open(&t.path) {
            Ok(s) => Some(s),
            Err(e) => return FileResult::failed(e),
        },
    };
    let buf: &[u8] = match (&held, &src) {
        (Some(h), _) => h,
        (None, Some(s)) => s,
        (None, None) => &[],
    };
    let mut out = FileResult {
        bytes: buf.len() as u64,
        ..FileResult::default()
    };
    let (mut idx, candidates) = match &cfg.prefilter {
        // The candidates are found in the index's own pass, block by block.
        Some(re) => {
            // A line start in the bytes the pass read; snapped in case the file
            // was replaced since (REC-087: by rename).
            let first = lines::line_start(buf, first.min(buf.len()));
            FileIndex::build_finding(buf, t.is_lane(), re, first)
        }
        None => (
            FileIndex::build(buf, t.is_lane()),
            Lines::new(buf).collect(),
        ),
    };
    if candidates.is_empty() {
        return out;
    }
    if cfg.embeds {
        idx = idx.with_embeds(std::sync::Arc::new(t.lane_files()));
    }
    for line in candidates {
        if let Some(needles) = &cfg.needles {
            if !crate::classify::needles::line_has(line.bytes, needles) {
                // No selected unit can be on it. A line that is not one record is
                // still reported; only its structure is checked, not parsed.
                if crate::scan::json::one_object(line.bytes).is_err() {
                    if let Parsed::Malformed(m) = parse_line(&line) {
                        out.malformed.push(m);
                    }
                }
                continue;
            }
        }
        match parse_line(&line) {
            Parsed::Record(r) => search_record(t, buf, &idx, &r, &line, cfg, &mut out),
            Parsed::Malformed(m) => {
                let glued = m.kind == MalformedKind::Glued;
                out.malformed.push(m);
                // Records glued on one line (a write race) are still records:
                // reported as malformed above, and searched one by one under
                // the line's number, as stats counts them. Each is matched as
                // on the physical line, so exchanges look past its end.
                if glued {
                    for (_, r) in glued_parsed(&line) {
                        search_record(t, buf, &idx, &r, &line, cfg, &mut out);
                    }
                }
            }
        }
    }
    // A file cut while mapped gave zeros past the cut: its hits are not trusted.
    if let Some(Err(e)) = src.as_ref().map(Source::check) {
        return FileResult::failed(e);
    }
    out
}

impl FileResult {
    fn failed(e: crate::error::Error) -> FileResult {
        FileResult {
            error: Some(e.to_string()),
            ..FileResult::default()
        }
    }
}

/// Match one record's units and collect its hits.
fn search_record(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    r: &Record<'_>,
    line: &Line<'_>,
    cfg: &Config,
    out: &mut FileResult,
) {
    if !cfg.window.is_open() {
        // An untimed record stands at the time before it, as stats counts it.
        let ts = match r.timestamp.as_deref() {
            Some(ts) => timefmt::parse_ts(ts),
            None => crate::scan::pair::time_before(buf, line.offset)
                .and_then(|t| std::str::from_utf8(t).ok())
                .and_then(timefmt::parse_ts),
        };
        if !cfg.window.contains(ts) {
            return;
        }
    }
    if let Some(m) = &cfg.model {
        // A subagent record nested in a progress record has its own model.
        let model = r
            .model()
            .or_else(|| r.embedded().and_then(|e| e.record.model()));
        if let Some(x) = model.filter(|x| !out.models_seen.contains(*x)) {
            out.models_seen.insert(x.to_string());
        }
        if !model.is_some_and(|x| m.is_match(x)) {
            return;
        }
    }
    if cfg.skip_attachments && r.kind() == "attachment" {
        return;
    }
    let mut units = Vec::new();
    classify(r, line.no, idx, &mut units);
    let before = out.hits.len();
    for u in &units {
        // Selected by either label; reported by its primary one (its true leaf).
        if !u.labels().any(|l| cfg.labels.contains(l)) {
            continue;
        }
        let label = u.label;
        if let Some(hit) = match_unit(t, buf, idx, r, u, label, line, cfg, out) {
            out.hits.push(hit);
        }
    }
    if out.hits.len() == before {
        if let Some(what) = super::unmodelled::matched(r, line.bytes, &cfg.matcher.regex) {
            out.unmodelled.push((line.no, what));
        }
    } else if cfg.raw && out.raw.last().is_none_or(|(no, _)| *no != line.no) {
        // A glued line's records share the line: it is printed once, whole.
        out.raw.push((line.no, line.bytes.to_vec()));
    }
}

#[allow(clippy::too_many_arguments)]
fn match_unit(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    r: &Record<'_>,
    u: &Unit<'_>,
    label: Label,
    line: &Line<'_>,
    cfg: &Config,
    out: &mut FileResult,
) -> Option<Hit> {
    let near = exchange::Near {
        offset: line.offset,
        no: line.no,
    };
    let mut text = u.text.to_string();
    if cfg.resolve_persisted {
        if let Some(resolved) = resolve_persisted(t, &text, &mut out.notes, line.no) {
            text = resolved;
        }
    }
    let is_use = u.labels().any(|l| l == Label::AgentToolUse);
    let is_result = u.labels().any(|l| l == Label::AgentToolResult);
    // --tool: the unit's own tool name, or the name of the call a result answers.
    let mut partner: Option<UnitOut> = None;
    if let Some(glob) = &cfg.tool {
        let name = if is_result {
            partner = u
                .tool_use_id
                .and_then(|id| exchange::tool_use_for(t, buf, idx, id, near));
            partner.as_ref().and_then(|p| p.tool_name.clone())
        } else {
            u.tool_name.map(str::to_string)
        };
        if let Some(n) = name.as_ref().filter(|n| !out.tools_seen.contains(*n)) {
            out.tools_seen.insert(n.clone());
        }
        if !name.is_some_and(|n| glob.is_match(&n)) {
            return None;
        }
    }
    let (mut subs, mut more) = cfg.matcher.find_all(&text);
    // A call's text is its name and its input JSON (REC-037), where a quote in
    // a command is `\"` and a newline in a file body `\n`. A pattern that does
    // not match that is tried on the input with its strings decoded, so
    // `commit -m "fix` finds the call; the text shown is then the decoded one,
    // which the submatch offsets point into.
    let mut input_decoded = false;
    if subs.is_empty() && is_use && !cfg.matcher.match_all {
        if let Some(decoded) = decoded_call(&text, u.tool_name) {
            (subs, more) = cfg.matcher.find_all(&decoded);
            if !subs.is_empty() {
                text = decoded;
                input_decoded = true;
            }
        }
    }
    if subs.is_empty() {
        return None;
    }
    // A result names its tool through the call it answers, whatever is printed
    // (--no-exchange and --count-by tool print no partner but still need it).
    let pairing = cfg.count_by == Some(CountBy::Pairing);
    if is_result && partner.is_none() && (cfg.exchanges || cfg.tool_names || pairing) {
        partner = u
            .tool_use_id
            .and_then(|id| exchange::tool_use_for(t, buf, idx, id, near));
    }
    let turn = idx.turn(line.no);
    let mut unit = UnitOut::new(t, r, u, label, line.no, turn);
    if unit.tool_name.is_none() {
        unit.tool_name = partner.as_ref().and_then(|p| p.tool_name.clone());
    }
    unit.text = text;
    unit.submatches = subs
        .into_iter()
        .map(|(start, end)| Sub { start, end })
        .collect();
    unit.submatches_omitted = more;
    unit.input_decoded = input_decoded;
    let mut hit = Hit {
        unit,
        exchange: Vec::new(),
        position: 0,
        unanswered: false,
        key: None,
    };
    if !cfg.exchanges {
        hit.key = match cfg.count_by {
            Some(CountBy::Pairing) => {
                pairing_key(t, buf, idx, u, is_use, is_result, &partner, line)
            }
            // CLS-020: the payload's own type names an attachment.
            Some(CountBy::Attachment) if r.kind() == "attachment" => r.attachment_kind(),
            // REC-073: is_error marks a failed result; any other result is ok.
            Some(CountBy::Result) if is_result => {
                Some(if u.is_error { "error" } else { "ok" }.to_string())
            }
            _ => None,
        };
        return Some(hit);
    }
    // A subagent's nested unit pairs only with its own call or result: the
    // parent's turn prompt and reply are not its exchange.
    let turn = turn.filter(|_| u.via.is_none());
    let line_end = line.offset + line.bytes.len();
    // The next line's start: past a `\r\n` too, which `line.bytes` leaves out.
    let next = memchr::memchr(b'\n', &buf[line_end.min(buf.len())..])
        .map_or(buf.len(), |i| line_end + i + 1);
    let opens_turn = turn.is_some() && idx.is_opener(line.no);
    // The agent's last words in this hit's turn.
    let reply = || turn.and_then(|_| exchange::turn_reply(t, buf, idx, next, line.no + 1));
    if is_use {
        if let Some(id) = u.tool_use_id {
            let results = exchange::tool_result_for(t, buf, idx, id, line_end, near);
            hit.unanswered = results.is_none();
            hit.exchange.extend(results.into_iter().map(|mut res| {
                res.tool_name = res.tool_name.or_else(|| hit.unit.tool_name.clone());
                res
            }));
        }
    } else if is_result {
        if let Some(p) = partner {
            hit.exchange.push(p);
            hit.position = 1;
        }
        // An answered question or typed rejection is a user turn: add the reply.
        if matches!(label, Label::UserAnswer | Label::UserRejection) {
            hit.exchange.extend(reply());
        }
    } else if opens_turn
        && matches!(
            label,
            Label::UserMessage
                | Label::AgentCommunicationInbox
                | Label::HarnessCompactionSummary
                | Label::HarnessCommandInvocation
        )
    {
        hit.exchange.extend(reply());
    } else if matches!(
        label,
        Label::AgentMessage
            | Label::AgentThinking
            | Label::AgentThinkingNarration
            | Label::UserMessage
    ) {
        if let Some(p) = turn
            .filter(|&n| n > 0)
            .and_then(|n| exchange::turn_prompt(t, buf, idx, n))
        {
            if p.line != line.no {
                hit.exchange.push(p);
                hit.position = 1;
            }
        }
    }
    Some(hit)
}

/// A tool unit's `--count-by pairing` key (REC-075: a call and its result are
/// joined only by the id, within the file): a call is `answered` or
/// `unanswered`; a result is `answered`, or `orphan-result` when no record of
/// its file holds its call. Any other unit has none.
#[allow(clippy::too_many_arguments)]
fn pairing_key(
    t: &Transcript,
    buf: &[u8],
    idx: &FileIndex,
    u: &Unit<'_>,
    is_use: bool,
    is_result: bool,
    partner: &Option<UnitOut>,
    line: &Line<'_>,
) -> Option<String> {
    let near = exchange::Near {
        offset: line.offset,
        no: line.no,
    };
    let key = if is_use {
        let id = u.tool_use_id?;
        let end = line.offset + line.bytes.len();
        match exchange::tool_result_for(t, buf, idx, id, end, near) {
            Some(_) => "answered",
            None => "unanswered",
        }
    } else if is_result {
        match partner {
            Some(_) => "answered",
            None => "orphan-result",
        }
    } else {
        return None;
    };
    Some(key.to_string())
}

/// Follow a `<persisted-output>` pointer (MISC-002, REC-039): the full output
/// replaces the preview; a file that is gone is said, not hidden.
fn resolve_persisted(
    t: &Transcript,
    text: &str,
    notes: &mut Vec<String>,
    line: usize,
) -> Option<String> {
    if !text.contains("<persisted-output>") {
        return None;
    }
    let marker = "Full output saved to: ";
    let at = text.find(marker)? + marker.len();
    let path = text[at..].lines().next()?.trim();
    // The pointer is absolute on the machine that wrote it; a home that was
    // copied or moved still holds the file in the session's own tool-results/.
    let local = t.local_persisted(Path::new(path));
    let found = read_persisted(Path::new(path))
        .map(|b| (b, path.to_string()))
        .or_else(|e| match &local {
            Some(l) => read_persisted(l)
                .map(|b| (b, l.display().to_string()))
                .map_err(|_| e),
            None => Err(e),
        });
    match found {
        Ok(((bytes, left), from)) => {
            let cut = match left {
                0 => String::new(),
                n => format!("\n[csift: {n} more bytes of the persisted output were not read]"),
            };
            Some(format!(
                "{text}\n[persisted output from {from}]\n{}{cut}",
                String::from_utf8_lossy(&bytes)
            ))
        }
        Err(e) => {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => format!("is gone ({e})"),
                _ => format!("is not read ({e})"),
            };
            notes.push(format!(
                "{}:{line}: persisted output {path} {why}; only the preview was searched",
                t.path.display()
            ));
            None
        }
    }
}

/// Most of a persisted output csift reads (a tool's output is persisted past
/// tens of KB; MISC-002, REC-015).
const PERSISTED_MAX: u64 = 64 << 20;

/// A persisted output is Claude Code's own file: a regular file in a
/// `tool-results/` folder (MISC-002). The pointer is transcript text, so one
/// naming anything else (a FIFO, which would block, `/dev/zero`, which never
/// ends, `/etc/passwd`) is not followed. Returns the bytes read, at most
/// [`PERSISTED_MAX`], and how many were left unread.
fn read_persisted(p: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    use std::io::{Error, ErrorKind, Read};
    if p.parent().and_then(Path::file_name) != Some(std::ffi::OsStr::new("tool-results")) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not in a tool-results folder",
        ));
    }
    let o = crate::scan::source::open_io(p)?;
    let mut buf = Vec::new();
    (&o.file).take(PERSISTED_MAX).read_to_end(&mut buf)?;
    let left = o.len.saturating_sub(buf.len() as u64);
    Ok((buf, left))
}

/// A call's text (`<name> <input JSON>`) with the input's strings decoded, or
/// `None` when they hold no escape.
fn decoded_call(text: &str, name: Option<&str>) -> Option<String> {
    let input = text.strip_prefix(name.unwrap_or(""))?.strip_prefix(' ')?;
    let decoded = crate::scan::json::decode_strings(input)?;
    Some(format!("{} {decoded}", name.unwrap_or("")))
}
