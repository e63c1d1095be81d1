//! The command line before clap reads it. Claude Code names a project folder
//! after its cwd with every `/` turned into `-` (PATH-001: `/home/ana/app` is
//! `-home-ana-app`), so a folder's bare name given as a target starts with a
//! dash, and clap reads it as flags: `-home-…` was `-h` and printed help with
//! exit 0, which `audit` also uses for "no findings". An argument that names an
//! existing folder under the home's `projects/` is moved after `--`, where it
//! is a target. So is one spelled like such a name that names no folder (a
//! typo, a project not on this machine): as a target it fails with "no such
//! project", where clap would have read `-home-…` as `--help`. Nothing else is
//! touched: option values, arguments after a `--`, and flag clusters reach clap
//! as given.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use clap::CommandFactory;

use super::Cli;
use crate::discovery::home;

/// `args` (program name first) with every dashed argument that names a project
/// folder moved after `--` (after the one given, or a new one at the end).
pub(crate) fn protect_project_names(args: Vec<OsString>) -> Vec<OsString> {
    // Only a single-dash word of three or more bytes with no `/` can be
    // moved: with none, clap's whole command tree (every subcommand's
    // arguments) is not built twice.
    if !args.iter().skip(1).any(|a| movable(a)) {
        return args;
    }
    let root = Cli::command();
    // The subcommand: the first argument that is not a flag.
    let Some(at) = args.iter().skip(1).position(|a| !dashed(a)).map(|i| i + 1) else {
        return args;
    };
    let Some(sub) = args[at].to_str().and_then(|n| root.find_subcommand(n)) else {
        return args;
    };
    let Some(projects) = projects_dir(&args[at + 1..]) else {
        return args;
    };
    let valued: Vec<&clap::Arg> = sub
        .get_arguments()
        .filter(|a| !a.is_positional() && a.get_action().takes_values())
        .collect();
    let takes_value = |flag: &str| -> bool {
        if let Some(long) = flag.strip_prefix("--") {
            return !long.contains('=') && valued.iter().any(|a| a.get_long() == Some(long));
        }
        // A cluster of shorts (`-ie`) takes the next argument when its last one does.
        let shorts: Vec<char> = flag.chars().skip(1).collect();
        let known = |c: &char| sub.get_arguments().any(|a| a.get_short() == Some(*c));
        !shorts.is_empty()
            && shorts.iter().all(known)
            && shorts
                .last()
                .is_some_and(|c| valued.iter().any(|a| a.get_short() == Some(*c)))
    };

    // The first segments of the home's project names (`Users`, `home` …).
    let roots = std::cell::OnceCell::new();
    let roots = || roots.get_or_init(|| root_segments(&projects));

    let mut kept = Vec::with_capacity(args.len() + 1);
    let mut moved = Vec::new();
    let mut end = None; // index in `kept` just past a given `--`
    let mut value_next = false;
    for (i, a) in args.into_iter().enumerate() {
        if i <= at || end.is_some() {
            kept.push(a);
            continue;
        }
        if a == "--" {
            kept.push(a);
            end = Some(kept.len());
            continue;
        }
        let is_value = std::mem::take(&mut value_next);
        let text = a.to_str().unwrap_or_default();
        if !is_value && (names_a_project(&a, &projects) || spelled_like_a_project(text, sub, roots))
        {
            moved.push(a);
            continue;
        }
        value_next = !is_value && dashed(&a) && takes_value(text);
        kept.push(a);
    }
    if moved.is_empty() {
        return kept;
    }
    let at = match end {
        Some(at) => at,
        None => {
            kept.push("--".into());
            kept.len()
        }
    };
    kept.splice(at..at, moved);
    kept
}

/// What [`names_a_project`] or [`spelled_like_a_project`] may say yes to.
fn movable(a: &OsStr) -> bool {
    a.to_str().is_some_and(|s| {
        s.len() > 2 && s.starts_with('-') && !s.starts_with("--") && !s.contains('/')
    })
}

fn dashed(a: &OsStr) -> bool {
    a.to_str()
        .is_some_and(|s| s.starts_with('-') && s.len() > 1)
}

/// A single-dash argument that is the name of a folder under `projects`.
fn names_a_project(a: &OsStr, projects: &std::path::Path) -> bool {
    let Some(s) = a.to_str() else { return false };
    s.len() > 2
        && s.starts_with('-')
        && !s.starts_with("--")
        && !s.contains('/')
        && projects.join(s).is_dir()
}

/// A single-dash word (PATH-001: a cwd encodes with a dash for each `/`) that
/// is a project name rather than flags: its first segment starts a project name
/// in this home (`-Users-bo-typo` beside `-Users-bo-x`, although `-Use…` would
/// read as `-U -s -e …`), or no flag cluster spells it: after the flags that
/// take no value comes a letter no flag has (`-home-…` is `-h` then `o`).
/// Otherwise a cluster ending in a flag that takes a value (`-e-x`, `-ie-x`)
/// is that flag with its value.
fn spelled_like_a_project<'r>(
    s: &str,
    sub: &clap::Command,
    roots: impl FnOnce() -> &'r HashSet<String>,
) -> bool {
    if s.len() < 3 || !s.starts_with('-') || s.starts_with("--") || s.contains(['=', '/']) {
        return false;
    }
    // The dash after the first letter (which may be more than one byte); a
    // one-segment name (`-home`, the cwd `/home`) has none and is judged by the
    // flag clusters alone.
    let second = s[1..]
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '-')
        .map(|(i, _)| i + 1);
    if second.is_some_and(|end| roots().contains(&s[1..end])) {
        return true;
    }
    for c in s.chars().skip(1) {
        let Some(flag) = sub.get_arguments().find(|a| a.get_short() == Some(c)) else {
            return true;
        };
        if flag.get_action().takes_values() {
            return false;
        }
    }
    false
}

/// The first segment of every dashed project folder name (`Users` of
/// `-Users-bo-x`).
fn root_segments(projects: &std::path::Path) -> HashSet<String> {
    let Ok(dir) = std::fs::read_dir(projects) else {
        return HashSet::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let rest = name.strip_prefix('-')?;
            let end = rest.find('-').unwrap_or(rest.len());
            Some(rest[..end].to_string()).filter(|r| !r.is_empty())
        })
        .collect()
}

/// The projects folder of the home these arguments name (`--claude-home DIR`
/// or `--claude-home=DIR`), else of the environment's home.
fn projects_dir(args: &[OsString]) -> Option<PathBuf> {
    let mut flag = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--claude-home" {
            flag = it.next().map(PathBuf::from);
        } else if let Some(v) = a.to_str().and_then(|s| s.strip_prefix("--claude-home=")) {
            flag = Some(PathBuf::from(v));
        }
    }
    home::from_env(flag).ok().map(|h| h.projects())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arguments as clap will get them, with `--claude-home HOME` put
    /// after the subcommand (and left out of the answer).
    fn run(home: &std::path::Path, args: &[&str]) -> Vec<String> {
        let mut v: Vec<OsString> = vec!["csift".into()];
        v.extend(args.iter().take(1).map(OsString::from));
        v.push("--claude-home".into());
        v.push(home.as_os_str().to_owned());
        v.extend(args.iter().skip(1).map(OsString::from));
        let home = home.to_string_lossy();
        protect_project_names(v)
            .into_iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .filter(|a| *a != home && a != "--claude-home")
            .collect()
    }

    #[test]
    fn a_bare_encoded_project_name_becomes_a_target_path_001() {
        let dir = tempfile::tempdir().unwrap();
        for p in ["-home-ana-app", "-Users-bo-x"] {
            std::fs::create_dir_all(dir.path().join("projects").join(p)).unwrap();
        }
        let h = dir.path();
        assert_eq!(
            run(h, &["audit", "-home-ana-app"]),
            ["audit", "--", "-home-ana-app"]
        );
        assert_eq!(
            run(h, &["list", "-Users-bo-x", "-m", "3", "-home-ana-app"]),
            ["list", "-m", "3", "--", "-Users-bo-x", "-home-ana-app"]
        );
        assert_eq!(
            run(h, &["search", "foo", "-home-ana-app", "--", "x"]),
            ["search", "foo", "--", "-home-ana-app", "x"]
        );
        // An option's value stays where it is, even when it names a folder.
        assert_eq!(
            run(h, &["search", "-e", "-home-ana-app"]),
            ["search", "-e", "-home-ana-app"]
        );
        assert_eq!(
            run(h, &["search", "-ie", "-home-ana-app"]),
            ["search", "-ie", "-home-ana-app"]
        );
        // A name with no folder (a typo) is a target too, so it fails as
        // one: clap read `-home-…` as `-h` and printed help with exit 0.
        assert_eq!(
            run(h, &["audit", "-home-ana-apq"]),
            ["audit", "--", "-home-ana-apq"]
        );
        assert_eq!(
            run(h, &["list", "-Users-typo", "-m", "2"]),
            ["list", "-m", "2", "--", "-Users-typo"]
        );
        // `-Users-bo-y` would read as `-U -s -e rs-bo-y` in search, but
        // `Users` starts a project name here.
        assert_eq!(
            run(h, &["search", "x", "-Users-bo-y"]),
            ["search", "x", "--", "-Users-bo-y"]
        );
        // A one-segment name (the cwd `/home`) is a target too: `-home` read
        // as `-h` printed help and exited 0.
        assert_eq!(run(h, &["list", "-home"]), ["list", "--", "-home"]);
        assert_eq!(run(h, &["audit", "-tmp"]), ["audit", "--", "-tmp"]);
        // In search `-tmp` is `-t mp`: a flag that takes a value.
        assert_eq!(run(h, &["search", "x", "-tmp"]), ["search", "x", "-tmp"]);
        // Flags, flag clusters with a value, and everything after `--` are
        // untouched.
        assert_eq!(run(h, &["search", "-ic", "x"]), ["search", "-ic", "x"]);
        assert_eq!(run(h, &["list", "-m", "2"]), ["list", "-m", "2"]);
        assert_eq!(run(h, &["search", "-e-x-y"]), ["search", "-e-x-y"]);
        assert_eq!(run(h, &["search", "-ie-x-y"]), ["search", "-ie-x-y"]);
        assert_eq!(run(h, &["search", "-i", "x"]), ["search", "-i", "x"]);
        // A multi-byte letter after the dash is no slicing hazard.
        assert_eq!(
            run(h, &["search", "x", "-é-x"]),
            ["search", "x", "--", "-é-x"]
        );
        assert_eq!(
            run(h, &["list", "--", "-home-ana-app"]),
            ["list", "--", "-home-ana-app"]
        );
        assert_eq!(run(h, &["--help"]), ["--help"]);
    }
}
