//! `csift image --out DIR`: each distinct image written once, named from its
//! session and stable id, never over an existing file without `--force`, and
//! never under the Claude home (csift is read-only there). Names come from
//! csift's own ids and a fixed extension list, never from transcript text.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::print::Row;
use super::{Scanned, Seen};
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
            .and_then(|(a, b)| reread(&s.t.path, s.seen, a, b))
            .and_then(|raw| payload::decode(&raw));
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                problems.report(&s.t.path, format!("{}: {e}; not written", r.id));
                r.error = Some(e);
                continue;
            }
        };
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

/// The payload bytes `a..b` of `s`'s file, read again: refused when the file
/// is no longer the one scanned (replaced, or cut below what was read).
/// Claude Code only appends (REC-087), so a file that grew still holds the
/// scanned bytes where they were.
fn reread(path: &Path, seen: Seen, a: usize, b: usize) -> std::result::Result<Vec<u8>, String> {
    let opened = crate::scan::source::open(path).map_err(|e| e.to_string())?;
    seen.still(&Seen::of(&opened.meta))?;
    let mut buf = vec![0; b.saturating_sub(a)];
    crate::scan::source::read_exact_at(&opened.file, &mut buf, a as u64)
        .map_err(|e| format!("reading the payload again: {e}"))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::{reread, Seen};

    fn seen(path: &std::path::Path) -> Seen {
        Seen::of(&std::fs::metadata(path).unwrap())
    }

    /// A payload is read again from the file scanned: still there after the
    /// file grew (REC-087: appends only), refused once it was cut or replaced.
    #[test]
    fn a_payload_is_read_again_only_from_the_file_scanned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, b"{\"data\":\"QUJD\"}\n").unwrap();
        let was = seen(&path);
        assert_eq!(reread(&path, was, 9, 13).unwrap(), b"QUJD");
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut f, b"{\"more\":1}\n").unwrap();
        assert_eq!(reread(&path, was, 9, 13).unwrap(), b"QUJD", "grown");
        f.set_len(4).unwrap();
        let e = reread(&path, was, 9, 13).unwrap_err();
        assert!(e.contains("cut from 16 to 4 bytes"), "{e}");
        let other = dir.path().join("t");
        std::fs::write(&other, b"{\"data\":\"WFla\"}\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let e = reread(&path, was, 9, 13).unwrap_err();
        assert!(e.contains("replaced"), "{e}");
    }
}
