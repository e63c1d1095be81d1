//! Terminal safety: escape sequences (CSI, OSC title and hyperlink, C1 CSI),
//! bidi overrides, carriage returns and backspaces are planted in every field a
//! command can print — prompts, replies, thinking, tool names, inputs and results,
//! titles, cwd, gitBranch, version, model, uuids, agent types and descriptions,
//! and the file and directory names themselves. Human output of every command
//! must carry none of them (robust::check); `--format json` and `--raw` stay
//! exact.

use crate::common;
use crate::robust;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use common::{Home, Session};
use robust::{every_command, run, COMMANDS};
use serde_json::json;

/// What a hostile tool output might carry; `VISIBLE` must survive cleaning.
const EVIL: &str = "\u{1b}[31mRED\u{1b}[0m\u{1b}]0;pwned-title\u{7}\u{1b}]8;;http://evil.example\u{1b}\\link\u{1b}]8;;\u{1b}\\\u{9b}2J\u{1b}P+q\u{1b}\\\u{202e}\r\u{8}\u{7f}\u{0}VISIBLE";

const SID: &str = "5e55e55e-0000-4000-8000-000000000001";
const LANE: &str = "a5e55e55e0000000a";

fn evil(tag: &str) -> String {
    format!("{tag}:{EVIL}")
}

struct Poisoned {
    home: Home,
    main: PathBuf,
    lane: PathBuf,
    odd_names: PathBuf,
}

fn poisoned() -> Poisoned {
    let home = Home::new();
    let project = "-w-poison";
    let cwd = format!("/w/{}", evil("cwd"));
    let mut s = Session::new(SID, &cwd);
    s.version = evil("version");
    s.push(json!({"type": "user", "gitBranch": evil("branch"), "message": {"role": "user", "content": evil("prompt")}}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": evil("prompt-block")}]}}));
    s.push(json!({"type": "assistant", "message": {"model": evil("model"), "id": evil("msgid"), "role": "assistant",
        "content": [{"type": "text", "text": evil("reply")}], "usage": {"input_tokens": 1, "output_tokens": 1}}}));
    s.thinking("m2", &evil("thinking"));
    s.tool_use(
        "m3",
        "toolu_evil1",
        &evil("ToolName"),
        json!({"command": evil("input"), evil("key"): 1}),
    );
    s.tool_result(
        "toolu_evil1",
        &evil("result"),
        true,
        Some(json!({"stdout": evil("echo"), "stderr": evil("stderr")})),
    );
    s.push(json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_evil1",
        "content": [{"type": "text", "text": evil("result-block")}]}]}}));
    s.tool_use(
        "m4",
        "toolu_task1",
        "Task",
        json!({"description": evil("description"), "prompt": evil("lane-prompt"), "subagent_type": evil("agent-type")}),
    );
    s.tool_result("toolu_task1", &evil("lane-return"), false, Some(json!({"agentId": LANE, "content": [{"type": "text", "text": evil("lane-return-echo")}], "status": "completed"})));
    s.system("informational", json!({"content": evil("system")}));
    s.system("compact_boundary", json!({"content": evil("boundary"), "compactMetadata": {"trigger": "manual", "preTokens": 5}}));
    s.push(json!({"type": "user", "isCompactSummary": true, "message": {"role": "user", "content": evil("compact-summary")}}));
    s.push(json!({"type": "attachment", "attachment": {"type": "hook_additional_context", "content": [evil("hook-context")], "hookName": evil("hook")}}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": format!("<task-notification><task-id>x</task-id><status>completed</status><summary>{}</summary></task-notification>", evil("notification"))}}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": format!("<command-name>/{}</command-name><command-args>{}</command-args>", evil("cmd"), evil("args"))}}));
    s.push(json!({"type": "user", "message": {"role": "user", "content": format!("<local-command-stdout>{}</local-command-stdout>", evil("stdout"))}}));
    s.push(json!({"type": "user", "uuid": evil("uuid"), "timestamp": evil("time"), "message": {"role": "user", "content": "uuid and time are hostile"}}));
    s.raw(json!({"type": "queue-operation", "operation": "enqueue", "content": evil("queued"), "sessionId": SID, "timestamp": "2026-01-01T00:00:09.000Z"}));
    s.raw(json!({"type": "ai-title", "aiTitle": evil("ai-title"), "sessionId": SID}));
    s.raw(json!({"type": "custom-title", "customTitle": evil("custom-title"), "sessionId": SID}));
    s.raw(json!({"type": "summary", "summary": evil("summary"), "leafUuid": "x"}));
    s.raw(json!({"type": "last-prompt", "lastPrompt": evil("last-prompt"), "sessionId": SID}));
    s.text(
        "m5",
        &format!("{}\n{}", evil("multi-line-1"), evil("multi-line-2")),
    );
    let main = home.write(project, &s.file_name(), &s.lines);

    let mut lane = Session::lane(SID, &cwd, LANE);
    lane.user(&evil("lane-prompt"));
    lane.text("l1", &evil("lane-reply"));
    let lane_path = home.write(
        project,
        &format!("{SID}/subagents/agent-{LANE}.jsonl"),
        &lane.lines,
    );
    std::fs::write(
        lane_path.with_extension("meta.json"),
        json!({"agentType": evil("meta-type"), "description": evil("meta-description"), "toolUseId": "toolu_task1"}).to_string(),
    )
    .unwrap();

    // File and directory names carrying escapes (Linux allows every byte but `/`).
    let odd_dir = home
        .projects()
        .join(OsStr::from_bytes(b"-w-\x1b[31mproj\x07"));
    let odd_session = b"6e55e55e-0000-4000-8000-00000000000\x1b]0;t\x07";
    let mut o = Session::new("6e55e55e-0000-4000-8000-000000000002", "/w/odd");
    o.user("prompt in an oddly named file VISIBLE");
    o.text("o1", "reply VISIBLE");
    let body = common::jsonl(&o.lines);
    std::fs::create_dir_all(&odd_dir).unwrap();
    let mut name = odd_session.to_vec();
    name.extend_from_slice(b".jsonl");
    let odd_names = odd_dir.join(OsStr::from_bytes(&name));
    std::fs::write(&odd_names, &body).unwrap();
    let lanes = odd_dir
        .join(OsStr::from_bytes(odd_session))
        .join("subagents");
    let wf = lanes.join(OsStr::from_bytes(b"workflows/wf_\x1b[7m"));
    std::fs::create_dir_all(&wf).unwrap();
    std::fs::write(
        lanes.join(OsStr::from_bytes(b"agent-a\x1b[2J.jsonl")),
        &body,
    )
    .unwrap();
    std::fs::write(wf.join(OsStr::from_bytes(b"agent-b\x9b1m.jsonl")), &body).unwrap();
    std::fs::write(
        odd_dir.join(OsStr::from_bytes(b"agent-\x1b[5m.jsonl")),
        &body,
    )
    .unwrap();
    Poisoned {
        home,
        main,
        lane: lane_path,
        odd_names,
    }
}

/// Every command, human and JSON, over the whole home and each file; then the
/// flags that print more (every label, full tools, thinking, counts, tables).
#[test]
fn no_command_lets_transcript_bytes_reach_the_terminal() {
    let p = poisoned();
    let h = p.home.path();
    every_command(h, &[]);
    for f in [&p.main, &p.lane, &p.odd_names] {
        every_command(h, &[f.to_str().unwrap_or_else(|| panic!("utf-8 path"))]);
    }
    let main = p.main.to_str().unwrap();
    let all = "user.*,agent.*,harness.*";
    let extra: &[&[&str]] = &[
        &["search", "VISIBLE", "-t", all],
        &["search", "VISIBLE", "-t", all, "--no-truncate"],
        &["search", "VISIBLE", "-t", all, "--attachments", "-C", "0"],
        &["search", "VISIBLE", "-t", all, "-c"],
        &["search", "VISIBLE", "-t", all, "-l"],
        &["search", "VISIBLE", "-t", all, "--count-by", "label"],
        &["search", "VISIBLE", "-t", all, "--count-by", "tool"],
        &["search", "VISIBLE", "-t", all, "--count-by", "model"],
        &["search", "VISIBLE", "-t", all, "--count-by", "version"],
        &["search", "VISIBLE", "-t", all, "--count-by", "session"],
        &["search", "VISIBLE", "-t", all, "--count-by", "project"],
        &["search", "VISIBLE", "-t", all, "--count-by", "month"],
        &["search", "VISIBLE", "--tool", "*Tool*"],
        &["show", main, "--no-truncate"],
        &["show", main, "--branch-points"],
        &["show", main, "--turn", "0..", "-t", all],
        &["verbatim", main, "--thinking", "--tools", "full"],
        &[
            "verbatim",
            main,
            "--thinking",
            "--tools",
            "full",
            "--slices",
            "3",
            "--window",
            "400",
        ],
        &["verbatim", main, "--hook-json"],
        &["agents", main, "--returns", "both", "--width", "0"],
        &["agents", main, "--returns", "child"],
        &["list", "--max-count", "1"],
        // Targets and patterns carrying escapes end up in error messages.
        &["list", "@\u{1b}]0;x\u{7}nope"],
        &["list", "/nonexistent/\u{1b}[31m"],
        &["search", "\u{1b}[31m("],
        &["show", main, "--line", "\u{1b}[2J"],
        &["search", "x", "-t", "\u{1b}[1mlabel"],
    ];
    for args in extra {
        run(h, args);
    }
    let r = run(h, &["search", "VISIBLE", "-t", all]);
    let out = r.stdout();
    // A tool_use unit's text is its input JSON, where ESC stays the six characters
    // `\u001b`: harmless, and only `input:` itself is asserted.
    assert!(out.contains("input:"), "{out}");
    for field in [
        "prompt",
        "reply",
        "thinking",
        "result",
        "system",
        "lane-prompt",
    ] {
        assert!(
            out.contains(&format!("{field}:RED")),
            "the visible text of `{field}` was lost with its escapes:\n{out}"
        );
    }
}

/// JSON output is exact: the hostile strings come back byte for byte as values,
/// with what a terminal would obey written as `\uXXXX` escapes.
#[test]
fn json_output_is_exact() {
    let p = poisoned();
    let r = run(
        p.home.path(),
        &[
            "search",
            "prompt:",
            "-t",
            "user.message",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let hits = common::json_lines(&r.out.stdout);
    let texts: Vec<&str> = hits.iter().filter_map(|v| v["text"].as_str()).collect();
    assert!(texts.contains(&evil("prompt").as_str()), "{texts:?}");
    for cmd in COMMANDS {
        let args = robust::command(
            p.home.path(),
            cmd,
            &[p.main.to_str().unwrap(), "--format", "json"],
        );
        let r = run(p.home.path(), &args);
        if r.skipped {
            continue;
        }
        assert!(
            !r.out.stdout.contains(&0x1b),
            "`{}`: JSON must escape ESC as \\u001b",
            r.label
        );
        // serde writes these raw; a terminal obeys them (C1 CSI, DEL, RLO).
        let out = &r.out.stdout;
        for bad in [&[0xc2, 0x9b][..], &[0x7f], &[0xe2, 0x80, 0xae]] {
            assert!(
                !out.windows(bad.len()).any(|w| w == bad),
                "`{}`: JSON must escape {bad:x?}",
                r.label
            );
        }
    }
}

/// `show --raw` prints the original bytes, escapes and all.
#[test]
fn raw_output_is_exact() {
    let p = poisoned();
    let bytes = std::fs::read(&p.main).unwrap();
    let r = run(
        p.home.path(),
        &["show", p.main.to_str().unwrap(), "--line", "1..", "--raw"],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert_eq!(r.out.stdout, bytes);
}

/// With `--color always` the only escape sequences are csift's own styles.
#[test]
fn colour_output_carries_only_csift_styles() {
    let p = poisoned();
    let main = p.main.to_str().unwrap();
    for cmd in COMMANDS {
        for target in [None, Some(main)] {
            let mut args = robust::command(p.home.path(), cmd, target.as_slice());
            args.extend(["--color".to_string(), "always".to_string()]);
            run(p.home.path(), &args);
        }
    }
    let r = run(
        p.home.path(),
        &[
            "search",
            "VISIBLE",
            "-t",
            "user.*,agent.*,harness.*",
            "--color",
            "always",
        ],
    );
    assert!(
        r.out
            .stdout
            .windows(robust::STYLES[2].len())
            .any(|w| w == robust::STYLES[2]),
        "--color always did not colour the matches"
    );
}
