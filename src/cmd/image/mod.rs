//! `csift image`: every image a session holds, listed once per content with its
//! copies, or written out. The engine ([`crate::images`]) finds, identifies,
//! hashes and groups; this command selects (`--id`), writes (`--out`, [`out`])
//! and prints ([`print`]).

pub(crate) mod out;
pub(crate) mod print;

use std::time::Instant;

use crate::cli::image::{ImageArgs, ImageId};
use crate::discovery::Transcript;
use crate::error::Error;
use crate::images::{self, Distinct, FileImages};
use crate::output::{Format, Out};
use crate::scan::Source;
use crate::timefmt::Window;

use super::{Exit, Problems};
use print::{Row, Summary};

/// One transcript's images, and the file they were read from. Its bytes are
/// not kept: `--out` reads each payload again ([`out`]), so a home of
/// thousands of transcripts with images is not held in memory (a 5.2 GB home
/// held 2.6 GB) nor thousands of files open.
pub(crate) struct Scanned {
    pub(crate) t: Transcript,
    pub(crate) seen: Seen,
    pub(crate) found: FileImages,
    pub(crate) groups: Vec<Distinct>,
}

pub(crate) use crate::scan::source::Seen;

pub(crate) fn run(
    args: &ImageArgs,
    w: &mut Out,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let window = Window::parse(args.common.since.as_deref(), args.common.until.as_deref())?;
    let picked = super::select(&args.common, &args.targets, problems)?;
    let dir = match &args.out {
        Some(d) => Some(out::prepare(d, &args.common)?),
        None => None,
    };
    let mut files: Vec<Scanned> = crate::scan::par_map(&picked, |t| scan(t, &window))
        .into_iter()
        .filter_map(|r| match r {
            Ok(s) => s,
            Err((path, e)) => {
                problems.report(&path, e);
                None
            }
        })
        .collect();
    if let Some(id) = args.id {
        pick(&mut files, id)?;
    }
    let mut rows: Vec<Row> = files
        .iter()
        .enumerate()
        .flat_map(|(f, s)| print::rows_at(f, s))
        .collect();
    let written = match &dir {
        Some(dir) => out::write(dir, &files, &mut rows, args.force, problems)?,
        None => 0,
    };
    let mut summary = Summary::of(&files, &rows);
    summary.written = written;
    summary.errors = problems.count();
    summary.elapsed_ms = started.elapsed().as_millis();
    let style = w.style;
    match args.common.format {
        Format::Json => print::json(w, &rows, &summary)?,
        Format::Human => print::human(w, style, &files, &rows, &summary)?,
    }
    Ok(Exit::from(!rows.is_empty(), problems.count()))
}

/// Scan one transcript; `None` when it holds no image (and no media at all).
fn scan(t: &Transcript, window: &Window) -> Result<Option<Scanned>, (std::path::PathBuf, String)> {
    let err = |e: crate::error::Error| (t.path.clone(), e.to_string());
    let opened = crate::scan::source::open(&t.path).map_err(err)?;
    let seen = Seen::of(&opened.meta);
    let src = Source::from_opened(opened, &t.path).map_err(err)?;
    let mut found = images::scan(&src, t.is_lane());
    src.check().map_err(err)?;
    if !window.is_open() {
        found.images.retain(|im| {
            window.contains(im.timestamp.as_deref().and_then(crate::timefmt::parse_ts))
        });
    }
    if found.images.is_empty() && found.documents == 0 && found.unlisted_lines == 0 {
        return Ok(None);
    }
    let groups = images::group(&found.images);
    Ok(Some(Scanned {
        t: t.clone(),
        seen,
        found,
        groups,
    }))
}

/// Keep only the image `id` names; an id that names none, or a handle naming
/// several different images, is an error saying what does exist (IMG-006/007).
fn pick(files: &mut [Scanned], id: ImageId) -> Result<(), Error> {
    let hits: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .flat_map(|(f, s)| {
            s.groups
                .iter()
                .enumerate()
                .filter(move |(_, g)| {
                    std::iter::once(g.first)
                        .chain(g.copies.iter().copied())
                        .any(|i| matches(&s.found.images[i], id))
                })
                .map(move |(g, _)| (f, g))
        })
        .collect();
    match hits.len() {
        1 => {}
        0 => return Err(Error::Usage(print::no_such(files, id))),
        _ => return Err(Error::Usage(print::ambiguous(files, &hits, id))),
    }
    let (hf, hg) = hits[0];
    for (f, s) in files.iter_mut().enumerate() {
        let keep = (f == hf).then(|| s.groups[hg].clone());
        s.groups = keep.into_iter().collect();
    }
    Ok(())
}

fn matches(im: &images::Image, id: ImageId) -> bool {
    match id {
        ImageId::Locator { line, block } => im.line == line && im.block == block,
        ImageId::Handle(n) => im.handle == Some(n),
    }
}
