//! Class markers (BASH-020): commands that mutate files they never name —
//! formatters, package managers, archive extraction and patch application,
//! interpreters, tree-changing git — named `fmt:`, `pkg:`, `extract:`,
//! `interp:`, `git:` and never resolved, joined or matched to a path. A
//! formatter that names its files writes them instead.

use super::lex::Word;
use super::verbs::{has_flag, operands};

/// Formatters: `Some(files)` when `name` formats in place (an empty list when
/// it names none, or only directories we cannot tell from files).
pub(super) fn formatter_operands<'w>(name: &str, args: &'w [Word]) -> Option<Vec<&'w Word>> {
    let writes = match name {
        "rustfmt" | "black" | "isort" | "swiftformat" | "phpcbf" | "autopep8" | "yapf" => true,
        "gofmt" | "goimports" => has_flag(args, 'w', "-w"),
        "prettier" => args.iter().any(|w| w.text == "--write" || w.text == "-w"),
        "clang-format" => args.iter().any(|w| w.text == "-i"),
        "eslint" | "stylelint" => args.iter().any(|w| w.text == "--fix"),
        _ => false,
    };
    if !writes {
        return None;
    }
    let ops = operands(
        args,
        &[
            "--config",
            "-c",
            "--line-length",
            "-l",
            "--edition",
            "--ignore-path",
            "--style",
            "--plugin",
        ],
    );
    // `black .` names a directory: the files in it are not named.
    Some(
        ops.into_iter()
            .filter(|w| w.text.contains('.') && w.text != "." && !w.text.ends_with('/'))
            .collect(),
    )
}

/// The class marker of a command that mutates files it does not name.
pub(super) fn marker(name: &str, args: &[Word]) -> Option<String> {
    let sub = args
        .iter()
        .find(|w| !w.text.starts_with('-'))
        .map(|w| w.text.as_str());
    fmt(name, args, sub)
        .or_else(|| pkg(name, args, sub))
        .or_else(|| extract(name, args, sub))
        .or_else(|| interp(name, args))
        .or_else(|| git(name, sub))
}

/// Formatters and fixers run without naming files (FH-005's idioms).
fn fmt(name: &str, args: &[Word], sub: Option<&str>) -> Option<String> {
    let fixes = |t: &str| t.contains("fmt") || t.contains("format") || t.contains("fix");
    let m = match (name, sub) {
        ("cargo", Some("fmt" | "fix")) => "fmt:cargo".into(),
        ("cargo", Some("clippy")) if args.iter().any(|w| w.text == "--fix") => "fmt:cargo".into(),
        ("go", Some("fmt")) => "fmt:go".into(),
        ("terraform" | "dprint", Some("fmt")) => format!("fmt:{name}"),
        ("ruff", _) if sub == Some("format") || args.iter().any(|w| w.text == "--fix") => {
            "fmt:ruff".into()
        }
        // Task runners: a formatting or fixing task (run format, run fix, lint:fix).
        ("mise" | "make" | "just" | "task" | "rake" | "invoke", _)
            if args
                .iter()
                .any(|w| !w.text.starts_with('-') && fixes(&w.text)) =>
        {
            format!("fmt:{name}")
        }
        ("npm" | "yarn" | "pnpm" | "bun", Some("format" | "fmt")) => format!("fmt:{name}"),
        ("npm" | "yarn" | "pnpm" | "bun", Some("run" | "exec" | "x")) => {
            let script = args.iter().filter(|w| !w.text.starts_with('-')).nth(1);
            script.filter(|s| fixes(&s.text))?;
            format!("fmt:{name}")
        }
        _ => return None,
    };
    Some(m)
}

/// Package managers that install, add or remove.
fn pkg(name: &str, _args: &[Word], sub: Option<&str>) -> Option<String> {
    let changes = |s: &str| {
        matches!(
            s,
            "install"
                | "i"
                | "ci"
                | "add"
                | "remove"
                | "rm"
                | "uninstall"
                | "update"
                | "up"
                | "upgrade"
                | "sync"
                | "lock"
                | "pip"
                | "require"
        )
    };
    let m = match (name, sub) {
        ("cargo", Some("add" | "remove" | "update" | "rm")) => "pkg:cargo".into(),
        ("go", Some("get" | "mod")) => "pkg:go".into(),
        // A bare `yarn` / `pnpm` installs; a bare `npm` prints help.
        ("yarn" | "pnpm" | "bun", None) => format!("pkg:{name}"),
        (
            "npm" | "yarn" | "pnpm" | "bun" | "pip" | "pip3" | "uv" | "poetry" | "pipenv" | "conda"
            | "gem" | "bundle" | "composer",
            Some(s),
        ) if changes(s) => {
            format!("pkg:{name}")
        }
        _ => return None,
    };
    Some(m)
}

/// Archive extraction and patch application.
fn extract(name: &str, args: &[Word], sub: Option<&str>) -> Option<String> {
    let tar_x = |t: &str| {
        let letters = t.trim_start_matches('-');
        t == "--extract"
            || t == "--get"
            || (!t.starts_with("--")
                && letters.starts_with(|c: char| c.is_ascii_alphabetic())
                && letters.contains('x')
                && !t.contains('/'))
    };
    match name {
        "tar" | "bsdtar" if args.iter().any(|w| tar_x(&w.text)) => Some(format!("extract:{name}")),
        "7z" if matches!(sub, Some("x" | "e")) => Some("extract:7z".into()),
        "unzip" | "gunzip" | "bunzip2" | "unxz" | "unrar" | "zstd" => {
            Some(format!("extract:{name}"))
        }
        "patch" => Some("extract:patch".into()),
        _ => None,
    }
}

/// Interpreters running a script or a program text (uv/poetry run included).
fn interp(name: &str, args: &[Word]) -> Option<String> {
    let sub = args.first().map(|w| w.text.as_str());
    if matches!(name, "uv" | "poetry") && sub == Some("run") {
        return Some("interp:python".into());
    }
    if name == "go" && sub == Some("generate") {
        return Some("interp:go".into());
    }
    if !matches!(
        name,
        "python"
            | "python3"
            | "node"
            | "deno"
            | "ruby"
            | "perl"
            | "php"
            | "bash"
            | "sh"
            | "zsh"
            | "Rscript"
            | "lua"
            | "tsx"
            | "ts-node"
    ) {
        return None;
    }
    // A bare `python --version` or `node -v` runs nothing.
    let only_info = args
        .iter()
        .all(|w| matches!(w.text.as_str(), "--version" | "-V" | "-v" | "--help" | "-h"));
    if args.is_empty() || only_info {
        return None;
    }
    Some(format!(
        "interp:{}",
        name.trim_end_matches(|c: char| c.is_ascii_digit())
    ))
}

/// Git subcommands that change the working tree.
fn git(name: &str, sub: Option<&str>) -> Option<String> {
    match (name, sub?) {
        (
            "git",
            s @ ("checkout" | "switch" | "restore" | "reset" | "stash" | "merge" | "rebase"
            | "pull" | "apply" | "am" | "cherry-pick" | "revert" | "clean" | "mv" | "rm"
            | "worktree"),
        ) => Some(format!("git:{s}")),
        _ => None,
    }
}
