//! Windows-shaped homes built in the test (no Windows session exists in the
//! corpus, WIN-010): drive-letter and UNC project folders (WIN-001), CRLF
//! line ends, native paths in structured fields (WIN-006), and a `PowerShell`
//! tool beside `Bash` (WIN-003, WIN-005).

use crate::common;

use base64::Engine as _;
use common::{json_lines, Home, Session};
use serde_json::{json, Value};

const DRIVE: &str = "C--Users-dev-proj";
const UNC: &str = "--server-share-proj";
const S: &str = "11111111-aaaa-4aaa-8aaa-111111111111";
const U: &str = "22222222-bbbb-4bbb-8bbb-222222222222";
const CWD: &str = r"C:\Users\dev\proj";

/// The records joined with CRLF, as a Windows editor or tool might leave them.
fn crlf(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.extend(b"\r\n");
    }
    out
}

fn fixture() -> Home {
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    let png = base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\r\n\x1a\nwin");
    m.push(
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Image #1] fix the dialog"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]}}),
    );
    m.push(json!({"type": "attachment", "slug": "gentle-rolling-river", "attachment": {"type": "plan_mode",
        "reminderType": "full", "isSubAgent": false,
        "planFilePath": r"C:\Users\dev\.claude\plans\gentle-rolling-river.md", "planExists": false}}));
    m.tool_use(
        "m1",
        "w1",
        "Write",
        json!({"file_path": r"C:\Users\dev\proj\src\app.ts", "content": "x"}),
    );
    m.tool_result("w1", "File created successfully", false, None);
    for (id, agent) in [
        ("toolu_ps", "ap0000000000000ps"),
        ("toolu_sh", "ab0000000000000sh"),
    ] {
        m.tool_use(
            "m2",
            id,
            "Agent",
            json!({"prompt": "clean up", "description": agent}),
        );
    }
    h.write_raw(DRIVE, &m.file_name(), &crlf(&m.lines));
    // Two lanes frozen on the same removal: PowerShell's is never read as bash.
    let lane = |agent: &str, tool: &str, cmd: &str| {
        let mut l = Session::lane(S, CWD, agent);
        l.user("clean up");
        l.tool_use(
            &format!("msg_{agent}"),
            &format!("t_{agent}"),
            tool,
            json!({"command": cmd}),
        );
        h.write_raw(
            DRIVE,
            &format!("{S}/subagents/agent-{agent}.jsonl"),
            &crlf(&l.lines),
        );
    };
    lane(
        "ap0000000000000ps",
        "PowerShell",
        "Remove-Item -Recurse -Force \"$env:OUT/*\"",
    );
    lane("ab0000000000000sh", "Bash", "rm -rf \"$OUT/\"*");
    let mut u = Session::new(U, r"\\server\share\proj");
    u.user("hello from a share");
    h.write_raw(UNC, &u.file_name(), &crlf(&u.lines));
    h
}

fn json_of(h: &Home, args: &[&str]) -> Vec<Value> {
    let out = h
        .cmd()
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
}

#[test]
fn drive_and_unc_folders_are_targets_win_001() {
    // WIN-001; no Windows session exists in the corpus, so this home is built (WIN-010)
    let h = fixture();
    for t in [DRIVE, &format!("@{DRIVE}")] {
        let rows = json_of(&h, &["list", t]);
        assert_eq!(rows[0]["session_id"], S, "{t}");
        assert_eq!(rows[0]["cwd"], CWD);
    }
    // A UNC folder leads with `--`: reachable as @NAME or after `--`.
    let rows = json_of(&h, &["list", &format!("@{UNC}")]);
    assert_eq!(rows[0]["session_id"], U);
    let out = h
        .cmd()
        .args(["list", "--format", "json", "--", UNC])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_lines(&out.stdout)[0]["session_id"], U);
}

#[test]
fn crlf_transcripts_read_as_any_other() {
    let h = fixture();
    let hits = json_of(&h, &["search", "fix the dialog", &format!("@{S}")]);
    assert!(!hits.is_empty());
    let out = h
        .cmd()
        .args(["show", &format!("@{S}"), "--line", "1", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let images = json_of(&h, &["image", &format!("@{S}")]);
    assert_eq!(images[0]["id"], "L1i1");
    assert_eq!(images[0]["handle"], 1);
    assert_eq!(images[0]["bytes"], 11);
}

#[test]
fn a_native_plan_path_binds_and_is_missing_here_win_006_plan_014() {
    // WIN-006, PLAN-014
    let h = fixture();
    let rows = json_of(&h, &["plan", &format!("@{S}")]);
    let r = rows
        .iter()
        .find(|r| r["type"] == "plan" && r["agent_id"].is_null())
        .unwrap();
    assert_eq!(
        r["plan_file"],
        r"C:\Users\dev\.claude\plans\gentle-rolling-river.md"
    );
    assert_eq!(r["binding_source"], "plan_mode");
    assert_eq!(r["exists"], false);
}

#[test]
fn powershell_pending_is_awaiting_execution_bash_is_escalation_blocked_win_005() {
    // WIN-005
    let h = fixture();
    let rows = json_of(&h, &["agents", &format!("@{S}")]);
    let lane = |a: &str| rows.iter().find(|r| r["agent_id"] == a).unwrap().clone();
    let ps = lane("ap0000000000000ps");
    assert_eq!(ps["pending_tool_name"], "PowerShell");
    assert_eq!(ps["pending_classification"], "awaiting-execution");
    let sh = lane("ab0000000000000sh");
    assert_eq!(sh["pending_tool_name"], "Bash");
    assert_eq!(sh["pending_classification"], "escalation-blocked");
}
