//! The census record: what one transcript, a `--by` group or the total holds,
//! as plain counters that add up (sums, min/max timestamps, per-name maps). The
//! scanner in [`super::census`] fills it; printers read it. The names it knows
//! ([`super::known`]) decide what [`Census::unknown`] lists.

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::known;
use crate::classify::Label;
use crate::tokens::book::Notes;
use crate::tokens::Row;
pub(crate) type Counts = BTreeMap<String, u64>;

/// How many malformed lines a row names by line number.
pub(crate) const MALFORMED_SHOWN: usize = 5;

pub(crate) fn bump(c: &mut Counts, k: &str, n: u64) {
    match c.get_mut(k) {
        Some(v) => *v += n,
        None => {
            c.insert(k.to_string(), n);
        }
    }
}

/// One of a census's name maps. [`Map::ALL`] is their one fixed order
/// (the census cache's too); [`Census::map`] names the field of each.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Map {
    Glued,
    RecordTypes,
    SystemSubtypes,
    AttachmentTypes,
    BlockTypes,
    ContentShapes,
    ResultPartTypes,
    ResultShapes,
    NestedRecordTypes,
    NestedBlockTypes,
    Versions,
    Models,
    NarrationBlocks,
}

impl Map {
    pub(crate) const ALL: [Map; 13] = [
        Map::Glued,
        Map::RecordTypes,
        Map::SystemSubtypes,
        Map::AttachmentTypes,
        Map::BlockTypes,
        Map::ContentShapes,
        Map::ResultPartTypes,
        Map::ResultShapes,
        Map::NestedRecordTypes,
        Map::NestedBlockTypes,
        Map::Versions,
        Map::Models,
        Map::NarrationBlocks,
    ];
}

/// Names a tally keeps in a list before it counts in the census's own map.
const LISTED: usize = 24;

/// The names one chunk's scan counts, a short list for each census map,
/// added into the census's sorted maps once the chunk is read
/// ([`Tally::flush`]). A record bumps three to eight names out of a few
/// each map sees; a sorted map's search compared strings by their order at
/// every step (about 2% of stats' instructions on the generated home), where
/// a list mostly compares lengths. A map with more names than the list holds
/// (unknown result shapes, many versions) counts the rest in the census.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally([Vec<(String, u64)>; Map::ALL.len()]);

impl Tally {
    pub(crate) fn bump(&mut self, m: Map, k: &str, c: &mut Census) {
        let list = &mut self.0[m as usize];
        if let Some(row) = list.iter_mut().find(|(n, _)| n == k) {
            row.1 += 1;
        } else if list.len() < LISTED {
            list.push((k.to_string(), 1));
        } else {
            bump(c.map(m), k, 1);
        }
    }

    /// Add the counts into `c`'s maps and empty the tally.
    pub(crate) fn flush(&mut self, c: &mut Census) {
        for m in Map::ALL {
            for (k, v) in self.0[m as usize].drain(..) {
                *c.map(m).entry(k).or_default() += v;
            }
        }
    }
}

pub(crate) fn add_counts(a: &mut Counts, b: &Counts) {
    for (k, v) in b {
        bump(a, k, *v);
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct MalformedOut {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) kind: &'static str,
    pub(crate) detail: String,
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct ToolRow {
    pub(crate) calls: u64,
    pub(crate) errors: u64,
    pub(crate) unanswered: u64,
    /// Unanswered with no turn opener after the call: in flight or died (TAIL-001).
    pub(crate) unanswered_at_tail: u64,
}

impl ToolRow {
    pub(crate) fn add(&mut self, o: &ToolRow) {
        self.calls += o.calls;
        self.errors += o.errors;
        self.unanswered += o.unanswered;
        self.unanswered_at_tail += o.unanswered_at_tail;
    }
}

/// What one transcript (or a group, or the total) holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Census {
    pub(crate) lines: u64,
    pub(crate) bytes: u64,
    pub(crate) malformed_lines: u64,
    /// Lines whose record could be read only by reading a lone surrogate
    /// escape as U+FFFD ([`crate::record::surrogate`]): records, not
    /// malformed lines. (One in a tool result's text fails no record: it is
    /// repaired when the text is decoded, and not counted here.)
    pub(crate) repaired_surrogates: u64,
    pub(crate) malformed: Vec<MalformedOut>,
    pub(crate) glued_records: Counts,
    pub(crate) outside_window: u64,
    pub(crate) record_types: Counts,
    pub(crate) system_subtypes: Counts,
    pub(crate) attachment_types: Counts,
    pub(crate) block_types: Counts,
    /// `message.content` JSON types other than string and array.
    pub(crate) content_shapes: Counts,
    /// Part types inside tool_result content arrays (REC-011).
    pub(crate) result_part_types: Counts,
    pub(crate) result_shapes: Counts,
    /// What `agent_progress` records nest, lane copies included: each nested
    /// record's type, or `(unreadable)` where csift cannot read one
    /// ([`crate::record::embedded::Nested::Unreadable`]).
    pub(crate) nested_record_types: Counts,
    /// The content block types of those nested records.
    pub(crate) nested_block_types: Counts,
    pub(crate) units: u64,
    /// Of `units`, those of subagent records nested in agent_progress records
    /// (agents with no lane file; [`crate::record::embedded`]).
    pub(crate) units_embedded: u64,
    pub(crate) labels: Vec<u64>,
    pub(crate) labels_secondary: Vec<u64>,
    pub(crate) turns: u64,
    pub(crate) genuine_user_turns: u64,
    pub(crate) compactions: u64,
    pub(crate) first_ts: Option<Timestamp>,
    pub(crate) last_ts: Option<Timestamp>,
    pub(crate) turn_durations: u64,
    pub(crate) turn_duration_ms: u64,
    pub(crate) spawns: u64,
    pub(crate) images: u64,
    pub(crate) lanes: u64,
    /// Of `lanes`, those inline in a 1.0.x main file (`isSidechain:true`
    /// chains, [`crate::classify::sidechain`]).
    pub(crate) inline_lanes: u64,
    pub(crate) versions: Counts,
    pub(crate) models: Counts,
    /// Narration-tagged thinking blocks (`agent.thinking.narration`) per model
    /// of the message that carries them. A BLOCK count: Claude Code reports
    /// usage once per API message, covering the reasoning block and its
    /// narration together (NAR-004), so no token figure is split off.
    pub(crate) narration_blocks: Counts,
    pub(crate) tools: BTreeMap<String, ToolRow>,
    pub(crate) orphan_results: u64,
    pub(crate) tokens: BTreeMap<String, Row>,
    pub(crate) tokens_apart: BTreeMap<String, Row>,
    pub(crate) token_notes: Notes,
}

impl Census {
    pub(crate) fn new() -> Census {
        Census {
            labels: vec![0; Label::ALL.len()],
            labels_secondary: vec![0; Label::ALL.len()],
            ..Census::default()
        }
    }

    /// Add `o` into `self` (sums, min/max). Tokens are summed as rows; the
    /// cross-file dedupe of a total is done by the caller.
    pub(crate) fn add(&mut self, o: &Census) {
        if self.labels.is_empty() {
            self.labels = vec![0; Label::ALL.len()];
            self.labels_secondary = vec![0; Label::ALL.len()];
        }
        self.lines += o.lines;
        self.bytes += o.bytes;
        self.malformed_lines += o.malformed_lines;
        self.repaired_surrogates += o.repaired_surrogates;
        if !o.malformed.is_empty() {
            // The first lines by file and line, whatever order the files were
            // folded in (workers fold into totals of their own, merged at the
            // end): one file's lines keep their own order.
            self.malformed.extend(o.malformed.iter().cloned());
            self.malformed
                .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
            self.malformed.truncate(MALFORMED_SHOWN);
        }
        add_counts(&mut self.glued_records, &o.glued_records);
        self.outside_window += o.outside_window;
        add_counts(&mut self.record_types, &o.record_types);
        add_counts(&mut self.system_subtypes, &o.system_subtypes);
        add_counts(&mut self.attachment_types, &o.attachment_types);
        add_counts(&mut self.block_types, &o.block_types);
        add_counts(&mut self.content_shapes, &o.content_shapes);
        add_counts(&mut self.result_part_types, &o.result_part_types);
        add_counts(&mut self.result_shapes, &o.result_shapes);
        add_counts(&mut self.nested_record_types, &o.nested_record_types);
        add_counts(&mut self.nested_block_types, &o.nested_block_types);
        self.units += o.units;
        self.units_embedded += o.units_embedded;
        for (a, b) in self.labels.iter_mut().zip(&o.labels) {
            *a += b;
        }
        for (a, b) in self.labels_secondary.iter_mut().zip(&o.labels_secondary) {
            *a += b;
        }
        self.turns += o.turns;
        self.genuine_user_turns += o.genuine_user_turns;
        self.compactions += o.compactions;
        self.first_ts = min_opt(self.first_ts, o.first_ts);
        self.last_ts = max_opt(self.last_ts, o.last_ts);
        self.turn_durations += o.turn_durations;
        self.turn_duration_ms = self.turn_duration_ms.saturating_add(o.turn_duration_ms);
        self.spawns += o.spawns;
        self.images += o.images;
        self.lanes += o.lanes;
        self.inline_lanes += o.inline_lanes;
        add_counts(&mut self.versions, &o.versions);
        add_counts(&mut self.models, &o.models);
        add_counts(&mut self.narration_blocks, &o.narration_blocks);
        for (k, v) in &o.tools {
            self.tools.entry(k.clone()).or_default().add(v);
        }
        self.orphan_results += o.orphan_results;
        for (k, v) in &o.tokens {
            self.tokens.entry(k.clone()).or_default().add(v);
        }
        for (k, v) in &o.tokens_apart {
            self.tokens_apart.entry(k.clone()).or_default().add(v);
        }
        self.token_notes.add(&o.token_notes);
    }

    /// The name map `m` names.
    pub(crate) fn map(&mut self, m: Map) -> &mut Counts {
        match m {
            Map::Glued => &mut self.glued_records,
            Map::RecordTypes => &mut self.record_types,
            Map::SystemSubtypes => &mut self.system_subtypes,
            Map::AttachmentTypes => &mut self.attachment_types,
            Map::BlockTypes => &mut self.block_types,
            Map::ContentShapes => &mut self.content_shapes,
            Map::ResultPartTypes => &mut self.result_part_types,
            Map::ResultShapes => &mut self.result_shapes,
            Map::NestedRecordTypes => &mut self.nested_record_types,
            Map::NestedBlockTypes => &mut self.nested_block_types,
            Map::Versions => &mut self.versions,
            Map::Models => &mut self.models,
            Map::NarrationBlocks => &mut self.narration_blocks,
        }
    }

    /// The unknown names in each census map, by kind.
    pub(crate) fn unknown(&self) -> BTreeMap<&'static str, Counts> {
        let pick = |c: &Counts, list: &[&str]| -> Counts {
            c.iter()
                .filter(|(k, _)| !known::known(list, k))
                .map(|(k, v)| (k.clone(), *v))
                .collect()
        };
        let mut glued_and_types = self.record_types.clone();
        add_counts(&mut glued_and_types, &self.glued_records);
        let mut out = BTreeMap::new();
        out.insert("record_types", pick(&glued_and_types, known::RECORD_TYPES));
        out.insert(
            "system_subtypes",
            pick(&self.system_subtypes, known::SYSTEM_SUBTYPES),
        );
        out.insert(
            "attachment_types",
            pick(&self.attachment_types, known::ATTACHMENT_TYPES),
        );
        out.insert("block_types", pick(&self.block_types, known::BLOCK_TYPES));
        // Claude Code writes a content string or array only: every other
        // shape is unknown.
        out.insert("content_shapes", self.content_shapes.clone());
        out.insert(
            "result_part_types",
            pick(&self.result_part_types, known::RESULT_PART_TYPES),
        );
        out.insert(
            "tool_use_result_shapes",
            pick(&self.result_shapes, known::RESULT_SHAPES),
        );
        // `(unreadable)` is in no list: a subagent record csift cannot read.
        out.insert(
            "nested_record_types",
            pick(&self.nested_record_types, known::RECORD_TYPES),
        );
        out.insert(
            "nested_block_types",
            pick(&self.nested_block_types, known::BLOCK_TYPES),
        );
        out
    }

    /// The version with the most records.
    pub(crate) fn dominant_version(&self) -> Option<&str> {
        top(&self.versions)
    }
}

pub(crate) fn top(c: &Counts) -> Option<&str> {
    c.iter()
        .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
        .map(|(k, _)| k.as_str())
}

pub(crate) fn min_opt(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

pub(crate) fn max_opt(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tally counts as the sorted maps do, past its list too (a map with
    /// more names than the list holds counts the rest in the census).
    #[test]
    fn a_tally_counts_as_the_maps_do() {
        let names: Vec<String> = (0..LISTED + 10).map(|i| format!("v{i}")).collect();
        let (mut want, mut c, mut t) = (Census::new(), Census::new(), Tally::default());
        for (i, n) in names.iter().cycle().take(500).enumerate() {
            let m = if i % 3 == 0 {
                Map::Versions
            } else {
                Map::Models
            };
            bump(want.map(m), n, 1);
            t.bump(m, n, &mut c);
        }
        assert!(c.versions.len() + c.models.len() > 0, "the list overflowed");
        t.flush(&mut c);
        assert_eq!((&c.versions, &c.models), (&want.versions, &want.models));
        assert_eq!(
            c.versions.values().sum::<u64>() + c.models.values().sum::<u64>(),
            500
        );
        t.flush(&mut c);
        assert_eq!(c.models, want.models, "a flush empties the tally");
    }

    /// A tally's list for a map is the one `Map::ALL` puts at its place.
    #[test]
    fn map_all_lists_each_map_at_its_own_place() {
        for (i, m) in Map::ALL.into_iter().enumerate() {
            assert_eq!(m as usize, i, "{m:?}");
        }
    }
}
