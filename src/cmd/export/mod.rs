//! `csift export`: one session (with its lanes) or one lane as a page a person
//! reads: self-contained HTML ([`html`]) or Markdown ([`md`]). The walk
//! ([`page`], [`units`]) streams the transcript into the writer in file order,
//! so nothing of the page is held in memory. The output path is the user's
//! (never under the Claude home, never an input), written to a temporary
//! file beside it and renamed into place.

pub(crate) mod facts;
pub(crate) mod html;
pub(crate) mod md;
pub(crate) mod page;
pub(crate) mod sink;
pub(crate) mod units;

use std::collections::HashMap;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::classify::{FileIndex, LabelSet};
use crate::cli::export::{ExportArgs, PageFormat};
use crate::discovery::{home, target, Transcript};
use crate::error::Error;
use crate::lanes::Joins;
use crate::scan::Source;

use super::{Exit, Problems};
use page::{Counts, Lane, Page};
use sink::{Foot, Sink};

/// The transcript a page is of, and the lanes under it.
struct Chosen {
    root: Transcript,
    lanes: Vec<Transcript>,
}

/// One session with its lanes, or one lane alone; anything else is a usage error.
fn choose(ts: Vec<Transcript>) -> Result<Chosen, Error> {
    let mut mains: Vec<&Transcript> = ts.iter().filter(|t| !t.is_lane()).collect();
    match (mains.len(), ts.len()) {
        (0, 0) => Err(Error::Target("the target selected no transcript".into())),
        (0, 1) => Ok(Chosen {
            root: ts[0].clone(),
            lanes: Vec::new(),
        }),
        (0, n) => Err(Error::Usage(format!(
            "the target selected {n} lanes and no main transcript: export one lane by @<session>@<agent> (see `csift agents`)"
        ))),
        (1, _) => {
            let root = mains.remove(0).clone();
            let lanes = ts
                .into_iter()
                .filter(|t| t.is_lane() && t.session_id == root.session_id)
                .collect();
            Ok(Chosen { root, lanes })
        }
        (n, _) => Err(Error::Usage(format!(
            "export writes one session, and the target selected {n}: name one with @<session-id> (see `csift list`)"
        ))),
    }
}

/// `--highlight`, smart case as search reads a pattern: case-insensitive
/// unless it holds an uppercase letter.
fn highlight(re: Option<&str>) -> Result<Option<regex::Regex>, Error> {
    let Some(re) = re else { return Ok(None) };
    regex::RegexBuilder::new(re)
        .case_insensitive(!re.chars().any(char::is_uppercase))
        .size_limit(64 << 20)
        .build()
        .map(Some)
        .map_err(|e| Error::Usage(format!("--highlight: {e}")))
}

/// Where the page goes: stdout, or a temporary file renamed onto `dest`.
enum Dest {
    Stdout,
    File { tmp: PathBuf, dest: PathBuf },
}

fn destination(args: &ExportArgs, inputs: &[&Path]) -> Result<Dest, Error> {
    let out =
        match args.out.as_deref() {
            Some(p) if p == Path::new("-") => return Ok(Dest::Stdout),
            Some(p) => p,
            None if io::stdout().is_terminal() => return Err(Error::Usage(
                "export writes a page, not terminal text: give --out FILE (or --out - for stdout)"
                    .into(),
            )),
            None => return Ok(Dest::Stdout),
        };
    let dest = crate::outpath::outside_homes(out, args.claude_home.clone(), "--out")?;
    for i in inputs {
        if crate::outpath::resolved(i).is_ok_and(|p| p == dest) {
            return Err(Error::Usage(format!(
                "--out {}: that is a transcript this page is made from",
                out.display()
            )));
        }
    }
    if dest.is_dir() {
        return Err(Error::Usage(format!(
            "--out {}: is a directory; name a file",
            out.display()
        )));
    }
    if dest.exists() && !args.force {
        return Err(Error::Usage(format!(
            "--out {}: exists; nothing written (--force replaces it)",
            out.display()
        )));
    }
    let parent = dest.parent().filter(|p| p.is_dir()).ok_or_else(|| {
        Error::Usage(format!(
            "--out {}: its folder does not exist",
            out.display()
        ))
    })?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.csift-{}.tmp", std::process::id()));
    Ok(Dest::File { tmp, dest })
}

pub(crate) fn run(
    args: &ExportArgs,
    problems: &Problems,
    started: Instant,
) -> crate::error::Result<Exit> {
    let _ = started;
    let labels = match args.labels.is_empty() {
        true => None,
        false => Some(LabelSet::parse(&args.labels).map_err(Error::Usage)?),
    };
    let hl = highlight(args.highlight.as_deref())?;
    let home = home::from_env(args.claude_home.clone())?;
    let sel = target::resolve(&home, &args.targets, !args.no_subagents)?;
    for issue in &sel.issues {
        problems.report(&issue.path, &issue.message);
    }
    let chosen = choose(sel.transcripts)?;
    let inputs: Vec<&Path> = std::iter::once(&chosen.root)
        .chain(&chosen.lanes)
        .map(|t| t.path.as_path())
        .collect();
    let dest = destination(args, &inputs)?;
    let root_src = Source::open(&chosen.root.path)?;
    let input = Input {
        root: &chosen.root,
        src: &root_src,
        lanes: open_lanes(chosen.lanes, problems),
        labels,
    };
    match dest {
        Dest::Stdout => {
            let w = io::BufWriter::with_capacity(64 << 10, io::stdout().lock());
            let mut w = write_page(args, w, hl, input, problems)?;
            w.flush()?;
        }
        Dest::File { tmp, dest } => {
            let file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
                .map_err(|e| Error::io(&tmp, e))?;
            let w = io::BufWriter::with_capacity(64 << 10, file);
            let done = write_page(args, w, hl, input, problems)
                .and_then(|w| w.into_inner().map_err(|e| e.into_error()))
                .and_then(|f| f.sync_all())
                .and_then(|()| fs::rename(&tmp, &dest));
            if let Err(e) = done {
                let _ = fs::remove_file(&tmp);
                return Err(Error::io(&dest, e));
            }
        }
    }
    Ok(Exit::from(true, problems.count()))
}

fn open_lanes(ts: Vec<Transcript>, problems: &Problems) -> Vec<Lane> {
    ts.into_iter()
        .map(|t| {
            let src = match Source::open(&t.path) {
                Ok(s) => Some(Arc::new(s)),
                Err(e) => {
                    problems.report(&t.path, e);
                    None
                }
            };
            Lane {
                t,
                src,
                placed: false,
            }
        })
        .collect()
}

/// What a page is made from: the session's main transcript and its bytes,
/// its lanes, and the labels it keeps (`-t`).
struct Input<'a> {
    root: &'a Transcript,
    src: &'a [u8],
    lanes: Vec<Lane>,
    labels: Option<LabelSet>,
}

fn write_page<W: Write>(
    args: &ExportArgs,
    w: W,
    hl: Option<regex::Regex>,
    input: Input<'_>,
    problems: &Problems,
) -> io::Result<W> {
    match args.format {
        PageFormat::Html => {
            let mut s = html::Html::new(w, hl);
            fill(args, &mut s, input, problems)?;
            Ok(s.into_inner())
        }
        PageFormat::Md => {
            let mut s = md::Md::new(w, hl);
            fill(args, &mut s, input, problems)?;
            Ok(s.into_inner())
        }
    }
}

/// The whole page into `sink`: header, the root transcript (lanes open under
/// their calls), the lanes no key placed, the footer.
fn fill(
    args: &ExportArgs,
    sink: &mut dyn Sink,
    input: Input<'_>,
    problems: &Problems,
) -> io::Result<()> {
    let Input {
        root,
        src,
        lanes,
        labels,
    } = input;
    let files: Vec<(&Transcript, &[u8])> = std::iter::once((root, src))
        .chain(
            lanes
                .iter()
                .filter_map(|l| l.src.as_deref().map(|s| (&l.t, &s[..]))),
        )
        .collect();
    let joins = Joins::build(&files);
    let mut by_spawn: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, l) in lanes.iter().enumerate() {
        if let Some(s) = l.t.agent_id.as_deref().and_then(|a| joins.spawn_of(a)) {
            by_spawn.entry(s.to_string()).or_default().push(i);
        }
    }
    let idx = FileIndex::build(src, root.is_lane());
    let mut head = facts::head(root, src, idx.turns(), lanes.len());
    head.highlight = args.highlight.clone();
    head.labels = (!args.labels.is_empty()).then(|| args.labels.join(","));
    sink.head(&head)?;
    let mut page = Page {
        sink,
        labels,
        joins,
        lanes,
        by_spawn,
        embeds: !args.no_subagents,
        n: Counts::default(),
    };
    page.walk(root, src, Some(idx))?;
    let late = page.unplaced()?;
    let placed = page.lanes.iter().filter(|l| l.placed).count();
    let foot = Foot {
        records: page.n.records,
        units: page.n.units,
        images: page.n.images,
        raw: page.n.raw,
        findings: page.n.findings.iter().map(|(k, v)| (*k, *v)).collect(),
        lanes_placed: placed - late,
        lanes_unplaced: late,
        problems: problems.count(),
    };
    page.sink.foot(&foot)
}
