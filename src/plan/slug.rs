//! Claude Code's second binding law and where it puts plan files: the first
//! record carrying a `slug` binds `<plans-dir>/<slug>.md` when the slug is
//! valid (PLAN-005…007, PLAN-011), and the plans directory comes from the
//! merged settings, resolved against the project root (PLAN-008, PLAN-018…020).

use std::path::{Component, Path, PathBuf};

use crate::scan::json::{self, Fields};

/// Claude Code's rule, `/^[a-z0-9][a-z0-9-]{0,119}$/` (PLAN-007): a lowercase
/// alphanumeric head, then lowercase alphanumerics or dashes, 120 at most.
pub(crate) fn slug_is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty() && b.len() <= 120 && ok(&b[0]) && b[1..].iter().all(|c| ok(c) || *c == b'-')
}

/// The first record with a non-empty top-level `slug`: `(line, slug, type,
/// subtype)`. Claude Code takes the first such message and validates it,
/// never looking further (PLAN-006), and a session has one slug (PLAN-011),
/// so the walk stops there. A nested `"slug"` key (in a tool result) is
/// not the record's and is skipped.
pub(crate) fn first_slug(buf: &[u8]) -> Option<(usize, String, String, String)> {
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&buf[from..], b"\"slug\"").map(|i| from + i) {
        let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |i| at + i);
        let line = &buf[start..end];
        let (mut slug, mut kind, mut sub) = (None, String::new(), String::new());
        for (k, v) in Fields::new(line, 0).map_while(Result::ok) {
            match k {
                b"slug" => slug = json::string(v).map(|s| s.into_owned()),
                b"type" => kind = json::string(v).unwrap_or_default().into_owned(),
                b"subtype" => sub = json::string(v).unwrap_or_default().into_owned(),
                _ => {}
            }
        }
        if let Some(s) = slug.filter(|s| !s.is_empty()) {
            let no = 1 + memchr::memchr_iter(b'\n', &buf[..start]).count();
            return Some((no, s, kind, sub));
        }
        from = end;
    }
    None
}

/// The transcript's first recorded `cwd`: the project root Claude Code resolved
/// `plansDirectory` against, before any `cd` moved later records' cwd (PLAN-008).
pub(crate) fn first_cwd(buf: &[u8]) -> Option<String> {
    crate::scan::Lines::new(buf).take(256).find_map(|l| {
        json::field(l.bytes, b"cwd")
            .and_then(json::string)
            .filter(|c| !c.is_empty())
            .map(|c| c.into_owned())
    })
}

/// `plansDirectory` from the settings layers csift can see, low to high:
/// user (`<home>/settings.json`), project (`<root>/.claude/settings.json`),
/// local (`<root>/.claude/settings.local.json`); the last that sets it wins
/// (PLAN-008, PLAN-019). The flag and policy layers leave no trace on disk
/// (PLAN-020), and Claude Code reads the local layer at the git root when the
/// cwd is below it (PLAN-019): both unseen.
pub(crate) fn plans_dir_setting(home: &Path, root: &Path) -> Option<String> {
    let layers = [
        home.join("settings.json"),
        root.join(".claude").join("settings.json"),
        root.join(".claude").join("settings.local.json"),
    ];
    let mut value = None;
    for p in layers {
        let Ok(raw) = crate::scan::source::small(&p, u64::MAX) else {
            continue;
        };
        let raw = raw.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&raw);
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(raw) else {
            continue;
        };
        if let Some(d) = v.get("plansDirectory").and_then(serde_json::Value::as_str) {
            value = Some(d.to_string());
        }
    }
    value.filter(|v| !v.is_empty())
}

/// The plans directory: the setting joined to the project root when it stays
/// inside it, else `<home>/plans` (Claude Code refuses an escaping value with
/// "plansDirectory must be within project root", PLAN-018). The containment test
/// is lexical; Claude Code also resolves symlinks, so it can only be stricter.
pub(crate) fn plans_dir(home: &Path, root: Option<&Path>) -> PathBuf {
    let default = home.join("plans");
    let Some(root) = root else { return default };
    let Some(d) = plans_dir_setting(home, root) else {
        return default;
    };
    let joined = normal(&root.join(d));
    if joined.starts_with(normal(root)) {
        joined
    } else {
        default
    }
}

/// `.` and `..` resolved without touching the disk; `..` never climbs past the root.
pub(crate) fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir) | None
                ) {
                    out.pop();
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_rule_is_claude_codes_plan_007() {
        // PLAN-007
        assert!(slug_is_valid("nested-prancing-popcorn"));
        assert!(slug_is_valid(&"a".repeat(120)));
        assert!(!slug_is_valid(&"a".repeat(121)));
        assert!(!slug_is_valid("Jolly-prancing-popcorn"));
        assert!(!slug_is_valid("-jolly-prancing"));
        assert!(!slug_is_valid("jolly_prancing"));
        assert!(!slug_is_valid(""));
        assert!(slug_is_valid("9lives"));
    }

    #[test]
    fn the_first_top_level_slug_wins_plan_006_011() {
        // PLAN-006, PLAN-011; the slug is read off whichever record carries it first (PLAN-005)
        let buf = b"{\"type\":\"user\",\"toolUseResult\":{\"slug\":\"nested\"}}\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"slug\":null}\n{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"slug\":\"happy-sparking-sloth\"}\n{\"type\":\"user\",\"slug\":\"happy-sparking-sloth\"}\n";
        assert_eq!(
            first_slug(buf),
            Some((
                3,
                "happy-sparking-sloth".into(),
                "system".into(),
                "compact_boundary".into()
            ))
        );
        assert_eq!(first_slug(b"{\"type\":\"user\"}\n"), None);
    }

    #[test]
    fn plans_dir_stays_inside_the_root_plan_018() {
        // PLAN-018; the layers low to high (PLAN-019); the flag and policy layers
        // leave nothing on disk to read (PLAN-020)
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        assert_eq!(plans_dir(&home, Some(&root)), home.join("plans"));
        std::fs::write(
            home.join("settings.json"),
            r#"{"plansDirectory":"docs/plans"}"#,
        )
        .unwrap();
        // A user-level value is still resolved against the project root.
        assert_eq!(plans_dir(&home, Some(&root)), root.join("docs/plans"));
        let set = |v: &str| {
            std::fs::write(
                root.join(".claude/settings.local.json"),
                format!(r#"{{"plansDirectory":{}}}"#, serde_json::json!(v)),
            )
            .unwrap()
        };
        set("local-plans");
        assert_eq!(plans_dir(&home, Some(&root)), root.join("local-plans"));
        set("../outside");
        assert_eq!(plans_dir(&home, Some(&root)), home.join("plans"));
        set("/tmp/elsewhere");
        assert_eq!(plans_dir(&home, Some(&root)), home.join("plans"));
        set("./a/../b");
        assert_eq!(plans_dir(&home, Some(&root)), root.join("b"));
    }
}
