//! A unit as printers take it: owned, with its address (file, line, uuid),
//! label, turn and time. search's hits and their exchanges, show's records and
//! every command that prints a unit share it. Field names are the JSON output's,
//! documented in `csift search --help`.

use serde::Serialize;

use crate::classify::{Label, Unit};
use crate::discovery::Transcript;
use crate::record::Record;

/// A unit's identity inside its file: line, block, label.
pub(crate) type UnitKey = (usize, Option<usize>, &'static str);

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub(crate) struct Sub {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct UnitOut {
    pub(crate) session_id: String,
    pub(crate) agent_id: Option<String>,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) uuid: Option<String>,
    pub(crate) label: &'static str,
    pub(crate) turn: Option<usize>,
    pub(crate) timestamp: Option<String>,
    pub(crate) tool_name: Option<String>,
    pub(crate) text: String,
    /// Index of the content block within the record, when the unit is one.
    pub(crate) block: Option<usize>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) submatches: Vec<Sub>,
    /// Matches past the per-unit cap (`matcher::MAX_SUBMATCHES`), counted, not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) submatches_omitted: usize,
    /// The tool_use id of a call, or the id a result answers.
    pub(crate) tool_use_id: Option<String>,
    /// A tool result that reported an error (`is_error: true` on its block);
    /// only written when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) is_error: bool,
    /// The pattern matched a call only once its input's strings were decoded
    /// (`\"` read as a quote): `text` is then that decoded form, no longer
    /// JSON, and the submatches point into it. Only written when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) input_decoded: bool,
    /// `"agent_progress"` when the unit is a subagent's record nested in an
    /// `agent_progress` record on `line` (`agent_id` is then that subagent's,
    /// and `uuid` the progress record's). Only written when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) via: Option<&'static str>,
    /// How a person reads a unit whose `text` is a placeholder: an image-only
    /// prompt's `[image]` is `[image: image/png, 143 KB]` ([`crate::render`]).
    /// Printed for a partner of a hit; `text` stays what a pattern matches.
    #[serde(skip)]
    pub(crate) shown: Option<String>,
    #[serde(skip)]
    pub(crate) model: Option<String>,
    #[serde(skip)]
    pub(crate) version: Option<String>,
}

impl UnitOut {
    pub(crate) fn new(
        t: &Transcript,
        r: &Record<'_>,
        u: &Unit<'_>,
        label: Label,
        line: usize,
        turn: Option<usize>,
    ) -> UnitOut {
        // A nested subagent record speaks for its own model and version.
        let nested = u.via.and_then(|_| r.embedded()).map(|e| &e.record);
        let own = nested.unwrap_or(r);
        UnitOut {
            session_id: t.session_id.clone(),
            agent_id: match u.via {
                // A nested record with no agent id names no subagent.
                Some(a) => Some(a.to_string()).filter(|a| !a.is_empty()),
                None => t.agent_id.clone(),
            },
            file: t.path.display().to_string(),
            line,
            uuid: r.uuid.as_deref().map(str::to_string),
            label: label.name(),
            turn,
            timestamp: r.timestamp.as_deref().map(str::to_string),
            tool_name: u.tool_name.map(str::to_string),
            text: u.text.to_string(),
            block: u.block,
            submatches: Vec::new(),
            submatches_omitted: 0,
            tool_use_id: u.tool_use_id.map(str::to_string),
            is_error: u.is_error,
            input_decoded: false,
            via: u.via.map(|_| "agent_progress"),
            shown: (u.block.is_none() && crate::classify::unit::image_only_text(own).is_some())
                .then(|| crate::render::images(own).join("\n")),
            model: own.model().map(str::to_string),
            version: r.version.as_deref().map(str::to_string),
        }
    }

    /// ` via agent_progress` for a nested subagent unit, else empty: the
    /// header mark search and show both print.
    pub(crate) fn via_mark(&self) -> String {
        self.via.map(|v| format!(" via {v}")).unwrap_or_default()
    }

    /// Identity of a unit inside its file.
    pub(crate) fn key(&self) -> UnitKey {
        (self.line, self.block, self.label)
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
