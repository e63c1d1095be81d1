//! Which file a user means and as of when: `--file PATH` against the paths
//! the transcripts touched, and `--at LINE|TIME` as a replay cut.

use std::path::Path;

use jiff::Timestamp;

use super::replay::Cut;
use crate::discovery::{Shape, Transcript};
use crate::error::{Error, Result};
use crate::files::path::{ends_with_components, is_absolute, join, normalize};
use crate::files::{Class, FileTouches};
use crate::record::{parse_line, Parsed};

/// The file asked for.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    /// Normalised absolute form (relative input joined onto the current directory).
    pub(crate) abs: String,
    /// The relative spelling, when the input was relative.
    pub(crate) rel: Option<String>,
}

impl Asked {
    pub(crate) fn new(input: &str) -> Asked {
        if is_absolute(input) {
            return Asked {
                abs: normalize(input),
                rel: None,
            };
        }
        let cwd = std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".to_string());
        Asked {
            abs: join(&cwd, input),
            rel: Some(input.to_string()),
        }
    }

    /// Whether a touched path could be the one asked for.
    pub(crate) fn matches(&self, p: &str) -> bool {
        p == self.abs
            || self
                .rel
                .as_deref()
                .is_some_and(|r| ends_with_components(p, r))
    }

    /// The one touched path meant: the exact absolute form, else the one
    /// suffix match. `Ok(None)` when nothing matches.
    pub(crate) fn resolve(&self, all: &[FileTouches]) -> Result<Option<String>> {
        let mut found: Vec<&str> = Vec::new();
        for ft in all {
            let touched = ft
                .touches
                .iter()
                .filter(|t| !matches!(t.class, Class::Unresolved | Class::Marker))
                .map(|t| &*t.path);
            let tracked = ft.sightings.iter().map(|s| s.path.as_str());
            for p in touched.chain(tracked) {
                if self.matches(p) && !found.contains(&p) {
                    found.push(p);
                }
            }
        }
        if found.contains(&self.abs.as_str()) {
            return Ok(Some(self.abs.clone()));
        }
        found.sort_unstable();
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some((*one).to_string())),
            many => {
                let list: Vec<String> = many
                    .iter()
                    .take(20)
                    .map(|p| format!("  {}", crate::output::sanitize::one_line(p)))
                    .collect();
                let more = if many.len() > 20 {
                    format!("\n  … and {} more", many.len() - 20)
                } else {
                    String::new()
                };
                Err(Error::Target(format!(
                    "--file {} matches {} touched paths:\n{}{more}\n(give one of them, or an absolute path)",
                    self.rel.as_deref().unwrap_or(&self.abs),
                    many.len(),
                    list.join("\n")
                )))
            }
        }
    }
}

/// The cut `--at` names over `transcripts` (`None`: the end).
pub(crate) fn cut(at: Option<&str>, transcripts: &[Transcript]) -> Result<Cut> {
    let Some(at) = at else { return Ok(Cut::End) };
    if !at.is_empty() && at.bytes().all(|b| b.is_ascii_digit()) {
        let line: usize = at
            .parse()
            .map_err(|_| Error::Usage(format!("--at {at}: not a line number")))?;
        let (file, t) = line_file(transcripts)?;
        let ts = line_time(&t.path, line)?;
        return Ok(Cut::Line { file, line, ts });
    }
    let ts = crate::timefmt::parse_bound(at, Timestamp::now(), true)?;
    Ok(Cut::Time(ts))
}

/// The transcript `--at LINE` counts in: the session's main file (or its
/// one transcript). The targets must name one session.
fn line_file(transcripts: &[Transcript]) -> Result<(usize, &Transcript)> {
    let mut sessions: Vec<&str> = transcripts.iter().map(|t| t.session_id.as_str()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    if sessions.len() != 1 {
        return Err(Error::Usage(format!(
            "--at LINE counts lines of one transcript, but the targets name {} sessions (name one, e.g. @<session>, or use --at TIME)",
            sessions.len()
        )));
    }
    let main = transcripts.iter().position(|t| t.shape == Shape::Main);
    match (main, transcripts) {
        (Some(i), _) => Ok((i, &transcripts[i])),
        (None, [one]) => Ok((0, one)),
        _ => Err(Error::Usage(
            "--at LINE: the session's main transcript is not among the targets; name one lane file"
                .into(),
        )),
    }
}

/// The time of line `line` of `path`: its record's, a snapshot's nested one
/// (FH-001), or the nearest timed line before it.
pub(crate) fn line_time(path: &Path, line: usize) -> Result<Option<Timestamp>> {
    if line == 0 {
        return Err(Error::Usage("--at 0: lines count from 1".into()));
    }
    let src = crate::scan::Source::open(path)?;
    let mut last = None;
    let mut seen = 0;
    for l in crate::scan::Lines::new(&src) {
        seen = l.no;
        if let Parsed::Record(r) = parse_line(&l) {
            let own = r
                .timestamp
                .as_deref()
                .map(str::to_string)
                .or_else(|| snapshot_time(l.bytes));
            if let Some(t) = own.as_deref().and_then(crate::timefmt::parse_ts) {
                last = Some(t);
            }
        }
        if l.no == line {
            return Ok(last);
        }
    }
    Err(Error::Usage(format!(
        "--at {line}: {} has {seen} lines",
        crate::output::sanitize::path(path)
    )))
}

fn snapshot_time(bytes: &[u8]) -> Option<String> {
    let snap = crate::scan::json::field(bytes, b"snapshot")?;
    let ts = crate::scan::json::field(snap, b"timestamp")?;
    crate::scan::json::string(ts).map(|c| c.into_owned())
}
