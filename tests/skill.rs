//! skills/csift/SKILL.md: the frontmatter Claude Code reads (`name`, a
//! `description` that says when to use it), and every command in its ```sh
//! blocks run, as an agent would run it, on the bundled sample home with
//! CLAUDE_CODE_SESSION_ID set: each must run (exit 0 or 1, never a usage
//! error), so the skill cannot drift from the CLI.

use crate::common;

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn skill() -> String {
    std::fs::read_to_string(root().join("skills/csift/SKILL.md")).unwrap()
}

#[test]
fn the_skill_has_the_frontmatter_claude_code_reads() {
    let text = skill();
    let front = text
        .strip_prefix("---\n")
        .and_then(|t| t.split("\n---\n").next())
        .expect("YAML frontmatter");
    let field = |k: &str| {
        front
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{k}: ")))
            .unwrap_or_else(|| panic!("no {k}"))
            .to_string()
    };
    assert_eq!(field("name"), "csift");
    let d = field("description");
    assert!(d.contains("Use when"), "{d}");
    assert!(d.len() < 1024, "description too long for the skill index");
}

/// The command lines of the ```sh blocks (comments cut).
fn commands() -> Vec<String> {
    let text = skill();
    let mut out = Vec::new();
    for block in text.split("```sh\n").skip(1) {
        let block = block.split("```").next().unwrap();
        for line in block.lines() {
            let cmd = match line.find("  #") {
                Some(i) => &line[..i],
                None => line,
            }
            .trim();
            if !cmd.is_empty() {
                out.push(cmd.to_string());
            }
        }
    }
    out
}

#[test]
fn every_command_in_the_skill_runs() {
    let cmds = commands();
    assert!(cmds.len() >= 15, "{cmds:?}");
    let bin = assert_cmd::cargo::cargo_bin("csift");
    let dir = bin.parent().unwrap();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut found = 0;
    for cmd in &cmds {
        assert!(cmd.starts_with("csift "), "not a csift command: {cmd}");
        let out = std::process::Command::new("sh")
            .args(["-c", cmd])
            .current_dir(root())
            .env("PATH", &path)
            .env("CLAUDE_CONFIG_DIR", root().join("sample/claude-home"))
            .env(
                "CLAUDE_CODE_SESSION_ID",
                "ec31596d-4909-4dd2-b697-9468c3ecb9b6",
            )
            .env("NO_COLOR", "1")
            .env(
                "XDG_STATE_HOME",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
            )
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "`{cmd}` failed: {err}"
        );
        assert!(!err.contains("error:"), "`{cmd}`: {err}");
        if out.status.code() == Some(0) && !out.stdout.is_empty() {
            found += 1;
        }
    }
    // On the sample home nearly every example finds something.
    assert!(found + 2 >= cmds.len(), "{found} of {} printed", cmds.len());
    let _ = common::corpus;
}
