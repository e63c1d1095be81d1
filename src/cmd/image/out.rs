//! `csift image --out DIR`: each distinct image written once, named from its
//! session and stable id, never over an existing file without `--force`, and
//! never under the Claude home (csift is read-only there). Names come from
//! csift's own ids and a fixed extension list, never from transcript text.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::print::Row;
use super::Scanned;
use crate::cli::Common;
use crate::cmd::Problems;
use crate::error::{Error, Result};
use crate::images::payload;

/// Resolve `dir` (refused under any Claude home this run could mean,
/// [`crate::outpath`]) and create it.
pub(crate) fn prepare(dir: &Path, common: &Common) -> Result<PathBuf> {
    let abs = crate::outpath::outside_homes(dir, common.claude_home.clone(), "--out")?;
    fs::create_dir_all(&abs).map_err(|e| Error::io(&abs, e))?;
    Ok(abs)
}

/// A file-name-safe copy of an id (ids are hex and dashes; anything else drops).
fn safe(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

fn name(s: &Scanned, r: &Row) -> String {
    let session = safe(crate::discovery::short(&s.t.session_id));
    let agent =
        s.t.agent_id
            .as_deref()
            .map(|a| format!("-{}", safe(a)))
            .unwrap_or_default();
    format!(
        "{session}{agent}-{}.{}",
        r.id,
        payload::extension(&r.media_type)
    )
}

/// Write every row's image into `dir`; returns how many were written. Existing
/// files stop the run before anything is written unless `force`. A payload that
/// does not decode is said with its id and skipped.
pub(crate) fn write(
    dir: &Path,
    files: &[Scanned],
    rows: &mut [Row],
    force: bool,
    problems: &Problems,
) -> Result<usize> {
    let targets: Vec<Option<PathBuf>> = rows
        .iter()
        .map(|r| (r.error.is_none()).then(|| dir.join(name(&files[r.at.0], r))))
        .collect();
    if !force {
        let existing: Vec<String> = targets
            .iter()
            .flatten()
            .filter(|p| p.exists())
            .map(|p| p.display().to_string())
            .collect();
        if !existing.is_empty() {
            return Err(Error::Usage(format!(
                "--out: {} file(s) already exist, nothing written (--force overwrites): {}",
                existing.len(),
                existing.join(", ")
            )));
        }
    }
    let mut written = 0;
    for (r, target) in rows.iter_mut().zip(targets) {
        let s = &files[r.at.0];
        let Some(target) = target else {
            let why = r.error.as_deref().unwrap_or("no payload");
            problems.report(&s.t.path, format!("{}: {why}; not written", r.id));
            continue;
        };
        let bytes = s.found.images[r.at.1]
            .data
            .ok_or_else(|| "no inline payload".to_string())
            .and_then(|(a, b)| payload::decode(&s.src[a..b]));
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                problems.report(&s.t.path, format!("{}: {e}; not written", r.id));
                r.error = Some(e);
                continue;
            }
        };
        // Cut since it was scanned: the payload may be zeros past the cut.
        if let Err(e) = s.src.check() {
            problems.report(&s.t.path, format!("{}: {e}; not written", r.id));
            r.error = Some(e.to_string());
            continue;
        }
        let mut opts = fs::OpenOptions::new();
        opts.write(true);
        if force {
            opts.create(true).truncate(true);
        } else {
            opts.create_new(true);
        }
        match opts.open(&target).and_then(|mut f| f.write_all(&bytes)) {
            Ok(()) => {
                written += 1;
                r.written = Some(target.display().to_string());
            }
            Err(e) => problems.report(&target, e),
        }
    }
    Ok(written)
}
