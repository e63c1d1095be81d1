//! The names the census knows, so that "unknown" means something: record types,
//! system subtypes, attachment payload types and content block types from the
//! claims and the stats spec (REC-002, REC-010, REC-016, QT-031, QT-032), and the
//! `toolUseResult` shape detector (discriminate by JSON type, then keys: `type`
//! alone is ambiguous across tools, REC-071). Anything else is counted by name
//! and listed as unknown, never dropped.

use std::borrow::Cow;

use serde_json::value::RawValue;

use crate::record::echo::{EchoKeys, Key, Status, Ty};
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
/// `keys`, when the record's walk read them ([`crate::record::echo`]), name a
/// known shape without a second walk of the object; an unknown one is still
/// listed from the object itself.
pub(crate) fn result_shape(raw: &RawValue, keys: Option<EchoKeys>) -> Cow<'static, str> {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => return "error-string".into(),
        Some(b'[') => return "content-array".into(),
        Some(b'{') => {}
        _ => return format!("scalar:{}", s.get(..16).unwrap_or(s)).into(),
    }
    if let Some(name) = keys.as_ref().and_then(tool_of) {
        return name.into();
    }
    let Some(fields) = top_fields(s) else {
        return "object:unparsed".into();
    };
    match tool_of(&fields) {
        Some(name) => name.into(),
        None => {
            let mut keys: Vec<&str> = fields.0.iter().map(|(k, _)| k.as_ref()).collect();
            keys.sort_unstable();
            keys.dedup();
            format!("{{{}}}", keys.join(",")).into()
        }
    }
}

/// What the shape detector asks of an echo's top-level fields.
trait Echo {
    fn has(&self, k: Key) -> bool;
    /// Whether `k` is the one distinct key.
    fn only(&self, k: Key) -> bool;
    fn ty(&self) -> Ty;
    fn status(&self) -> Status;
}

impl Echo for EchoKeys {
    fn has(&self, k: Key) -> bool {
        EchoKeys::has(self, k)
    }
    fn only(&self, k: Key) -> bool {
        EchoKeys::only(self, k)
    }
    fn ty(&self) -> Ty {
        EchoKeys::ty(self)
    }
    fn status(&self) -> Status {
        EchoKeys::status(self)
    }
}

/// An object's top-level fields in file order, keys unescaped, read as a map
/// of them reads: a repeated key's last value counts, and it counts once.
/// A flat list, not a map: an echo has a handful of keys, and a map per
/// `toolUseResult` was most of this detector's cost.
struct TopFields<'a>(Vec<(Cow<'a, str>, &'a [u8])>);

impl<'a> TopFields<'a> {
    /// The last value under `k` (a map keeps the last of repeated keys).
    fn get(&self, k: &str) -> Option<&'a [u8]> {
        self.0.iter().rev().find(|(x, _)| x == k).map(|(_, v)| *v)
    }

    /// The number of distinct keys.
    fn distinct(&self) -> usize {
        let mut keys: Vec<&str> = self.0.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    }

    fn str_of(&self, k: &str) -> Cow<'a, str> {
        self.get(k).and_then(json::string).unwrap_or_default()
    }
}

impl Echo for TopFields<'_> {
    fn has(&self, k: Key) -> bool {
        self.0.iter().any(|(x, _)| x == k.name())
    }
    fn only(&self, k: Key) -> bool {
        self.has(k) && self.distinct() == 1
    }
    fn ty(&self) -> Ty {
        Ty::of(&self.str_of("type"))
    }
    fn status(&self) -> Status {
        Status::of(&self.str_of("status"))
    }
}

/// An object's top-level fields (unescaped keys), from a skim: a Read or
/// Write echo holds whole file bodies, which a full parse would decode only
/// to be dropped. `None` when the object does not skim.
fn top_fields(s: &str) -> Option<TopFields<'_>> {
    let mut out = Vec::with_capacity(8);
    for kv in json::Fields::new(s.as_bytes(), 0) {
        let (k, v) = kv.ok()?;
        let key = match std::str::from_utf8(k) {
            Ok(k) if !k.contains('\\') => Cow::Borrowed(k),
            _ => Cow::Owned(serde_json::from_slice::<String>(&[b"\"", k, b"\""].concat()).ok()?),
        };
        out.push((key, v));
    }
    Some(TopFields(out))
}

/// The tool whose echo has these top-level fields, when one is known.
fn tool_of(map: &impl Echo) -> Option<&'static str> {
    use Key as K;
    let has = |k: Key| map.has(k);
    let ty = map.ty();
    let status = map.status();
    Some(
        if matches!(ty, Ty::Create | Ty::Update) && has(K::Content) && has(K::FilePath) {
            "Write"
        } else if has(K::OldString) && has(K::NewString) {
            "Edit"
        } else if has(K::Edits) && has(K::FilePath) {
            "MultiEdit"
        } else if has(K::File)
            && matches!(
                ty,
                Ty::Text | Ty::Image | Ty::Notebook | Ty::Pdf | Ty::Parts | Ty::FileUnchanged
            )
        {
            "Read"
        } else if has(K::Stdout) && has(K::Stderr) {
            "Bash"
        } else if has(K::Mode) && has(K::Filenames) {
            "Grep"
        } else if has(K::Filenames) && has(K::NumFiles) {
            "Glob"
        } else if status == Status::AsyncLaunched || has(K::IsAsync) {
            "Task-async"
        } else if status == Status::TeammateSpawned {
            "teammate-spawn"
        } else if has(K::TotalTokens) || has(K::TotalToolUseCount) {
            "Task"
        } else if has(K::Questions) && has(K::Answers) {
            "AskUserQuestion"
        } else if has(K::NewTodos) || has(K::OldTodos) {
            "TodoWrite"
        } else if has(K::Url) && has(K::Code) {
            "WebFetch"
        } else if has(K::Query) && has(K::Results) {
            "WebSearch"
        } else if has(K::TaskId) && has(K::UpdatedFields) {
            "TaskUpdate"
        } else if has(K::RetrievalStatus) {
            "TaskOutput"
        } else if has(K::TaskIdSnake) && has(K::TaskType) {
            "TaskStop"
        } else if map.only(K::Task) {
            "TaskCreate"
        } else if has(K::CommandName) {
            "Skill"
        } else if has(K::Plan) && has(K::FilePath) {
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
        result_shape(&RawValue::from_string(s.to_string()).unwrap(), None).into_owned()
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

    /// The flat field list answers as the map it replaced: a repeated key
    /// counts once and its last value is the one read.
    #[test]
    fn repeated_keys_read_as_a_map_reads_them() {
        assert_eq!(shape(r#"{"task":{"id":"1"},"task":2}"#), "TaskCreate");
        assert_eq!(
            shape(r#"{"type":"text","type":"create","filePath":"a","content":"x"}"#),
            "Write"
        );
        assert_eq!(
            shape(r#"{"type":"create","type":"text","filePath":"a","content":"x"}"#),
            "{content,filePath,type}"
        );
        assert_eq!(shape(r#"{"b":1,"a":2,"b":3}"#), "{a,b}");
        assert_eq!(shape(r#"{"t\u0061sk":1}"#), "TaskCreate");
    }
}
