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

/// `p` as the file system will take it when csift creates it: absolute, its
/// longest existing prefix canonicalised (symbolic links and `..` among
/// existing folders resolved as the kernel resolves them), and the rest,
/// which does not exist yet and so holds no link, appended by name, a `..`
/// climbing out of a folder `create_dir_all` will make
/// (`/tmp/missing/../home/.claude/x` is `/tmp/home/.claude/x`). Folding `..`
/// by name first would misjudge `/tmp/link/../x`; stopping at a `..` the
/// file system cannot resolve yet would leave `/tmp/missing/../../home`
/// unresolved and unchecked. Every check that csift writes outside a Claude
/// home (output paths, the state directory, the cache, hook records) goes
/// through here.
pub(crate) fn resolve(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|c| c.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    let comps: Vec<Component<'_>> = abs.components().collect();
    // The longest prefix that exists (the root always does).
    for k in (1..=comps.len()).rev() {
        let head: PathBuf = comps[..k].iter().collect();
        let Ok(mut out) = fs::canonicalize(&head) else {
            continue;
        };
        for c in &comps[k..] {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                c => out.push(c),
            }
        }
        return out;
    }
    abs
}

/// Whether `p`, resolved ([`resolve`]), lies in `dir` (resolved) or is it.
pub(crate) fn inside(p: &Path, dir: &Path) -> bool {
    resolve(p).starts_with(resolve(dir))
}

/// [`resolve`], failing when a relative path has no current directory to
/// stand on.
pub(crate) fn resolved(p: &Path) -> Result<PathBuf> {
    if p.is_relative() {
        std::env::current_dir().map_err(|e| Error::io(p, e))?;
    }
    Ok(resolve(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `..` past folders that do not exist climbs as `create_dir_all`
    /// will: two of them reach above the missing folder's parent.
    #[test]
    fn a_dotdot_past_missing_folders_climbs_by_name() {
        let t = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(t.path()).unwrap();
        let home = base.join("HOME");
        fs::create_dir_all(&home).unwrap();
        let one = base.join("missing/../HOME/x");
        assert_eq!(resolve(&one), home.join("x"));
        let two = base.join("a/missing/../../HOME/x");
        assert_eq!(resolve(&two), home.join("x"));
        assert!(inside(&two, &home));
        assert!(!inside(&base.join("a/missing/../HOME2"), &home));
    }

    /// A `..` after a symbolic link leaves the link's target, as the kernel
    /// resolves it, not the folder the link sits in.
    #[cfg(unix)]
    #[test]
    fn a_dotdot_after_a_link_leaves_its_target() {
        let t = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(t.path()).unwrap();
        let home = base.join("far/HOME");
        fs::create_dir_all(home.join("sub")).unwrap();
        fs::create_dir_all(base.join("near")).unwrap();
        std::os::unix::fs::symlink(home.join("sub"), base.join("near/link")).unwrap();
        let p = base.join("near/link/../out");
        assert_eq!(resolve(&p), home.join("out"));
        assert!(inside(&p, &home));
    }
}
