//! `csift search`: regex over labelled units, printed as complete exchanges.
//! Files are searched in parallel and reported in path order; per-file errors are
//! reported and the run goes on (exit 2 at the end, as ripgrep).

mod config;
mod confirm;
pub(crate) mod file;
mod forms;
pub(crate) mod hit;
pub(crate) mod matcher;
mod modes;
mod persisted;
pub(crate) mod prefilter;
pub(crate) mod print;
mod unit;
pub(crate) mod unmodelled;

use std::collections::BTreeSet;
use std::io::Write;
use std::time::Instant;

use serde::Serialize;

use crate::classify::Label;
use crate::cli::search::SearchArgs;
use crate::discovery::Transcript;
use crate::globs::NameGlobs;
use crate::output::{Format, Out};

use super::{Exit, Problems};
use config::{Mode, Resolved};
use file::FileResult;

/// The taxonomy, one label a line, then the aliases `-t` accepts, each with
/// the leaf it names; with `--format json`, one
/// `{"type":"label","label","visible","description"}` object a line, then one
/// `{"type":"alias","alias","label"}` per alias.
pub(crate) fn list_labels(out: &mut Out, json: bool) -> std::io::Result<()> {
    #[derive(Serialize)]
    struct Row {
        #[serde(rename = "type")]
        kind: &'static str,
        label: &'static str,
        visible: bool,
        description: &'static str,
    }
    #[derive(Serialize)]
    struct Alias {
        #[serde(rename = "type")]
        kind: &'static str,
        alias: &'static str,
        label: &'static str,
    }
    for l in Label::ALL {
        if json {
            out.json(&Row {
                kind: "label",
                label: l.name(),
                visible: l.visible(),
                description: l.doc(),
            })?;
            continue;
        }
        writeln!(
            out,
            "{:<34} {:<9} {}",
            l.name(),
            if l.visible() { "visible" } else { "invisible" },
            l.doc()
        )?;
    }
    if !json {
        writeln!(out, "\naliases (earlier spellings -t accepts):")?;
    }
    for &(alias, l) in Label::ALIASES {
        match json {
            true => out.json(&Alias {
                kind: "alias",
                alias,
                label: l.name(),
            })?,
            false => writeln!(out, "{alias:<44} = {}", l.name())?,
        }
    }
    Ok(())
}

/// Lines of unmodelled types said on stderr; the rest are counted.
const UNMODELLED_SHOWN: usize = 10;

#[derive(Serialize)]
struct Summary {
    #[serde(rename = "type")]
    kind: &'static str,
    hits: usize,
    exchanges: usize,
    dropped: usize,
    files: usize,
    files_with_hits: usize,
    bytes: u64,
    malformed_lines: usize,
    /// Lines where the pattern matched only in a record or block type csift
    /// does not model (each said on stderr, up to [`UNMODELLED_SHOWN`]).
    unmodelled_lines: usize,
    /// Files or targets that could not be read (said on stderr; exit 2).
    errors: usize,
    elapsed_ms: u128,
}

pub(crate) fn run(
    args: &SearchArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    if args.list_labels {
        list_labels(out, args.common.format == crate::output::Format::Json)?;
        return Ok(Exit::Found);
    }
    let cfg = Resolved::from_args(args, problems)?;
    let transcripts = super::select(&args.common, &cfg.targets, problems)?;
    let home = crate::discovery::home::from_env(args.common.claude_home.clone())?;
    let results: Vec<FileResult> =
        crate::scan::par_map(&transcripts, |t| file::search(t, &cfg.file));
    let tally = Tally::report(&transcripts, &results, &home, problems);
    unmatched_globs(
        problems,
        "--tool",
        "tool name",
        cfg.file.tool.as_ref(),
        &results,
        |r| &r.tools_seen,
    );
    unmatched_globs(
        problems,
        "--model",
        "model",
        cfg.file.model.as_ref(),
        &results,
        |r| &r.models_seen,
    );
    if tally.unmodelled > UNMODELLED_SHOWN {
        problems.note(format_args!(
            "… and {} more lines where the pattern matches only a record or block type csift does not model",
            tally.unmodelled - UNMODELLED_SHOWN
        ));
    }
    let (exchanges, dropped) = match &cfg.mode {
        Mode::PerFile { count } => modes::per_file(out, &cfg, &transcripts, &results, *count)?,
        Mode::Raw => modes::raw_lines(out, &cfg, &transcripts, &results, problems)?,
        Mode::CountBy(key) => modes::count_by(out, &cfg, &transcripts, &results, *key)?,
        Mode::Exchanges(cut) => modes::exchanges(out, &cfg, &results, cut)?,
    };
    // Each failed file was reported (and counted) once, above.
    let errors = problems.count();
    if cfg.format == Format::Json {
        out.json(&Summary {
            kind: "summary",
            hits: tally.hits,
            exchanges: exchanges.min(cfg.max_count.unwrap_or(usize::MAX)),
            dropped,
            files: transcripts.len(),
            files_with_hits: tally.files_with_hits,
            bytes: tally.bytes,
            malformed_lines: tally.malformed,
            unmodelled_lines: tally.unmodelled,
            errors,
            elapsed_ms: started.elapsed().as_millis(),
        })?;
    }
    Ok(Exit::from(tally.hits > 0, errors))
}

/// What the files' results add up to, for the summary and the exit status.
#[derive(Default)]
struct Tally {
    hits: usize,
    files_with_hits: usize,
    bytes: u64,
    malformed: usize,
    unmodelled: usize,
}

impl Tally {
    /// Say each file's problems on stderr (its error, notes, malformed lines
    /// and the first [`UNMODELLED_SHOWN`] unmodelled matches), in path order,
    /// and add up its counts.
    fn report(
        transcripts: &[Transcript],
        results: &[FileResult],
        home: &crate::discovery::home::ClaudeHome,
        problems: &Problems,
    ) -> Tally {
        let mut tally = Tally::default();
        for (t, r) in transcripts.iter().zip(results) {
            if let Some(e) = &r.error {
                problems.report(&t.path, e);
            }
            for n in &r.notes {
                problems.note(crate::output::sanitize::one_line(n));
            }
            for m in &r.malformed {
                problems.note(format_args!(
                    "{}:{}: malformed line ({}): {}",
                    crate::output::sanitize::path(&t.path),
                    m.line,
                    m.kind.name(),
                    m.detail
                ));
            }
            for (no, what) in &r.unmodelled {
                tally.unmodelled += 1;
                if tally.unmodelled <= UNMODELLED_SHOWN {
                    let target = t.target_args(home);
                    problems.note(format_args!(
                        "{}:{no}: the pattern matches only in {}, which no label holds; `csift show {} --line {no} --raw` prints the line",
                        crate::output::sanitize::path(&t.path),
                        crate::output::sanitize::one_line(what),
                        crate::output::sanitize::one_line(&target)
                    ));
                }
            }
            tally.hits += r.hits.len();
            tally.files_with_hits += usize::from(!r.hits.is_empty());
            tally.bytes += r.bytes;
            tally.malformed += r.malformed.len();
        }
        tally
    }
}

/// Names said when a glob matches no name in the searched lines.
const NAMES_SHOWN: usize = 30;

/// Say on stderr which glob of `flag` matched no name seen in the lines the
/// search read (candidate lines), and which names those lines hold: a glob
/// that misses is otherwise indistinguishable from a search with no match.
fn unmatched_globs(
    problems: &Problems,
    flag: &str,
    what: &str,
    globs: Option<&NameGlobs>,
    results: &[FileResult],
    seen: impl Fn(&FileResult) -> &BTreeSet<String>,
) {
    let Some(globs) = globs else { return };
    let names: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| seen(r).iter().map(String::as_str))
        .collect();
    let one = crate::output::sanitize::one_line;
    for g in globs.unmatched(names.iter().copied()) {
        let there = match names.len() {
            0 => format!("no {what} is in the lines searched"),
            n => {
                let mut v: Vec<String> = names.iter().take(NAMES_SHOWN).map(|n| one(n)).collect();
                if n > NAMES_SHOWN {
                    v.push(format!("(+{} more)", n - NAMES_SHOWN));
                }
                format!("{what}s in the lines searched: {}", v.join(", "))
            }
        };
        problems.note(format_args!(
            "{flag} `{}` matches no {what} ({there})",
            one(g)
        ));
    }
}
