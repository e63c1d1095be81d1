//! Path spelling, lexically: which operands are absolute, how a relative one
//! joins a directory, and one normal form so the same file spelled two ways is
//! one row. Nothing here touches the file system: the paths are the ones a
//! transcript names on another machine, whose disk csift never sees.
//!
//! Three absolute families exist in Claude Code's records (BASH-021, WIN-006):
//! a leading `/`, a `<letter>:` drive with either separator, and a `\\`-led UNC
//! path. A relative operand joins its base in the BASE's separator family, so a
//! Windows transcript reads the same on any host.

/// Whether `p` is absolute in any of the three families (BASH-021, WIN-006).
/// A driveless `C:relative` is not.
pub(crate) fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.first() == Some(&b'/')
        || b.starts_with(b"\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// Whether `p` is spelled in the Windows family (drive or UNC): its separator
/// is `\` and `/` separates too.
pub(crate) fn is_windows(p: &str) -> bool {
    let b = p.as_bytes();
    b.starts_with(b"\\\\") || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
}

/// `rel` joined onto the directory `base`, normalised; an absolute `rel` is
/// returned normalised as it is. The separator is the base's (WIN-006).
pub(crate) fn join(base: &str, rel: &str) -> String {
    if is_absolute(rel) {
        return normalize(rel);
    }
    let sep = if is_windows(base) { '\\' } else { '/' };
    let mut s = String::with_capacity(base.len() + rel.len() + 1);
    s.push_str(base);
    if !s.ends_with(['/', '\\']) {
        s.push(sep);
    }
    s.push_str(rel);
    normalize(&s)
}

/// The lexical normal form: repeated separators collapsed, `.` dropped, `..`
/// resolved against the component before it (never above the root), no
/// trailing separator. Windows-family paths use `\` throughout. A relative
/// path keeps its leading `..`s. Symbolic links are not resolved: the disk is
/// not ours to read.
pub(crate) fn normalize(p: &str) -> String {
    let win = is_windows(p);
    let sep = if win { '\\' } else { '/' };
    let is_sep = |c: char| c == '/' || (win && c == '\\');
    // The root: "/", "C:\", "\\server\share\", or nothing (relative).
    let (root, rest) = if win && p.starts_with("\\\\") {
        let body = &p[2..];
        let mut parts = body.splitn(3, is_sep);
        let server = parts.next().unwrap_or("");
        let share = parts.next().unwrap_or("");
        let rest = parts.next().unwrap_or("");
        (format!("\\\\{server}\\{share}\\"), rest)
    } else if win && p.len() >= 2 && p.as_bytes()[1] == b':' {
        let drive = &p[..2];
        let rest = &p[2..];
        if rest.starts_with(is_sep) {
            (format!("{drive}\\"), rest)
        } else {
            (drive.to_string(), rest)
        }
    } else if let Some(rest) = p.strip_prefix('/') {
        ("/".to_string(), rest)
    } else {
        (String::new(), p)
    };
    let absolute = !root.is_empty() && root.ends_with(['/', '\\']);
    let mut parts: Vec<&str> = Vec::new();
    for c in rest.split(is_sep) {
        match c {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                // Above the root is the root; a relative path keeps its `..`.
                _ if absolute => {}
                _ => parts.push(".."),
            },
            c => parts.push(c),
        }
    }
    let mut out = root;
    for (i, c) in parts.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        out.push_str(c);
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// The last component of `p` (either separator).
pub(crate) fn base_name(p: &str) -> &str {
    p.rsplit(['/', '\\']).next().unwrap_or(p)
}

/// Whether `path` ends with the components of the relative `suffix`
/// (`src/a.rs` matches `/x/src/a.rs`, never `/x/xsrc/a.rs`). A dot-file or a
/// dot-directory stays itself: nothing strips a leading `.` (FH-020's caution).
pub(crate) fn ends_with_components(path: &str, suffix: &str) -> bool {
    let s = normalize(suffix);
    if s == "." || s.starts_with("..") {
        return false;
    }
    let p = path.replace('\\', "/");
    let s = s.replace('\\', "/");
    p == s || p.ends_with(&format!("/{s}"))
}

/// The settings family Claude Code rewrites in-process with no tool record
/// (FH-022, FH-039): `settings.json` / `settings.local.json` directly under a
/// `.claude` directory, the policy `managed-settings.json`, and the per-user
/// `.claude.json` state file. The scope law for `external_write` rows (FH-021):
/// every other tracked path would flood the timeline.
pub(crate) fn is_settings_family(path: &str) -> bool {
    let mut parts = path.rsplit(['/', '\\']);
    let base = parts.next().unwrap_or_default();
    let parent = parts.next().unwrap_or_default();
    (matches!(base, "settings.json" | "settings.local.json") && parent == ".claude")
        || base == "managed-settings.json"
        || base == ".claude.json"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BASH-021, WIN-006: the three absolute families, and a driveless drive path is not one.
    #[test]
    fn is_absolute_covers_all_three_families() {
        for p in ["/a", "C:/a", "C:\\a", "\\\\srv\\share\\x", "d:\\"] {
            assert!(is_absolute(p), "{p}");
        }
        for p in ["a", "./a", "C:relative", "", "~/x", "\\single"] {
            assert!(!is_absolute(p), "{p}");
        }
    }

    /// WIN-006: a join uses the base's separator family, not the host's.
    #[test]
    fn join_takes_the_base_separator() {
        assert_eq!(
            join("/home/dev/proj", "src/out.txt"),
            "/home/dev/proj/src/out.txt"
        );
        assert_eq!(
            join("C:\\Users\\dev\\proj", "src/out.txt"),
            "C:\\Users\\dev\\proj\\src\\out.txt"
        );
        assert_eq!(join("/a/b", "../c/./d"), "/a/c/d");
        assert_eq!(join("/a", "/abs/x"), "/abs/x");
        assert_eq!(join("/", "../../x"), "/x");
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize("/a//b/./c/"), "/a/b/c");
        assert_eq!(normalize("a/../../b"), "../b");
        assert_eq!(normalize("./"), ".");
        assert_eq!(normalize("C:\\a\\..\\b"), "C:\\b");
        assert_eq!(normalize("\\\\srv\\share\\a\\..\\b"), "\\\\srv\\share\\b");
        assert_eq!(normalize("/"), "/");
    }

    /// FH-020: a component suffix, dot-files kept as they are.
    #[test]
    fn suffix_matches_whole_components() {
        assert!(ends_with_components("/x/src/a.rs", "src/a.rs"));
        assert!(ends_with_components(
            "/x/.claude/settings.json",
            ".claude/settings.json"
        ));
        assert!(!ends_with_components("/x/xsrc/a.rs", "src/a.rs"));
        assert!(!ends_with_components("/x/a.rs", "../a.rs"));
    }

    /// FH-021, FH-039: the settings family, by shape.
    #[test]
    fn settings_family_by_shape() {
        assert!(is_settings_family("/u/.claude/settings.json"));
        assert!(is_settings_family(".claude/settings.local.json"));
        assert!(is_settings_family("/etc/claude-code/managed-settings.json"));
        assert!(is_settings_family("/u/.claude.json"));
        assert!(!is_settings_family("/u/proj/settings.json"));
        assert!(!is_settings_family("/u/proj/my-settings.json"));
    }
}
