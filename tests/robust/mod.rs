//! Shared by the robustness suites (hostile, changing, readonly, terminal,
//! bounds): the list of commands every case runs, a runner with a watchdog, and
//! the checks every run must pass — exit 0/1/2, no panic, no hang, no terminal
//! control bytes in human output.
//!
//! Adding a command to every suite is one line in [`COMMANDS`].
#![allow(dead_code)]

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// Each command with the arguments that make it read everything it can. `search`
/// gets a pattern matching every non-empty unit once (`^.`: start of the unit
/// text), so every unit is decoded and printed without a submatch per byte.
///
/// stats and audit were stubs ("not implemented yet") when these suites were
/// written, so [`run`] skips a command whose stderr says so ([`NOT_IMPLEMENTED`]).
/// Both are merged now; tests/bounds.rs `no_command_is_a_stub` fails if any
/// command here is still a stub, so the skip can never hide one silently.
pub const COMMANDS: &[&[&str]] = &[
    &["list"],
    &["search", "^."],
    &["show", EVERYTHING],
    &["verbatim"],
    &["agents"],
    &["stats"],
    &["audit"],
    &["image"],
    &["plan"],
    &["plan", "--audit"],
    &["export", "--out", "-", EVERYTHING],
    &["status", "--all"],
    &["tasks"],
    &["files"],
    &["usage"],
];

/// A target that selects every transcript of the home (its `projects`
/// folder), for a command that requires a target (`show`); dropped when the
/// case passes targets of its own.
pub const EVERYTHING: &str = "<every transcript>";

/// `cmd` (an entry of [`COMMANDS`]) with `extra` (targets, flags) after it:
/// [`EVERYTHING`] becomes the home's `projects` folder when `extra` is empty
/// and is dropped otherwise.
pub fn command(home: &Path, cmd: &[&str], extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    for a in cmd {
        match *a {
            EVERYTHING if extra.is_empty() => {
                args.push(home.join("projects").display().to_string())
            }
            EVERYTHING => {}
            a => args.push(a.to_string()),
        }
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// Stderr of a stub command (see [`COMMANDS`]).
pub const NOT_IMPLEMENTED: &str = "not implemented yet";

/// Longest a single run may take before the watchdog kills it (debug build,
/// shared 2-core machine, the 20 MB and 10,000-file homes).
pub const WATCHDOG: Duration = Duration::from_secs(60);

/// One finished run, with what is needed to explain a failure.
pub struct Run {
    pub label: String,
    pub out: Output,
    pub elapsed: Duration,
    /// The command is a stub: nothing was checked.
    pub skipped: bool,
}

impl Run {
    pub fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
}

/// csift with `CLAUDE_CONFIG_DIR=home`, colour off, the caller's session unset,
/// and its state (the census cache) under target/, not the developer's own.
pub fn csift(home: &Path) -> Command {
    let mut c = Command::cargo_bin("csift").unwrap();
    c.env_remove("CLAUDE_CODE_SESSION_ID")
        .env(
            "XDG_STATE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("state"),
        )
        .env("CLAUDE_CONFIG_DIR", home)
        .env("NO_COLOR", "1")
        .timeout(WATCHDOG);
    c
}

/// Run `args` against `home` under the watchdog and apply the universal checks:
/// finished in time, exit 0/1/2, no panic, and (human form) no escape/control
/// byte on stdout or stderr.
pub fn run<S: AsRef<std::ffi::OsStr>>(home: &Path, args: &[S]) -> Run {
    let label = args
        .iter()
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let started = Instant::now();
    let out = csift(home).args(args).output().unwrap();
    let run = Run {
        label,
        elapsed: started.elapsed(),
        skipped: String::from_utf8_lossy(&out.stderr).contains(NOT_IMPLEMENTED),
        out,
    };
    if !run.skipped {
        check(&run);
    }
    if run.elapsed > Duration::from_secs(2) {
        eprintln!(
            "slow: `csift {}` took {:.1}s",
            run.label,
            run.elapsed.as_secs_f64()
        );
    }
    run
}

/// The checks every run passes, whatever the input.
pub fn check(run: &Run) {
    let what = format!(
        "`csift {}` ({:.1}s)\n--- stderr:\n{}",
        run.label,
        run.elapsed.as_secs_f64(),
        tail(&run.stderr())
    );
    assert!(
        run.out.status.code().is_some(),
        "{what}\nkilled (watchdog {WATCHDOG:?} or a signal such as SIGBUS): {:?}",
        run.out.status
    );
    assert!(
        matches!(run.code(), 0..=2),
        "{what}\nexit {} is not 0, 1 or 2",
        run.code()
    );
    assert!(!run.stderr().contains("panicked"), "{what}\npanicked");
    let json = ["--format json", "--raw", "--hook-json"]
        .iter()
        .any(|f| run.label.contains(f));
    if !json {
        let stdout = if run.label.contains("--color always") {
            strip_styles(&run.out.stdout)
        } else {
            run.out.stdout.clone()
        };
        if let Some(at) = control_byte(&stdout) {
            panic!(
                "{what}\nstdout carries control byte {:#04x} at {at}: …{}…",
                stdout[at],
                String::from_utf8_lossy(
                    &stdout[at.saturating_sub(60)..(at + 20).min(stdout.len())]
                )
                .escape_debug()
            );
        }
    }
    if let Some(at) = control_byte(&run.out.stderr) {
        panic!(
            "{what}\nstderr carries control byte {:#04x} at {at}",
            run.out.stderr[at]
        );
    }
}

/// The SGR sequences csift's own `--color always` styles use (output::Style);
/// anything else that reaches the terminal came from a transcript.
pub const STYLES: [&[u8]; 6] = [
    b"\x1b[1;36m",
    b"\x1b[2m",
    b"\x1b[1;31m",
    b"\x1b[33m",
    b"\x1b[35m",
    b"\x1b[0m",
];

/// `b` without csift's own style sequences.
pub fn strip_styles(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    'outer: while i < b.len() {
        for s in STYLES {
            if b[i..].starts_with(s) {
                i += s.len();
                continue 'outer;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// First byte a terminal would act on: C0 controls other than tab and newline,
/// DEL, and the C1 range as UTF-8 (`\xc2\x80`…`\xc2\x9f`).
pub fn control_byte(b: &[u8]) -> Option<usize> {
    b.iter().enumerate().position(|(i, &c)| {
        (c < 0x20 && c != b'\n' && c != b'\t')
            || c == 0x7f
            || (c == 0xc2 && b.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// Run every command of [`COMMANDS`] against `home`, with `extra` arguments
/// (targets, flags) after the command's own, in human and JSON form.
pub fn every_command(home: &Path, extra: &[&str]) -> Vec<Run> {
    every_command_in(home, extra, &[false, true])
}

/// [`every_command`] in human form only (for homes where each run costs
/// seconds in a debug build).
pub fn every_command_human(home: &Path, extra: &[&str]) -> Vec<Run> {
    every_command_in(home, extra, &[false])
}

fn every_command_in(home: &Path, extra: &[&str], forms: &[bool]) -> Vec<Run> {
    let mut runs = Vec::new();
    for cmd in COMMANDS {
        for &json in forms {
            let mut args = command(home, cmd, extra);
            if json {
                args.extend(["--format".to_string(), "json".to_string()]);
            }
            let r = run(home, &args);
            if json && !r.skipped {
                for line in r.stdout().lines().filter(|l| !l.trim().is_empty()) {
                    assert!(
                        serde_json::from_str::<serde_json::Value>(line).is_ok(),
                        "`csift {}`: stdout line is not JSON: {}",
                        r.label,
                        &line[..line.len().min(200)]
                    );
                }
            }
            runs.push(r);
        }
    }
    runs
}

/// Run `args` and sample the child's peak resident set (`VmHWM`, a high-water
/// mark, so a late sample still sees an earlier peak) every few milliseconds
/// until it exits. Returns KiB and the run (checked like any other).
pub fn peak_rss_kb(home: &Path, args: &[&str]) -> (u64, Run) {
    let dir = tempfile::tempdir().unwrap();
    let (o, e) = (dir.path().join("out"), dir.path().join("err"));
    let started = Instant::now();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("csift"))
        .args(args)
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env("CLAUDE_CONFIG_DIR", home)
        .env("NO_COLOR", "1")
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if started.elapsed() > WATCHDOG {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(3));
    };
    let run = Run {
        label: args.join(" "),
        elapsed: started.elapsed(),
        skipped: false,
        out: Output {
            status,
            stdout: std::fs::read(&o).unwrap(),
            stderr: std::fs::read(&e).unwrap(),
        },
    };
    check(&run);
    assert!(peak > 0, "could not read VmHWM of the child");
    (peak, run)
}
