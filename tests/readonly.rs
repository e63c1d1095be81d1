//! The read-only guarantee: a Claude home (the real corpus and the bundled sample
//! home, copied into a temp dir) is snapshotted — every file's content hash, size
//! and mtime, every directory's entries and mtime, every symlink's target — then
//! every command runs with its common flags, and the snapshot must be identical.
//! The process runs with HOME, TMPDIR, the XDG dirs and its cwd pointed at empty
//! directories, which must stay empty: csift writes nowhere the user did not name,
//! except its census cache under `$XDG_STATE_HOME/csift/cache/` (usage, statusline).
//! `guard` writes per-session state, and only under the `--state-dir` named.

use crate::common;
use crate::robust;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use robust::{check, Run, COMMANDS, NOT_IMPLEMENTED};

#[derive(Debug, PartialEq, Eq)]
enum Entry {
    File {
        len: u64,
        mtime: SystemTime,
        hash: u64,
    },
    Dir {
        mtime: SystemTime,
        names: Vec<String>,
    },
    Link(PathBuf),
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        let rel = p.strip_prefix(root).unwrap().to_path_buf();
        let e = if m.file_type().is_symlink() {
            Entry::Link(std::fs::read_link(&p).unwrap())
        } else if m.is_dir() {
            let mut names: Vec<String> = std::fs::read_dir(&p)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            stack.extend(names.iter().map(|n| p.join(n)));
            Entry::Dir {
                mtime: m.modified().unwrap(),
                names,
            }
        } else {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(&p).unwrap().hash(&mut h);
            Entry::File {
                len: m.len(),
                mtime: m.modified().unwrap(),
                hash: h.finish(),
            }
        };
        out.insert(rel, e);
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let t = e.file_type().unwrap();
        if t.is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_tree(&src, &dst);
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A temp home holding the sample home and (when present) the real corpus.
fn home() -> (tempfile::TempDir, bool) {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample/claude-home");
    copy_tree(&sample, dir.path());
    let corpus = common::corpus();
    if let Some(c) = &corpus {
        copy_tree(c, dir.path());
    }
    (dir, corpus.is_some())
}

/// Empty places a stray write would land in.
struct Elsewhere {
    dir: tempfile::TempDir,
}

impl Elsewhere {
    fn new() -> Elsewhere {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "tmp", "cache", "state", "config", "data", "cwd"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        Elsewhere { dir }
    }

    fn run(&self, home: &Path, args: &[&str], stdin: Option<&str>) -> Run {
        let e = self.dir.path();
        let mut c = assert_cmd::Command::cargo_bin("csift").unwrap();
        c.args(args)
            .current_dir(e.join("cwd"))
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env("CLAUDE_CONFIG_DIR", home)
            .env("HOME", e.join("home"))
            .env("TMPDIR", e.join("tmp"))
            .env("XDG_CACHE_HOME", e.join("cache"))
            .env("XDG_STATE_HOME", e.join("state"))
            .env("XDG_CONFIG_HOME", e.join("config"))
            .env("XDG_DATA_HOME", e.join("data"))
            .env("NO_COLOR", "1")
            .timeout(robust::WATCHDOG);
        if let Some(s) = stdin {
            c.write_stdin(s);
        }
        let started = Instant::now();
        let out = c.output().unwrap();
        let run = Run {
            label: args.join(" "),
            elapsed: started.elapsed(),
            skipped: String::from_utf8_lossy(&out.stderr).contains(NOT_IMPLEMENTED),
            out,
        };
        if !run.skipped {
            check(&run);
        }
        if run.elapsed > Duration::from_millis(700) {
            eprintln!(
                "slow: `csift {}` took {:.1}s",
                run.label,
                run.elapsed.as_secs_f64()
            );
        }
        run
    }

    fn assert_untouched(&self) {
        for d in ["home", "tmp", "cache", "config", "data", "cwd"] {
            let p = self.dir.path().join(d);
            let found: Vec<_> = std::fs::read_dir(&p).unwrap().collect();
            assert!(
                found.is_empty(),
                "csift wrote into {}: {found:?}",
                p.display()
            );
        }
        // Its own state: the census cache's files, and nothing else.
        let state = self.dir.path().join("state");
        let cache = state.join("csift/cache");
        let mut stack = vec![state.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                assert!(
                    cache.starts_with(&p) || p.starts_with(&cache),
                    "csift wrote {} outside its cache",
                    p.display()
                );
                if p.is_dir() {
                    stack.push(p);
                } else {
                    assert!(
                        // Packs of entries, a kind's side files (the ledger's quiet
                        // list), and the mark of a kind's last sweep.
                        p.extension().is_some_and(|x| x == "pack" || x == "bin")
                            || p.file_name().is_some_and(|n| n == ".swept"),
                        "{}",
                        p.display()
                    );
                }
            }
        }
    }
}

/// The main transcript and one lane of the first session that has a lane.
fn ids(home: &Path) -> (String, PathBuf, Option<String>) {
    let files = common::transcripts(home);
    let lane = files
        .iter()
        .find(|p| p.to_string_lossy().contains("/subagents/agent-"))
        .cloned();
    let main = match &lane {
        Some(l) => {
            let session_dir = l.ancestors().find(|a| {
                a.parent()
                    .is_some_and(|p| p.parent().is_some_and(|pp| pp.ends_with("projects")))
            });
            session_dir.unwrap().with_extension("jsonl")
        }
        None => files[0].clone(),
    };
    let sid = main.file_stem().unwrap().to_string_lossy().into_owned();
    let agent = lane.map(|l| {
        let stem = l.file_stem().unwrap().to_string_lossy().into_owned();
        stem.trim_start_matches("agent-").to_string()
    });
    (sid, main, agent)
}

/// Each command with its flags; `@S` is the session id, `@A` a lane's agent id,
/// Every entry also runs with `--format json` unless it is already an
/// output-shape flag or ends in `#` (human only: a whole-home read costs seconds
/// in a debug build). Whole-home reads are few; most flags run on one session.
fn matrix() -> Vec<Vec<&'static str>> {
    let mut m: Vec<Vec<&str>> = [
        "list",
        "list -m 2 --no-subagents",
        "list --since 2000-01-01 --until 2100-01-01",
        "list @S --color always",
        "search ^. #",
        "search error -i -C 0 --no-exchange @S",
        "search -F a.b( -w",
        "search -U (?s)the.+end -m 2 @S",
        "search -e todo -e fixme -t user.*,agent.*,harness.* @S",
        "search . @S --tool Bash --attachments --resolve-persisted",
        "search . @S --model *opus* --no-truncate -m 3",
        "search the -c",
        "search the -l --no-subagents",
        "search the --count-by label",
        "search the --count-by month --since 30d",
        "search the @S --no-prefilter -m 5 --color always",
        "show @S",
        "show @S --line 1..5,-2.. --turn -1",
        "show @S --line 1 --raw",
        "show @S --branch-points",
        "show @A --turn 0.. -t agent --no-truncate",
        "verbatim @S",
        "verbatim @S --thinking --tools full --budget 5000",
        "verbatim @S --slices 3 --window 2000",
        "verbatim @S --slices 3 --slice 1 --hook-json",
        "verbatim --hook-json",
        "agents",
        "agents @S --returns parent --width 0",
        "agents --kind task --depth 1",
        "export @S --out - #",
        "export @S --format md --highlight the -t user,agent --out - #",
        "export @A --out - #",
        "whoami",
    ]
    .iter()
    .map(|line| line.split(' ').collect())
    .collect();
    // Commands without flags of their own here (stats, audit, and any added to
    // COMMANDS later) run over everything and over one session.
    for cmd in COMMANDS {
        if !m.iter().any(|v| v[0] == cmd[0]) {
            m.push(cmd.to_vec());
            let mut one = cmd.to_vec();
            one.push("@S");
            m.push(one);
        }
    }
    m
}

#[test]
fn no_command_changes_the_claude_home() {
    let (dir, with_corpus) = home();
    let home = dir.path();
    let before = snapshot(home);
    assert!(before.len() > 10);
    let (sid, main, agent) = ids(home);
    let agent = agent.unwrap_or_else(|| sid.clone());
    let payload = format!(
        "{{\"session_id\":\"{sid}\",\"transcript_path\":\"{}\",\"hook_event_name\":\"SessionStart\",\"source\":\"compact\"}}",
        main.display()
    );
    let elsewhere = Elsewhere::new();
    let started = Instant::now();
    let mut runs = 0;
    for entry in matrix() {
        let shaped = entry.iter().any(|a| {
            matches!(
                *a,
                "--raw" | "--hook-json" | "-c" | "-l" | "--count-by" | "#"
            )
        });
        for json in [false, true] {
            if json && shaped {
                continue;
            }
            let s_at = format!("@{sid}");
            let a_at = format!("@{agent}");
            let mut args: Vec<&str> = entry
                .iter()
                .filter(|a| **a != "#")
                .map(|a| match *a {
                    "@S" => s_at.as_str(),
                    "@A" => a_at.as_str(),
                    other => other,
                })
                .collect();
            if json {
                args.extend_from_slice(&["--format", "json"]);
            }
            let stdin = (entry.contains(&"--hook-json")).then_some(payload.as_str());
            let r = elsewhere.run(home, &args, stdin);
            // Only whoami (no calling session here) may fail: every other entry must
            // really read, or this test would prove nothing.
            if !r.skipped && args[0] != "whoami" {
                assert_ne!(r.code(), 2, "`csift {}`: {}", r.label, r.stderr());
            }
            runs += 1;
        }
    }
    // guard writes per-session state, only under the --state-dir the user names.
    let state = elsewhere.dir.path().join("named-state");
    let state_arg = state.to_str().unwrap();
    for args in [
        &["guard", "--post", "--state-dir", state_arg][..],
        &["guard", "--stop", "--state-dir", state_arg],
        &["guard", "--post", "--state-dir", state_arg],
        &["guard", "--print-settings"],
    ] {
        let r = elsewhere.run(home, args, Some(payload.as_str()));
        assert!(!r.skipped, "guard is merged");
        runs += 1;
    }
    assert!(state.is_dir(), "guard kept no state under --state-dir");
    // The status line reads a payload; it keeps only the census cache.
    for stdin in [payload.as_str(), "{}", "not json"] {
        let r = elsewhere.run(home, &["statusline"], Some(stdin));
        assert_eq!(r.code(), 0, "{}", r.stderr());
        runs += 1;
    }
    let cache = elsewhere.dir.path().join("state/csift/cache");
    assert!(
        cache.is_dir(),
        "usage and statusline keep their census cache"
    );
    // Reading may only ever change access times, which the snapshot leaves out.
    let after = snapshot(home);
    assert_eq!(before.len(), after.len(), "entries appeared or vanished");
    for (p, e) in &before {
        assert_eq!(Some(e), after.get(p), "{} changed", p.display());
    }
    elsewhere.assert_untouched();
    eprintln!(
        "{runs} runs over {} entries (corpus: {with_corpus}) in {:.1}s",
        before.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(started.elapsed() < Duration::from_secs(300));
}
