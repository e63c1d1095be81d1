//! `csift completions SHELL`, `csift man` and `csift --version`: the first
//! two are generated from the one clap definition, so each must mention
//! every subcommand `csift --help` lists; the version names the commit.

use crate::common;

/// The subcommands `csift --help` lists (its "Commands:" section).
fn subcommands() -> Vec<String> {
    let out = common::csift().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let section = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section");
    let names: Vec<String> = section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|n| n != "help")
        .collect();
    assert!(names.len() >= 20, "{names:?}");
    for must in ["mcp", "hooks", "completions", "man", "list", "search"] {
        assert!(names.iter().any(|n| n == must), "{must} not in {names:?}");
    }
    names
}

#[test]
fn every_shells_completions_name_every_subcommand() {
    let names = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = common::csift()
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        for n in &names {
            assert!(script.contains(n.as_str()), "{shell} completions lack {n}");
        }
        // Flags too: a subcommand's own options are completed.
        assert!(script.contains("max-count"), "{shell}");
    }
}

#[test]
fn the_man_page_has_a_section_per_subcommand() {
    let names = subcommands();
    let out = common::csift().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "roff");
    assert!(page.contains(".TH csift 1"));
    for n in &names {
        let section = format!(".SH \"CSIFT {}\"", n.to_uppercase());
        assert!(page.contains(&section), "man page lacks {section}");
        assert!(
            page.contains(&format!("\\fBcsift {n}\\fR")),
            "{n} not listed"
        );
    }
    // Options are rendered (roff escapes the dash).
    assert!(page.contains("max\\-count"));
}

#[test]
fn version_names_the_commit() {
    let out = common::csift().arg("--version").output().unwrap();
    assert!(out.status.success());
    let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let re = regex::Regex::new(r"^csift \d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)\)$").unwrap();
    assert!(re.is_match(&v), "{v}");
    // Built from a git checkout (as here and in CI): the commit is HEAD's.
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Some(h) = head.ok().filter(|h| h.status.success()) {
        let h = String::from_utf8_lossy(&h.stdout).trim().to_string();
        assert!(v.contains(&h), "{v} is not HEAD {h}");
    }
}
