//! `--resolve-persisted`: following a tool result's `<persisted-output>` pointer
//! (MISC-002, REC-039) to the full output Claude Code saved beside the
//! transcript, so the whole output is searched, not only its preview.

use std::path::Path;

use crate::discovery::Transcript;

/// Follow a `<persisted-output>` pointer (MISC-002, REC-039): the full output
/// replaces the preview; a file that is gone is said, not hidden.
pub(super) fn resolve_persisted(
    t: &Transcript,
    text: &str,
    notes: &mut Vec<String>,
    line: usize,
) -> Option<String> {
    if !text.contains("<persisted-output>") {
        return None;
    }
    let marker = "Full output saved to: ";
    let at = text.find(marker)? + marker.len();
    let path = text[at..].lines().next()?.trim();
    // The pointer is absolute on the machine that wrote it; a home that was
    // copied or moved still holds the file in the session's own tool-results/.
    let local = t.local_persisted(Path::new(path));
    let found = read_persisted(Path::new(path))
        .map(|b| (b, path.to_string()))
        .or_else(|e| match &local {
            Some(l) => read_persisted(l)
                .map(|b| (b, l.display().to_string()))
                .map_err(|_| e),
            None => Err(e),
        });
    match found {
        Ok(((bytes, left), from)) => {
            let cut = match left {
                0 => String::new(),
                n => format!("\n[csift: {n} more bytes of the persisted output were not read]"),
            };
            Some(format!(
                "{text}\n[persisted output from {from}]\n{}{cut}",
                String::from_utf8_lossy(&bytes)
            ))
        }
        Err(e) => {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => format!("is gone ({e})"),
                _ => format!("is not read ({e})"),
            };
            notes.push(format!(
                "{}:{line}: persisted output {path} {why}; only the preview was searched",
                t.path.display()
            ));
            None
        }
    }
}

/// Most of a persisted output csift reads (a tool's output is persisted past
/// tens of KB; MISC-002, REC-015).
const PERSISTED_MAX: u64 = 64 << 20;

/// A persisted output is Claude Code's own file: a regular file in a
/// `tool-results/` folder (MISC-002). The pointer is transcript text, so one
/// naming anything else (a FIFO, which would block, `/dev/zero`, which never
/// ends, `/etc/passwd`) is not followed. Returns the bytes read, at most
/// [`PERSISTED_MAX`], and how many were left unread.
fn read_persisted(p: &Path) -> std::io::Result<(Vec<u8>, u64)> {
    use std::io::{Error, ErrorKind, Read};
    if p.parent().and_then(Path::file_name) != Some(std::ffi::OsStr::new("tool-results")) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not in a tool-results folder",
        ));
    }
    let o = crate::scan::source::open_io(p)?;
    let mut buf = Vec::new();
    (&o.file).take(PERSISTED_MAX).read_to_end(&mut buf)?;
    let left = o.len.saturating_sub(buf.len() as u64);
    Ok((buf, left))
}
