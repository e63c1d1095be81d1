//! `csift recover`: a file's content rebuilt from the transcript, with what
//! is known and what is not. Config → the touch and recovery engines
//! ([`crate::files`], [`crate::recover`]) → [`print`] (or [`all`] for every file).

pub(crate) mod all;
pub(crate) mod print;

use std::path::PathBuf;
use std::time::Instant;

use crate::cli::recover::RecoverArgs;
use crate::discovery::home;
use crate::error::Error;
use crate::files;
use crate::output::{Format, Out};
use crate::recover::point::{self, Asked};
use crate::recover::replay::Cut;

use super::{Exit, Problems};

/// The resolved configuration of one `recover` run.
pub(crate) struct Config {
    pub(crate) home: PathBuf,
    pub(crate) at: Option<String>,
    pub(crate) out: Option<PathBuf>,
    pub(crate) force: bool,
    pub(crate) coverage: bool,
    pub(crate) format: Format,
    pub(crate) nested: bool,
}

impl Config {
    fn from_args(args: &RecoverArgs) -> crate::error::Result<Config> {
        if args.common.since.is_some() || args.common.until.is_some() {
            return Err(Error::Usage(
                "recover rebuilds a file as of one point: use --at LINE|TIME, not --since/--until"
                    .into(),
            ));
        }
        let home = home::from_env(args.common.claude_home.clone())?.root;
        if let Some(dir) = &args.out {
            crate::recover::dest::check_outside_home(dir, &home)?;
            // The default home too ($CLAUDE_CONFIG_DIR or ~/.claude): with
            // --claude-home naming a copy, the real one is still never written.
            if let Ok(default) = home::from_env(None) {
                crate::recover::dest::check_outside_home(dir, &default.root)?;
            }
        }
        Ok(Config {
            home,
            at: args.at.clone(),
            out: args.out.clone(),
            force: args.force,
            coverage: args.coverage,
            format: args.common.format,
            nested: !args.common.no_subagents,
        })
    }
}

pub(crate) fn run(
    args: &RecoverArgs,
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let cfg = Config::from_args(args)?;
    let transcripts = super::select(&args.common, &args.targets, problems)?;
    if args.all {
        return all::run(&cfg, &transcripts, out, problems, started);
    }
    let input = args.file.as_deref().unwrap_or_default();
    let asked = Asked::new(input);
    let want = |p: &str| asked.matches(p);
    let opts = files::Options {
        recover: true,
        want: Some(&want),
        nested: cfg.nested,
    };
    let all = files::scan_all(&transcripts, &opts);
    for (t, ft) in transcripts.iter().zip(&all) {
        if let Some(e) = &ft.error {
            problems.report(&t.path, e);
        }
    }
    let path = asked.resolve(&all)?;
    let idx = crate::recover::events::Index::new(&all, &transcripts);
    let store = crate::recover::store::Store::read(&cfg.home);
    if args.list_backups {
        let path = path.unwrap_or_else(|| asked.abs.clone());
        let (_, listing) = crate::recover::backups(&store, &path, &idx);
        print::backups(out, &path, &listing, cfg.format)?;
        return Ok(Exit::from(!listing.is_empty(), problems.count()));
    }
    let Some(path) = path else {
        // Through Problems, so `csift mcp` answers the note with the call.
        problems.note(format_args!(
            "no touch of {} in the selected transcripts",
            crate::output::sanitize::one_line(input)
        ));
        return Ok(Exit::from(false, problems.count()));
    };
    let cut = point::cut(cfg.at.as_deref(), &transcripts)?;
    let (trusted, _) = crate::recover::backups(&store, &path, &idx);
    let (timeline, rebuilt) = crate::recover::rebuild(&path, &idx, trusted, cut);
    for (p, e) in idx.problems() {
        problems.report(&p, e);
    }
    let opaque = crate::recover::opaque_after(&path, &timeline, &rebuilt, &all, &transcripts, cut);
    let report = print::Report {
        path: &path,
        timeline: &timeline,
        rebuilt: &rebuilt,
        transcripts: &transcripts,
        opaque: &opaque,
        point: point_name(cut, &cfg),
    };
    let written = match &cfg.out {
        Some(dir) if rebuilt.evidence => Some(write_one(dir, &path, &rebuilt, cfg.force)?),
        _ => None,
    };
    print::report(out, &report, &cfg, written.as_deref())?;
    if problems.count() > 0 {
        return Ok(Exit::Error);
    }
    Ok(if rebuilt.evidence && rebuilt.doc.is_whole() {
        Exit::Found
    } else {
        Exit::NotFound
    })
}

fn write_one(
    dir: &std::path::Path,
    path: &str,
    rebuilt: &crate::recover::replay::Rebuilt,
    force: bool,
) -> crate::error::Result<PathBuf> {
    let rel = crate::recover::dest::relative(path)?;
    let mut text = String::new();
    rebuilt.doc.render(&mut text);
    crate::recover::dest::write(dir, &rel, text.as_bytes(), force)
}

/// How the point is said: `the end`, `L340 of <file>`, or a time.
fn point_name(cut: Cut, cfg: &Config) -> String {
    match (cut, cfg.at.as_deref()) {
        (Cut::End, _) => "the end".into(),
        (Cut::Line { line, .. }, _) => format!("line {line}"),
        (Cut::Time(t), _) => crate::timefmt::utc(t),
    }
}
