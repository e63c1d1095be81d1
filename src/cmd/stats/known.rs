//! The names the census knows, so that "unknown" means something: record types,
//! system subtypes, attachment payload types and content block types from the
//! claims and the stats spec (REC-002, REC-010, REC-016, QT-031, QT-032), and the
//! `toolUseResult` shape detector (discriminate by JSON type, then keys: `type`
//! alone is ambiguous across tools, REC-071). Anything else is counted by name
//! and listed as unknown, never dropped.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::value::RawValue;

use crate::scan::json;

pub(crate) use crate::record::RECORD_TYPES;

/// `system` subtypes (QT-031, QT-SYS-001, ELI-020); `(none)` is the pre-2.x
/// level+content shape with no subtype.
pub(crate) const SYSTEM_SUBTYPES: &[&str] = &[
    "(none)",
    "stop_hook_summary",
    "turn_duration",
    "away_summary",
    "compact_boundary",
    "scheduled_task_fire",
    "model_refusal_fallback",
    "model_refusal_no_fallback",
    "api_error",
    "local_command",
    "agents_killed",
    "informational",
    "hook_response",
];

/// `attachment.type` values (REC-016, 28 observed + binary-only + corpus).
pub(crate) const ATTACHMENT_TYPES: &[&str] = &[
    "hook_success",
    "hook_additional_context",
    "total_tokens_reminder",
    "task_reminder",
    "skill_listing",
    "batching_reminder_sent",
    "deferred_tools_delta",
    "queued_command",
    "bash_output_audience_note",
    "edited_text_file",
    "hook_cancelled",
    "ultrathink_effort",
    "silent_turn_reminder",
    "remote_session_change",
    "file",
    "agent_listing_delta",
    "compact_file_reference",
    "date_change",
    "command_permissions",
    "read_truncation_notice",
    "plan_file_reference",
    "plan_mode",
    "plan_mode_exit",
    "hook_system_message",
    "workflow_keyword_request",
    "invoked_skills",
    "hook_blocking_error",
    "task_status",
    "auto_mode",
    "auto_mode_exit",
    "auto_mode_scan",
    "goal_status",
];

/// Content block types csift models (defined with the record model).
pub(crate) use crate::record::content::BLOCK_TYPES;

/// Part types of a tool_result's content array (defined with the record model).
pub(crate) use crate::record::content::RESULT_PART_TYPES;

/// `toolUseResult` shape names the detector can return (spec §2 table).
pub(crate) const RESULT_SHAPES: &[&str] = &[
    "error-string",
    "content-array",
    "Write",
    "Edit",
    "MultiEdit",
    "Read",
    "Bash",
    "Grep",
    "Glob",
    "Task",
    "Task-async",
    "teammate-spawn",
    "AskUserQuestion",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "TaskCreate",
    "TaskUpdate",
    "TaskOutput",
    "TaskStop",
    "Skill",
    "ExitPlanMode",
];

pub(crate) fn known(list: &[&str], name: &str) -> bool {
    list.contains(&name)
}

/// The shape of a `toolUseResult` value. Known shapes return their name; any
/// other object returns `{sorted,keys}` (an unknown shape, listed by its keys).
pub(crate) fn result_shape(raw: &RawValue) -> String {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => return "error-string".into(),
        Some(b'[') => return "content-array".into(),
        Some(b'{') => {}
        _ => return format!("scalar:{}", s.get(..16).unwrap_or(s)),
    }
    let Some(map) = top_fields(s) else {
        return "object:unparsed".into();
    };
    match tool_of(&map) {
        Some(name) => name.into(),
        None => {
            let keys: Vec<&str> = map.keys().map(|k| k.as_ref()).collect();
            format!("{{{}}}", keys.join(","))
        }
    }
}

/// An object's top-level fields by (unescaped) key, from a skim: a Read or
/// Write echo holds whole file bodies, which a full parse would decode only
/// to be dropped. `None` when the object does not skim.
fn top_fields(s: &str) -> Option<BTreeMap<Cow<'_, str>, &[u8]>> {
    let mut map: BTreeMap<Cow<'_, str>, &[u8]> = BTreeMap::new();
    for kv in json::Fields::new(s.as_bytes(), 0) {
        let (k, v) = kv.ok()?;
        let key = match std::str::from_utf8(k) {
            Ok(k) if !k.contains('\\') => Cow::Borrowed(k),
            _ => Cow::Owned(serde_json::from_slice::<String>(&[b"\"", k, b"\""].concat()).ok()?),
        };
        map.insert(key, v);
    }
    Some(map)
}

/// The tool whose echo has these top-level fields, when one is known.
fn tool_of(map: &BTreeMap<Cow<'_, str>, &[u8]>) -> Option<&'static str> {
    let has = |k: &str| map.contains_key(k);
    let str_of = |k: &str| {
        map.get(k)
            .and_then(|v| json::string(v))
            .map(Cow::into_owned)
            .unwrap_or_default()
    };
    let ty = str_of("type");
    let status = str_of("status");
    Some(
        if matches!(ty.as_str(), "create" | "update") && has("content") && has("filePath") {
            "Write"
        } else if has("oldString") && has("newString") {
            "Edit"
        } else if has("edits") && has("filePath") {
            "MultiEdit"
        } else if has("file")
            && matches!(
                ty.as_str(),
                "text" | "image" | "notebook" | "pdf" | "parts" | "file_unchanged"
            )
        {
            "Read"
        } else if has("stdout") && has("stderr") {
            "Bash"
        } else if has("mode") && has("filenames") {
            "Grep"
        } else if has("filenames") && has("numFiles") {
            "Glob"
        } else if status == "async_launched" || has("isAsync") {
            "Task-async"
        } else if status == "teammate_spawned" {
            "teammate-spawn"
        } else if has("totalTokens") || has("totalToolUseCount") {
            "Task"
        } else if has("questions") && has("answers") {
            "AskUserQuestion"
        } else if has("newTodos") || has("oldTodos") {
            "TodoWrite"
        } else if has("url") && has("code") {
            "WebFetch"
        } else if has("query") && has("results") {
            "WebSearch"
        } else if has("taskId") && has("updatedFields") {
            "TaskUpdate"
        } else if has("retrieval_status") {
            "TaskOutput"
        } else if has("task_id") && has("task_type") {
            "TaskStop"
        } else if map.len() == 1 && has("task") {
            "TaskCreate"
        } else if has("commandName") {
            "Skill"
        } else if has("plan") && has("filePath") {
            "ExitPlanMode"
        } else {
            return None;
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(s: &str) -> String {
        result_shape(&RawValue::from_string(s.to_string()).unwrap())
    }

    #[test]
    fn detects_known_shapes_rec_071() {
        assert_eq!(shape(r#""Error: boom""#), "error-string");
        assert_eq!(shape(r#"[{"type":"text","text":"x"}]"#), "content-array");
        assert_eq!(shape(r#"{"type":"text","file":{"filePath":"a"}}"#), "Read");
        assert_eq!(
            shape(r#"{"type":"create","filePath":"a","content":"x","structuredPatch":[]}"#),
            "Write"
        );
        assert_eq!(
            shape(r#"{"stdout":"","stderr":"","interrupted":false,"isImage":false}"#),
            "Bash"
        );
        assert_eq!(shape(r#"{"task":{"id":"1"}}"#), "TaskCreate");
        assert_eq!(
            shape(r#"{"isAsync":true,"status":"async_launched","agentId":"a"}"#),
            "Task-async"
        );
        for s in RESULT_SHAPES {
            assert!(!s.starts_with('{'));
        }
    }

    #[test]
    fn unknown_objects_are_named_by_their_keys() {
        assert_eq!(shape(r#"{"zeta":1,"alpha":{"x":2}}"#), "{alpha,zeta}");
        assert!(!known(RESULT_SHAPES, &shape(r#"{"zeta":1}"#)));
        assert_eq!(shape("42"), "scalar:42");
    }
}
