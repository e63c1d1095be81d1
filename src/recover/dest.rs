//! Where a recovered file may be written: `DIR/<its absolute path>`, and
//! nowhere else. The path comes from a transcript, which is untrusted: it is
//! confined under DIR (no `..`, no control character, no component that is a
//! symbolic link on the way down), never overwrites without `--force`, and
//! DIR itself may never lie inside the Claude home.

use std::io::Write;
use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::files::path::is_windows;

/// The relative path under DIR for the absolute `abs`: `/a/b` → `a/b`,
/// `C:\a\b` → `C/a/b`, `\\srv\share\a` → `UNC/srv/share/a`.
pub(crate) fn relative(abs: &str) -> Result<PathBuf> {
    let refuse = |why: &str| Err(Error::Usage(format!("refusing to write {:?}: {why}", abs)));
    let mut parts: Vec<&str> = Vec::new();
    let win = is_windows(abs);
    let body = if win && abs.starts_with("\\\\") {
        parts.push("UNC");
        &abs[2..]
    } else if win {
        parts.push(&abs[..1]);
        &abs[2..]
    } else if let Some(b) = abs.strip_prefix('/') {
        b
    } else {
        return refuse("not an absolute path");
    };
    let sep = |c: char| c == '/' || (win && c == '\\');
    for c in body.split(sep) {
        match c {
            "" => {}
            "." | ".." => return refuse("it climbs out of the output directory"),
            c if c.chars().any(|ch| ch.is_control()) => {
                return refuse("a component holds a control character")
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() || (parts.len() == 1 && (parts[0] == "UNC" || win)) {
        return refuse("it names no file");
    }
    let rel: PathBuf = parts.iter().collect();
    // Belt and braces: nothing but plain components.
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return refuse("it is not a plain relative path");
    }
    Ok(rel)
}

/// Refuse an output directory inside the Claude home (or equal to it).
pub(crate) fn check_outside_home(dir: &Path, home: &Path) -> Result<()> {
    if crate::outpath::inside(dir, home) {
        return Err(Error::Usage(format!(
            "refusing --out {}: it is inside the Claude home {} (csift never writes there)",
            dir.display(),
            home.display()
        )));
    }
    Ok(())
}

/// Write `bytes` to `dir/rel`, creating directories under `dir` and refusing
/// to follow a symbolic link or to overwrite without `force`.
pub(crate) fn write(dir: &Path, rel: &Path, bytes: &[u8], force: bool) -> Result<PathBuf> {
    let target = dir.join(rel);
    // DIR is the user's own choice: made when missing.
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut cur = dir.to_path_buf();
    let comps: Vec<_> = rel.components().collect();
    for (k, c) in comps.iter().enumerate() {
        cur.push(c);
        let last = k + 1 == comps.len();
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::Usage(format!(
                    "refusing to write {}: {} is a symbolic link",
                    target.display(),
                    cur.display()
                )));
            }
            Ok(m) if !last && !m.is_dir() => {
                return Err(Error::Usage(format!(
                    "refusing to write {}: {} is not a directory",
                    target.display(),
                    cur.display()
                )));
            }
            Ok(_) if last && !force => {
                return Err(Error::Usage(format!(
                    "{} exists (--force overwrites it)",
                    target.display()
                )));
            }
            Ok(_) => {}
            Err(_) if !last => std::fs::create_dir(&cur).map_err(|e| Error::io(&cur, e))?,
            Err(_) => {}
        }
    }
    // A sibling temporary file renamed over the target: never half-written,
    // and a rename replaces a path, it does not follow it.
    let tmp = target.with_file_name(format!(
        ".{}.csift-{}.tmp",
        target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| Error::io(&tmp, e))?;
    let written = f.write_all(bytes);
    drop(f);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&tmp, e));
    }
    if !force && target.exists() {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Usage(format!(
            "{} exists (--force overwrites it)",
            target.display()
        )));
    }
    std::fs::rename(&tmp, &target).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(&target, e)
    })?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Transcript paths are untrusted: nothing escapes DIR.
    #[test]
    fn relative_paths_are_confined() {
        assert_eq!(
            relative("/home/a/x.rs").unwrap(),
            PathBuf::from("home/a/x.rs")
        );
        assert_eq!(
            relative("C:\\Users\\a\\x.rs").unwrap(),
            PathBuf::from("C/Users/a/x.rs")
        );
        for bad in [
            "/a/../../etc/passwd",
            "rel/x",
            "/a/\u{1b}[2J",
            "/",
            "C:\\",
            "/./x",
        ] {
            assert!(relative(bad).is_err(), "{bad:?}");
        }
    }

    /// A `..` past a directory that does not exist yet still climbs: the
    /// check sees where `--out` would land, not the spelling.
    #[test]
    fn an_out_dir_through_a_missing_directory_is_resolved() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let sneaky = d.path().join("missing/../home/rescue");
        assert!(check_outside_home(&sneaky, &home).is_err());
        let dotted = d.path().join("./home/./x/..");
        assert!(check_outside_home(&dotted, &home).is_err());
        let fine = d.path().join("missing/../elsewhere");
        assert!(check_outside_home(&fine, &home).is_ok());
        assert!(!d.path().join("missing").exists());
    }

    #[test]
    fn writes_refuse_symlinks_and_overwrites() {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), Path::new("a/b.txt"), b"x", false).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"x");
        assert!(write(d.path(), Path::new("a/b.txt"), b"y", false).is_err());
        write(d.path(), Path::new("a/b.txt"), b"y", true).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"y");
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(outside.path(), d.path().join("link")).unwrap();
            assert!(write(d.path(), Path::new("link/x.txt"), b"z", false).is_err());
            assert!(!outside.path().join("x.txt").exists());
        }
        let home = d.path().join("home");
        assert!(check_outside_home(&home.join("out"), &home).is_err());
        assert!(check_outside_home(&d.path().join("elsewhere"), &home).is_ok());
    }
}
