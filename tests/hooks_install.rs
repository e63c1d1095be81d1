//! `csift hooks print|install`: the settings.json block for the guard arms
//! and the SessionStart(compact) re-injection, with this binary's absolute
//! path and each event's matcher (MISC-027: SessionStart matches its source,
//! "compact" among five; MISC-013: same-event hooks run concurrently, so
//! each slice is a hook of its own), and the merge into a file the user
//! names: a diff first, a write only with --yes, the user's other settings
//! and hooks byte for byte, idempotent, atomic with a .bak.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn bin() -> String {
    let p = assert_cmd::cargo::cargo_bin("csift");
    std::fs::canonicalize(p).unwrap().display().to_string()
}

fn print(args: &[&str]) -> Value {
    let out = common::csift()
        .args(["hooks", "print", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

fn commands(block: &Value, event: &str) -> Vec<String> {
    block["hooks"][event]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .flat_map(|g| g["hooks"].as_array().unwrap().iter())
                .map(|h| h["command"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn print_names_this_binary_and_each_events_matcher_misc_027() {
    let all = print(&[]);
    let exe = bin();
    assert_eq!(all["hooks"]["PostToolUse"][0]["matcher"], ".*");
    // The elicitation recorder's PostToolUse group follows the guard's.
    assert_eq!(
        commands(&all, "PostToolUse"),
        [format!("{exe} guard --post"), format!("{exe} hooks record")]
    );
    assert_eq!(
        all["hooks"]["PostToolUse"][1]["matcher"],
        "AskUserQuestion|ExitPlanMode"
    );
    assert!(all["hooks"]["Stop"][0].get("matcher").is_none());
    assert_eq!(commands(&all, "Stop"), [format!("{exe} guard --stop")]);
    // MISC-027: SessionStart's matcher is tested against the source; compact.
    assert_eq!(all["hooks"]["SessionStart"][0]["matcher"], "compact");
    // MISC-013: one hook per slice (they run concurrently).
    let slices = commands(&all, "SessionStart");
    assert_eq!(slices.len(), 4);
    assert_eq!(
        slices[2],
        format!("{exe} verbatim --hook-json --hook-source compact --ordered --slices 4 --slice 3 --window 9000")
    );
    let guard = print(&["--guard"]);
    assert!(guard["hooks"].get("SessionStart").is_none());
    let two = print(&["--verbatim", "--slices", "2"]);
    assert_eq!(commands(&two, "SessionStart").len(), 2);
    assert!(two["hooks"].get("Stop").is_none());
}

/// The printed SessionStart command, run as Claude Code runs it (payload on
/// stdin), answers SessionStart hook JSON.
#[test]
fn the_printed_verbatim_hook_runs() {
    let block = print(&["--verbatim", "--slices", "1"]);
    let cmd = &commands(&block, "SessionStart")[0];
    let words: Vec<&str> = cmd.split(' ').collect();
    let home = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    let transcript = home
        .join("projects/-Users-mara-code-ledgerline/eefbaf35-b1ef-4f4b-b60b-39e0300ff398.jsonl");
    let mut child = Command::new(words[0])
        .args(&words[1..])
        .env("CLAUDE_CONFIG_DIR", &home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = json!({"session_id": "eefbaf35-b1ef-4f4b-b60b-39e0300ff398",
        "transcript_path": transcript, "hook_event_name": "SessionStart", "source": "compact"});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("stripBom"));
}

/// A settings file as a person keeps it: tabs, odd spacing, escapes, other
/// hooks on the events csift adds to and on others.
const SETTINGS: &str = r#"{
	"model": "opus",
	"env": {"A": "1",   "B":"caf\u00e9 \"q\""},
	"hooks": {
		"Stop": [
			{ "hooks": [ { "type": "command", "command": "notify-send done" } ] }
		],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}]
	},
	"permissions": { "allow": [ "Bash(ls:*)" ] }
}
"#;

fn install(path: &Path, extra: &[&str]) -> std::process::Output {
    common::csift()
        .args(["hooks", "install", "--settings"])
        .arg(path)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn install_shows_the_diff_and_writes_only_with_yes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, SETTINGS).unwrap();
    let out = install(&path, &[]);
    assert_eq!(out.status.code(), Some(1), "a change shown, not written");
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.starts_with("--- "), "{diff}");
    assert!(
        diff.contains(&format!("+{}", "\t\t\t\t")),
        "tab indent kept: {diff}"
    );
    assert!(diff.contains("guard --stop"), "{diff}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), SETTINGS);
    assert!(!dir.path().join("settings.json.bak").exists());
}

#[test]
fn install_keeps_every_other_byte_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(&path, SETTINGS).unwrap();
    // The guard and verbatim arms: the fixture's own PreToolUse line, which
    // the recorder's entries would extend, stays byte for byte.
    let out = install(&path, &["--guard", "--verbatim", "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let new = std::fs::read_to_string(&path).unwrap();
    // The user's own members and hooks, byte for byte.
    for kept in [
        "\t\"model\": \"opus\",\n",
        "\t\"env\": {\"A\": \"1\",   \"B\":\"caf\\u00e9 \\\"q\\\"\"},\n",
        "\t\t\t{ \"hooks\": [ { \"type\": \"command\", \"command\": \"notify-send done\" } ] }",
        "\t\t\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"echo pre\"}]}]",
        "\t\"permissions\": { \"allow\": [ \"Bash(ls:*)\" ] }\n}\n",
    ] {
        assert!(new.contains(kept), "lost {kept:?} in\n{new}");
    }
    // As values: the old settings plus the added entries, nothing else.
    let old: Value = serde_json::from_str(SETTINGS).unwrap();
    let mut v: Value = serde_json::from_str(&new).unwrap();
    let exe = bin();
    assert_eq!(
        commands(&v, "Stop"),
        [
            "notify-send done".to_string(),
            format!("{exe} guard --stop")
        ]
    );
    assert_eq!(commands(&v, "SessionStart").len(), 4);
    let hooks = v["hooks"].as_object_mut().unwrap();
    hooks.remove("SessionStart");
    hooks.remove("PostToolUse");
    hooks["Stop"].as_array_mut().unwrap().pop();
    assert_eq!(v, old);
    // Atomic with a backup of the former bytes.
    let bak = dir.path().join("settings.json.bak");
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), SETTINGS);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
        .collect();
    assert!(leftovers.is_empty());
    // Again: nothing to change, nothing written.
    let again = install(&path, &["--guard", "--verbatim", "--yes"]);
    assert!(again.status.success());
    assert!(again.stdout.is_empty());
    assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to change"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), new);
    assert_eq!(std::fs::read_to_string(&bak).unwrap(), SETTINGS);
}

#[test]
fn install_adds_only_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    assert!(install(&path, &["--guard", "--yes"]).status.success());
    let guard_only = std::fs::read_to_string(&path).unwrap();
    let out = install(&path, &["--yes"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    // The guard's and the recorder's, the guard's not repeated.
    assert_eq!(commands(&v, "PostToolUse").len(), 2, "guard not repeated");
    assert_eq!(commands(&v, "SessionStart").len(), 4);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("s.json.bak")).unwrap(),
        guard_only
    );
}

#[test]
fn install_refuses_what_it_cannot_merge() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("bad.json", "{\"hooks\": [1, 2"),
        ("array.json", "[]"),
        ("hooks.json", "{\"hooks\": []}"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = install(&path, &["--yes"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "{name}");
        assert!(!dir.path().join(format!("{name}.bak")).exists());
    }
    // The file is always named: no default.
    let out = common::csift()
        .args(["hooks", "install", "--yes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--settings"));
}
