//! Hostile input: every case is a Claude home holding one kind of broken,
//! strange or adversarial file next to a good session, run through every command
//! (robust::COMMANDS) in human and JSON form, over the whole home and with the
//! hostile file as the target. Every run must finish under the watchdog, exit
//! 0/1/2, never panic, and print no terminal control byte in human form; the good
//! session's needle must still be found (no hit is lost to a neighbour's damage),
//! at its true line number when it shares the file with the damage.

use crate::common;
use crate::robust;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{Home, Session};
use robust::{every_command, every_command_human, run};
use serde_json::{json, Value};

const NEEDLE: &str = "NEEDLEOK7";
const GOOD: &str = "99999999-0000-4000-8000-000000000009";

/// A home with one good session whose prompt carries [`NEEDLE`].
fn home() -> Home {
    let home = Home::new();
    let mut s = Session::new(GOOD, "/w/good");
    s.user(&format!("find the {NEEDLE} please"));
    s.text("m1", "Found it.");
    home.write("-w-good", &s.file_name(), &s.lines);
    home
}

/// A valid record line carrying the needle, for planting among damaged lines.
fn needle_line(session: &str) -> String {
    let mut s = Session::new(session, "/w/x");
    s.user(&format!("late {NEEDLE} after damage"));
    serde_json::to_string(&s.lines[0]).unwrap()
}

/// A few well-formed lines of a session, as bytes.
fn session_bytes(id: &str) -> Vec<u8> {
    let mut s = Session::new(id, "/w/x");
    s.user("an ordinary prompt");
    s.text("m1", "an ordinary answer");
    common::jsonl(&s.lines)
}

/// The whole matrix over `home`, then with each of `focus` as the target; then a
/// search for the needle, which must be found (exit 0, or 2 when `errors`).
fn exercise(home: &Path, focus: &[PathBuf], errors: bool) {
    every_command(home, &[]);
    for f in focus {
        let f = f.to_str().expect("focus paths are UTF-8");
        every_command(home, &[f]);
    }
    let r = run(home, &["search", NEEDLE]);
    assert!(
        r.stdout().contains(NEEDLE),
        "the good session's hit was lost:\n{}",
        r.stderr()
    );
    let want = if errors { 2 } else { 0 };
    assert_eq!(r.code(), want, "search exit code; stderr:\n{}", r.stderr());
}

/// Line numbers of the needle's hits in one file, from `search --format json`.
fn needle_lines(home: &Path, file: &Path) -> Vec<u64> {
    let r = run(
        home,
        &[
            "search",
            NEEDLE,
            file.to_str().unwrap(),
            "--format",
            "json",
            "--no-exchange",
        ],
    );
    common::json_lines(&r.out.stdout)
        .iter()
        .filter(|v| v["type"] == "match")
        .map(|v| v["line"].as_u64().unwrap())
        .collect()
}

#[test]
fn empty_file() {
    let h = home();
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-00000000000e.jsonl", b"");
    exercise(h.path(), &[f], false);
}

#[test]
fn only_blank_lines() {
    let h = home();
    let f = h.write_raw(
        "-w-x",
        "00000000-0000-4000-8000-00000000000b.jsonl",
        b"\n\n   \n\t\r\n\n",
    );
    exercise(h.path(), &[f], false);
}

#[test]
fn invalid_utf8_inside_and_outside_strings() {
    let h = home();
    let mut b = session_bytes("00000000-0000-4000-8000-000000000001");
    b.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff\xfe\xc3 bytes\"},\"uuid\":\"u-bad1\"}\n");
    b.extend_from_slice(
        b"{\"type\":\"user\",\xff\xfe\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n",
    );
    b.extend_from_slice(b"\xed\xa0\x80\xf4\x90\x80\x80 overlong \xc0\xaf surrogate\n");
    b.extend_from_slice(needle_line("00000000-0000-4000-8000-000000000001").as_bytes());
    b.push(b'\n');
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000001.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![6]);
}

#[test]
fn nul_bytes() {
    let h = home();
    let mut b = session_bytes("00000000-0000-4000-8000-000000000002");
    b.extend_from_slice(b"\0\0\0\0\0\0\0\0\n");
    b.extend_from_slice(
        b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"nul \0 inside\"}}\n",
    );
    b.extend_from_slice(b"{\"type\":\"user\"}\0{\"type\":\"user\"}\n");
    b.extend_from_slice(needle_line("00000000-0000-4000-8000-000000000002").as_bytes());
    b.extend_from_slice(b"\n\0");
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000002.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![6]);
}

/// One 20 MB line: a user prompt whose text ends with the needle. Built once per
/// test binary (the resource test below measures the same home).
fn huge_line_home() -> &'static Home {
    static H: OnceLock<Home> = OnceLock::new();
    H.get_or_init(|| {
        let h = home();
        let mut s = Session::new("00000000-0000-4000-8000-000000000020", "/w/x");
        let mut text = "lorem ipsum \\ \" dolor ".repeat(20 * 1024 * 1024 / 22);
        text.push_str(NEEDLE);
        s.user(&text);
        s.text("m1", "ok");
        h.write("-w-x", &s.file_name(), &s.lines);
        h
    })
}

/// The 20 MB line through every command (human form; JSON for the printing
/// commands), and peak memory of the needle search stays a small multiple of the
/// line (mapped file + decoded text), nothing worse.
#[test]
fn a_20_mb_single_line_in_bounded_memory() {
    let h = huge_line_home();
    let f = h
        .projects()
        .join("-w-x/00000000-0000-4000-8000-000000000020.jsonl");
    assert!(std::fs::metadata(&f).unwrap().len() > 20_000_000);
    // The whole home is the huge file and the good session; each run costs
    // seconds in a debug build, so JSON form only where the text is printed and
    // verbatim (which needs one transcript) once with the file as its target.
    every_command_human(h.path(), &[]);
    run(h.path(), &["search", "^.", "--format", "json"]);
    let projects = h.projects();
    run(
        h.path(),
        &["show", projects.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(run(h.path(), &["verbatim", f.to_str().unwrap()]).code(), 0);
    let (rss_kb, r) = robust::peak_rss_kb(h.path(), &["search", NEEDLE]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(
        r.stdout().contains(NEEDLE),
        "the hit at the end of the line was lost"
    );
    let line_kb = 20 * 1024;
    assert!(
        rss_kb < 8 * line_kb,
        "peak RSS {rss_kb} KiB for a {line_kb} KiB line"
    );
    assert_eq!(needle_lines(h.path(), &f), vec![1]);
}

/// 10,000 tiny files in 100 projects, one carrying the needle. Built once.
fn many_files_home() -> &'static Home {
    static H: OnceLock<Home> = OnceLock::new();
    H.get_or_init(|| {
        let h = Home::new();
        let mut s = Session::new("x", "/w/x");
        s.user("tiny");
        let line = serde_json::to_string(&s.lines[0]).unwrap();
        for i in 0..10_000u32 {
            let id = format!("{i:08x}-0000-4000-8000-000000000000");
            let body = if i == 7777 {
                needle_line(&id)
            } else {
                line.replace("\"x\"", &format!("\"{id}\""))
            };
            let dir = h.projects().join(format!("-w-p{}", i % 100));
            if i < 100 {
                std::fs::create_dir_all(&dir).unwrap();
            }
            std::fs::write(dir.join(format!("{id}.jsonl")), format!("{body}\n")).unwrap();
        }
        h
    })
}

#[test]
fn ten_thousand_tiny_files() {
    let h = many_files_home();
    // Human form for every command (each run reads 10,000 files); the JSON form
    // of list and search is checked below.
    every_command_human(h.path(), &[]);
    let r = run(h.path(), &["search", NEEDLE, "--format", "json"]);
    assert_eq!(r.code(), 0, "{}", r.stderr());
    let hits: Vec<Value> = common::json_lines(&r.out.stdout)
        .into_iter()
        .filter(|v| v["type"] == "match")
        .collect();
    assert_eq!(hits.len(), 1);
    assert!(hits[0]["file"].as_str().unwrap().contains("00001e61-"));
    let r = run(h.path(), &["list", "--format", "json"]);
    let summary = common::json_lines(&r.out.stdout).pop().unwrap();
    assert_eq!(summary["rows"], 10_000, "{summary}");
}

#[test]
fn json_nested_10000_deep() {
    let h = home();
    let deep_arr = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000));
    let mut b = session_bytes("00000000-0000-4000-8000-000000000003");
    for payload in [&deep_arr, &deep_obj] {
        for rec in [
            format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{payload}}}}}"),
            format!("{{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"id\":\"m\",\"content\":[{{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"Bash\",\"input\":{payload}}}]}}}}"),
            format!("{{\"type\":\"user\",\"toolUseResult\":{payload},\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":{payload}}}]}}}}"),
            format!("{{\"type\":\"system\",\"content\":{payload}}}"),
            payload.clone(),
        ] {
            b.extend_from_slice(rec.as_bytes());
            b.push(b'\n');
        }
    }
    b.extend_from_slice(needle_line("00000000-0000-4000-8000-000000000003").as_bytes());
    b.push(b'\n');
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000003.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![13]);
}

#[test]
fn lines_that_are_arrays_strings_numbers() {
    let h = home();
    let mut b = session_bytes("00000000-0000-4000-8000-000000000004");
    for l in [
        "[1,2,3]",
        "[{\"type\":\"user\"}]",
        "\"a string\"",
        "42",
        "-1e999",
        "true",
        "null",
    ] {
        b.extend_from_slice(l.as_bytes());
        b.push(b'\n');
    }
    b.extend_from_slice(needle_line("00000000-0000-4000-8000-000000000004").as_bytes());
    b.push(b'\n');
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000004.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![10]);
}

#[test]
fn two_records_glued_on_one_line() {
    let h = home();
    let mut b = session_bytes("00000000-0000-4000-8000-000000000005");
    let one = needle_line("00000000-0000-4000-8000-000000000005");
    b.extend_from_slice(format!("{one}{one}\n{one} {one}\n").as_bytes());
    b.extend_from_slice(one.as_bytes());
    b.push(b'\n');
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000005.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    // The glued lines are malformed and reported; each whole record on them is
    // still searched under its line's number (two per line), and line 5 is whole.
    assert_eq!(needle_lines(h.path(), &f), vec![3, 3, 4, 4, 5]);
    let r = run(h.path(), &["show", f.to_str().unwrap(), "--format", "json"]);
    let kinds: Vec<String> = common::json_lines(&r.out.stdout)
        .iter()
        .filter(|v| v["type"] == "malformed")
        .map(|v| v["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["glued-records", "glued-records"]);
}

/// A torn final line is never parsed as a record: it is reported as torn
/// (REC-040, TAIL-012), and the complete lines before it are found.
#[test]
fn torn_final_line_without_newline() {
    let h = home();
    let mut b = session_bytes("00000000-0000-4000-8000-000000000006");
    b.extend_from_slice(needle_line("00000000-0000-4000-8000-000000000006").as_bytes());
    b.push(b'\n');
    let torn = needle_line("00000000-0000-4000-8000-000000000006");
    b.extend_from_slice(&torn.as_bytes()[..torn.len() / 2]);
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000006.jsonl", &b);
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![3]);
    let r = run(h.path(), &["show", f.to_str().unwrap(), "--format", "json"]);
    let malformed: Vec<Value> = common::json_lines(&r.out.stdout)
        .into_iter()
        .filter(|v| v["type"] == "malformed")
        .collect();
    assert_eq!(malformed.len(), 1, "{malformed:?}");
    assert_eq!(malformed[0]["kind"], "torn-final-line");
    assert_eq!(malformed[0]["line"], 4);
}

/// A `.jsonl` that is really a binary file (escape bytes included).
#[test]
fn binary_file_named_jsonl() {
    let h = home();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let f = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000007.jsonl", &bytes);
    // And an ELF-looking one with a `{` start.
    let mut elf = b"{\x7fELF\x02\x01\x01\0\0\0\x1b[2J\x1b]0;owned\x07".to_vec();
    elf.extend_from_slice(&bytes[..4096]);
    let g = h.write_raw("-w-x", "00000000-0000-4000-8000-000000000008.jsonl", &elf);
    exercise(h.path(), &[f, g], false);
}

/// A directory named like a transcript is reported and skipped: exit 2, the
/// message names it, and everything else is still read.
#[test]
fn directory_named_jsonl() {
    let h = home();
    let d = h
        .projects()
        .join("-w-x/00000000-0000-4000-8000-00000000000d.jsonl");
    std::fs::create_dir_all(d.join("subagents")).unwrap();
    std::fs::write(d.join("subagents/agent-a1.jsonl"), session_bytes("d")).unwrap();
    exercise(h.path(), &[], true);
    let r = run(h.path(), &["list"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("00000000d.jsonl"), "{}", r.stderr());
    // Named directly, it is an error that says what it is.
    for cmd in robust::COMMANDS {
        let r = run(
            h.path(),
            &robust::command(h.path(), cmd, &[d.to_str().unwrap()]),
        );
        if !r.skipped {
            assert_ne!(r.code(), 0, "{}", r.label);
        }
    }
}

/// A symlink loop (project dir, session dir and lane dir) and dangling symlinks
/// in the home: no hang, the dangling link is reported, the rest is read.
#[test]
fn symlink_loop_and_dangling_symlink() {
    let h = home();
    let p = h.projects();
    std::fs::create_dir_all(p.join("-w-x/00000000-0000-4000-8000-00000000000a/subagents")).unwrap();
    std::fs::write(
        p.join("-w-x/00000000-0000-4000-8000-00000000000a.jsonl"),
        session_bytes("00000000-0000-4000-8000-00000000000a"),
    )
    .unwrap();
    let link = std::os::unix::fs::symlink;
    link(".", p.join("-w-x/loop")).unwrap();
    link(
        "..",
        p.join("-w-x/00000000-0000-4000-8000-00000000000a/subagents/up"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&p, p.join("-w-loop")).unwrap();
    link("-w-loop2", p.join("-w-loop2")).unwrap();
    link("/nonexistent/x.jsonl", p.join("-w-x/dangling.jsonl")).unwrap();
    link("nowhere", p.join("-w-dangling-project")).unwrap();
    exercise(h.path(), &[], true);
    let r = run(h.path(), &["list"]);
    assert!(r.stderr().contains("dangling.jsonl"), "{}", r.stderr());
    // Each problem is said once (agents walks a project twice), and every JSON
    // summary counts what stderr said, so a script reading stdout alone knows
    // the answer is incomplete.
    for args in [
        &["list", "--format", "json"][..],
        &["search", NEEDLE, "--format", "json"],
        &["stats", "--format", "json"],
        &["audit", "--format", "json"],
        &["agents", "--format", "json"],
    ] {
        let r = run(h.path(), args);
        assert_eq!(r.code(), 2, "{args:?}");
        let said: Vec<String> = r.stderr().lines().map(str::to_string).collect();
        let mut once = said.clone();
        once.sort();
        once.dedup();
        assert_eq!(
            once.len(),
            said.len(),
            "{args:?} said a problem twice:\n{}",
            r.stderr()
        );
        assert!(
            said.iter().any(|l| l.contains("dangling.jsonl")),
            "{args:?}"
        );
        if args[0] == "agents" {
            continue; // a tree of lanes, no summary line
        }
        let out = r.stdout();
        let last: Value = serde_json::from_str(out.lines().last().unwrap_or("{}")).unwrap();
        assert_eq!(last["errors"], said.len(), "{args:?}\n{}", r.stderr());
    }
    // A command naming one session is not failed by a stranger's broken link
    // (it walked the whole home to find the id, and exited 2 over them).
    let good = format!("@{GOOD}");
    for args in [
        &["show", &good, "--line", "1", "--format", "json"][..],
        &["verbatim", &good, "--format", "json"],
        &["stats", &good, "--format", "json"],
        &["search", NEEDLE, &good, "--format", "json"],
    ] {
        let r = run(h.path(), args);
        assert_eq!(r.code(), 0, "{args:?}: {}", r.stderr());
        assert!(r.stderr().is_empty(), "{args:?}: {}", r.stderr());
        let last: Value = serde_json::from_str(r.stdout().lines().last().unwrap_or("{}")).unwrap();
        assert_eq!(last["errors"], 0, "{args:?}");
    }
}

/// A FIFO named like a session and like a lane: the walk skips it with a warning
/// (reading a FIFO with no writer blocks for ever; every command hung on one).
#[test]
fn fifo_named_like_a_transcript_is_reported_and_skipped() {
    let h = home();
    let p = h.projects();
    let lanes = p.join("-w-good").join(GOOD).join("subagents");
    std::fs::create_dir_all(&lanes).unwrap();
    let fifos = [
        p.join("-w-good/00000000-0000-4000-8000-00000000000f.jsonl"),
        lanes.join("agent-afifo01.jsonl"),
        p.join("-w-good/agent-aflat01.jsonl"),
    ];
    for f in &fifos {
        common::mkfifo(f);
    }
    exercise(h.path(), &[], true);
    let r = run(h.path(), &["stats"]);
    for f in &fifos {
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(r.stderr().contains(name), "{}", r.stderr());
    }
    assert!(r.stderr().contains("not a regular file"), "{}", r.stderr());
}

fn euid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(u32::MAX)
}

/// A transcript csift may not read: reported (naming the file), the scan goes
/// on, exit 2. Root ignores permissions, so as root the binary is run as
/// `nobody` through setpriv; without setpriv the case is skipped with a note.
#[test]
fn file_without_read_permission() {
    use std::os::unix::fs::PermissionsExt;
    let h = home();
    let f = h.write_raw(
        "-w-x",
        "00000000-0000-4000-8000-00000000000c.jsonl",
        &session_bytes("00000000-0000-4000-8000-00000000000c"),
    );
    let mut wrap: Vec<String> = Vec::new();
    if euid() == 0 {
        let ok = std::process::Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            common::skip("running as root and setpriv cannot drop to nobody, so read permission is not enforced");
            return;
        }
        wrap = [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]
        .map(String::from)
        .to_vec();
        // nobody must be able to reach everything but the one file.
        for e in walk(h.path()) {
            let mode = if e.is_dir() { 0o755 } else { 0o644 };
            std::fs::set_permissions(&e, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o000)).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("csift");
    for cmd in robust::COMMANDS {
        for target in [None, Some(&f)] {
            let mut c =
                std::process::Command::new(wrap.first().map_or(bin.as_os_str(), OsStr::new));
            c.args(wrap.iter().skip(1));
            if !wrap.is_empty() {
                c.arg(&bin);
            }
            let target: Vec<&str> = target.into_iter().filter_map(|t| t.to_str()).collect();
            c.args(robust::command(h.path(), cmd, &target))
                .env("CLAUDE_CONFIG_DIR", h.path())
                .env("NO_COLOR", "1");
            let mut a = assert_cmd::Command::from_std(c);
            let out = a.timeout(robust::WATCHDOG).output().unwrap();
            let r = robust::Run {
                label: format!(
                    "{} (unreadable file{})",
                    cmd.join(" "),
                    if target.is_empty() { "" } else { " as target" }
                ),
                elapsed: Default::default(),
                skipped: String::from_utf8_lossy(&out.stderr).contains(robust::NOT_IMPLEMENTED),
                out,
            };
            if r.skipped {
                continue;
            }
            robust::check(&r);
            assert_eq!(r.code(), 2, "{}: stderr {}", r.label, r.stderr());
            // verbatim with no target refuses before reading (it needs one session).
            let refused = r.stderr().contains("name one with @");
            assert!(
                refused || r.stderr().contains("00000000000c.jsonl"),
                "{}: the error must name the file: {}",
                r.label,
                r.stderr()
            );
            // Said once per line: the path and the OS error each appear once
            // ("p: p: Permission denied", "denied (os error 13): denied" before).
            for l in r.stderr().lines() {
                assert!(
                    l.matches("00000000000c.jsonl").count() <= 1,
                    "{}: {l}",
                    r.label
                );
                assert!(
                    l.matches("ermission denied").count() <= 1,
                    "{}: {l}",
                    r.label
                );
            }
            if cmd[0] == "search" && target.is_empty() {
                assert!(
                    r.stdout().contains("find the"),
                    "{}: the good session was not read",
                    r.label
                );
            }
        }
    }
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut i = 0;
    while i < out.len() {
        if out[i].is_dir() {
            let mut kids: Vec<PathBuf> = std::fs::read_dir(&out[i])
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            out.append(&mut kids);
        }
        i += 1;
    }
    out
}

/// File and directory names that are not UTF-8 (one also carrying an escape):
/// read like any other, printed without raw control bytes.
#[test]
fn non_utf8_file_names() {
    let h = home();
    let p = h.projects();
    let bad_project = p.join(OsStr::from_bytes(b"-w-\xff\xfe-proj"));
    std::fs::create_dir_all(&bad_project).unwrap();
    std::fs::write(
        bad_project.join(OsStr::from_bytes(b"\xc3\x28\x1b[31m.jsonl")),
        session_bytes("bad-name-1"),
    )
    .unwrap();
    let session = bad_project.join(OsStr::from_bytes(b"sess\xff"));
    std::fs::create_dir_all(session.join("subagents")).unwrap();
    std::fs::write(
        session.join(OsStr::from_bytes(b"subagents/agent-a\xfe\x07.jsonl")),
        session_bytes("sess"),
    )
    .unwrap();
    std::fs::write(
        bad_project.join(OsStr::from_bytes(b"agent-\xff.jsonl")),
        needle_line("flat"),
    )
    .unwrap();
    exercise(h.path(), &[], false);
}

/// A cwd whose encoding passes 200 characters: the project directory is the
/// capped `<200>-<hash>` form (PATH-004, PATH-005), found from the real path.
#[test]
fn project_path_longer_than_200_encoded_characters() {
    let h = home();
    let real = h
        .path()
        .join("real")
        .join("deep_directory_name_".repeat(12));
    std::fs::create_dir_all(&real).unwrap();
    let cwd = std::fs::canonicalize(&real).unwrap();
    let cwd = cwd.to_str().unwrap();
    let encoded = csift::discovery::encode::encode(cwd);
    assert!(encoded.len() > 201, "{encoded}");
    let mut s = Session::new("00000000-0000-4000-8000-0000000000aa", cwd);
    s.user(&format!("long path {NEEDLE}"));
    s.text("m1", "ok");
    h.write(&encoded, &s.file_name(), &s.lines);
    exercise(h.path(), std::slice::from_ref(&real), false);
    let r = run(
        h.path(),
        &["search", NEEDLE, real.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(r.code(), 0, "{}", r.stderr());
    assert!(r.stdout().contains("long path"));
}

/// Windows-shaped sessions: a drive-letter-led project name (WIN-001), native
/// `C:\` and UNC paths in tool fields (WIN-006), a PowerShell tool (WIN-003,
/// WIN-005), CRLF line ends, and a Windows path given as a target.
#[test]
fn windows_shaped_paths_win_001_to_011() {
    let h = home();
    let cwd = r"C:\Users\x\proj";
    let mut s = Session::new("00000000-0000-4000-8000-0000000000b1", cwd);
    s.user(&format!("fix the build {NEEDLE}"));
    s.tool_use(
        "m1",
        "toolu_1",
        "PowerShell",
        json!({"command": "Get-ChildItem -Path C:\\Users\\x\\proj | Select-String 'TODO'"}),
    );
    s.tool_result("toolu_1", "C:\\Users\\x\\proj\\a.rs:1: TODO", false, None);
    s.tool_use(
        "m2",
        "toolu_2",
        "Read",
        json!({"file_path": "\\\\server\\share\\notes.md"}),
    );
    s.tool_result("toolu_2", "ok", false, None);
    s.tool_use("m3", "toolu_3", "Bash", json!({"command": "ls /c/Users/x"}));
    s.tool_result("toolu_3", "proj", false, None);
    let mut b = String::new();
    for l in &s.lines {
        b.push_str(&serde_json::to_string(l).unwrap());
        b.push_str("\r\n");
    }
    let enc = csift::discovery::encode::encode(cwd);
    assert_eq!(enc, "C--Users-x-proj");
    let f = h.write_raw(&enc, &s.file_name(), b.as_bytes());
    exercise(h.path(), std::slice::from_ref(&f), false);
    assert_eq!(needle_lines(h.path(), &f), vec![1]);
    // A Windows path as a target names nothing here: an error, never a panic.
    for t in [cwd, r"\\server\share", "C:"] {
        let r = run(h.path(), &["list", t]);
        assert_eq!(r.code(), 2, "{t}: {}", r.stderr());
        assert!(r.stderr().contains(t), "{}", r.stderr());
    }
}

/// Issue 27 item 9: a `*.jsonl` that stat calls a regular file but whose read
/// blocks for ever (`/proc/kmsg`, linked in as a flat lane `agent-*.jsonl`,
/// whose head the walk reads for its session, and as a session) and a link
/// to a character device: every command, `show @other` included, finishes
/// in bounded time. Only regular files are read, each bounded by the length
/// of the file opened (none for a `/proc` file), never by a read to EOF.
#[test]
fn files_whose_reads_block_do_not_hang_any_command() {
    let h = home();
    let p = h.projects().join("-w-good");
    let mut linked = 0;
    for (target, name) in [
        ("/proc/kmsg", "agent-akmsg01.jsonl"),
        ("/proc/kmsg", "00000000-0000-4000-8000-0000000000a1.jsonl"),
        ("/dev/kmsg", "00000000-0000-4000-8000-0000000000a2.jsonl"),
        ("/dev/zero", "agent-azero01.jsonl"),
    ] {
        if Path::new(target).exists() {
            std::os::unix::fs::symlink(target, p.join(name)).unwrap();
            linked += 1;
        }
    }
    if linked == 0 {
        common::skip("no /proc/kmsg, /dev/kmsg or /dev/zero");
        return;
    }
    let bin = assert_cmd::cargo::cargo_bin("csift");
    let other = format!("@{GOOD}");
    let mut cmds: Vec<Vec<&str>> = robust::COMMANDS.iter().map(|c| c.to_vec()).collect();
    cmds.push(vec!["show", &other]);
    cmds.push(vec!["list", &other]);
    for cmd in &cmds {
        let mut c = assert_cmd::Command::new(&bin);
        c.args(cmd)
            .env("CLAUDE_CONFIG_DIR", h.path())
            .env("NO_COLOR", "1")
            .timeout(std::time::Duration::from_secs(20));
        let out = c.output().unwrap();
        let r = robust::Run {
            label: cmd.join(" "),
            elapsed: Default::default(),
            skipped: false,
            out,
        };
        robust::check(&r);
    }
}
