//! Floors: the cost of the passes every csift command is built from, each run
//! alone over a whole Claude home the way the commands run (files in parallel,
//! largest first), so `bench/run` can time them side by side with `rg` and say
//! how far below a target the cheapest possible design would already be.
//!
//! ```text
//! floors stat  HOME   # list every directory and stat every `*.jsonl`, keeping
//!                     #   nothing: what `status` with no target must do at least
//! floors walk  HOME   # discovery: the tree walk, one stat and a transcript per file
//! floors open  HOME   # + open and close every transcript
//! floors edges HOME   # + a 4 KB head and a 4 KB tail read (one read up to 8 KB)
//! floors read  HOME   # + what `list --no-cache` reads by its own reader: files
//!                     #   up to 256 KB whole, larger ones as two 4 KB windows
//! floors lines HOME   # map every file and find every newline
//! floors utf8  HOME   # + a UTF-8 check of every line
//! floors skim  HOME   # lines + a structural skim of every line (audit's per-line floor)
//! floors serde HOME   # lines + UTF-8 + serde_json validating every line (IgnoredAny)
//! floors parse HOME   # lines + the census's own record parse (`record::parse_line`)
//! ```
//!
//! Each prints one count, so no pass can be optimised away. Nothing is written.

use std::fs::File;
use std::path::PathBuf;
use std::process::ExitCode;

use csift::discovery::{home, target, Transcript};
use csift::record::{parse_line, Parsed};
use csift::scan::{par_map, Source};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, home] = args.as_slice() else {
        eprintln!("usage: floors stat|walk|open|edges|read|lines|utf8|skim|serde|parse HOME");
        return ExitCode::from(2);
    };
    match run(mode, home) {
        Ok(n) => {
            println!("{mode}: {n}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("floors: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(mode: &str, home: &str) -> Result<u64, String> {
    let home = home::from_env(Some(PathBuf::from(home))).map_err(|e| e.to_string())?;
    if mode == "stat" {
        let projects: Vec<PathBuf> = std::fs::read_dir(home.root.join("projects"))
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.path())
            .collect();
        return Ok(par_map(&projects, |p| stat_all(p, 0)).into_iter().sum());
    }
    let mut ts = target::resolve(&home, &[], true)
        .map_err(|e| e.to_string())?
        .transcripts;
    // Largest first, so the biggest file never starts last on an idle core.
    ts.sort_by_key(|t| std::cmp::Reverse(t.size));
    let per_file: fn(&Transcript) -> u64 = match mode {
        "walk" => |_| 1,
        "open" => |t| u64::from(File::open(&t.path).is_ok()),
        "edges" => head_and_tail,
        "read" => list_reads,
        "lines" => |t| each_line(t, |_| 1),
        "utf8" => |t| each_line(t, |l| u64::from(simdutf8::basic::from_utf8(l).is_ok())),
        "skim" => skim,
        "serde" => |t| each_line(t, validate),
        "parse" => parse,
        _ => return Err(format!("unknown pass {mode:?}")),
    };
    Ok(par_map(&ts, per_file).into_iter().sum())
}

/// The first and last 4 KB of the file: what any `list` that opens its
/// files reads at least, and what a hit of the census cache reads (its
/// entry's two edge digests). One read when the file is no larger than 8 KB.
fn head_and_tail(t: &Transcript) -> u64 {
    use std::os::unix::fs::FileExt;
    const EDGE: u64 = 4096;
    let Ok(f) = File::open(&t.path) else {
        return 0;
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return 0;
    };
    let mut buf = [0u8; 2 * EDGE as usize];
    if len <= 2 * EDGE {
        let n = len as usize;
        return f.read_exact_at(&mut buf[..n], 0).map_or(0, |()| len);
    }
    let (head, tail) = buf.split_at_mut(EDGE as usize);
    let ok = f.read_exact_at(head, 0).is_ok() && f.read_exact_at(tail, len - EDGE).is_ok();
    u64::from(ok) * 2 * EDGE
}

/// What `list --no-cache` reads of the file, by its own reader: the whole
/// file up to 256 KB (for exact turn counts), else its first head and tail
/// windows.
fn list_reads(t: &Transcript) -> u64 {
    use csift::cmd::list::read::Bytes;
    match Bytes::open(&t.path, false) {
        Ok(Bytes::Windows(w)) => (w.head().len() + w.tail().1.len()) as u64,
        Ok(b) => b.whole().map_or(0, |b| b.len() as u64),
        Err(_) => 0,
    }
}

/// The `*.jsonl` files under `dir` stat'ed relative to their open directory
/// (as the walk does), nothing kept: directories by the listing's type, no
/// symlink followed, six levels at most (the walk's lane depth).
fn stat_all(dir: &std::path::Path, depth: usize) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in rd.flatten() {
        match e.file_type() {
            Ok(t) if t.is_dir() && depth < 8 => n += stat_all(&e.path(), depth + 1),
            Ok(t) if t.is_file() && e.file_name().as_encoded_bytes().ends_with(b".jsonl") => {
                n += u64::from(e.metadata().is_ok_and(|m| m.modified().is_ok()));
            }
            _ => {}
        }
    }
    n
}

/// `f` over every line of the file, framed as the commands frame it.
fn each_line(t: &Transcript, f: impl Fn(&[u8]) -> u64) -> u64 {
    let Ok(src) = Source::open(&t.path) else {
        return 0;
    };
    csift::scan::Lines::new(&src).map(|l| f(l.bytes)).sum()
}

/// serde_json reading every line as one JSON value and keeping nothing, after
/// the UTF-8 check (`from_str` then trusts the bytes, as the census does).
fn validate(line: &[u8]) -> u64 {
    let Ok(s) = simdutf8::basic::from_utf8(line) else {
        return 0;
    };
    u64::from(serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok())
}

/// Audit's line skim: framing and the structural walk in one call per line.
fn skim(t: &Transcript) -> u64 {
    use csift::loss::skim::skim_at;
    let Ok(src) = Source::open(&t.path) else {
        return 0;
    };
    let buf: &[u8] = &src;
    let (mut n, mut at) = (0, 0);
    while at < buf.len() {
        let (top, end) = skim_at(buf, at, false);
        n += u64::from(top.is_ok());
        at = end + 1;
    }
    n
}

/// The census's record parse of every line.
fn parse(t: &Transcript) -> u64 {
    let Ok(src) = Source::open(&t.path) else {
        return 0;
    };
    csift::scan::Lines::new(&src)
        .map(|line| u64::from(matches!(parse_line(&line), Parsed::Record(_))))
        .sum()
}
