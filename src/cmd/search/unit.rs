//! Matching one selected unit of a record: its text (a persisted output
//! followed, a call's input decoded when the raw JSON does not match), the
//! `--tool` filter, the hit with its submatches, and then either the
//! `--count-by` key the hit carries or the exchange that completes it.

use super::file::{File, FileResult};
use super::hit::{Hit, Sub, UnitOut};
use crate::classify::{Label, Unit};
use crate::cli::search::CountBy;
use crate::exchange;
use crate::record::Record;
use crate::scan::Line;

/// A selected unit where it stands: its record and line, and whether it is a
/// tool call or a tool result (by either of its labels).
pub(super) struct At<'a, 'r> {
    pub(super) r: &'a Record<'r>,
    pub(super) u: &'a Unit<'a>,
    pub(super) line: &'a Line<'a>,
    pub(super) is_use: bool,
    pub(super) is_result: bool,
}

impl<'a, 'r> At<'a, 'r> {
    pub(super) fn new(r: &'a Record<'r>, u: &'a Unit<'a>, line: &'a Line<'a>) -> At<'a, 'r> {
        At {
            r,
            u,
            line,
            is_use: u.labels().any(|l| l == Label::AgentToolUse),
            is_result: u.labels().any(|l| l == Label::AgentToolResult),
        }
    }

    /// Where an exchange lookup starts from: this line.
    fn near(&self) -> exchange::Near {
        exchange::Near {
            offset: self.line.offset,
            no: self.line.no,
        }
    }
}

/// What the pattern found in a unit: the text it matched (the unit's own, or
/// its call input decoded) and the submatches in it.
struct Found {
    text: String,
    subs: Vec<(usize, usize)>,
    /// Submatches past the matcher's cap, counted only.
    more: usize,
    input_decoded: bool,
}

impl File<'_> {
    /// The hit unit `at` gives, its exchange completed (or its `--count-by`
    /// key set); `None` when `--tool` leaves it out or the pattern misses it.
    pub(super) fn match_unit(&self, at: &At<'_, '_>, out: &mut FileResult) -> Option<Hit> {
        let text = self.unit_text(at, out);
        let mut partner = None;
        if !self.tool_allows(at, &mut partner, out) {
            return None;
        }
        let found = self.find(at, text)?;
        // A result names its tool through the call it answers, whatever is printed
        // (--no-exchange and --count-by tool print no partner but still need it).
        let cfg = self.cfg;
        let pairing = cfg.count_by == Some(CountBy::Pairing);
        if at.is_result && partner.is_none() && (cfg.exchanges || cfg.tool_names || pairing) {
            partner = self.call_of(at);
        }
        let mut hit = self.hit(at, found, &partner);
        if cfg.exchanges {
            self.complete(at, &mut hit, partner);
        } else {
            hit.key = self.count_key(at, &partner);
        }
        Some(hit)
    }

    /// The text a pattern is matched against: the unit's, with a persisted
    /// output followed under --resolve-persisted ([`super::persisted`]).
    fn unit_text(&self, at: &At<'_, '_>, out: &mut FileResult) -> String {
        let text = at.u.text.to_string();
        if !self.cfg.resolve_persisted {
            return text;
        }
        super::persisted::resolve_persisted(self.t, &text, &mut out.notes, at.line.no)
            .unwrap_or(text)
    }

    /// The call a tool result answers, found by its id in this file.
    fn call_of(&self, at: &At<'_, '_>) -> Option<UnitOut> {
        let id = at.u.tool_use_id?;
        exchange::tool_use_for(self.t, self.buf, self.idx, id, at.near())
    }

    /// `--tool`: whether the unit's own tool name, or the name of the call a
    /// result answers, matches a glob (always, without --tool). A result's call,
    /// looked up for its name, is kept in `partner`; each name met is noted.
    fn tool_allows(
        &self,
        at: &At<'_, '_>,
        partner: &mut Option<UnitOut>,
        out: &mut FileResult,
    ) -> bool {
        let Some(glob) = &self.cfg.tool else {
            return true;
        };
        let name = if at.is_result {
            *partner = self.call_of(at);
            partner.as_ref().and_then(|p| p.tool_name.clone())
        } else {
            at.u.tool_name.map(str::to_string)
        };
        if let Some(n) = name.as_ref().filter(|n| !out.tools_seen.contains(*n)) {
            out.tools_seen.insert(n.clone());
        }
        name.is_some_and(|n| glob.is_match(&n))
    }

    /// The pattern's submatches in `text`; `None` when it does not match.
    fn find(&self, at: &At<'_, '_>, text: String) -> Option<Found> {
        let matcher = &self.cfg.matcher;
        let (subs, more) = matcher.find_all(&text);
        if !subs.is_empty() {
            return Some(Found {
                text,
                subs,
                more,
                input_decoded: false,
            });
        }
        // A call's text is its name and its input JSON (REC-037), where a quote in
        // a command is `\"` and a newline in a file body `\n`. A pattern that does
        // not match that is tried on the input with its strings decoded, so
        // `commit -m "fix` finds the call; the text shown is then the decoded one,
        // which the submatch offsets point into.
        if !at.is_use || matcher.match_all {
            return None;
        }
        let decoded = decoded_call(&text, at.u.tool_name)?;
        let (subs, more) = matcher.find_all(&decoded);
        (!subs.is_empty()).then_some(Found {
            text: decoded,
            subs,
            more,
            input_decoded: true,
        })
    }

    /// The hit of a matched unit, its exchange still empty.
    fn hit(&self, at: &At<'_, '_>, found: Found, partner: &Option<UnitOut>) -> Hit {
        let turn = self.idx.turn(at.line.no);
        let mut unit = UnitOut::new(self.t, at.r, at.u, at.u.label, at.line.no, turn);
        if unit.tool_name.is_none() {
            unit.tool_name = partner.as_ref().and_then(|p| p.tool_name.clone());
        }
        unit.text = found.text;
        unit.submatches = found
            .subs
            .into_iter()
            .map(|(start, end)| Sub { start, end })
            .collect();
        unit.submatches_omitted = found.more;
        unit.input_decoded = found.input_decoded;
        Hit {
            unit,
            exchange: Vec::new(),
            position: 0,
            unanswered: false,
            key: None,
        }
    }

    /// The `--count-by` key read from the record or its pairing, for the keys
    /// a hit carries (`pairing`, `attachment`, `result`); else `None`.
    fn count_key(&self, at: &At<'_, '_>, partner: &Option<UnitOut>) -> Option<String> {
        match self.cfg.count_by {
            Some(CountBy::Pairing) => self.pairing_key(at, partner),
            // CLS-020: the payload's own type names an attachment.
            Some(CountBy::Attachment) if at.r.kind() == "attachment" => at.r.attachment_kind(),
            // REC-073: is_error marks a failed result; any other result is ok.
            Some(CountBy::Result) if at.is_result => {
                Some(if at.u.is_error { "error" } else { "ok" }.to_string())
            }
            _ => None,
        }
    }

    /// A tool unit's `--count-by pairing` key (REC-075: a call and its result are
    /// joined only by the id, within the file): a call is `answered` or
    /// `unanswered`; a result is `answered`, or `orphan-result` when no record of
    /// its file holds its call. Any other unit has none.
    fn pairing_key(&self, at: &At<'_, '_>, partner: &Option<UnitOut>) -> Option<String> {
        let key = if at.is_use {
            let id = at.u.tool_use_id?;
            let end = at.line.offset + at.line.bytes.len();
            match exchange::tool_result_for(self.t, self.buf, self.idx, id, end, at.near()) {
                Some(_) => "answered",
                None => "unanswered",
            }
        } else if at.is_result {
            match partner {
                Some(_) => "answered",
                None => "orphan-result",
            }
        } else {
            return None;
        };
        Some(key.to_string())
    }

    /// Complete the hit's exchange: a call with its result, a result with its
    /// call, a turn's prompt with the agent's reply, a reply with its prompt.
    fn complete(&self, at: &At<'_, '_>, hit: &mut Hit, partner: Option<UnitOut>) {
        let (t, buf, idx, line) = (self.t, self.buf, self.idx, at.line);
        let label = at.u.label;
        // A subagent's nested unit pairs only with its own call or result: the
        // parent's turn prompt and reply are not its exchange.
        let turn = hit.unit.turn.filter(|_| at.u.via.is_none());
        let line_end = line.offset + line.bytes.len();
        // The next line's start: past a `\r\n` too, which `line.bytes` leaves out.
        let next = memchr::memchr(b'\n', &buf[line_end.min(buf.len())..])
            .map_or(buf.len(), |i| line_end + i + 1);
        let opens_turn = turn.is_some() && idx.is_opener(line.no);
        // The agent's last words in this hit's turn.
        let reply = || turn.and_then(|_| exchange::turn_reply(t, buf, idx, next, line.no + 1));
        if at.is_use {
            if let Some(id) = at.u.tool_use_id {
                let results = exchange::tool_result_for(t, buf, idx, id, line_end, at.near());
                hit.unanswered = results.is_none();
                let name = &hit.unit.tool_name;
                hit.exchange.extend(results.into_iter().map(|mut res| {
                    res.tool_name = res.tool_name.or_else(|| name.clone());
                    res
                }));
            }
        } else if at.is_result {
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
    }
}

/// A call's text (`<name> <input JSON>`) with the input's strings decoded, or
/// `None` when they hold no escape.
fn decoded_call(text: &str, name: Option<&str>) -> Option<String> {
    let input = text.strip_prefix(name.unwrap_or(""))?.strip_prefix(' ')?;
    let decoded = crate::scan::json::decode_strings(input)?;
    Some(format!("{} {decoded}", name.unwrap_or("")))
}
