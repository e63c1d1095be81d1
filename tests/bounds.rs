//! Resource bounds and actionable errors: a regex that backtracking engines take
//! exponential time on stays linear; a pattern matching every byte of a
//! multi-megabyte unit prints in linear time; `--multiline` patterns and compiled
//! regexes have a size bound that fails with a message, not an OOM; every error
//! names the file (and line) or the argument and says what to do; every
//! subcommand's `--help` carries examples.

use crate::common;
use crate::robust;

use std::time::Duration;

use common::{Home, Session};
use robust::{run, COMMANDS};

const SID: &str = "b0b0b0b0-0000-4000-8000-000000000001";

fn home_with_text(text: &str) -> (Home, std::path::PathBuf) {
    let h = Home::new();
    let mut s = Session::new(SID, "/w/x");
    s.user(text);
    s.text("m1", "ok");
    let f = h.write("-w-x", &s.file_name(), &s.lines);
    (h, f)
}

/// `(a+)+$` against `aaaa…a!` is the textbook exponential case for backtracking
/// engines; csift's finite-automaton regex stays linear.
#[test]
fn catastrophic_backtracking_pattern_is_linear() {
    let (h, _) = home_with_text(&format!("{}!", "a".repeat(200_000)));
    for pattern in ["(a+)+$", "(a|aa)+$", "(a*)*b", "^(a|a?)+$"] {
        let r = run(h.path(), &["search", pattern]);
        assert_eq!(r.code(), 1, "{pattern}: {}", r.stderr());
        assert!(
            r.elapsed < Duration::from_secs(10),
            "{pattern} took {:?}",
            r.elapsed
        );
    }
}

/// `.` matches every character of a 2 MB prompt: two million submatches, printed
/// (cut around the matches) in linear time. This was quadratic in the window
/// printer (tests/hostile.rs a_20_mb_single_line).
#[test]
fn every_byte_a_match_prints_in_linear_time() {
    let (h, f) = home_with_text(&"xy ".repeat(700_000));
    let text_lines = "line\n".repeat(200_000);
    let g = h.write_raw(
        "-w-y",
        "b0b0b0b0-0000-4000-8000-000000000002.jsonl",
        format!(
            "{}\n",
            serde_json::to_string(
                &serde_json::json!({"type": "user", "uuid": "u", "sessionId": "s",
                "message": {"role": "user", "content": text_lines}})
            )
            .unwrap()
        )
        .as_bytes(),
    );
    for file in [&f, &g] {
        for fmt in ["human", "json"] {
            let r = run(
                h.path(),
                &["search", ".", file.to_str().unwrap(), "--format", fmt],
            );
            assert_eq!(r.code(), 0, "{}", r.stderr());
            assert!(r.elapsed < Duration::from_secs(30), "{:?}", r.elapsed);
        }
    }
}

/// `--multiline` lets one match span a whole unit; that is bounded by the unit,
/// and a pattern whose compiled form is enormous is refused with a message.
#[test]
fn multiline_and_pattern_sizes_are_bounded() {
    let (h, f) = home_with_text(&"one line of text\n".repeat(150_000));
    let r = run(
        h.path(),
        &[
            "search",
            "-U",
            "(?s)^one.*text$",
            f.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let hits = common::json_lines(&r.out.stdout);
    let subs = hits[0]["submatches"].as_array().unwrap();
    assert_eq!(subs.len(), 1, "one match spanning the unit");
    // (Compiling up to the limit costs ~1 s in a debug build; one pattern is enough.)
    let huge = "a{10000}{10000}";
    let r = run(h.path(), &["search", "-U", huge]);
    assert_eq!(r.code(), 2, "{huge}: {}", r.stderr());
    assert!(
        r.stderr().contains("size limit") && r.stderr().contains("pattern"),
        "{huge}: {}",
        r.stderr()
    );
    assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
}

/// Errors say what is wrong, where, and what to do.
#[test]
fn errors_name_the_file_and_what_to_do() {
    let (h, f) = home_with_text("hello");
    let file = f.to_str().unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["list", "/no/such/dir"],
            &["/no/such/dir", "not a file, directory"],
        ),
        (&["list", "@zzzz"], &["@zzzz", "csift list"]),
        (&["list", "@"], &["needs an id"]),
        (&["search", "("], &["invalid pattern", "unclosed group"]),
        (&["search", "x", "-t", "bogus"], &["bogus", "--list-labels"]),
        (
            &["show", file, "--line", "99"],
            &[file, "L99", "file has 2 lines"],
        ),
        (&["show", file, "--turn", "50"], &[file, "turn 50"]),
        (&["show", file, "--line", "x"], &["`x`", "expected N"]),
        (&["show", file, "--uuid", "nope"], &["uuid nope"]),
        (&["list", "--since", "yesterday-ish"], &["yesterday-ish"]),
    ];
    for (args, want) in cases {
        let r = run(h.path(), args);
        assert_eq!(r.code(), 2, "{args:?}: {}", r.stderr());
        for w in *want {
            assert!(
                r.stderr().contains(w),
                "{args:?}: missing {w:?} in {}",
                r.stderr()
            );
        }
    }
    // Two sessions so `verbatim` with no target is ambiguous.
    let mut s = Session::new("b0b0b0b0-0000-4000-8000-000000000003", "/w/x");
    s.user("second");
    h.write("-w-x", &s.file_name(), &s.lines);
    let r = run(h.path(), &["verbatim"]);
    assert_eq!(r.code(), 2);
    for w in [
        "needs one transcript",
        "selected 2 sessions",
        "@<session-id>",
    ] {
        assert!(r.stderr().contains(w), "missing {w:?} in {}", r.stderr());
    }
    // A home without projects/, and an empty CLAUDE_CONFIG_DIR (PATH-011).
    let empty = tempfile::tempdir().unwrap();
    let r = run(empty.path(), &["list"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("--claude-home"), "{}", r.stderr());
    let out = common::csift()
        .env("CLAUDE_CONFIG_DIR", "")
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("set but empty"));
}

/// A malformed line is reported with its file, line and kind (jaq-style byte
/// column in the detail), and the search goes on.
#[test]
fn malformed_lines_are_reported_with_file_and_line() {
    let (h, f) = home_with_text("hello");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.extend_from_slice(
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hel\n",
    );
    std::fs::write(&f, &bytes).unwrap();
    let r = run(h.path(), &["search", "hel"]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let err = r.stderr();
    assert!(
        err.contains(&format!("{}:3", f.display())) && err.contains("malformed"),
        "{err}"
    );
}

/// Every subcommand's --help shows examples (stubs still saying "not
/// implemented" are skipped until they land).
#[test]
fn every_help_has_examples() {
    let mut names: Vec<&str> = COMMANDS.iter().map(|c| c[0]).collect();
    names.extend(["whoami", "guard"]);
    let home = tempfile::tempdir().unwrap();
    for name in names {
        let stub = common::csift()
            .env("CLAUDE_CONFIG_DIR", home.path())
            .arg(name)
            .output()
            .unwrap();
        if String::from_utf8_lossy(&stub.stderr).contains(robust::NOT_IMPLEMENTED) {
            eprintln!("skipping `{name} --help`: not implemented yet");
            continue;
        }
        let out = common::csift().args([name, "--help"]).output().unwrap();
        assert!(out.status.success(), "{name} --help");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            help.contains("Example"),
            "`csift {name} --help` has no examples:\n{help}"
        );
        assert!(
            help.contains(&format!("csift {name}")),
            "{name}: examples must show the command"
        );
    }
    let out = common::csift().arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples"));
}

/// Every command the suites run is implemented: the stub skip in tests/robust
/// hides nothing.
#[test]
fn no_command_is_a_stub() {
    let (h, _) = home_with_text("hello");
    for cmd in COMMANDS {
        let r = run(h.path(), &robust::command(h.path(), cmd, &[]));
        assert!(!r.skipped, "`csift {}` is still a stub", cmd.join(" "));
    }
}
