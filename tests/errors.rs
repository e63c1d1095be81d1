//! The error path every command shares: what a problem does to the exit status
//! (issue 27 item 16), how often it is counted (one failed file is one error
//! in every summary), and that saying it never crashes csift (a closed stderr).

use crate::common;
use crate::robust;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{Home, Session};
use robust::run;

const A: &str = "aaaaaaaa-0000-4000-8000-00000000000a";
const B: &str = "bbbbbbbb-0000-4000-8000-00000000000b";

/// A home with two sessions, A and B, in two projects.
fn home() -> Home {
    let h = Home::new();
    for (id, project) in [(A, "-w-a"), (B, "-w-b")] {
        let mut s = Session::new(id, "/w/x");
        s.user("find the NEEDLE8 here");
        s.text("m1", "found");
        h.write(project, &s.file_name(), &s.lines);
    }
    h
}

/// B's lane folders nested deeper than the walk descends (a problem the walk
/// reports), inside B's session folder.
fn deep_lanes_in_b(h: &Home) {
    let mut d = h.projects().join("-w-b").join(B).join("subagents");
    for i in 0..9 {
        d = d.join(format!("level{i}"));
    }
    std::fs::create_dir_all(&d).unwrap();
}

/// Issue 27 item 16: `stats` over a home whose transcripts hold no line
/// prints a zero total and exits 1, as list, search and agents do when they
/// find nothing.
#[test]
fn stats_with_nothing_to_count_exits_1() {
    let h = Home::new();
    h.write_raw("-w-x", &format!("{A}.jsonl"), b"");
    let r = run(h.path(), &["stats"]);
    assert_eq!(r.code(), 1, "{}", r.stdout());
    assert!(r.stdout().contains("TOTAL 0 transcripts") || r.stdout().contains("0 lines"));
    let r = run(h.path(), &["stats", "--format", "json"]);
    assert_eq!(r.code(), 1);
    let r = run(Home::new().path(), &["stats"]);
    assert_eq!(r.code(), 1);
}

/// Issue 27 item 16: an empty target (what an unset shell variable gives) is
/// a usage error that names the problem, not a silent "nothing found".
#[test]
fn an_empty_target_is_a_usage_error() {
    let h = home();
    for cmd in [
        &["list", ""][..],
        &["search", "NEEDLE8", ""],
        &["stats", ""],
        &["show", "", "--line", "1"],
        &["agents", ""],
        &["list", &format!("@{A}"), ""],
    ] {
        let r = run(h.path(), cmd);
        assert_eq!(r.code(), 2, "`{}`: {}", r.label, r.stderr());
        assert!(
            r.stderr().contains("empty target"),
            "`{}`: {}",
            r.label,
            r.stderr()
        );
        assert!(r.stdout().is_empty(), "`{}`: {}", r.label, r.stdout());
    }
}

/// Issue 27 item 16: a problem with files outside what the targets select
/// (here B's over-deep lane folders, met while the whole home is walked to
/// find `@A`) is said on stderr but leaves `show @A`'s complete answer at
/// exit 0. Within the selection it still makes the status 2.
#[test]
fn problems_outside_the_selection_do_not_set_the_status() {
    let h = home();
    deep_lanes_in_b(&h);
    let at_a = format!("@{A}");
    for cmd in [
        &["show", &at_a[..], "--line", "1"][..],
        &["list", &at_a],
        &["search", "NEEDLE8", &at_a],
        &["stats", &at_a],
        &["verbatim", &at_a],
    ] {
        let r = run(h.path(), cmd);
        assert_eq!(r.code(), 0, "`{}`: {}", r.label, r.stderr());
        assert!(
            r.stderr().contains("deeper than"),
            "`{}`: the problem is still said: {}",
            r.label,
            r.stderr()
        );
        assert!(r.stderr().contains(B), "{}", r.stderr());
    }
    // In the selection: the whole home, or B itself.
    let at_b = format!("@{B}");
    for cmd in [&["list"][..], &["search", "NEEDLE8"], &["list", &at_b]] {
        let r = run(h.path(), cmd);
        assert_eq!(r.code(), 2, "`{}`: {}", r.label, r.stderr());
    }
}

/// Run csift as a user that cannot read `unreadable` (root ignores
/// permissions: then as `nobody` through setpriv). `None` when that cannot
/// be arranged here.
fn without_read_permission(
    h: &Home,
    unreadable: &Path,
    args: &[&str],
) -> Option<std::process::Output> {
    use std::os::unix::fs::PermissionsExt;
    let bin = assert_cmd::cargo::cargo_bin("csift");
    let mut c = if euid_is_root() {
        let ok = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            crate::common::skip("root, and setpriv cannot drop to nobody");
            return None;
        }
        let mut todo = vec![h.path().to_path_buf()];
        while let Some(p) = todo.pop() {
            let dir = p.is_dir();
            let mode = if dir { 0o755 } else { 0o644 };
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            if dir {
                todo.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
            }
        }
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    std::fs::set_permissions(unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    let mut a = assert_cmd::Command::from_std({
        c.args(args)
            .env("CLAUDE_CONFIG_DIR", h.path())
            .env("NO_COLOR", "1");
        c
    });
    let out = a.timeout(robust::WATCHDOG).output().unwrap();
    std::fs::set_permissions(unreadable, std::fs::Permissions::from_mode(0o755)).unwrap();
    Some(out)
}

fn euid_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .is_some_and(|v| v == "0")
}

/// Issue 28 section 5: one unreadable transcript is one error in every
/// summary. search counted it twice (`"errors":2`) while list, stats and
/// audit said 1.
#[test]
fn a_failed_file_is_one_error_in_every_summary() {
    let h = home();
    let f = h.projects().join("-w-b").join(format!("{B}.jsonl"));
    for cmd in [
        &["search", "NEEDLE8", "--format", "json"][..],
        &["search", "NEEDLE8", "--format", "json", "-c"],
        &["list", "--format", "json"],
        &["stats", "--format", "json"],
        &["audit", "--format", "json"],
    ] {
        let Some(out) = without_read_permission(&h, &f, cmd) else {
            return;
        };
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let lines = common::json_lines(&out.stdout);
        let summary = lines.last().unwrap();
        assert_eq!(summary["errors"], 1, "{cmd:?}: {summary}");
        let said = String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.contains(B))
            .count();
        assert_eq!(said, 1, "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Issue 27 item 16: an unrelated folder csift cannot read does not turn
/// `show @A`'s complete answer into exit 2 (it is said).
#[test]
fn an_unreadable_folder_elsewhere_does_not_fail_show() {
    let h = home();
    let d = h.projects().join("-w-c");
    std::fs::create_dir_all(&d).unwrap();
    let Some(out) = without_read_permission(&h, &d, &["show", &format!("@{A}"), "--line", "1"])
    else {
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("-w-c"), "the folder is still said: {err}");
}

/// `csift ARGS` against `home` with stderr a pipe whose read end is closed
/// before anything is said: its exit status.
fn code_with_stderr_closed(home: &Path, args: &[&str]) -> i32 {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .args(args)
        .env("CLAUDE_CONFIG_DIR", home)
        .env("CLAUDE_CODE_SESSION_ID", A)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let mut sink = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut sink).unwrap();
    child.wait().unwrap().code().unwrap_or(-1)
}

/// Issue 27 item 7, for every command: saying a problem or a note on a
/// closed stderr is not a crash (`eprintln!` panicked, exit 101); the exit
/// status is the one the problem calls for.
#[test]
fn a_closed_stderr_is_not_a_crash() {
    let h = home();
    deep_lanes_in_b(&h);
    for cmd in robust::COMMANDS {
        let code = code_with_stderr_closed(h.path(), cmd);
        assert!(matches!(code, 1 | 2), "`{}` exited {code}", cmd.join(" "));
    }
    // A note (whoami always says one) and a usage error.
    assert_eq!(code_with_stderr_closed(h.path(), &["whoami"]), 0);
    assert_eq!(code_with_stderr_closed(h.path(), &["list", ""]), 2);
}
