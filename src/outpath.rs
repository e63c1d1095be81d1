//! Where csift may write: only a path the user names, and never under a Claude
//! home (csift is read-only there). `image --out DIR` and `export --out FILE`
//! both resolve their path here: made absolute, `..` folded, and the longest
//! existing prefix canonicalised, so a symlink into the home is seen for what
//! it is before anything is created.

use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::discovery::home;
use crate::error::{Error, Result};

/// `p` resolved ([`resolved`]), or a usage error when it lies inside the
/// Claude home this run reads (`flag`, else the environment's) or the
/// environment's own home. `what` names the flag in the message.
pub(crate) fn outside_homes(p: &Path, flag: Option<PathBuf>, what: &str) -> Result<PathBuf> {
    let abs = resolved(p)?;
    let homes = [home::from_env(flag).ok(), home::from_env(None).ok()];
    for h in homes.into_iter().flatten() {
        let root = resolved(&h.root)?;
        if abs.starts_with(&root) {
            return Err(Error::Usage(format!(
                "{what} {}: that is inside the Claude home {}; csift never writes there. \
                 Pick a place outside it",
                p.display(),
                root.display()
            )));
        }
    }
    Ok(abs)
}

/// `p` absolute and lexically normal, with its longest existing prefix
/// canonicalised (so a symlink into the home is seen for what it is).
pub(crate) fn resolved(p: &Path) -> Result<PathBuf> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io(p, e))?
            .join(p)
    };
    let mut norm = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                norm.pop();
            }
            Component::CurDir => {}
            c => norm.push(c),
        }
    }
    let mut head = norm.clone();
    let mut tail = Vec::new();
    while !head.exists() {
        match (head.file_name().map(ToOwned::to_owned), head.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name);
                head = parent.to_path_buf();
            }
            _ => break,
        }
    }
    let mut out = fs::canonicalize(&head).unwrap_or(head);
    out.extend(tail.iter().rev());
    Ok(out)
}
