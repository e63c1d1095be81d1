//! The census of one transcript: every physical line is parsed once (REC-001)
//! and counted by record type, subtype, attachment type, block type,
//! `toolUseResult` shape, label, model and version; usage copies go to the
//! token [`Book`]; tool calls and results are joined by id within the file
//! (REC-094, set membership, not file order: REC-075). A large file is cut into
//! line-aligned chunks scanned in parallel and merged in order; every piece of
//! state here merges that way (sums, min/max, set unions, MAX for tokens).
//! What one parsed record adds to the counts is [`count`]'s; what the merged
//! scan becomes once the file is read, [`settle`]'s.

mod count;
mod settle;

use count::kind_name;

use std::sync::Arc;

use jiff::Timestamp;

use super::model::{max_opt, min_opt};
pub(crate) use super::model::{Census, Counts, MalformedOut, ToolRow, MALFORMED_SHOWN};
use super::model::{Map, Tally};
use super::revisit;
use crate::classify::index::Piece;
use crate::classify::FileIndex;
use crate::discovery::Transcript;
use crate::record::{parse_line, MalformedKind, Parsed, Record};
use crate::scan::hash::FxMap;
use crate::scan::{Line, Lines, Source};
use crate::timefmt::{parse_ts, Window};
use crate::tokens::book::Book;

/// Files above this are scanned in parallel chunks of about this size.
pub(super) const CHUNK: usize = 8 << 20;

#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) admitted: bool,
    /// A call without an id: the count of calls before it, which with its
    /// line makes its key ([`Scan::shift`] renumbers the key with the line).
    pub(super) idless: Option<usize>,
}

#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Answer {
    pub(super) error: bool,
    pub(super) admitted: bool,
}

/// Scan state of one chunk; chunks merge in file order. Also what the
/// census cache keeps of a file ([`super::cached`]), so a file that grew
/// merges the scan of its appended lines the same way.
#[derive(Debug, Clone)]
pub(super) struct Scan {
    pub(super) lane: bool,
    pub(super) c: Census,
    /// The names this chunk counts until it is read ([`Tally::flush`]).
    pub(super) t: Tally,
    pub(super) book: Book,
    pub(super) calls: FxMap<String, Call>,
    pub(super) answers: FxMap<String, Answer>,
    /// This chunk's part of the file index, from the census's own parse.
    pub(super) piece: Piece,
    /// Records whose labels wait on the finished index.
    pub(super) cands: Vec<revisit::Cand>,
    /// `(uuid, parentUuid)` of a main file's sidechain records, in file
    /// order: its 1.0.x inline lanes ([`crate::classify::sidechain`]).
    pub(super) sidechain: Vec<(Option<String>, Option<String>)>,
    /// Agents of agent_progress records, and whether their nested records
    /// counted here (no lane file of their own).
    pub(super) agents: std::collections::BTreeMap<String, bool>,
}

/// Census one transcript. Returns its census and its token book (for the
/// cross-file dedupe of totals), or the error that stopped it from being read.
/// With `embeds`, the subagent records nested in `agent_progress` records are
/// counted under their labels, as search finds them (unless the agent's lane
/// file holds them).
pub(crate) fn census(
    t: &Transcript,
    window: &Window,
    embeds: bool,
) -> Result<(Census, Book), String> {
    let src = Source::open(&t.path).map_err(|e| e.to_string())?;
    let embeds = embeds.then(|| Arc::new(t.lane_files()));
    let (mut c, book) = census_buf(&src, t.is_lane(), window, CHUNK, embeds);
    src.check().map_err(|e| e.to_string())?;
    for m in &mut c.malformed {
        m.file = t.path.display().to_string();
    }
    Ok((c, book))
}

/// Census a transcript's bytes, scanning chunks of about `chunk` bytes in parallel.
fn census_buf(
    buf: &[u8],
    lane: bool,
    window: &Window,
    chunk: usize,
    embeds: Embeds,
) -> (Census, Book) {
    let whole = Part {
        bytes: buf,
        base: 0,
        first_no: 1,
    };
    scan_chunked(whole, lane, window, chunk, embeds).finalize(buf)
}

/// Scan `p` in line-aligned chunks of about `chunk` bytes in parallel,
/// merged in file order (one chunk under a window: it needs file order to
/// carry timestamps forward onto untimed lines).
pub(super) fn scan_chunked(
    p: Part<'_>,
    lane: bool,
    window: &Window,
    chunk: usize,
    embeds: Embeds,
) -> Scan {
    let cuts = if window.is_open() {
        crate::scan::cuts(p.bytes, chunk)
    } else {
        vec![(0, p.bytes.len())]
    };
    // A later chunk numbers its lines from 1 and is renumbered when it is
    // merged, by the lines of the chunks before it: numbering each chunk up
    // front took a pass counting every newline of the file (2% of stats' CPU
    // on the generated home's 320 MB transcript).
    let parts = crate::scan::par_map(&cuts, |&(a, b)| {
        let part = Part {
            bytes: &p.bytes[a..b],
            base: p.base + a,
            first_no: if a == 0 { p.first_no } else { 1 },
        };
        scan(part, lane, window, embeds.clone())
    });
    let mut it = parts.into_iter();
    let mut s = it.next().unwrap_or_else(|| Scan::new(lane));
    for mut q in it {
        q.shift(p.first_no - 1 + s.c.lines as usize);
        s.merge(q);
    }
    s
}

/// Agents whose nested records count (all but those with a lane file), or
/// `None` when nested records do not count.
pub(super) type Embeds = Option<Arc<crate::discovery::LaneFiles>>;

/// A run of whole lines of a file: its bytes, where they start in the file,
/// and the number of their first line.
#[derive(Clone, Copy)]
pub(super) struct Part<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) base: usize,
    pub(super) first_no: usize,
}

/// Scan one run of lines: each line parsed once and counted.
pub(super) fn scan(p: Part<'_>, lane: bool, w: &Window, embeds: Embeds) -> Scan {
    let mut s = Scan::new(lane);
    // Classified first against no index; `revisit` settles what the index
    // changes (user records only: a progress record's nested units stay).
    let mut idx = FileIndex::empty(lane);
    if let Some(e) = embeds {
        idx = idx.with_embeds(e);
    }
    let mut carried = first_time(p.bytes, w);
    for l in Lines::new(p.bytes) {
        let line = Line {
            no: p.first_no + l.no - 1,
            offset: p.base + l.offset,
            ..l
        };
        s.c.lines += 1;
        match parse_line(&line) {
            Parsed::Malformed(m) => s.malformed(m, &line, &idx, w, &mut carried),
            Parsed::Record(r) => s.line_record(&r, &line, &idx, w, &mut carried),
        }
    }
    s.t.flush(&mut s.c);
    s
}

/// The time an untimed record before the first timed one takes: that one
/// (a leading snapshot or summary belongs to the session's start). Only a
/// window asks (it scans the file as one chunk, in order).
fn first_time(bytes: &[u8], w: &Window) -> Option<Timestamp> {
    if w.is_open() {
        return None;
    }
    crate::scan::pair::first_plain_str(bytes, crate::scan::lit!(b"\"timestamp\""))
        .and_then(|t| std::str::from_utf8(t).ok())
        .and_then(parse_ts)
}

/// The subagent record an agent_progress record nests, when its calls and
/// model count in this file: the agent has no lane file of its own, which
/// would count them ([`FileIndex::embeds`]). Its usage never counts: the
/// nested copy is written as the reply starts to stream (output_tokens 1–26
/// in all 193 of the public corpus).
fn nested_counted<'r, 'a>(r: &'r Record<'a>, idx: &FileIndex) -> Option<&'r Record<'a>> {
    if !idx.embeds_any() {
        return None;
    }
    let e = r.embedded()?;
    idx.embeds(e.agent_id.as_deref().unwrap_or(""))
        .then_some(&e.record)
}

impl Scan {
    pub(super) fn new(lane: bool) -> Scan {
        Scan {
            lane,
            agents: Default::default(),
            c: Census::new(),
            t: Tally::default(),
            book: Book::default(),
            calls: FxMap::default(),
            answers: FxMap::default(),
            piece: Piece::new(lane),
            cands: Vec::new(),
            sidechain: Vec::new(),
        }
    }

    /// A line that is no record: counted, named (the first few), and a
    /// glued line's records read one by one.
    fn malformed(
        &mut self,
        m: crate::record::Malformed,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        self.c.malformed_lines += 1;
        if m.kind == MalformedKind::Glued {
            self.glued(line, idx, w, carried);
        }
        if self.c.malformed.len() < MALFORMED_SHOWN {
            self.c.malformed.push(MalformedOut {
                file: String::new(),
                line: m.line,
                kind: m.kind.name(),
                detail: m.detail,
            });
        }
    }

    /// A line's record: joined, noted for the index, and (inside the
    /// window) counted with the subagent record it nests.
    fn line_record(
        &mut self,
        r: &Record<'_>,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        self.c.repaired_surrogates += u64::from(r.repaired);
        if !self.lane && r.is_sidechain() {
            let id = |v: &Option<std::borrow::Cow<'_, str>>| v.as_deref().map(str::to_string);
            self.sidechain.push((id(&r.uuid), id(&r.parent_uuid)));
        }
        let ts = r.timestamp.as_deref().and_then(parse_ts);
        *carried = ts.or(*carried);
        self.join(r, line.no);
        self.note_agent(r, idx);
        let nested = nested_counted(r, idx);
        if let Some(n) = nested {
            self.join(n, line.no);
        }
        let counted = w.is_open() || w.contains(*carried);
        if let Some(cand) = revisit::note(&mut self.piece, r, line, counted) {
            self.cands.push(cand);
        }
        if !counted {
            self.c.outside_window += 1;
            return;
        }
        self.c.first_ts = min_opt(self.c.first_ts, ts);
        self.c.last_ts = max_opt(self.c.last_ts, ts);
        // An attachment's type (`None` at once for a record without one),
        // read once for its type count and its label.
        let att = r.attachment_type();
        self.record(r, line.no, att.as_deref());
        if let Some(n) = nested {
            self.admit_calls(n, line.no);
            if n.kind() == "assistant" && n.has_message() {
                let model = n.model().unwrap_or("(unknown)");
                self.t.bump(Map::Models, model, &mut self.c);
            }
        }
        self.labels(r, line.no, idx, att.as_deref());
    }

    /// Remember whether an agent_progress record's agent had a lane file:
    /// what the census counted depends on it, so a cached census checks it
    /// again ([`super::cached`]).
    fn note_agent(&mut self, r: &Record<'_>, idx: &FileIndex) {
        if !idx.embeds_any() {
            return;
        }
        if let Some(e) = r.embedded() {
            let agent = e.agent_id.as_deref().unwrap_or("");
            if !self.agents.contains_key(agent) {
                self.agents.insert(agent.to_string(), idx.embeds(agent));
            }
        }
    }

    /// A glued line's records (a write race): their types are listed apart,
    /// and their usage and labels count, as search matches each of them under
    /// the line's number (the public corpus's 130d7b7e…:128). A window counts
    /// each by its own time (one without a time takes the time before it, as
    /// any record does), never by the times of the rest of its file.
    fn glued(
        &mut self,
        line: &Line<'_>,
        idx: &FileIndex,
        w: &Window,
        carried: &mut Option<Timestamp>,
    ) {
        for (sub, r) in crate::record::glued_parsed(line) {
            *carried = r.timestamp.as_deref().and_then(parse_ts).or(*carried);
            let counted = w.is_open() || w.contains(*carried);
            // A prompt glued behind another record opens its turn, as the
            // index search and show read has it (each object under the line's
            // number; the candidate keeps the object's own bytes).
            self.note_agent(&r, idx);
            if let Some(cand) = revisit::note(&mut self.piece, &r, &sub, counted) {
                self.cands.push(cand);
            }
            if !counted {
                continue;
            }
            self.t.bump(Map::Glued, kind_name(&r), &mut self.c);
            if r.kind() == "assistant" && r.has_message() {
                let m = r.message.as_ref();
                self.book
                    .admit(r.model(), r.message_id(), m.and_then(|m| m.usage));
            }
            self.labels(&r, line.no, idx, r.attachment_type().as_deref());
        }
    }
}

#[cfg(test)]
mod tests;
