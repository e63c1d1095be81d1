//! `recover --all --out DIR`: every file the targets touched that has content
//! evidence, rebuilt and written under DIR, with one coverage row per file.
//! Every destination is checked before anything is written: an existing file
//! (without --force) or a path that would escape DIR stops the run first.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::Config;
use crate::cmd::{Exit, Problems};
use crate::discovery::Transcript;
use crate::error::Error;
use crate::files::{self, Class, FileTouches};
use crate::output::{json_line, sanitize, Format, Out};
use crate::recover::{self, dest, point};

#[derive(Serialize)]
struct Row<'a> {
    #[serde(rename = "type")]
    tag: &'static str,
    path: &'a str,
    complete: bool,
    lines: Option<usize>,
    known_lines: usize,
    gaps: usize,
    steps: usize,
    deleted: bool,
    out: Option<String>,
    skipped: Option<&'static str>,
}

pub(crate) fn run(
    cfg: &Config,
    transcripts: &[Transcript],
    out: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let dir = cfg
        .out
        .clone()
        .ok_or_else(|| Error::Usage("--all needs --out DIR".into()))?;
    let every = |_: &str| true;
    let opts = files::Options {
        recover: true,
        want: Some(&every),
        nested: cfg.nested,
    };
    let all = files::scan_all(transcripts, &opts);
    for (t, ft) in transcripts.iter().zip(&all) {
        if let Some(e) = &ft.error {
            problems.report(&t.path, e);
        }
    }
    let cut = point::cut(cfg.at.as_deref(), transcripts)?;
    let paths = touched(&all);
    // Refuse before writing anything.
    let mut plan: Vec<(&str, Result<PathBuf, String>)> = Vec::new();
    let mut existing = Vec::new();
    for p in &paths {
        match dest::relative(p) {
            Ok(rel) => {
                if !cfg.force && dir.join(&rel).exists() {
                    existing.push(dir.join(&rel));
                }
                plan.push((p, Ok(rel)));
            }
            Err(e) => plan.push((p, Err(e.to_string()))),
        }
    }
    if !existing.is_empty() {
        let mut list: Vec<String> = existing
            .iter()
            .take(10)
            .map(|p| format!("  {}", sanitize::path(p)))
            .collect();
        if existing.len() > list.len() {
            list.push(format!("  … and {} more", existing.len() - list.len()));
        }
        return Err(Error::Usage(format!(
            "{} file(s) already exist under {} (--force overwrites them):\n{}",
            existing.len(),
            sanitize::path(&dir),
            list.join("\n")
        )));
    }
    let idx = recover::events::Index::new(&all, transcripts);
    let store = recover::store::Store::read(&cfg.home);
    let ctx = Ctx {
        cfg,
        dir: &dir,
        idx: &idx,
        store: &store,
        cut,
        problems,
    };
    let mut tally = Tally::default();
    for (p, rel) in plan {
        let row = one(&ctx, p, rel, &mut tally);
        print_row(out, &row, cfg.format)?;
    }
    summary(out, &tally, &dir, cfg.format, problems.count(), started)?;
    Ok(if problems.count() > 0 || tally.errors > 0 {
        Exit::Error
    } else if tally.partial > 0 || tally.written == 0 {
        Exit::NotFound
    } else {
        Exit::Found
    })
}

/// Every resolved path any transcript touched, sorted.
fn touched(all: &[FileTouches]) -> Vec<&str> {
    let mut set = BTreeSet::new();
    for ft in all {
        for t in &ft.touches {
            if !matches!(t.class, Class::Unresolved | Class::Marker)
                && files::path::is_absolute(&t.path)
            {
                set.insert(&*t.path);
            }
        }
    }
    set.into_iter().collect()
}

#[derive(Default)]
struct Tally {
    written: usize,
    complete: usize,
    partial: usize,
    skipped: usize,
    errors: usize,
}

/// What every file's rebuild shares.
struct Ctx<'c> {
    cfg: &'c Config,
    dir: &'c Path,
    idx: &'c recover::events::Index<'c>,
    store: &'c recover::store::Store,
    cut: recover::replay::Cut,
    problems: &'c Problems,
}

fn one<'p>(
    ctx: &Ctx<'_>,
    path: &'p str,
    rel: Result<PathBuf, String>,
    tally: &mut Tally,
) -> Row<'p> {
    let (cfg, dir, problems) = (ctx.cfg, ctx.dir, ctx.problems);
    let (trusted, _) = recover::backups(ctx.store, path, ctx.idx);
    let (_, rebuilt) = recover::rebuild(path, ctx.idx, trusted, ctx.cut);
    for (p, e) in ctx.idx.problems() {
        problems.report(&p, e);
    }
    let map = recover::ranges(&rebuilt.doc);
    let mut row = Row {
        tag: "recovered",
        path,
        complete: rebuilt.evidence && rebuilt.doc.is_whole(),
        lines: rebuilt.doc.total().filter(|_| rebuilt.evidence),
        known_lines: if rebuilt.evidence {
            rebuilt.doc.known_lines()
        } else {
            0
        },
        gaps: map.iter().filter(|g| !g.known).count(),
        steps: rebuilt.applied.len(),
        deleted: rebuilt.deleted.is_some(),
        out: None,
        skipped: None,
    };
    if !rebuilt.evidence {
        row.skipped = Some("no content evidence");
        tally.skipped += 1;
        return row;
    }
    // Evidence that ends with every line unknown (an edit refused, a bash
    // write): a file holding only a gap marker restores nothing.
    if row.known_lines == 0 {
        row.skipped = Some("no line known at this point");
        tally.skipped += 1;
        return row;
    }
    let rel = match rel {
        Ok(r) => r,
        Err(e) => {
            problems.report(dir, e);
            row.skipped = Some("path refused");
            tally.errors += 1;
            return row;
        }
    };
    let mut text = String::new();
    rebuilt.doc.render(&mut text);
    match dest::write(dir, &rel, text.as_bytes(), cfg.force) {
        Ok(p) => {
            row.out = Some(p.to_string_lossy().into_owned());
            tally.written += 1;
            if row.complete {
                tally.complete += 1;
            } else {
                tally.partial += 1;
            }
        }
        Err(e) => {
            problems.report(&dir.join(&rel), e);
            row.skipped = Some("write failed");
            tally.errors += 1;
        }
    }
    row
}

fn print_row(out: &mut Out, row: &Row<'_>, format: Format) -> io::Result<()> {
    if format == Format::Json {
        return json_line(out, row);
    }
    let st = out.style;
    let state = match (row.skipped, row.complete) {
        (Some(_), _) => format!("{}none    {}", st.dim, st.reset),
        (None, true) => "complete".to_string(),
        (None, false) => format!("{}partial {}", st.warn, st.reset),
    };
    let size = match row.lines {
        Some(t) => format!("{}/{t} lines", row.known_lines),
        None if row.skipped.is_none() => format!("{} lines, length unknown", row.known_lines),
        None => String::new(),
    };
    let note = match (row.skipped, row.deleted) {
        (Some(why), _) => format!(" ({why})"),
        (None, true) => " (deleted at the end; written as before)".into(),
        _ => String::new(),
    };
    writeln!(
        out,
        "{state} {}  {size}{note}",
        sanitize::one_line(row.path)
    )
}

fn summary(
    out: &mut Out,
    t: &Tally,
    dir: &Path,
    format: Format,
    errors: usize,
    started: Instant,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct S<'a> {
        #[serde(rename = "type")]
        tag: &'static str,
        out: &'a str,
        written: usize,
        complete: usize,
        partial: usize,
        skipped: usize,
        errors: usize,
        elapsed_ms: u128,
    }
    let dir_s = dir.to_string_lossy();
    if format == Format::Json {
        return json_line(
            out,
            &S {
                tag: "summary",
                out: &dir_s,
                written: t.written,
                complete: t.complete,
                partial: t.partial,
                skipped: t.skipped,
                errors: errors + t.errors,
                elapsed_ms: started.elapsed().as_millis(),
            },
        );
    }
    let st = out.style;
    writeln!(
        out,
        "{}{} files written under {} ({} complete, {} with gaps marked) · {} touched paths not written (no content evidence, or no line known) · {} ms{}",
        st.dim,
        t.written,
        sanitize::path(dir),
        t.complete,
        t.partial,
        t.skipped,
        started.elapsed().as_millis(),
        st.reset
    )
}
