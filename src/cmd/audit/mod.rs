//! `csift audit`: detect what Claude Code silently lost from its transcripts.
//! Files are audited in parallel (one pass each, [`file`], through the census
//! cache, [`census`]), session folders are checked from directory listings
//! ([`folders`]), findings are filtered by `--since/--until`, sorted newest
//! first and handed to [`print`].
//!
//! Exit status: 0 no findings of the selected kinds, 1 findings, 2 an error.

pub(crate) mod calls;
pub(crate) mod census;
pub(crate) mod checked;
pub(crate) mod dup;
pub(crate) mod eaten;
pub(crate) mod file;
pub(crate) mod finding;
pub(crate) mod folders;
pub(crate) mod pass;
pub(crate) mod print;
pub(crate) mod refs;

use std::time::Instant;

use crate::cache::{self, Cache};
use crate::cli::audit::{AuditArgs, Kind};
use crate::discovery::home;
use crate::output::Out;
use crate::timefmt::{self, Window};

use super::{Exit, Problems};
use finding::Finding;

/// Everything the printer needs.
pub(crate) struct Report {
    pub(crate) kinds: Vec<Kind>,
    pub(crate) findings: Vec<Finding>,
    pub(crate) files: usize,
    pub(crate) bytes: u64,
    pub(crate) multi_block: usize,
    /// Findings csift could not place in time, left out by `--since/--until`.
    pub(crate) untimed_left_out: usize,
}

pub(crate) fn run(
    args: &AuditArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let kinds: Vec<Kind> = if args.kinds.is_empty() {
        Kind::ALL.to_vec()
    } else {
        let mut k = args.kinds.clone();
        k.sort();
        k.dedup();
        k
    };
    let want = file::Want::from(&kinds);
    let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    let transcripts = super::select(&args.common, &args.targets, problems)?;
    let home = home::from_env(args.common.claude_home.clone()).ok();
    let cache = Cache::new(
        !args.no_cache,
        cache::state_root(),
        home.as_ref().map(|h| h.root.as_path()),
    );
    // Each project's cache pack is written once its last file is done: one
    // file per project, not per transcript (a cold run over 2,832 transcripts
    // cost 73% more CPU than --no-cache creating a pack for each).
    for t in &transcripts {
        cache.will_read(&t.project_dir, 1);
    }
    // The session folders are checked from directory listings while the
    // files are read (after them, the listings ran on one core alone: ~4 ms
    // at the end of the big home's run).
    let projects = home
        .as_ref()
        .filter(|_| args.targets.is_empty())
        .map(|h| h.projects());
    let (results, folder_findings) = rayon::join(
        || {
            crate::scan::par_map_larger_first(
                &transcripts,
                |t| t.size,
                0,
                |t| audit_file(t, &want, &cache),
            )
        },
        || {
            if want.lanes {
                folders::findings(&transcripts, projects.as_deref())
            } else {
                Vec::new()
            }
        },
    );
    cache.flush();
    if std::env::var_os("CSIFT_CACHE_STATS").is_some() {
        crate::output::to_stderr(&crate::output::sanitize::clean(&format!(
            "csift: {}",
            cache.report()
        )));
    }

    let mut findings = Vec::new();
    let mut bytes = 0;
    let mut multi_block = 0;
    for (t, r) in transcripts.iter().zip(results) {
        if let Some(e) = &r.error {
            problems.report(&t.path, e);
        }
        bytes += r.bytes;
        multi_block += r.multi_block;
        findings.extend(r.findings);
    }
    findings.extend(folder_findings);
    // A finding is placed by its own record's time, else the last time
    // before it in its file; one still without a time is left out by a
    // window, and the count of those is printed.
    let mut untimed_left_out = 0;
    if !window.is_open() {
        findings.retain(|f| {
            let t = f.timestamp.as_deref().and_then(timefmt::parse_ts);
            untimed_left_out += usize::from(t.is_none());
            window.contains(t)
        });
    }
    // Newest first; undated findings (folders) last; then by place.
    findings.sort_by(|a, b| {
        b.timestamp
            .is_some()
            .cmp(&a.timestamp.is_some())
            .then_with(|| b.timestamp.cmp(&a.timestamp))
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.line.cmp(&b.line))
            .then_with(|| a.kind.cmp(&b.kind))
    });
    let report = Report {
        kinds,
        findings,
        files: transcripts.len(),
        bytes,
        multi_block,
        untimed_left_out,
    };
    let st = out.style;
    let view = print::View::from_args(args);
    print::print(out, st, &report, view, started, problems.count())?;
    Ok(if problems.count() > 0 {
        Exit::Error
    } else if report.findings.is_empty() {
        Exit::Found
    } else {
        Exit::NotFound
    })
}

/// One transcript's findings, through the census cache (read whole with it
/// off): the file's own, then its pointers checked on disk.
fn audit_file(
    t: &crate::discovery::Transcript,
    want: &file::Want,
    cache: &Cache,
) -> file::FileAudit {
    let setup = file::Setup::of(t, want);
    match cache.census_grouped::<census::FileCensus>(&t.project_dir, &t.path, &setup) {
        Ok((c, _)) => {
            let (findings, bytes, multi_block) = c.finish(&setup, t);
            file::FileAudit {
                findings,
                bytes,
                multi_block,
                error: None,
            }
        }
        Err(e) => file::FileAudit {
            error: Some(e.to_string()),
            ..file::FileAudit::default()
        },
    }
}
