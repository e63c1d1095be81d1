//! Unit tests of `render`.

use super::*;

#[test]
fn bash_result_splits_stdout_and_stderr() {
    let echo = r#"{"stdout":"ok\n","stderr":"warn","interrupted":false}"#;
    assert_eq!(
        tool_result("ok\nwarn", Some(echo)),
        "stdout:\nok\nstderr:\nwarn"
    );
}

#[test]
fn read_result_shows_the_file() {
    let echo = r#"{"type":"text","file":{"filePath":"/a.rs","content":"fn a(){}\n","numLines":1,"startLine":3,"totalLines":9}}"#;
    assert_eq!(
        tool_result("x", Some(echo)),
        "/a.rs (lines 3..3 of 9)\nfn a(){}"
    );
    // REC-045: without an echo (a subagent lane keeps none) the model-facing
    // text is the only copy: its gutter or its bare warning is shown as is.
    let gutter = "     3\u{2192}fn a(){}\n     4\u{2192}}";
    assert_eq!(tool_result(gutter, None), gutter);
    let warning =
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>";
    assert_eq!(tool_result(warning, None), warning);
}

/// The echo holds the file; the text the model read also held a reminder
/// after the numbered lines, which the render keeps (a search hit in it
/// must show up in `show` of that line).
#[test]
fn read_result_keeps_the_reminder_the_model_saw_rec_044_fh_028() {
    let echo = r#"{"type":"text","file":{"filePath":"/a.rs","content":"fn a(){}\n","numLines":1,"startLine":1,"totalLines":1}}"#;
    let text = "     1\u{2192}fn a(){}\n\n<system-reminder>\nConsider whether it is malware.\n</system-reminder>\n";
    let got = tool_result(text, Some(echo));
    assert!(
        got.starts_with("/a.rs (lines 1..1 of 1)\nfn a(){}"),
        "{got}"
    );
    assert!(
        got.ends_with("<system-reminder>\nConsider whether it is malware.\n</system-reminder>"),
        "{got}"
    );
    // A reminder quoted inside a numbered line is file content, not appended.
    let quoted = "     1\u{2192}<system-reminder>x</system-reminder>\n";
    assert_eq!(
        tool_result(quoted, Some(echo)),
        "/a.rs (lines 1..1 of 1)\nfn a(){}"
    );
    // Bash output that prints the tag itself is not doubled.
    let bash =
        r#"{"stdout":"<system-reminder>\nhi\n</system-reminder>","stderr":"","interrupted":false}"#;
    let got = tool_result("<system-reminder>\nhi\n</system-reminder>", Some(bash));
    assert_eq!(got.matches("<system-reminder>").count(), 1, "{got}");
}

#[test]
fn edit_result_shows_the_patch() {
    let echo = r#"{"filePath":"/a.rs","oldString":"a","newString":"b","structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}]}"#;
    assert_eq!(
        tool_result("x", Some(echo)),
        "/a.rs\n@@ -1,1 +1,1 @@\n-a\n+b"
    );
    // A hunk ending in a blank context line keeps it (50 of the corpus's
    // 267 patches lost it, so the hunk header no longer matched).
    let echo = r#"{"filePath":"/a.rs","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":["-a","+b"," "]}]}"#;
    assert_eq!(
        tool_result("x", Some(echo)),
        "/a.rs\n@@ -1,2 +1,2 @@\n-a\n+b\n "
    );
}

/// Fields print in the order Claude Code wrote them, nested ones too
/// (serde_json's map sorted them: new_string before old_string).
#[test]
fn tool_input_keeps_the_written_field_order() {
    let i = r#"{"file_path":"/a","old_string":"x","new_string":"y"}"#;
    assert_eq!(
        tool_input("Edit", i),
        "file_path: /a\nold_string: x\nnew_string: y"
    );
    let i = r#"{"todos":[{"content":"c","status":"s","activeForm":"a"}]}"#;
    assert_eq!(
        tool_input("TodoWrite", i),
        r#"todos: [{"content":"c","status":"s","activeForm":"a"}]"#
    );
    let i = r#"{"description":"d","command":"ls -la"}"#;
    assert_eq!(tool_input("Bash", i), "$ ls -la\ndescription: d");
}

#[test]
fn an_empty_read_and_a_quiet_grep_say_what_they_are() {
    let echo = r#"{"type":"text","file":{"filePath":"/e.txt","content":"","numLines":0,"startLine":1,"totalLines":0}}"#;
    assert_eq!(tool_result("", Some(echo)), "/e.txt (no lines of 0)");
    let echo = r#"{"stdout":"","stderr":"","interrupted":false,"returnCodeInterpretation":"No matches found"}"#;
    assert_eq!(tool_result("", Some(echo)), "(no output: No matches found)");
}

/// CLS-018: redacted thinking is thinking with opaque content; its body
/// says so instead of printing `(empty)`.
#[test]
fn redacted_thinking_says_its_content_is_opaque_cls_018() {
    let line = r#"{"type":"assistant","uuid":"u","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"OPAQUE"}]}}"#;
    let l = crate::scan::Line {
        no: 1,
        offset: 0,
        bytes: line.as_bytes(),
        terminated: true,
    };
    let crate::record::Parsed::Record(r) = crate::record::parse_line(&l) else {
        panic!("not a record")
    };
    let idx = crate::classify::FileIndex::empty(false);
    let mut units = Vec::new();
    crate::classify::classify(&r, 1, &idx, &mut units);
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].label, Label::AgentThinking);
    assert!(
        units[0].text.is_empty(),
        "search and JSON keep the empty text"
    );
    assert_eq!(
        unit_body(&r, &units[0]),
        "[redacted thinking: its content is opaque]"
    );
}

#[test]
fn unknown_echo_falls_back_to_text() {
    assert_eq!(tool_result("plain", Some(r#"{"answers":{}}"#)), "plain");
    assert_eq!(tool_result("plain", Some("\"string echo\"")), "plain");
}

#[test]
fn bash_input_and_line() {
    let i = r#"{"command":"cargo test","description":"run tests"}"#;
    assert_eq!(
        tool_input("Bash", i),
        "$ cargo test\ndescription: run tests"
    );
    assert_eq!(tool_line("Bash", i), "Bash $ cargo test");
    assert_eq!(tool_line("Read", r#"{"file_path":"/x"}"#), "Read /x");
}
