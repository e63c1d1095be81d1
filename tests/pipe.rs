//! A reader that stops early (`csift … | head`) is not an error: every command
//! exits as if it had finished (0 found / 1 nothing found, like ripgrep) and
//! prints nothing on stderr, in human and JSON form alike.

use crate::common;

use std::io::Read;
use std::process::Stdio;

use common::{Home, Session};

/// Enough sessions that every command's output overflows a pipe buffer (64 KiB).
fn big_home() -> Home {
    let home = Home::new();
    for i in 0..400 {
        let id = format!("{i:08x}-0000-4000-8000-000000000001");
        let mut s = Session::new(&id, "/w/pipe");
        s.user(&format!(
            "prompt number {i} about the pipe {}",
            "x".repeat(200)
        ));
        s.text(&format!("m{i}"), &format!("reply {i} {}", "y".repeat(200)));
        home.write("-w-pipe", &s.file_name(), &s.lines);
    }
    home
}

#[test]
fn a_closed_pipe_is_not_an_error_in_any_form() {
    let home = big_home();
    let commands: &[&[&str]] = &[&["list"], &["search", "pipe"], &["stats"], &["agents"]];
    let mut checked = 0;
    for cmd in commands {
        for form in ["human", "json"] {
            let whole = home
                .cmd()
                .args(*cmd)
                .args(["--format", form, "--color", "never"])
                .output()
                .unwrap();
            if whole.stdout.len() <= 1 << 16 {
                // Only a write that outlives the reader can fail.
                continue;
            }
            checked += 1;
            let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"))
                .env("CLAUDE_CONFIG_DIR", home.path())
                .args(*cmd)
                .args(["--format", form, "--color", "never"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut first = [0u8; 16];
            let mut out = child.stdout.take().unwrap();
            out.read_exact(&mut first).unwrap();
            drop(out);
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            let status = child.wait().unwrap();
            assert_eq!(status.code(), whole.status.code(), "{cmd:?} {form}: {err}");
            assert!(err.is_empty(), "{cmd:?} {form} wrote to stderr: {err}");
        }
    }
    // list, search and stats in JSON at least.
    assert!(checked >= 3, "only {checked} runs outlived the reader");
}
