//! Files that change while a command reads them: a transcript appended to (each
//! record written in two halves, so a torn tail is often on disk; TAIL-012,
//! REC-040), a transcript replaced by rename the way compaction replaces it
//! (MISC-017), and files deleted between discovery and read. No panic, no SIGBUS,
//! exit 0/1/2, and no wrong line number: every record's uuid spells its own
//! physical line number, so a hit at the wrong line is caught.
//!
//! The files are over 1 MiB so the memory-mapped path (scan::source::MMAP_MIN)
//! is the one under test.

use crate::common;
use crate::robust;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use robust::run;
use serde_json::Value;

const SID: &str = "c4a9c4a9-0000-4000-8000-000000000001";
const PAD: usize = 1000;

/// A user record whose uuid ends in its line number and whose text says it too.
/// Every tenth carries `MARK`, so searches print a tenth of the file.
fn record(version: u32, line: usize) -> String {
    let word = if line.is_multiple_of(10) {
        "MARK"
    } else {
        "plain"
    };
    format!(
        "{{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{word} v{version} line {line} {}\"}},\"uuid\":\"00000000-0000-4000-8000-{line:012}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"userType\":\"external\",\"cwd\":\"/w/x\",\"sessionId\":\"{SID}\",\"version\":\"2.1.150\"}}\n",
        "p".repeat(PAD)
    )
}

fn body(version: u32, lines: usize) -> String {
    (1..=lines).map(|n| record(version, n)).collect()
}

fn home_with(lines: usize) -> (common::Home, PathBuf) {
    let h = common::Home::new();
    let f = h.write_raw("-w-x", &format!("{SID}.jsonl"), body(0, lines).as_bytes());
    assert!(std::fs::metadata(&f).unwrap().len() > 1 << 20);
    (h, f)
}

/// Every hit of a `search MARK --format json` run sits at the line its uuid names.
fn check_hits(out: &[u8]) -> usize {
    let mut n = 0;
    for v in common::json_lines(out) {
        if v["type"] != "match" {
            continue;
        }
        n += 1;
        let line = v["line"].as_u64().unwrap();
        let uuid = v["uuid"].as_str().unwrap();
        let named: u64 = uuid.rsplit('-').next().unwrap().parse().unwrap();
        assert_eq!(
            line, named,
            "hit at line {line} carries the uuid of line {named}: {v}"
        );
        let text = v["text"].as_str().unwrap();
        assert!(
            text.contains(&format!(" line {line} ")),
            "line {line} text: {}",
            &text[..60.min(text.len())]
        );
        assert!(
            text.ends_with(&"p".repeat(PAD)),
            "a partial record was parsed: line {line}"
        );
    }
    n
}

/// Run `writer` on a thread until the returned guard is dropped.
struct Writer {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Writer {
    fn spawn(mut step: impl FnMut() + Send + 'static) -> Writer {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                step();
            }
        });
        Writer {
            stop,
            handle: Some(handle),
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Appending whole records in two halves while search and list run: only
/// complete lines are parsed, and every line number is right (TAIL-012, REC-040).
#[test]
fn appended_while_searching_tail_012_rec_040() {
    let (h, f) = home_with(1100);
    let path = f.clone();
    let mut next = 1101;
    let writer = Writer::spawn(move || {
        // Bounded growth (a debug build reads a few MB/s): ~100 records a second.
        if next > 3000 {
            std::thread::sleep(Duration::from_millis(5));
            return;
        }
        let rec = record(0, next);
        let (a, b) = rec.split_at(rec.len() / 2);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(a.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(2));
        file.write_all(b.as_bytes()).unwrap();
        next += 1;
        std::thread::sleep(Duration::from_millis(8));
    });
    let mut seen = 0;
    for i in 0..4 {
        let r = run(
            h.path(),
            &["search", "MARK", "--format", "json", "--no-exchange"],
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        let n = check_hits(&r.out.stdout);
        assert!(n >= 110, "lost hits: {n}");
        assert!(n >= seen, "fewer hits than an earlier run: {n} < {seen}");
        seen = n;
        let r = run(h.path(), &["list", "--format", "json"]);
        assert!(matches!(r.code(), 0 | 2), "{}", r.stderr());
        if i % 2 == 0 {
            run(h.path(), &["search", "MARK", "-m", "3"]);
            run(h.path(), &["show", f.to_str().unwrap(), "--line", "-3.."]);
        }
    }
    drop(writer);
    let total = std::fs::read(&f).unwrap();
    let lines = total.iter().filter(|&&b| b == b'\n').count();
    assert!(lines > 1100, "the writer never appended");
    // At rest the file is whole again: every line is found.
    let r = run(
        h.path(),
        &["search", "MARK", "--format", "json", "--no-exchange"],
    );
    assert_eq!(check_hits(&r.out.stdout), lines / 10);
}

/// Compaction replaces a transcript by rename (MISC-017): a reader keeps the
/// inode it opened (mapped) and reports that version's lines consistently.
#[test]
fn replaced_by_rename_misc_017() {
    let (h, f) = home_with(1100);
    let path = f.clone();
    let mut version = 1;
    let writer = Writer::spawn(move || {
        // Alternate a shorter and a longer version, as compaction and growth would.
        let lines = if version % 2 == 0 { 1100 } else { 1050 };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, body(version, lines)).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        version += 1;
        std::thread::sleep(Duration::from_millis(5));
    });
    for _ in 0..4 {
        let r = run(
            h.path(),
            &["search", "MARK", "--format", "json", "--no-exchange"],
        );
        assert_eq!(r.code(), 0, "{}", r.stderr());
        let n = check_hits(&r.out.stdout);
        assert!(n == 105 || n == 110, "hits from a mixture of versions: {n}");
        let versions: std::collections::BTreeSet<String> = common::json_lines(&r.out.stdout)
            .iter()
            .filter_map(|v| {
                v["text"]
                    .as_str()
                    .map(|t| t.split(' ').nth(1).unwrap_or("").to_string())
            })
            .collect();
        assert_eq!(versions.len(), 1, "one run read two versions: {versions:?}");
        for cmd in robust::COMMANDS {
            run(
                h.path(),
                &robust::command(h.path(), cmd, &[f.to_str().unwrap()]),
            );
        }
    }
    drop(writer);
}

/// Files deleted (and recreated) between discovery and read: an error that
/// names the file, or a clean read; never a panic or a wrong line.
#[test]
fn deleted_between_discovery_and_read() {
    let h = common::Home::new();
    let dir = h.projects().join("-w-x");
    std::fs::create_dir_all(&dir).unwrap();
    let small: String = (1..=10).map(|n| record(0, n)).collect();
    let paths: Vec<PathBuf> = (0..200)
        .map(|i| dir.join(format!("c4a9c4a9-0000-4000-8000-{i:012}.jsonl")))
        .collect();
    for p in &paths {
        std::fs::write(p, &small).unwrap();
    }
    let ps = paths.clone();
    let body = small.clone();
    let mut i = 0usize;
    let writer = Writer::spawn(move || {
        let p = &ps[(i * 7919) % ps.len()];
        let _ = std::fs::remove_file(p);
        std::thread::sleep(Duration::from_micros(100));
        if !i.is_multiple_of(3) {
            let _ = std::fs::write(p, &body);
        }
        i += 1;
    });
    // Every line reporting a vanished file names it, and a run that reports
    // one exits 2, whatever else it printed (the check used to run only
    // inside `if code == 2`, so a swallowed or unnamed error passed).
    let said = |r: &robust::Run| -> usize {
        let mut n = 0;
        for l in r.stderr().lines().filter(|l| l.contains("No such file")) {
            assert!(
                l.contains("c4a9c4a9-0000-4000-8000-"),
                "`{}`: an error must name the file: {l}",
                r.label
            );
            n += 1;
        }
        if n > 0 {
            assert_eq!(
                r.code(),
                2,
                "`{}` reported a vanished file: {}",
                r.label,
                r.stderr()
            );
        }
        n
    };
    let (mut errors, mut hits) = (0, 0);
    for _ in 0..3 {
        for cmd in robust::COMMANDS {
            let r = run(h.path(), &robust::command(h.path(), cmd, &[]));
            if !r.skipped {
                errors += usize::from(said(&r) > 0);
            }
        }
        let r = run(
            h.path(),
            &["search", "MARK", "--format", "json", "--no-exchange"],
        );
        let n = check_hits(&r.out.stdout);
        let sum = common::json_lines(&r.out.stdout).pop().unwrap();
        assert_eq!(sum["type"], "summary");
        // One MARK per file: the hits printed are the hits counted, one per file.
        assert_eq!(Some(n as u64), sum["hits"].as_u64());
        assert_eq!(sum["hits"], sum["files_with_hits"]);
        assert!(
            said(&r) as u64 >= sum["errors"].as_u64().unwrap(),
            "{}",
            r.stderr()
        );
        hits += n;
    }
    drop(writer);
    // Not vacuous: files vanished under the runs, and the searches still hit.
    assert!(
        errors > 0 && hits > 0,
        "{errors} runs met a vanished file, {hits} hits"
    );
}

/// Walks of a home whose files vanish: the JSON summary still parses.
#[test]
fn summary_survives_vanishing_files() {
    let (h, f) = home_with(1100);
    let p: &Path = &f;
    let r = run(h.path(), &["list", "--format", "json"]);
    std::fs::remove_file(p).unwrap();
    let last: Value = common::json_lines(&r.out.stdout).pop().unwrap();
    assert_eq!(last["type"], "summary");
    let r = run(h.path(), &["list", p.to_str().unwrap()]);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr().contains(&format!("{SID}.jsonl")),
        "{}",
        r.stderr()
    );
}

/// One run of csift on `home` that the test cuts `file` under, to `keep`
/// bytes, `delay` after the process starts: the run, under the watchdog and
/// the universal checks.
fn run_cut(home: &Path, args: &[&str], file: &Path, keep: u64, delay: Duration) -> robust::Run {
    let started = std::time::Instant::now();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .args(args)
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env("CLAUDE_CONFIG_DIR", home)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .unwrap()
        .set_len(keep)
        .unwrap();
    // Output is drained by wait_with_output; a runaway run is killed.
    let id = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(robust::WATCHDOG);
        let _ = std::process::Command::new("kill")
            .arg(id.to_string())
            .status();
    });
    let out = child.wait_with_output().unwrap();
    drop(watchdog);
    let r = robust::Run {
        label: format!("{} (cut to {keep} bytes after {delay:?})", args.join(" ")),
        elapsed: started.elapsed(),
        skipped: false,
        out,
    };
    robust::check(&r);
    r
}

/// Issue 27 item 5: a transcript cut (truncated in place, as a sync tool or a
/// `>` does) while a command reads it. It was memory-mapped, and a read past
/// the new end killed csift with SIGBUS (exit 135, no message). Every command
/// that reads whole files runs against the file while this process cuts it
/// at a spread of moments during the run: no run dies by a signal, and a run
/// that read the cut says so (`changed while reading`, exit 2).
#[test]
fn a_file_cut_while_read_is_reported_not_fatal() {
    let (h, f) = home_with(3000);
    let full = std::fs::read(&f).unwrap();
    let target = f.to_str().unwrap();
    let at = format!("@{SID}");
    let cmds: [&[&str]; 6] = [
        &["stats", target],
        &["audit", target],
        &["search", "^.", "-c", target],
        &["show", &at, "--line", "1000..1010"],
        &["verbatim", &at],
        &["list", "--full", target],
    ];
    let mut said = 0;
    let mut runs = 0;
    for cmd in cmds {
        // How long a whole run takes, so the cuts fall inside it.
        std::fs::write(&f, &full).unwrap();
        let whole = run(h.path(), cmd);
        assert!(matches!(whole.code(), 0 | 1), "{}", whole.stderr());
        let span = whole.elapsed.max(Duration::from_millis(20));
        for i in 0..3u32 {
            std::fs::write(&f, &full).unwrap();
            let delay = span * (2 * i + 1) / 8;
            let r = run_cut(h.path(), cmd, &f, 64 * 1024, delay);
            runs += 1;
            if r.stderr().contains("changed while reading") {
                said += 1;
                assert_eq!(r.code(), 2, "{}: {}", r.label, r.stderr());
                assert!(
                    r.stderr().contains(&format!("{SID}.jsonl")),
                    "{}",
                    r.stderr()
                );
            }
        }
    }
    std::fs::write(&f, &full).unwrap();
    eprintln!("{said} of {runs} runs read a file cut under them");
    assert!(said > 0, "no run met the cut: the race was not exercised");
}

/// Issue 27 item 10: `list` while a transcript is replaced by rename between
/// a shorter and a longer version (MISC-017). The length the tree walk saw
/// was used to read whatever file was there later: a false torn final line
/// and a last-activity time in neither version. Every row must be one version.
#[test]
fn list_reads_one_version_of_a_file_replaced_by_rename() {
    let h = common::Home::new();
    let dir = h.projects().join("-w-x");
    std::fs::create_dir_all(&dir).unwrap();
    // Two versions that share no line boundary after their first records,
    // and no last time: what a compaction's rewrite gives.
    let version = |id: &str, n: usize, pad: usize| {
        let mut s = common::Session::new(id, "/w/x");
        for _ in 0..pad % 7 {
            s.meta("<local-command-stdout></local-command-stdout>");
        }
        for i in 0..n {
            s.user(&format!("prompt {i} {}", "p".repeat(pad)));
            s.text(&format!("m{i}"), &format!("reply {i} {}", "r".repeat(pad)));
        }
        (
            common::jsonl(&s.lines),
            s.lines.last().unwrap()["timestamp"].clone(),
        )
    };
    let mut files = Vec::new();
    let mut lasts = std::collections::BTreeSet::new();
    for k in 0..6 {
        let id = format!("c4a9c4a9-0000-4000-8000-{k:012}");
        let (short, t1) = version(&id, 12 + k, 300);
        let (long, t2) = version(&id, 40 + k, 333);
        lasts.insert(t1.as_str().unwrap().to_string());
        lasts.insert(t2.as_str().unwrap().to_string());
        let path = dir.join(format!("{id}.jsonl"));
        std::fs::write(&path, &short).unwrap();
        let (a, b) = (path.with_extension("a"), path.with_extension("b"));
        std::fs::write(&a, &short).unwrap();
        std::fs::write(&b, &long).unwrap();
        files.push((path, a, b));
    }
    let mut i = 0usize;
    let writer = Writer::spawn(move || {
        let (path, a, b) = &files[i % files.len()];
        let src = if (i / files.len()).is_multiple_of(2) {
            b
        } else {
            a
        };
        let tmp = path.with_extension("tmp");
        let _ = std::fs::remove_file(&tmp);
        std::fs::hard_link(src, &tmp).unwrap();
        std::fs::rename(&tmp, path).unwrap();
        i += 1;
    });
    for _ in 0..30 {
        let r = run(h.path(), &["list", "--format", "json"]);
        assert!(matches!(r.code(), 0 | 2), "{}", r.stderr());
        for row in common::json_lines(&r.out.stdout) {
            if row["type"] != "session" {
                continue;
            }
            assert_eq!(row["malformed_lines"], 0, "a false torn line: {row}");
            let last = row["last_activity"].as_str().unwrap_or_default();
            assert!(lasts.contains(last), "a time in neither version: {row}");
        }
    }
    drop(writer);
}
