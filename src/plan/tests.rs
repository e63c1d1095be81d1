//! The plan engine on real-shaped records (PLAN-001…017, CMP-015).

use std::path::Path;

use serde_json::{json, Value};

use super::*;

fn buf(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.push(b'\n');
    }
    out
}

fn plan_mode(path: &str, exists: bool) -> Value {
    json!({"type": "attachment", "slug": "nested-prancing-popcorn", "cwd": "/w",
        "attachment": {"type": "plan_mode", "reminderType": "full", "isSubAgent": false,
            "planFilePath": path, "planExists": exists}})
}

#[test]
fn the_latest_plan_mode_attachment_binds_plan_001_002() {
    // PLAN-001, PLAN-002
    let b = buf(&[
        json!({"type": "user", "cwd": "/w", "slug": "nested-prancing-popcorn", "message": {"role": "user", "content": "plan it"}}),
        plan_mode("/h/.claude/plans/nested-prancing-popcorn.md", false),
        // Siblings carrying the same token and a path are not bindings.
        json!({"type": "attachment", "attachment": {"type": "plan_mode_exit", "planFilePath": "/x/other.md"}}),
        plan_mode("/h/.claude/plans/nested-prancing-popcorn.md", true),
        json!({"type": "attachment", "attachment": {"type": "plan_mode_reentry", "planFilePath": "/x/other.md"}}),
    ]);
    let got = bind(&b, Path::new("/h/.claude"), false).unwrap();
    assert_eq!(got.source, Source::PlanMode);
    assert_eq!(got.plan_file, "/h/.claude/plans/nested-prancing-popcorn.md");
    assert_eq!(got.line, 4);
    assert_eq!(got.plan_exists_flag, Some(true));
    assert_eq!(got.slug.as_deref(), Some("nested-prancing-popcorn"));
    assert!(!got.minted_at_compaction);
}

#[test]
fn without_plan_mode_the_first_valid_slug_binds_plan_006_012_cmp_015() {
    // PLAN-006, PLAN-012, CMP-015
    let home = Path::new("/h/.claude");
    // A fork: its head boundary has slug:null, its own compaction mints one.
    let b = buf(&[
        json!({"type": "system", "subtype": "compact_boundary", "slug": null, "cwd": "/w"}),
        json!({"type": "attachment", "attachment": {"type": "plan_file_reference", "planFilePath": "/h/.claude/plans/origin.md", "planContent": "..."}}),
        json!({"type": "system", "subtype": "compact_boundary", "slug": "jolly-humming-kettle", "cwd": "/w/sub"}),
        json!({"type": "user", "slug": "jolly-humming-kettle", "cwd": "/w/sub", "message": {"role": "user", "content": "go"}}),
    ]);
    let got = bind(&b, home, false).unwrap();
    assert_eq!(got.source, Source::SlugOnly);
    assert_eq!(got.line, 3);
    assert!(got.minted_at_compaction);
    assert_eq!(got.plan_file, "/h/.claude/plans/jolly-humming-kettle.md");
    // A lane binds only through its own attachment.
    assert!(bind(&b, home, true).is_none());
    // The first slug decides, and an invalid one binds nothing (PLAN-007).
    let bad = buf(&[
        json!({"type": "user", "slug": "Jolly-humming", "message": {"role": "user", "content": "x"}}),
        json!({"type": "user", "slug": "jolly-humming", "message": {"role": "user", "content": "y"}}),
    ]);
    assert!(bind(&bad, home, false).is_none());
    // No slug, no attachment: no binding, never a guess (PLAN-003, PLAN-004).
    assert!(bind(&buf(&[json!({"type": "user", "cwd": "/w"})]), home, false).is_none());
}

#[test]
fn events_approvals_rejections_reinjections_plan_009_010_016() {
    // PLAN-009, PLAN-010, PLAN-016
    let exit = |id: &str, path: Option<&str>| {
        let mut input = json!({"plan": "# Plan"});
        if let Some(p) = path {
            input["planFilePath"] = json!(p);
        }
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "ExitPlanMode", "input": input}]}})
    };
    let result = |id: &str, text: &str, err: bool| {
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": text, "is_error": err}]}})
    };
    let b = buf(&[
        exit("t1", Some("/h/plans/a.md")),
        result("t1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nsplit step 2", true),
        exit("t2", None),
        result("t2", "PreToolUse:ExitPlanMode hook error: [erk]: DISPLAY PLAN", true),
        exit("t3", Some("/h/plans/a.md")),
        result("t3", "User has approved your plan. You can now start coding. Your plan has been saved to: /h/plans/a.md", false),
        exit("t4", None),
        result("t4", "User has approved exiting plan mode. You can now proceed.", false),
        json!({"type": "attachment", "attachment": {"type": "plan_file_reference", "planFilePath": "/h/plans/a.md", "planContent": "# Plan"}}),
        // A rejection of another tool is not a plan rejection.
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t5", "name": "AskUserQuestion", "input": {}}]}}),
        result("t5", "The user doesn't want to proceed with this tool use.", true),
    ]);
    let ev = events::scan(&b);
    assert_eq!(ev.exits, 4);
    assert_eq!(
        ev.rejections,
        [events::Rejection {
            line: 2,
            plan_file: Some("/h/plans/a.md".into()),
            message: Some("split step 2".into())
        }]
    );
    assert_eq!(
        ev.approvals,
        [
            events::Approval {
                line: 6,
                variant: "plan"
            },
            events::Approval {
                line: 8,
                variant: "empty"
            }
        ]
    );
    assert_eq!(
        ev.reinjections,
        [events::Reinjection {
            line: 9,
            plan_file: Some("/h/plans/a.md".into())
        }]
    );
}

#[test]
fn structured_mutations_only_plan_017() {
    // PLAN-017
    let b = buf(&[
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "a", "name": "Write", "input": {"file_path": "/h/plans/a.md", "content": "x"}},
            {"type": "tool_use", "id": "b", "name": "Read", "input": {"file_path": "/h/plans/a.md"}},
            {"type": "tool_use", "id": "c", "name": "NotebookEdit", "input": {"notebook_path": "/w/n.ipynb"}}]}}),
        // A quoted key in text is escaped and is no mutation.
        json!({"type": "user", "message": {"role": "user", "content": "the \"file_path\" key"}}),
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "d", "name": "Edit", "input": {"file_path": "/h/plans/b.md", "old_string": "a", "new_string": "b"}}]}}),
    ]);
    let got = audit::mutations(&b);
    let m: Vec<(usize, &str, &str)> = got
        .iter()
        .map(|m| (m.line, m.tool.as_str(), m.path.as_str()))
        .collect();
    assert_eq!(
        m,
        [
            (1, "Write", "/h/plans/a.md"),
            (1, "NotebookEdit", "/w/n.ipynb"),
            (3, "Edit", "/h/plans/b.md")
        ]
    );
}

#[test]
fn lines_with_numbers_every_hit_line_once() {
    let b = b"a x x\nb\nc x\r\nd";
    let got: Vec<(usize, &[u8])> = lines_with(b, b"x").collect();
    assert_eq!(got, [(1, &b"a x x"[..]), (3, &b"c x"[..])]);
}
