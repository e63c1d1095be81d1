//! Commands csift prints for the user to run (verbatim's cut markers, search's
//! unmodelled-type note) run as printed, however the transcript was found: in a
//! home named by `--claude-home`, or as a file outside any home. Each is run by
//! `sh` with no `CLAUDE_CONFIG_DIR` and an empty `$HOME`, as a fresh shell would.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{csift, Home, Session};
use serde_json::json;

const SID: &str = "99999999-aaaa-4000-8000-000000000009";

fn session() -> Session {
    let mut s = Session::new(SID, "/w/printed");
    s.user("first question");
    s.text("m1", &"long answer ".repeat(600));
    s.user("second question");
    s.assistant(
        "m2",
        &[json!({"type": "mystery_block", "x": "UNMODELLEDNEEDLE"})],
    );
    s.text("m3", &"another long answer ".repeat(40));
    s
}

/// Every `csift show …` a run printed (stdout and stderr): in backticks, or at
/// the end of a `[…; left out: csift show …]` marker.
fn printed(out: &std::process::Output) -> Vec<String> {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut cmds = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("csift show ") {
            let quoted = rest[..at].ends_with('`');
            let tail = &rest[at..];
            let end = if quoted {
                tail.find('`')
            } else {
                tail.rfind(']')
            }
            .unwrap_or(tail.len());
            cmds.push(tail[..end].to_string());
            rest = &tail[end..];
        }
    }
    cmds
}

/// Run `cmd` in a fresh shell: csift on the PATH, no Claude home but an empty one.
fn run_printed(cmd: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_csift"));
    let empty = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("HOME", empty.path())
        .env("PATH", path)
        .output()
        .unwrap()
}

fn all_run(cmds: &[String], want: usize) {
    assert!(cmds.len() >= want, "{cmds:?}");
    for c in cmds {
        let out = run_printed(c);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{c}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "{c}");
    }
}

#[test]
fn markers_and_notes_run_as_printed_with_a_claude_home_flag() {
    let home = Home::new();
    let s = session();
    home.write("-w-printed", &s.file_name(), &s.lines);
    let h = home.path().to_str().unwrap();
    let v = csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["verbatim", &format!("@{SID}"), "--budget", "2000"])
        .args(["--claude-home", h])
        .output()
        .unwrap();
    let cmds = printed(&v);
    assert!(cmds.iter().all(|c| c.contains("--claude-home")), "{cmds:?}");
    all_run(&cmds, 1);
    let s = csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["search", "UNMODELLEDNEEDLE", "--claude-home", h])
        .output()
        .unwrap();
    all_run(&printed(&s), 1);
}

#[test]
fn markers_and_notes_name_a_file_outside_the_home_by_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let loose = dir.path().join("a copy of it.jsonl");
    std::fs::write(&loose, common::jsonl(&session().lines)).unwrap();
    let f = loose.to_str().unwrap();
    let v = csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["verbatim", f, "--budget", "2000"])
        .output()
        .unwrap();
    let cmds = printed(&v);
    assert!(cmds.iter().all(|c| c.contains("'")), "{cmds:?}");
    all_run(&cmds, 1);
    let s = csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["search", "UNMODELLEDNEEDLE", f])
        .output()
        .unwrap();
    all_run(&printed(&s), 1);
}

/// A file inside the home's projects that the walk does not reach (a loose
/// copy at projects/x.jsonl) is no `@id`: printed commands name its path.
#[test]
fn a_file_the_walk_does_not_reach_is_named_by_its_path() {
    let home = Home::new();
    let loose = home.projects().join("loose.jsonl");
    std::fs::create_dir_all(home.projects()).unwrap();
    std::fs::write(&loose, common::jsonl(&session().lines)).unwrap();
    let v = csift()
        .env_remove("CLAUDE_CONFIG_DIR")
        .arg("verbatim")
        .arg(&loose)
        .args(["--budget", "2000", "--claude-home"])
        .arg(home.path())
        .output()
        .unwrap();
    let cmds = printed(&v);
    assert!(
        cmds.iter().all(|c| c.contains(loose.to_str().unwrap())),
        "{cmds:?}"
    );
    all_run(&cmds, 1);
}
