//! Text in a record or content block type csift does not model (REC-010: Claude
//! Code registers more block types than it writes, and adds record types) is in
//! no unit, so search cannot find it; it must say where the pattern matched
//! instead of answering "nothing" in silence.

use crate::common;

use common::{json_lines, Home, Session};
use serde_json::json;
use serde_json::Value;

/// The summary line of a JSON search that may have found nothing (exit 1).
fn summary(home: &Home, pat: &str) -> Value {
    let out = home
        .cmd()
        .args(["search", pat, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.code().is_some_and(|c| c < 2), "{out:?}");
    let rows = json_lines(&out.stdout);
    rows.into_iter().find(|v| v["type"] == "summary").unwrap()
}

fn home(extra_records: usize) -> (Home, String) {
    let mut s = Session::new("ee12cd34-0000-4000-8000-000000000001", "/w/proj");
    s.user("find the zebra");
    s.assistant(
        "m1",
        &[
            json!({"type": "text", "text": "looking"}),
            json!({"type": "brand_block", "body": {"note": "a striped zebra"}}),
        ],
    );
    for i in 0..extra_records {
        s.push(json!({"type": "brand_record", "content": format!("zebra sighting {i}")}));
    }
    // A known, invisible leaf is not unmodelled: `-t` reaches it.
    s.system("brand_sub", json!({"content": "system zebra"}));
    let home = Home::new();
    let file = home.write("-w-proj", &s.file_name(), &s.lines);
    (home, file.display().to_string())
}

#[test]
fn a_match_in_an_unmodelled_type_is_said_not_dropped_rec_010() {
    let (home, file) = home(1);
    let out = home
        .cmd()
        .args(["search", "striped|sighting"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no unit holds either match");
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 2, "{err}");
    assert!(said[0].starts_with(&format!("csift: {file}:3: ")), "{err}");
    assert!(said[0].contains("block type `brand_block`"), "{err}");
    assert!(said[1].starts_with(&format!("csift: {file}:4: ")), "{err}");
    assert!(said[1].contains("record type `brand_record`"), "{err}");
    assert!(said[1].contains("`csift show @ee12cd34-0000-4000-8000-000000000001 --line 4 --raw`"));
    let sum = summary(&home, "striped|sighting");
    assert_eq!(sum["unmodelled_lines"], 2);
    assert_eq!(sum["hits"], 0);

    // Where a unit holds the match there is nothing to say, and the envelope
    // (here the working directory) is not content.
    let out = home.cmd().args(["search", "zebra"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 2, "line 2's prompt is a hit: {err}");
    let out = home.cmd().args(["search", "w/proj"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A system subtype csift does not know is still a unit (harness.meta.system).
    let out = home
        .cmd()
        .args(["search", "-t", "harness.meta.system", "system zebra"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

#[test]
fn unmodelled_lines_past_ten_are_counted_not_listed() {
    let (home, _) = home(14);
    let out = home.cmd().args(["search", "sighting"]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 11, "{err}");
    assert!(
        said[10].contains("and 4 more lines where the pattern matches only"),
        "{err}"
    );
    let sum = summary(&home, "sighting");
    assert_eq!(sum["unmodelled_lines"], 14);
}

/// A subagent's records nested in the parent's agent_progress records are read
/// as the lane records they copy; one of a type csift does not model, or one it
/// cannot read at all (a shape change), is said by search and counted by stats
/// under `unknown`, not dropped.
#[test]
fn nested_agent_progress_records_csift_cannot_model_are_said_and_counted() {
    let mut s = Session::new("ee12cd34-0000-4000-8000-000000000002", "/w/proj");
    s.user("send the okapi agent");
    let progress = |message: Value| {
        json!({"type": "progress", "data": {"type": "agent_progress", "agentId": "a77",
               "prompt": "p", "message": message}})
    };
    s.push(progress(json!("an okapi report as a bare string")));
    s.push(progress(
        json!({"type": "assistant", "uuid": "n1", "message": {"role": "assistant",
        "content": [{"type": "brand_block", "text": "an okapi sighting"}]}}),
    ));
    s.push(progress(
        json!({"type": "assistant", "uuid": "n2", "message": {"role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                     "input": {"command": "echo okapi tracks"}}]}}),
    ));
    let home = Home::new();
    let file = home.write("-w-proj", &s.file_name(), &s.lines);
    let file = file.display().to_string();

    let out = home
        .cmd()
        .args(["search", "okapi (report|sighting)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "no unit holds either match");
    let err = String::from_utf8(out.stderr).unwrap();
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 2, "{err}");
    assert!(said[0].starts_with(&format!("csift: {file}:2: ")), "{err}");
    assert!(
        said[0].contains("an agent_progress record whose nested record csift cannot read"),
        "{err}"
    );
    assert!(said[1].starts_with(&format!("csift: {file}:3: ")), "{err}");
    assert!(
        said[1].contains(
            "a block type `brand_block` csift does not model, nested in an agent_progress record"
        ),
        "{err}"
    );
    // The readable, modelled nested call is a unit like any other.
    let out = home
        .cmd()
        .args(["search", "okapi tracks"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());

    let out = home
        .cmd()
        .args(["stats", "--format", "json"])
        .output()
        .unwrap();
    let rows = json_lines(&out.stdout);
    let total = rows.iter().find(|v| v["type"] == "total").unwrap();
    assert_eq!(
        total["nested_record_types"],
        json!({"(unreadable)": 1, "assistant": 2})
    );
    assert_eq!(
        total["nested_block_types"],
        json!({"brand_block": 1, "tool_use": 1})
    );
    assert_eq!(
        total["unknown"]["nested_record_types"],
        json!({"(unreadable)": 1})
    );
    assert_eq!(
        total["unknown"]["nested_block_types"],
        json!({"brand_block": 1})
    );
}

/// A tool_result part of a type csift does not model (a `document` part, as
/// the Read tool returns for a PDF) keeps its title and source out of every
/// unit: search says where the pattern matched, as for a block type. The text
/// of a modelled part beside it is searched as ever.
#[test]
fn a_match_in_an_unmodelled_tool_result_part_is_said_rec_011() {
    let mut s = Session::new("ee12cd34-0000-4000-8000-000000000003", "/w/proj");
    s.user("read the report");
    s.tool_use(
        "m1",
        "toolu_d",
        "Read",
        json!({"file_path": "/w/report.pdf"}),
    );
    s.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_d", "content": [
            {"type": "document", "title": "DOCTITLE quarterly", "source": {"type": "base64", "data": "JVBERi0x"}},
            {"type": "text", "text": "short PARTTEXT"}
        ]}
    ]}}));
    let home = Home::new();
    let file = home.write("-w-proj", &s.file_name(), &s.lines);
    let out = home.cmd().args(["search", "DOCTITLE"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "csift: {}:3: the pattern matches only in a tool_result part type `document` csift does not model",
            file.display()
        )),
        "{err}"
    );
    let out = home.cmd().args(["search", "PARTTEXT"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{out:?}");
}
