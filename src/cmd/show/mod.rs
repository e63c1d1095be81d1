//! `csift show`: print records exactly, addressed by physical line, uuid or turn,
//! rendered per label (default), as their original bytes (`--raw`) or as JSON
//! units shaped like search's matches; or list a transcript's branch points.
//! Addresses are resolved for every file first, so a missed address fails the run
//! before anything is printed (REC-093).

pub(crate) mod branch;
pub(crate) mod fetch;
mod line;
pub(crate) mod print;
pub(crate) mod progress;
#[cfg(test)]
mod tests;

use std::io::Write;
use std::time::Instant;

use crate::address;
use crate::classify::{FileIndex, LabelSet};
use crate::cli::show::ShowArgs;
use crate::discovery::Transcript;
use crate::error::Error;
use crate::output::{Format, Out, Style};
use crate::scan::Source;
use crate::timefmt::Window;

use super::{Exit, Problems};
use fetch::{Copy, Want};
use line::{print_line, FileCtx, Shown};

/// Narrow to the transcript that owns line and turn numbers (REC-094): a session
/// with lanes means its main transcript; a lane is named by its own @agent-id.
pub(crate) fn owning(ts: Vec<Transcript>) -> Result<Vec<Transcript>, Error> {
    if ts.len() <= 1 {
        return Ok(ts);
    }
    let mains: Vec<Transcript> = ts.iter().filter(|t| !t.is_lane()).cloned().collect();
    match mains.len() {
        1 => Ok(mains),
        0 => Err(Error::Usage(format!(
            "this needs one transcript (line and turn numbers belong to one file), and the target selected {} lanes and no main transcript; name one with @<agent-id> (see `csift agents`)",
            ts.len()
        ))),
        n => Err(Error::Usage(format!(
            "this needs one transcript (line and turn numbers belong to one file), and the target selected {n} sessions; name one with @<session-id> (see `csift list`)"
        ))),
    }
}

/// A bare show printed every record of every session (53,000 lines on a real
/// home): a TARGET is required, unless `--uuid` looks for records everywhere.
fn require_target(args: &ShowArgs) -> Result<(), Error> {
    if !args.targets.is_empty() || !args.uuids.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(
        "show needs a TARGET: a session as `csift list` prints it (@<session-id>), a lane \
         (@<agent-id>), a .jsonl file or a project folder; --uuid alone looks in every transcript"
            .into(),
    ))
}

/// One file's resolved addresses, owned so the files can be resolved in parallel.
struct Resolved {
    src: Option<Source>,
    idx: Option<FileIndex>,
    picks: Vec<(usize, usize, Option<Copy>)>,
    misses: Vec<String>,
    error: Option<String>,
}

fn resolve(t: &Transcript, want: &Want, need_index: bool, embeds: bool) -> Resolved {
    let failed = |e: Error| Resolved {
        src: None,
        idx: None,
        picks: Vec::new(),
        misses: Vec::new(),
        error: Some(e.to_string()),
    };
    let src = match Source::open(&t.path) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let idx = need_index.then(|| {
        let idx = FileIndex::build(&src, t.is_lane());
        // A subagent's records nested in agent_progress records show as its
        // units, as search finds them (unless its lane file holds them).
        match embeds {
            true => idx.with_embeds(std::sync::Arc::new(t.lane_files())),
            false => idx,
        }
    });
    let (picks, misses) = {
        let picked = fetch::pick(&src, want, idx.as_ref());
        let picks = picked
            .picks
            .into_iter()
            .map(|p| (p.line.no, p.line.offset, p.copy))
            .collect();
        (picks, picked.misses)
    };
    // A file cut while mapped read zeros past the cut: nothing of it is shown.
    if let Err(e) = src.check() {
        return failed(e);
    }
    Resolved {
        src: Some(src),
        idx,
        picks,
        misses,
        error: None,
    }
}

/// `show`'s arguments resolved once: every check made, every address parsed,
/// in the order the errors are reported.
struct Config {
    labels: Option<LabelSet>,
    want: Want,
    window: Window,
}

impl Config {
    fn from_args(args: &ShowArgs) -> Result<Config, Error> {
        if args.raw && args.common.format == Format::Json {
            // The raw bytes are not JSON Lines (a glued line holds two objects);
            // JSON already carries each record whole.
            return Err(Error::Usage(
                "--raw prints the lines' exact bytes and --format json prints records as JSON: choose one".into(),
            ));
        }
        require_target(args)?;
        let labels = match args.labels.is_empty() {
            true => None,
            false => Some(LabelSet::parse(&args.labels).map_err(Error::Usage)?),
        };
        let want = Want {
            lines: address::parse(&args.lines).map_err(Error::Usage)?,
            turns: address::parse(&args.turns).map_err(Error::Usage)?,
            uuids: args.uuids.clone(),
        };
        let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
        Ok(Config {
            labels,
            want,
            window,
        })
    }

    /// Line and turn numbers belong to one file.
    fn numbered(&self) -> bool {
        !self.want.lines.is_empty() || !self.want.turns.is_empty()
    }
}

pub(crate) fn run(
    args: &ShowArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let cfg = Config::from_args(args)?;
    let mut ts = super::select(&args.common, &args.targets, problems)?;
    if args.branch_points {
        return branch::run(&ts, out, args.common.format, problems, started);
    }
    if cfg.numbered() {
        ts = owning(ts)?;
    }
    let need_index = !cfg.want.turns.is_empty() || !args.raw || cfg.labels.is_some();
    let files: Vec<Resolved> = crate::scan::par_map(&ts, |t| {
        resolve(t, &cfg.want, need_index, !args.common.no_subagents)
    });
    fail_on_misses(&ts, &files, problems)?;
    let st = out.style;
    let shown = print_files(out, st, args, &cfg, &ts, &files, problems)?;
    if args.common.format == Format::Json && !args.raw {
        out.json(&print::Summary {
            kind: "summary",
            files: ts.len(),
            records: shown.records,
            malformed: shown.malformed,
            units: shown.units,
            errors: problems.count(),
            elapsed_ms: started.elapsed().as_millis(),
        })?;
    }
    Ok(Exit::from(
        shown.records + shown.malformed > 0,
        problems.count(),
    ))
}

/// Report each file that failed; a missed address fails the run before
/// anything is printed (REC-093). A uuid misses only when no selected
/// transcript holds it; other misses are per-file and the address was
/// narrowed to one file.
fn fail_on_misses(ts: &[Transcript], files: &[Resolved], problems: &Problems) -> Result<(), Error> {
    let mut misses: Vec<String> = Vec::new();
    for (t, f) in ts.iter().zip(files) {
        if let Some(e) = &f.error {
            problems.report(&t.path, e);
        }
        for m in &f.misses {
            let everywhere = !m.starts_with("uuid ")
                || files
                    .iter()
                    .filter(|g| g.error.is_none())
                    .all(|g| g.misses.contains(m));
            if everywhere && !misses.contains(m) {
                misses.push(m.clone());
            }
        }
    }
    if misses.is_empty() {
        return Ok(());
    }
    // Name where the address was looked for, so the user can check it.
    let place = match ts {
        [t] => format!(" in {}", crate::output::sanitize::path(&t.path)),
        many => format!(" (searched {} transcripts)", many.len()),
    };
    Err(Error::NotFound(format!(
        "no such record(s){place}: {}",
        misses.join(", ")
    )))
}

/// Print every picked line of every readable file, in order; then say which
/// raw prints held several copies of a uuid.
fn print_files<W: Write>(
    w: &mut W,
    st: Style,
    args: &ShowArgs,
    cfg: &Config,
    ts: &[Transcript],
    files: &[Resolved],
    problems: &Problems,
) -> crate::error::Result<Shown> {
    let home_args = crate::discovery::home::from_env(args.common.claude_home.clone())?.flag_args();
    let mut shown = Shown::default();
    for (t, f) in ts.iter().zip(files) {
        let Some(src) = &f.src else { continue };
        let ctx = FileCtx {
            t,
            buf: src,
            idx: f.idx.as_ref(),
            labels: cfg.labels,
            window: &cfg.window,
            raw: args.raw,
            format: args.common.format,
            no_truncate: args.no_truncate,
            uuids: &args.uuids,
            home_args: &home_args,
            st,
        };
        for (no, offset, copy) in &f.picks {
            print_line(w, &ctx, *no, *offset, copy.as_ref(), &mut shown)?;
        }
        // Cut while it was printed: what was printed past the cut is not the file.
        if let Err(e) = src.check() {
            problems.report(&t.path, e);
        }
    }
    for (t, f) in ts.iter().zip(files) {
        if f.picks.iter().any(|p| p.2.is_some()) && args.raw {
            problems.note(format_args!(
                "{}: a requested uuid has several lines; every copy was printed",
                crate::output::sanitize::path(&t.path)
            ));
        }
    }
    Ok(shown)
}
