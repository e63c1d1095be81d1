//! `show`'s printers run in-process on real-shaped records (the envelope and
//! block shapes Claude Code 2.x writes: a prompt, a Bash call, its result with
//! its toolUseResult echo, a content-less system line, a block type csift does
//! not model, records glued on one line).

use std::path::PathBuf;

use super::line::{print_line, FileCtx, Shown};
use crate::classify::{FileIndex, LabelSet};
use crate::discovery::{Shape, Transcript};
use crate::output::{Format, Style, COLOR, PLAIN};
use crate::scan::Lines;
use crate::timefmt::Window;

const SESSION: &str = "5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44";

fn transcript() -> String {
    let env = |kind: &str, uuid: &str, parent: &str, ts: &str| {
        format!(
            r#""parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"/work/app","sessionId":"{SESSION}","version":"2.1.3","gitBranch":"main","type":"{kind}","uuid":"{uuid}","timestamp":"2026-01-05T10:00:{ts}.000Z""#
        )
    };
    let prompt = format!(
        r#"{{{},"message":{{"role":"user","content":"list the files"}}}}"#,
        env("user", "u1", "null", "00")
    );
    let call = format!(
        r#"{{{},"message":{{"id":"msg_01A","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{{"type":"tool_use","id":"toolu_01B","name":"Bash","input":{{"command":"ls","description":"List files"}}}}],"stop_reason":null,"usage":{{"input_tokens":3,"output_tokens":9}}}},"requestId":"req_01C"}}"#,
        env("assistant", "a1", r#""u1""#, "01")
    );
    let result = format!(
        r#"{{{},"message":{{"role":"user","content":[{{"tool_use_id":"toolu_01B","type":"tool_result","content":"Cargo.toml\nsrc","is_error":false}}]}},"toolUseResult":{{"stdout":"Cargo.toml\nsrc","stderr":"","interrupted":false,"isImage":false}}}}"#,
        env("user", "u2", r#""a1""#, "02")
    );
    // A summary line carries no content unit.
    let system =
        r#"{"type":"summary","summary":"Listing the app's files","leafUuid":"u2"}"#.to_string();
    let unknown = format!(
        r#"{{{},"message":{{"id":"msg_01D","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{{"type":"text","text":"Two entries."}},{{"type":"hologram","data":"x"}}],"stop_reason":"end_turn"}}}}"#,
        env("assistant", "a2", r#""u2""#, "04")
    );
    let glued = format!(
        r#"{{{},"message":{{"role":"user","content":"first glued"}}}}{{{},"message":{{"role":"user","content":"second glued"}}}}"#,
        env("user", "g1", r#""a2""#, "05"),
        env("user", "g2", r#""g1""#, "06")
    );
    [prompt, call, result, system, unknown, glued].join("\n") + "\n"
}

/// Print `lines` of the transcript as `show` does, with the given options.
fn show(lines: &[usize], format: Format, labels: Option<&str>, raw: bool, st: Style) -> String {
    let buf = transcript();
    let buf = buf.as_bytes();
    let t = Transcript {
        path: PathBuf::from(format!("/h/projects/-work-app/{SESSION}.jsonl")),
        project_dir: PathBuf::from("/h/projects/-work-app"),
        session_id: SESSION.into(),
        agent_id: None,
        shape: Shape::Main,
        size: buf.len() as u64,
        mtime: None,
    };
    let idx = FileIndex::build(buf, false);
    let window = Window::parse(None, None).unwrap();
    let labels = labels.map(|l| LabelSet::parse(&[l.to_string()]).unwrap());
    let c = FileCtx {
        t: &t,
        buf,
        idx: Some(&idx),
        labels,
        window: &window,
        raw,
        format,
        no_truncate: false,
        uuids: &[],
        home_args: "",
        st,
    };
    let mut w = Vec::new();
    let mut shown = Shown::default();
    for line in Lines::new(buf).filter(|l| lines.contains(&l.no)) {
        print_line(&mut w, &c, line.no, line.offset, None, &mut shown).unwrap();
    }
    String::from_utf8(w).unwrap()
}

fn json(lines: &[usize], labels: Option<&str>) -> Vec<serde_json::Value> {
    show(lines, Format::Json, labels, false, PLAIN)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn human_result_names_the_tool_of_its_call() {
    let text = show(&[1, 2, 3], Format::Human, None, false, PLAIN);
    let heads: Vec<&str> = text.lines().filter(|l| l.starts_with("──")).collect();
    assert_eq!(heads.len(), 3, "{text}");
    assert!(heads[0].contains(" ·t1 user.message "), "{}", heads[0]);
    assert!(heads[1].contains(" agent.tool.use Bash "), "{}", heads[1]);
    // The result names its call's tool, from the call printed before it.
    assert!(
        heads[2].contains(" agent.tool.result Bash "),
        "{}",
        heads[2]
    );
    assert!(
        heads[2].ends_with(&format!("{SESSION}.jsonl:3")),
        "{}",
        heads[2]
    );
    assert!(text.contains("$ ls\n"), "{text}");
    assert!(text.contains("stdout:\nCargo.toml\nsrc\n"), "{text}");
}

#[test]
fn result_alone_still_finds_its_call_in_the_file_rec_094() {
    let rows = json(&[3], None);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["tool_name"], "Bash");
    assert_eq!(rows[0]["line"], 3);
}

#[test]
fn record_without_unit_says_what_it_is() {
    let text = show(&[4], Format::Human, None, false, PLAIN);
    assert!(text.starts_with("── 5e2c7a91 ·t1 summary - "), "{text}");
    assert!(text.contains("(no content unit; --raw prints the line)"));
    let rows = json(&[4], None);
    assert_eq!(rows[0]["type"], "line");
    assert_eq!(rows[0]["record_type"], "summary");
    assert_eq!(rows[0]["subtype"], serde_json::Value::Null);
    // -t narrows to units: a record with none prints nothing.
    assert!(json(&[4], Some("agent")).is_empty());
}

#[test]
fn unknown_block_is_said_never_dropped() {
    let text = show(&[5], Format::Human, None, false, PLAIN);
    assert!(text.contains("Two entries."), "{text}");
    assert!(
        text.contains("[block 1 of unknown type `hologram` at "),
        "{text}"
    );
    let rows = json(&[5], None);
    let kinds: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["unit", "unknown-block"]);
    assert_eq!(rows[1]["block_type"], "hologram");
    assert_eq!(rows[1]["block"], 1);
}

#[test]
fn glued_line_reported_then_each_record_shown() {
    let rows = json(&[6], None);
    let kinds: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["malformed", "unit", "unit"]);
    assert_eq!(rows[0]["kind"], "glued-records");
    assert_eq!(rows[1]["line"], 6);
    assert_eq!(rows[2]["uuid"], "g2");
    // Under -t the line's report is left out, its records stay.
    let narrowed = json(&[6], Some("user"));
    assert_eq!(narrowed.len(), 2);
}

#[test]
fn raw_prints_exact_bytes_and_labels_narrow_it() {
    let buf = transcript();
    let raw = show(&[1, 4], Format::Human, None, true, PLAIN);
    let want: Vec<&str> = buf.lines().collect();
    assert_eq!(raw, format!("{}\n{}\n", want[0], want[3]));
    // -t agent.tool.use keeps the call's line only.
    let raw = show(
        &[1, 2, 3, 4],
        Format::Human,
        Some("agent.tool.use"),
        true,
        PLAIN,
    );
    assert_eq!(raw, format!("{}\n", want[1]));
}

#[test]
fn colour_only_from_the_style() {
    let plain = show(&[1], Format::Human, None, false, PLAIN);
    assert!(!plain.contains('\x1b'));
    let colour = show(&[1], Format::Human, None, false, COLOR);
    assert!(colour.starts_with(COLOR.head));
}
