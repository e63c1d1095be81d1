//! The JSON Lines form of a stats report: one `transcript` or `group` object
//! per row, then one `total`; every count exact, nothing sanitized.

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::super::census::Census;
use super::super::{Body, Report};
use crate::classify::Label;
use crate::discovery::Transcript;
use crate::output::Out;

fn labels_map(v: &[u64]) -> Map<String, Value> {
    Label::ALL
        .iter()
        .zip(v)
        .filter(|(_, &n)| n > 0)
        .map(|(l, &n)| (l.name().to_string(), json!(n)))
        .collect()
}

fn ts(t: Option<jiff::Timestamp>) -> Value {
    t.map_or(Value::Null, |t| json!(crate::timefmt::utc_exact(t)))
}

/// The fields every row and the total share.
fn fields(c: &Census) -> Map<String, Value> {
    let mut m = Map::new();
    let records: u64 = c.record_types.values().sum();
    let pairs: Vec<(&str, Value)> = vec![
        ("lines", json!(c.lines)),
        ("bytes", json!(c.bytes)),
        ("malformed_lines", json!(c.malformed_lines)),
        ("repaired_surrogates", json!(c.repaired_surrogates)),
        ("malformed", json!(c.malformed)),
        // The list holds the first MALFORMED_SHOWN; the rest are counted here.
        (
            "malformed_omitted",
            json!((c.malformed_lines as usize).saturating_sub(c.malformed.len())),
        ),
        ("glued_records", json!(c.glued_records)),
        ("records", json!(records)),
        ("outside_window", json!(c.outside_window)),
        ("record_types", json!(c.record_types)),
        ("system_subtypes", json!(c.system_subtypes)),
        ("attachment_types", json!(c.attachment_types)),
        ("block_types", json!(c.block_types)),
        ("content_shapes", json!(c.content_shapes)),
        ("result_part_types", json!(c.result_part_types)),
        ("tool_use_result_shapes", json!(c.result_shapes)),
        ("nested_record_types", json!(c.nested_record_types)),
        ("nested_block_types", json!(c.nested_block_types)),
        ("units", json!(c.units)),
        ("units_embedded", json!(c.units_embedded)),
        ("labels", Value::Object(labels_map(&c.labels))),
        (
            "labels_secondary",
            Value::Object(labels_map(&c.labels_secondary)),
        ),
        ("turns", json!(c.turns)),
        ("genuine_user_turns", json!(c.genuine_user_turns)),
        ("compactions", json!(c.compactions)),
        ("first_timestamp", ts(c.first_ts)),
        ("last_timestamp", ts(c.last_ts)),
        ("turn_durations", json!(c.turn_durations)),
        ("turn_duration_ms", json!(c.turn_duration_ms)),
        ("lanes", json!(c.lanes)),
        ("inline_lanes", json!(c.inline_lanes)),
        ("spawns", json!(c.spawns)),
        ("images", json!(c.images)),
        ("versions", json!(c.versions)),
        ("models", json!(c.models)),
        ("narration_blocks", json!(c.narration_blocks)),
        ("unknown", json!(c.unknown())),
        ("tokens", json!(c.tokens)),
        ("tokens_apart", json!(c.tokens_apart)),
        ("token_notes", json!(c.token_notes)),
        ("tools", json!(c.tools)),
        ("orphan_results", json!(c.orphan_results)),
    ];
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    m
}

/// A transcript's JSON row, rendered as [`json`] prints it.
pub(crate) fn transcript_json(t: &Transcript, c: &Census) -> io::Result<Vec<u8>> {
    let mut m = Map::new();
    m.insert("type".into(), json!("transcript"));
    m.insert("file".into(), json!(t.path.display().to_string()));
    m.insert("session_id".into(), json!(t.session_id));
    m.insert("agent_id".into(), json!(t.agent_id));
    m.insert("shape".into(), json!(t.shape.name()));
    m.insert("project".into(), json!(t.project_name()));
    m.extend(fields(c));
    let mut v = Vec::new();
    crate::output::json_line(&mut v, &Value::Object(m))?;
    Ok(v)
}

pub(crate) fn json(out: &mut Out, r: &Report<'_>) -> io::Result<()> {
    for row in &r.rows {
        let c = match (&row.body, row.transcript) {
            (Body::Json(line), _) => {
                out.write_all(line)?;
                continue;
            }
            (Body::Census(c), Some(t)) => {
                out.write_all(&transcript_json(t, c)?)?;
                continue;
            }
            (Body::Census(c), None) => c,
            (Body::Line(_), _) => continue,
        };
        let mut m = Map::new();
        m.insert("type".into(), json!("group"));
        m.insert("by".into(), json!(r.by.map(by_name)));
        m.insert("key".into(), json!(row.key));
        m.insert("transcripts".into(), json!(row.transcripts));
        m.extend(fields(c));
        out.json(&Value::Object(m))?;
    }
    let t = &r.total;
    let mut m = Map::new();
    m.insert("type".into(), json!("total"));
    m.insert("transcripts".into(), json!(t.transcripts));
    // As list's summary: rows in all, those shown, those --max-count dropped.
    m.insert("rows".into(), json!(r.rows.len() + r.rows_left_out));
    m.insert("shown".into(), json!(r.rows.len()));
    m.insert("dropped".into(), json!(r.rows_left_out));
    m.insert("shared_ids_across_files".into(), json!(t.shared_ids));
    m.insert("progress_only_ids".into(), json!(t.progress_only_ids));
    m.insert("tokens_sum_of_rows".into(), json!(t.tokens_sum_of_rows));
    m.extend(fields(&t.census));
    m.insert("errors".into(), json!(r.errors));
    m.insert("elapsed_ms".into(), json!(r.elapsed_ms));
    out.json(&Value::Object(m))
}

fn by_name(b: crate::cli::stats::GroupBy) -> &'static str {
    use crate::cli::stats::GroupBy::*;
    match b {
        Project => "project",
        Day => "day",
        Month => "month",
        Model => "model",
        Version => "version",
    }
}
