//! `csift plan`: bindings, events, `--show` and `--audit` on real-shaped
//! records (PLAN-001…020, CMP-015), and on the real corpus.

use crate::common;

use common::{corpus, json_lines, Home, Session};
use serde_json::{json, Value};

const P: &str = "-work-app";
const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const B: &str = "bbbbbbbb-2222-4222-8222-222222222222";
const F: &str = "ffffffff-3333-4333-8333-333333333333";

fn rows(h: &Home, args: &[&str]) -> (Vec<Value>, Value, i32) {
    let out = h
        .cmd()
        .arg("plan")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(code < 2, "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&out.stdout);
    let summary = lines.last().cloned().unwrap();
    assert_eq!(summary["type"], "summary");
    (lines[..lines.len() - 1].to_vec(), summary, code)
}

fn plan_mode(s: &mut Session, path: &str, exists: bool) {
    s.push(
        json!({"type": "attachment", "slug": "nested-prancing-popcorn", "attachment": {
        "type": "plan_mode", "reminderType": "full", "isSubAgent": false,
        "planFilePath": path, "planExists": exists}}),
    );
}

/// Session A enters Plan Mode, writes its plan, is rejected once with a message
/// and approved; session B, in the same project, edits A's plan.
fn fixture() -> (Home, String) {
    let h = Home::new();
    let plans = h.path().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    let plan = plans
        .join("nested-prancing-popcorn.md")
        .display()
        .to_string();
    std::fs::write(&plan, "# Plan\n\n1. Do the thing\n").unwrap();
    let mut a = Session::new(A, "/work/app");
    a.push(json!({"type": "user", "slug": "nested-prancing-popcorn", "message": {"role": "user", "content": "plan the thing"}}));
    plan_mode(&mut a, &plan, false);
    a.tool_use(
        "m1",
        "w1",
        "Write",
        json!({"file_path": plan, "content": "# Plan"}),
    );
    a.tool_result("w1", "File created successfully", false, None);
    plan_mode(&mut a, &plan, true);
    a.tool_use(
        "m2",
        "x1",
        "ExitPlanMode",
        json!({"plan": "# Plan", "planFilePath": plan}),
    );
    a.tool_result("x1", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nsplit step 1", true, None);
    a.tool_use(
        "m3",
        "x2",
        "ExitPlanMode",
        json!({"plan": "# Plan", "planFilePath": plan}),
    );
    a.tool_result("x2", &format!("User has approved your plan. You can now start coding. Your plan has been saved to: {plan}"), false, None);
    a.system("compact_boundary", json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 9}}));
    a.push(json!({"type": "attachment", "attachment": {"type": "plan_file_reference", "planFilePath": plan, "planContent": "# Plan"}}));
    h.write(P, &a.file_name(), &a.lines);
    let mut b = Session::new(B, "/work/app");
    b.user("tweak the other plan");
    b.tool_use(
        "m1",
        "e1",
        "Edit",
        json!({"file_path": plan, "old_string": "1.", "new_string": "2."}),
    );
    b.tool_result("e1", "updated", false, None);
    h.write(P, &b.file_name(), &b.lines);
    (h, plan)
}

#[test]
fn plan_mode_binds_with_its_events_plan_001_009_010_016() {
    // PLAN-001, PLAN-009, PLAN-010, PLAN-016
    let (h, plan) = fixture();
    let (r, s, code) = rows(&h, &[&format!("@{A}")]);
    assert_eq!(code, 0);
    assert_eq!(r.len(), 1);
    let r = &r[0];
    assert_eq!(r["plan_file"], plan.as_str());
    assert_eq!(r["binding_source"], "plan_mode");
    // The LATEST attachment binds (PLAN-002): its planExists flipped to true.
    assert_eq!(r["line"], 5);
    assert_eq!(r["plan_exists_at_binding"], true);
    assert_eq!(r["exists"], true);
    assert_eq!(r["minted_at_compaction"], false);
    assert_eq!(r["rejections"][0]["line"], 7);
    assert_eq!(r["rejections"][0]["message"], "split step 1");
    assert_eq!(r["rejections"][0]["plan_file"], plan.as_str());
    assert_eq!(r["approvals"], json!([{"line": 9, "variant": "plan"}]));
    assert_eq!(
        r["reinjections"],
        json!([{"line": 11, "plan_file": plan, "bound": true}])
    );
    assert_eq!(s["plan_mode"], 1);
    assert_eq!(s["missing"], 0);
}

#[test]
fn show_prints_the_plan_file() {
    let (h, _) = fixture();
    let out = h
        .cmd()
        .args(["plan", &format!("@{A}"), "--show"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("│ 1. Do the thing"), "{s}");
    assert!(s.contains("rejected L7: \"split step 1\""), "{s}");
    let (r, _, _) = rows(&h, &[&format!("@{A}"), "--show"]);
    assert_eq!(r[0]["plan_content"], "# Plan\n\n1. Do the thing\n");
}

#[test]
fn audit_warns_when_a_session_edits_a_plan_it_does_not_bind_plan_015_016() {
    // PLAN-015, PLAN-016
    let (h, plan) = fixture();
    let out = h
        .cmd()
        .args(["plan", "--audit", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let mine = lines.iter().find(|r| r["session_id"] == A).unwrap();
    assert_eq!(mine["bound_by_owner"], true);
    assert_eq!(mine["lines"], json!([3]));
    let theirs = lines.iter().find(|r| r["session_id"] == B).unwrap();
    assert_eq!(theirs["plan_file"], plan.as_str());
    assert_eq!(theirs["bound_by_owner"], false);
    assert_eq!(theirs["bound_by"][0]["session_id"], A);
    assert_eq!(theirs["join"], "path");
    let summary = lines.last().unwrap();
    assert_eq!(summary["warnings"], 1);
    assert_eq!(summary["plan_files_touched"], 1);
    let human = h.cmd().args(["plan", "--audit"]).output().unwrap();
    let s = String::from_utf8_lossy(&human.stdout);
    assert!(
        s.contains(&format!(
            "by session {B}, which does NOT bind it (bound by {A}, L5)"
        )),
        "{s}"
    );
}

#[test]
fn a_fork_binds_by_its_first_slug_minted_at_a_compaction_plan_013_cmp_015() {
    // PLAN-013, CMP-015
    let h = Home::new();
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().display().to_string();
    let mut f = Session::new(F, &cwd);
    // The clone's head boundary carries slug:null; it re-injects its origin's plan.
    f.system(
        "compact_boundary",
        json!({"slug": null, "content": "Conversation compacted"}),
    );
    f.push(
        json!({"type": "attachment", "attachment": {"type": "plan_file_reference",
        "planFilePath": "/h/.claude/plans/origin-plan-name.md", "planContent": "# Origin"}}),
    );
    f.user("keep going");
    f.system(
        "compact_boundary",
        json!({"slug": "jolly-humming-kettle", "content": "Conversation compacted"}),
    );
    f.push(json!({"type": "user", "slug": "jolly-humming-kettle", "message": {"role": "user", "content": "go on"}}));
    h.write(P, &f.file_name(), &f.lines);
    let (r, s, _) = rows(&h, &[&format!("@{F}")]);
    let r = &r[0];
    assert_eq!(r["binding_source"], "slug-only");
    assert_eq!(r["minted_at_compaction"], true);
    assert_eq!(r["line"], 4);
    let default = h.path().join("plans").join("jolly-humming-kettle.md");
    assert_eq!(r["plan_file"], default.display().to_string());
    assert_eq!(r["exists"], false);
    // The fork's first re-injection names its origin's plan, not its own.
    assert_eq!(r["reinjections"][0]["bound"], false);
    assert_eq!(s["missing"], 1);
    // plansDirectory from the project settings, resolved against the FIRST cwd
    // (PLAN-008, PLAN-018); an escaping value falls back to <home>/plans.
    std::fs::create_dir_all(root.path().join(".claude")).unwrap();
    let settings = root.path().join(".claude/settings.json");
    std::fs::write(&settings, r#"{"plansDirectory": "docs/plans"}"#).unwrap();
    let (r, _, _) = rows(&h, &[&format!("@{F}")]);
    let want = root.path().join("docs/plans/jolly-humming-kettle.md");
    assert_eq!(r[0]["plan_file"], want.display().to_string());
    std::fs::write(&settings, r#"{"plansDirectory": "../elsewhere"}"#).unwrap();
    let (r, _, _) = rows(&h, &[&format!("@{F}")]);
    assert_eq!(r[0]["plan_file"], default.display().to_string());
}

#[test]
fn no_binding_exits_1_and_a_window_is_refused() {
    let h = Home::new();
    let mut s = Session::new(A, "/work/app");
    s.user("no plan here");
    h.write(P, &s.file_name(), &s.lines);
    let (r, _, code) = rows(&h, &[]);
    assert!(r.is_empty());
    assert_eq!(code, 1);
    let out = h.cmd().args(["plan", "--since", "2d"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Real transcripts: a rejection with its message and a hook error that is not
/// one, an empty-plan approval, and edits of plans written under the original
/// home, joined by their slug (PLAN-009, PLAN-010, PLAN-015).
#[test]
fn real_corpus_plan_events_and_moved_home_edits() {
    let Some(home) = corpus() else { return };
    let out = common::csift()
        .args(["plan", "--claude-home"])
        .arg(&home)
        .args(["@3ae3ab59", "@491e126e", "@beddc0be", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let by = |id: &str| {
        lines
            .iter()
            .find(|r| r["session_id"].as_str().is_some_and(|s| s.starts_with(id)))
            .unwrap()
    };
    let r = by("3ae3ab59");
    assert_eq!(r["binding_source"], "slug-only");
    assert_eq!(r["slug"], "fizzy-scribbling-widget");
    assert_eq!(r["rejections"].as_array().unwrap().len(), 2);
    assert_eq!(r["rejections"][0]["line"], 456);
    assert!(r["rejections"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("we don't need"));
    // The hook error on ExitPlanMode (is_error, no user "no") is not a rejection.
    assert!(by("beddc0be")["rejections"].as_array().unwrap().is_empty());
    assert_eq!(
        by("491e126e")["approvals"],
        json!([{"line": 68, "variant": "empty"}])
    );
    let audit = common::csift()
        .args(["plan", "--audit", "--format", "json", "--claude-home"])
        .arg(&home)
        .output()
        .unwrap();
    let rows = json_lines(&audit.stdout);
    let edit = rows
        .iter()
        .find(|r| {
            r["type"] == "plan-edit" && r["session_id"].as_str().unwrap().starts_with("3ae3ab59")
        })
        .unwrap();
    assert_eq!(edit["join"], "moved-home");
    assert_eq!(edit["bound_by_owner"], true);
    assert_eq!(edit["lines"], json!([451, 457]));
}
