//! The shipped hooks/: the SessionStart(compact) script, run as Claude Code runs
//! it (payload JSON on stdin, slice number as its argument), must print valid hook
//! JSON with additionalContext nested under hookSpecificOutput (ELI-021), each
//! slice under 9000 UTF-16 units (MISC-012), nothing for a slice out of range
//! (ELI-025), and slices that together are the whole reconstruction. The settings
//! snippet must register the script once per slice.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn csift_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("csift")
}

/// Run hooks/verbatim-slice.sh the way Claude Code does (its barrier's
/// flags under `state`).
fn run_hook(slice: usize, slices: usize, payload: &Value, state: &Path) -> Vec<u8> {
    let mut child = Command::new("sh")
        .arg(root().join("hooks/verbatim-slice.sh"))
        .arg(slice.to_string())
        .env("CSIFT", csift_bin())
        .env("CSIFT_SLICES", slices.to_string())
        .env("XDG_STATE_HOME", state)
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.code() == Some(0),
        "hook exited {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn check(transcript: &Path, slices: usize) -> usize {
    let payload = json!({
        "session_id": "not-used-when-the-path-exists",
        "transcript_path": transcript,
        "hook_event_name": "SessionStart",
        "source": "compact",
    });
    let mut joined = String::new();
    let mut non_empty = 0;
    let state = tempfile::tempdir().unwrap();
    for i in 1..=slices + 1 {
        let stdout = run_hook(i, slices, &payload, state.path());
        if stdout.is_empty() {
            continue;
        }
        assert!(
            i <= slices,
            "slice {i} is out of range and must print nothing"
        );
        let v: Value = serde_json::from_slice(&stdout).expect("hook output is one JSON object");
        let obj = v.as_object().unwrap();
        assert_eq!(obj.keys().collect::<Vec<_>>(), vec!["hookSpecificOutput"]);
        let h = &v["hookSpecificOutput"];
        assert_eq!(h["hookEventName"], "SessionStart");
        let ctx = h["additionalContext"].as_str().unwrap();
        assert!(!ctx.is_empty());
        let n = ctx.encode_utf16().count();
        assert!(n <= 9000, "slice {i}: {n} UTF-16 units");
        joined.push_str(ctx);
        non_empty += 1;
    }
    let whole = Command::new(csift_bin())
        .arg("verbatim")
        .arg(transcript)
        .args(["--slices", &slices.to_string(), "--window", "9000"])
        .output()
        .unwrap();
    assert_eq!(joined, String::from_utf8(whole.stdout).unwrap());
    assert!(
        non_empty > 0,
        "{}: no slice had content",
        transcript.display()
    );
    non_empty
}

#[test]
fn hook_script_prints_nested_session_start_json_per_slice_eli_021_eli_025() {
    let sample = root()
        .join("sample/claude-home/projects/-Users-mara-code-ledgerline/ec31596d-4909-4dd2-b697-9468c3ecb9b6.jsonl");
    check(&sample, 4);
    if let Some(home) = common::corpus() {
        // The corpus session with the most text fills several slices.
        let big = common::transcripts(&home)
            .into_iter()
            .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .unwrap();
        assert!(
            check(&big, 4) > 1,
            "{}: expected several slices",
            big.display()
        );
    }
}

#[test]
fn hook_script_falls_back_to_the_session_id() {
    let home = common::Home::new();
    let mut s = common::Session::new("88888888-2222-4333-8444-555555555555", "/w/z");
    s.user("remember the plan");
    s.text("m1", "noted");
    home.write("-w-z", &s.file_name(), &s.lines);
    let mut child = Command::new("sh")
        .arg(root().join("hooks/verbatim-slice.sh"))
        .arg("1")
        .env("CSIFT", csift_bin())
        .env("CLAUDE_CONFIG_DIR", home.path())
        .env("XDG_STATE_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = json!({"session_id": s.id, "transcript_path": "", "source": "compact"});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        ctx.contains("remember the plan") && ctx.contains("noted"),
        "{ctx}"
    );
}

#[test]
fn settings_snippet_registers_the_script_once_per_slice() {
    let text = std::fs::read_to_string(root().join("hooks/settings.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let groups = v["hooks"]["SessionStart"].as_array().unwrap();
    let compact: Vec<&Value> = groups
        .iter()
        .filter(|g| g["matcher"] == "compact")
        .collect();
    assert_eq!(compact.len(), 1);
    let cmds: Vec<&str> = compact[0]["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            assert_eq!(h["type"], "command");
            h["command"].as_str().unwrap()
        })
        .collect();
    let want: Vec<String> = (1..=4).map(|i| format!("verbatim-slice.sh {i}")).collect();
    assert_eq!(cmds.len(), want.len());
    for (c, w) in cmds.iter().zip(&want) {
        assert!(c.starts_with('/') && c.ends_with(w.as_str()), "{c}");
    }
    // The script's default fleet size matches the snippet.
    let script = std::fs::read_to_string(root().join("hooks/verbatim-slice.sh")).unwrap();
    assert!(script.contains("${CSIFT_SLICES:-4}"));
    assert!(script.contains("--window 9000"));
}

/// Run the hook script for `slice` with `payload` on stdin, `tmp` its state
/// directory (where the barrier's flags live); returns (stdout, exit
/// instant, exit code).
fn spawn_hook(
    slice: usize,
    slices: usize,
    payload: &Value,
    tmp: &Path,
    wait: &str,
) -> std::thread::JoinHandle<(Vec<u8>, std::time::Instant, Option<i32>)> {
    let mut child = Command::new("sh")
        .arg(root().join("hooks/verbatim-slice.sh"))
        .arg(slice.to_string())
        .env("CSIFT", csift_bin())
        .env("CSIFT_SLICES", slices.to_string())
        .env("CSIFT_BARRIER_WAIT", wait)
        .env("XDG_STATE_HOME", tmp)
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    std::thread::spawn(move || {
        let out = child.wait_with_output().unwrap();
        (out.stdout, std::time::Instant::now(), out.status.code())
    })
}

/// The corpus-free transcript the hook tests slice: the bundled sample.
fn sample_transcript() -> PathBuf {
    root().join("sample/claude-home/projects/-Users-mara-code-ledgerline/ec31596d-4909-4dd2-b697-9468c3ecb9b6.jsonl")
}

/// MISC-027: SessionStart fires for five sources, and the script injects only
/// after a compaction, whatever matcher it is registered under: the same
/// payload with each other source prints nothing and exits 0.
#[test]
fn the_slice_hook_injects_only_when_the_source_is_compact_misc_027() {
    let tmp = tempfile::tempdir().unwrap();
    for source in ["startup", "resume", "clear", "fork", "compact"] {
        let payload = json!({
            "session_id": "ec31596d-4909-4dd2-b697-9468c3ecb9b6",
            "transcript_path": sample_transcript(),
            "hook_event_name": "SessionStart",
            "source": source,
        });
        let (stdout, _, code) = spawn_hook(1, 1, &payload, tmp.path(), "5").join().unwrap();
        assert_eq!(code, Some(0), "{source}");
        match source {
            "compact" => {
                let v: Value = serde_json::from_slice(&stdout).expect("hook JSON");
                assert!(v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .is_some_and(|c| !c.is_empty()));
            }
            _ => assert!(
                stdout.is_empty(),
                "{source}: {}",
                String::from_utf8_lossy(&stdout)
            ),
        }
    }
    // csift itself: no source in the payload is no compaction either.
    let mut child = Command::new(csift_bin())
        .args(["verbatim", "--hook-json", "--hook-source", "compact"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let p = json!({"session_id": "x", "transcript_path": sample_transcript()});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(p.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

/// MISC-013: the hooks of one event run at once and their outputs join in the
/// order they finish. Started in reverse order, slice 4 first and slice 1
/// last, the four slices still finish 1, 2, 3, 4 through the barrier, and
/// their outputs in finishing order are the reconstruction in order; the
/// flags are cleared after the last.
#[test]
fn the_barrier_keeps_slice_order_when_hooks_run_at_once_misc_013() {
    let tmp = tempfile::tempdir().unwrap();
    let f = sample_transcript();
    let payload = json!({
        "session_id": "ec31596d-4909-4dd2-b697-9468c3ecb9b6",
        "transcript_path": f,
        "hook_event_name": "SessionStart",
        "source": "compact",
    });
    let slices = 4;
    let mut handles = Vec::new();
    for i in (1..=slices).rev() {
        handles.push((i, spawn_hook(i, slices, &payload, tmp.path(), "20")));
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
    let mut done: Vec<(std::time::Instant, usize, Vec<u8>)> = handles
        .into_iter()
        .map(|(i, h)| {
            let (out, at, code) = h.join().unwrap();
            assert_eq!(code, Some(0), "slice {i}");
            (at, i, out)
        })
        .collect();
    done.sort_by_key(|d| d.0);
    let order: Vec<usize> = done.iter().map(|d| d.1).collect();
    assert_eq!(order, [1, 2, 3, 4], "finishing order");
    let joined: String = done
        .iter()
        .filter(|d| !d.2.is_empty())
        .map(|d| {
            let v: Value = serde_json::from_slice(&d.2).unwrap();
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let whole = Command::new(csift_bin())
        .arg("verbatim")
        .arg(&f)
        .args(["--slices", "4", "--window", "9000"])
        .output()
        .unwrap();
    assert_eq!(joined, String::from_utf8(whole.stdout).unwrap());
    let events = tmp.path().join("csift/verbatim-order");
    assert_eq!(
        events.read_dir().unwrap().count(),
        0,
        "the event's flags are cleared"
    );
}

/// A flag an earlier compaction left (same session, same payload) does not
/// release the barrier: slice 2 waits its full timeout for slice 1; a fresh
/// flag releases it at once.
#[test]
fn a_stale_flag_does_not_release_the_barrier_misc_013() {
    let tmp = tempfile::tempdir().unwrap();
    let payload = json!({
        "session_id": "ec31596d-4909-4dd2-b697-9468c3ecb9b6",
        "transcript_path": sample_transcript(),
        "hook_event_name": "SessionStart",
        "source": "compact",
    });
    // Slice 1 of 4 leaves its flag in the event's folder.
    let (_, _, code) = spawn_hook(1, 4, &payload, tmp.path(), "2").join().unwrap();
    assert_eq!(code, Some(0));
    let events = tmp.path().join("csift/verbatim-order");
    let dir = events.read_dir().unwrap().next().unwrap().unwrap().path();
    let flag = dir.join("1");
    assert!(flag.is_file(), "{}", dir.display());
    std::fs::write(&flag, "1000\n").unwrap(); // as if written long ago
    let started = std::time::Instant::now();
    let (_, at, code) = spawn_hook(2, 4, &payload, tmp.path(), "2").join().unwrap();
    assert_eq!(code, Some(0));
    let waited = at.duration_since(started);
    assert!(waited >= std::time::Duration::from_secs(2), "{waited:?}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    std::fs::write(&flag, format!("{now}\n")).unwrap();
    let started = std::time::Instant::now();
    let (_, at, _) = spawn_hook(2, 4, &payload, tmp.path(), "20").join().unwrap();
    assert!(at.duration_since(started) < std::time::Duration::from_secs(10));
}
