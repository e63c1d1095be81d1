//! One module per command. A command takes validated arguments, computes its
//! results with the shared engine, and hands them to its printer. The helpers here
//! are what every command needs: resolving the home and targets, reporting
//! per-file problems on stderr, and the ripgrep-style exit status.

pub(crate) mod agents;
pub(crate) mod audit;
pub(crate) mod completions;
pub(crate) mod export;
pub(crate) mod files;
pub(crate) mod guard;
pub(crate) mod hooks;
pub(crate) mod image;
pub mod list;
#[cfg(feature = "mcp")]
pub(crate) mod mcp;
pub(crate) mod plan;
pub(crate) mod recover;
pub(crate) mod search;
pub(crate) mod show;
pub(crate) mod stats;
pub(crate) mod status;
pub(crate) mod statusline;
pub(crate) mod tasks;
pub(crate) mod usage;
pub(crate) mod verbatim;
pub(crate) mod wait;
pub(crate) mod whoami;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::cli::Common;
use crate::discovery::{home, target, Transcript};
use crate::error::Result;

/// ripgrep's exit status: 0 found, 1 nothing found, 2 error; and `wait`'s
/// documented exception, 124 on its timeout (MISC-019).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    Found,
    NotFound,
    Error,
    Timeout,
}

impl Exit {
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Found => 0,
            Exit::NotFound => 1,
            Exit::Error => 2,
            Exit::Timeout => 124,
        }
    }

    /// Found/NotFound from a count, overridden by Error when any file failed.
    pub(crate) fn from(found: bool, errors: usize) -> Exit {
        if errors > 0 {
            Exit::Error
        } else if found {
            Exit::Found
        } else {
            Exit::NotFound
        }
    }
}

/// Everything a command says on stderr, in one place and one form
/// (`csift: …`, cleaned for the terminal, a closed stderr ignored):
/// per-file problems, printed as they happen and counted for the exit
/// status ([`Problems::report`]); problems with files the command was not
/// asked about, said but not counted ([`Problems::aside`]); and notes that
/// are no error ([`Problems::note`]). The same problem met twice (a command
/// that walks a project again, as `agents` does for a named lane's siblings)
/// is said and counted once.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    count: AtomicUsize,
    seen: std::sync::Mutex<std::collections::HashSet<(PathBuf, String)>>,
    /// Set by [`Problems::capturing`]: lines are kept here instead of written
    /// to stderr (`csift mcp` answers them with the result).
    captured: Option<std::sync::Mutex<Vec<String>>>,
}

impl Problems {
    /// Problems that keep what they say (see [`Problems::said`]) rather than
    /// write it to stderr: an in-process run's stderr is the server's log.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn capturing() -> Problems {
        Problems {
            captured: Some(std::sync::Mutex::new(Vec::new())),
            ..Problems::default()
        }
    }

    /// The lines a [`Problems::capturing`] kept, in the order said, without
    /// the `csift: ` prefix stderr would show.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn said(&self) -> Vec<String> {
        self.captured.as_ref().map_or_else(Vec::new, |c| {
            c.lock().unwrap_or_else(|p| p.into_inner()).clone()
        })
    }

    /// Say one line: to stderr as `csift: <line>`, or into the capture.
    fn emit(&self, line: String) {
        match &self.captured {
            Some(c) => c.lock().unwrap_or_else(|p| p.into_inner()).push(line),
            None => crate::output::to_stderr(&format!("csift: {line}")),
        }
    }

    /// A problem with one file the command reads: said, and counted (exit 2).
    pub(crate) fn report(&self, path: &Path, msg: impl std::fmt::Display) {
        if self.say(path, &msg.to_string()) {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A problem with a file outside the command's selection (met while a
    /// target was looked for): said, but it does not make a complete answer
    /// exit 2.
    pub(crate) fn aside(&self, path: &Path, msg: impl std::fmt::Display) {
        self.say(path, &msg.to_string());
    }

    /// A note that is no error: `csift: <msg>`, cleaned; the exit status is
    /// not changed.
    pub(crate) fn note(&self, msg: impl std::fmt::Display) {
        self.emit(crate::output::sanitize::clean(&msg.to_string()).into_owned());
    }

    /// Say `path: msg` unless said before; whether it was said.
    fn say(&self, path: &Path, msg: &str) -> bool {
        // An I/O error already names its path: say it once.
        let named = format!("{}: ", path.display());
        let msg = msg.strip_prefix(&named).unwrap_or(msg);
        // A poisoned lock only means another thread panicked mid-insert: the set
        // is still a set, so keep using it.
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if !seen.insert((path.to_path_buf(), msg.to_string())) {
            return false;
        }
        drop(seen);
        // File names and messages may carry escape bytes: clean them for the terminal.
        self.emit(format!(
            "{}: {}",
            crate::output::sanitize::path(path),
            crate::output::sanitize::clean(msg)
        ));
        true
    }

    pub(crate) fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }
}

/// Resolve the home and the targets into transcripts, reporting walk problems.
pub(crate) fn select(
    common: &Common,
    targets: &[String],
    problems: &Problems,
) -> Result<Vec<Transcript>> {
    let home = home::from_env(common.claude_home.clone())?;
    let sel = target::resolve(&home, targets, !common.no_subagents)?;
    for issue in &sel.issues {
        problems.report(&issue.path, &issue.message);
    }
    for issue in &sel.asides {
        problems.aside(&issue.path, &issue.message);
    }
    Ok(sel.transcripts)
}

/// `12.3K`, `4.5M`: compact byte sizes for human rows.
pub(crate) fn human_bytes(n: u64) -> String {
    let mut out = String::with_capacity(8);
    push_human_bytes(&mut out, n);
    out
}

/// [`human_bytes`], appended to `out`: one decimal of `n / 1024^u`, rounded
/// half to even as `{:.1}` rounds the exact quotient, in integers (a
/// 5,000-row listing spent a twentieth of its printing in float formatting).
pub(crate) fn push_human_bytes(out: &mut String, n: u64) {
    use std::fmt::Write as _;
    const UNITS: [char; 5] = ['B', 'K', 'M', 'G', 'T'];
    let mut u = 0;
    while u < UNITS.len() - 1 && u128::from(n) >= 1u128 << (10 * (u + 1)) {
        u += 1;
    }
    if u == 0 {
        let _ = write!(out, "{n}B");
        return;
    }
    let d = 1u128 << (10 * u);
    let tenths = u128::from(n) * 10;
    let (mut q, r) = (tenths / d, tenths % d);
    if 2 * r > d || (2 * r == d && q % 2 == 1) {
        q += 1;
    }
    let _ = write!(out, "{}.{}", q / 10, q % 10);
    out.push(UNITS[u]);
}

/// The common flags a command that reads no window or lane set cannot honour:
/// given, they are a usage error rather than silently ignored.
pub(crate) fn not_applicable(cmd: &str, c: &crate::cli::Common) -> crate::error::Result<()> {
    let given: Vec<&str> = [
        (c.since.is_some(), "--since"),
        (c.until.is_some(), "--until"),
        (c.no_subagents, "--no-subagents"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    let verb = if given.len() == 1 { "does" } else { "do" };
    Err(crate::error::Error::Usage(format!(
        "{cmd} reads no time window or lane set: {} {verb} not apply",
        given.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    /// The integer rounding writes what `{:.1}` of the float quotient
    /// writes, for every size a float holds exactly (below 2^53).
    #[test]
    fn human_bytes_match_float_formatting() {
        let float = |n: u64| {
            const UNITS: [&str; 5] = ["B", "K", "M", "G", "T"];
            let (mut v, mut u) = (n as f64, 0);
            while v >= 1024.0 && u < UNITS.len() - 1 {
                v /= 1024.0;
                u += 1;
            }
            match u {
                0 => format!("{n}B"),
                _ => format!("{v:.1}{}", UNITS[u]),
            }
        };
        let mut sizes: Vec<u64> = (0..300_000).step_by(3).collect();
        for k in 1..=5u32 {
            let p = 1u64 << (10 * k);
            // Around each unit's edge and each half-tenth (ties round to even).
            for m in [1u64, 2, 3, 5, 1023, 1024, 1025] {
                for delta in -3i64..=3 {
                    sizes.push((p * m / 20).saturating_add_signed(delta));
                    sizes.push((p * m).saturating_add_signed(delta));
                }
            }
        }
        sizes.extend([1_048_575, 1_048_576, 1_073_741_823, (1 << 53) - 1]);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            sizes.push(x >> (11 + x % 40));
        }
        for n in sizes {
            assert_eq!(super::human_bytes(n), float(n), "{n}");
        }
    }
}
