//! The user-facing text: the README leads with the two commands that work on a
//! fresh machine, its examples print what they show (run here on the bundled
//! sample), each command has its page under docs/, and no claim id (the
//! project's own measurement ids, `REC-091` and the like) reaches a reader: they
//! belong in code comments and tests.

use crate::common;

use std::path::{Path, PathBuf};

/// Every subcommand; each has a page docs/<command>.md the README links to
/// (or shares its sibling's: recover is on files' page, statusline on usage's).
const COMMANDS: &[&str] = &[
    "list",
    "search",
    "show",
    "stats",
    "verbatim",
    "agents",
    "audit",
    "plan",
    "image",
    "export",
    "guard",
    "status",
    "tasks",
    "wait",
    "files",
    "recover",
    "usage",
    "statusline",
    "whoami",
    "mcp",
    "hooks",
    "completions",
    "man",
];

fn page(command: &str) -> &str {
    match command {
        "recover" => "files",
        "statusline" => "usage",
        c => c,
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Claim ids as the claims table spells them: `REC-091`, `TURN-022…024`,
/// `NAR-*`, `CMP-*`.
fn claim_ids(text: &str) -> Vec<String> {
    let re = regex::Regex::new(
        r"\b(?:REC|QT|TURN|CLS|CMP|TAIL|SUB|BG|NAR|MISC|ELI|PATH|FH|BASH|REG|PLAN|PERF|SCH|HOOK|TOOL|AUD|IMG|WIN)-(?:[0-9]{3}|\*)",
    )
    .unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

fn docs_pages() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    v.sort();
    v
}

#[test]
fn no_claim_id_in_the_readme_docs_or_help() {
    let mut found = Vec::new();
    let mut texts = vec![("README.md".to_string(), read("README.md"))];
    for p in docs_pages() {
        texts.push((
            p.display().to_string(),
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    let help = |args: &[&str]| {
        let out = common::csift().args(args).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    texts.push(("csift --help".into(), help(&["--help"])));
    for c in COMMANDS {
        texts.push((format!("csift {c} --help"), help(&[c, "--help"])));
        texts.push((format!("csift {c} -h"), help(&[c, "-h"])));
    }
    texts.push((
        "csift search --list-labels".into(),
        help(&["search", "--list-labels"]),
    ));
    for (name, text) in &texts {
        let ids = claim_ids(text);
        if !ids.is_empty() {
            found.push(format!("{name}: {}", ids.join(" ")));
        }
    }
    assert!(
        found.is_empty(),
        "claim ids in user-facing text:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_command_has_a_docs_page_the_readme_links() {
    let readme = read("README.md");
    for c in COMMANDS {
        let page = format!("docs/{}.md", page(c));
        assert!(root().join(&page).is_file(), "{page} missing");
        assert!(
            readme.contains(&format!("]({page})")),
            "README does not link {page}"
        );
    }
}

/// The README opens with what csift is for, then the two commands that work on
/// a fresh checkout: csift on the bundled sample, and the tests.
#[test]
fn the_readme_leads_with_the_two_commands() {
    let readme = read("README.md");
    let first_block = readme
        .split("```")
        .nth(1)
        .expect("a code block")
        .lines()
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        first_block.trim(),
        "cargo run --release -- list --claude-home sample/claude-home\ncargo test"
    );
}

/// Split a `$ csift …` line into arguments: words, or single-quoted strings.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Each ```console block of the README is a session: `$ csift ARGS` lines, each
/// followed by the output it prints on the bundled sample home (TZ=UTC). The
/// output shown is the output csift prints.
#[test]
fn the_readme_examples_print_what_they_show() {
    let readme = read("README.md");
    let mut examples = 0;
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let mut runs: Vec<(String, String)> = Vec::new();
        for line in block.lines() {
            match line.strip_prefix("$ ") {
                Some(cmd) => runs.push((cmd.to_string(), String::new())),
                None => {
                    let (_, out) = runs.last_mut().expect("output after a $ line");
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        for (cmd, want) in runs {
            let args = words(&cmd);
            assert_eq!(args[0], "csift", "{cmd}");
            // As the README runs them: from the checkout, the home relative.
            let out = common::csift()
                .args(&args[1..])
                .current_dir(root())
                .env("CLAUDE_CONFIG_DIR", "sample/claude-home")
                .env("TZ", "UTC")
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.code().is_some_and(|c| c <= 1),
                "{cmd}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(got, want, "README example `{cmd}` prints otherwise");
            examples += 1;
        }
    }
    assert!(examples >= 5, "{examples} examples");
}
