//! A record's units on the page: prompts and replies as text, thinking and
//! harness text collapsed, compaction as such, and each tool call with its
//! result fetched from where it is written (a memmem-found offset, parsed
//! once; the line is then skipped when the walk reaches it) and the lanes it
//! spawned under it. A result is left where it is when it opens a turn (an
//! answer, a typed rejection) or lies in another turn: the call says where.

use std::io;

use crate::classify::{classify, Label, Unit};
use crate::images::skim::Found;
use crate::record::{line_records, Record};
use crate::render;
use crate::scan::{lines, Line};

use super::page::{File, Page};
use super::sink::Kind;

/// An image's media type as a data URL may carry it: a fixed list, never the
/// transcript's text.
fn mime(media_type: &str) -> Option<&'static str> {
    Some(match crate::images::payload::extension(media_type) {
        "png" => "image/png",
        "jpg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "avif" => "image/avif",
        _ => return None,
    })
}

/// The image's data-URL parts: its mime type and its base64 payload,
/// checked to hold only base64 bytes (so it cannot end the attribute).
pub(crate) fn payload(line: &[u8], img: &Found) -> Result<(&'static str, Vec<u8>), String> {
    let mime = mime(&img.media_type)
        .ok_or_else(|| format!("media type {} is not one a page shows", img.media_type))?;
    let (a, b) = img.data.ok_or("no inline payload")?;
    let raw = line.get(a..b).ok_or("payload out of the line")?;
    let text = crate::scan::json::string(raw).ok_or("the payload is not a JSON string")?;
    let ok = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    if text.is_empty() || !text.bytes().all(ok) {
        return Err("the payload is not base64".into());
    }
    Ok((mime, text.into_owned().into_bytes()))
}

fn kind_of(label: Label) -> Kind {
    match label {
        Label::UserMessage
        | Label::UserAnswer
        | Label::UserRejection
        | Label::UserQueued
        | Label::UserUnsent
        | Label::HarnessCommandInvocation
        | Label::AgentCommunicationInbox => Kind::Prompt,
        Label::AgentMessage => Kind::Reply,
        Label::AgentThinking | Label::AgentThinkingNarration => Kind::Thinking,
        Label::HarnessCompactionSummary => Kind::Summary,
        _ => Kind::Harness,
    }
}

impl Page<'_> {
    /// The label a unit is shown under, or `None` when `-t` leaves it out.
    fn pick(&self, u: &Unit<'_>) -> Option<Label> {
        match self.labels {
            None => Some(u.label),
            Some(set) => u.labels().find(|&l| set.contains(l)),
        }
    }

    /// Show the units of `r`; returns how many were shown.
    pub(crate) fn units(
        &mut self,
        f: &mut File<'_>,
        r: &Record<'_>,
        line: &Line<'_>,
    ) -> io::Result<usize> {
        let idx = f.idx.clone();
        let mut units = Vec::new();
        classify(r, line.no, &idx, &mut units);
        let mut shown = 0;
        for u in &units {
            if f.shown_blocks.remove(&(line.offset, u.block)) {
                continue;
            }
            let Some(label) = self.pick(u) else { continue };
            self.nested_scope(f, u.via)?;
            self.flush_quiet(f)?;
            self.n.units += 1;
            shown += 1;
            // An attachment says which kind it is (hook output, a file, todos …).
            let named = r
                .attachment_kind()
                .map(|k| format!("{}: {k}", label.name()));
            let at = Page::at(named.as_deref().unwrap_or(label.name()), line, r);
            let is_call = u.labels().any(|l| l == Label::AgentToolUse);
            if is_call {
                self.call(f, r, u, line)?;
            } else if label == Label::AgentToolResult {
                let note = u.tool_use_id.map(|id| {
                    let name = f.idx.tool_name(id).unwrap_or("?");
                    format!("the result of {name} call {id}, shown where it is written")
                });
                self.sink
                    .result(&at, &render::unit_body(r, u), u.is_error, note.as_deref())?;
            } else if label == Label::HarnessCompactionBoundary {
                self.sink
                    .boundary(&at, &format!("compaction boundary: {}", u.text))?;
            } else {
                self.sink
                    .text(kind_of(label), &at, &render::unit_body(r, u))?;
            }
        }
        Ok(shown)
    }

    /// Open (or close) the scope of a lane-less subagent whose records are
    /// nested in `agent_progress` records, as its units come and go.
    fn nested_scope(&mut self, f: &mut File<'_>, via: Option<&str>) -> io::Result<()> {
        if f.nested.as_deref() == via {
            return Ok(());
        }
        self.flush_quiet(f)?;
        if f.nested.take().is_some() {
            self.sink.lane_end()?;
        }
        if let Some(a) = via {
            let shown = if a.is_empty() { "(unnamed)" } else { a };
            let title = format!("subagent {shown}: its records nested in agent_progress records (no lane file holds them)");
            self.sink.lane(a, &title, &[])?;
            f.nested = Some(a.to_string());
        }
        Ok(())
    }

    /// A tool call, its result and the lanes it spawned.
    fn call(
        &mut self,
        f: &mut File<'_>,
        r: &Record<'_>,
        u: &Unit<'_>,
        line: &Line<'_>,
    ) -> io::Result<()> {
        let label = self.pick(u).map_or(u.label.name(), Label::name);
        let at = Page::at(label, line, r);
        let block = u.block.and_then(|i| r.blocks().get(i));
        let name = u.tool_name.unwrap_or("?");
        let one = render::tool_line(name, block.map_or("{}", |b| b.input_json()));
        self.sink.call(&at, &one, &render::unit_body(r, u))?;
        if let Some(id) = u.tool_use_id {
            self.answer(f, id, line)?;
            let lanes = self.by_spawn.get(id).cloned().unwrap_or_default();
            for li in lanes {
                self.lane(li)?;
            }
        }
        self.sink.call_end()
    }

    /// The result of call `id` (on `line`) under it, or a mark saying where it is.
    fn answer(&mut self, f: &mut File<'_>, id: &str, line: &Line<'_>) -> io::Result<()> {
        let wanted = self
            .labels
            .is_none_or(|s| s.contains(Label::AgentToolResult));
        let Some(&off) = f.results.get(id) else {
            // Audit's rule: with a later turn opener the call is an orphan; at
            // the end of the file it is the live tail (in flight, or stopped).
            return match f.idx.next_opener_from(line.no + 1) {
                Some(_) => self.finding(f, "unanswered call", &format!("L{}: call {id} has no result in this transcript (audit: unanswered-call)", line.no)),
                None => self.finding(f, "no result yet", &format!("L{}: call {id} has no result: the transcript ends in this turn (in flight, waiting for approval, or stopped)", line.no)),
            };
        };
        if off <= line.offset {
            let no = lines::line_no_near(f.buf, off, line.offset, line.no);
            return self.note(
                wanted,
                &format!("its result is written before the call, at L{no}"),
            );
        }
        let no = lines::line_no_near(f.buf, off, line.offset, line.no);
        let same_turn = f.idx.turn(no) == f.idx.turn(line.no);
        if f.idx.is_opener(no) || !same_turn {
            let t = f.idx.turn(no).map_or("-".to_string(), |t| t.to_string());
            return self.note(
                wanted,
                &format!("its result opens or sits in turn {t}, at L{no}, and is shown there"),
            );
        }
        if !wanted {
            return Ok(());
        }
        self.fetch(f, id, off, no)
    }

    fn note(&mut self, wanted: bool, msg: &str) -> io::Result<()> {
        match wanted {
            true => self.sink.finding("note", msg),
            false => Ok(()),
        }
    }

    /// Show the result of `id` from line `no` (at `off`) and mark it shown.
    fn fetch(&mut self, f: &mut File<'_>, id: &str, off: usize, no: usize) -> io::Result<()> {
        let rl = lines::line_at(f.buf, off, no);
        let records = line_records(&rl);
        let idx = f.idx.clone();
        let whole = records.len() == 1 && rl.bytes.first() == Some(&b'{');
        for (sub, rr) in &records {
            let mut units = Vec::new();
            classify(rr, no, &idx, &mut units);
            let Some(u) = units.iter().find(|u| {
                u.tool_use_id == Some(id) && u.labels().any(|l| l == Label::AgentToolResult)
            }) else {
                continue;
            };
            let at = Page::at(Label::AgentToolResult.name(), sub, rr);
            self.n.units += 1;
            self.sink
                .result(&at, &render::unit_body(rr, u), u.is_error, None)?;
            let alone = whole && units.len() == 1 && rr.unknown_blocks().next().is_none();
            // A record shown whole here shows all its images here.
            self.images(f, sub.bytes, (!alone).then_some(()))?;
            if alone {
                self.n.records += 1;
                f.consumed.insert(off, rr.is_sidechain());
            } else {
                f.shown_blocks.insert((sub.offset, u.block));
            }
            return Ok(());
        }
        Ok(())
    }
}
