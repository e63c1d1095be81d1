//! Unit tests of `turns`.

use super::entry::{command_output, error_line, head_said};

/// Shapes of 22 failed Bash results in the public corpus, whose first line
/// is a bare `Exit code N`: the summary carries the line that says why.
#[test]
fn a_bare_exit_code_is_followed_by_the_reason() {
    let git = "Exit code 128\nfatal: 'main' is already used by worktree at '/w'\n\nNo local changes to save";
    assert_eq!(
        error_line(git),
        "Exit code 128 · fatal: 'main' is already used by worktree at '/w'"
    );
    let usage = "Exit code 2\nUsage: erk exec setup-impl [OPTIONS]\nTry --help.\n\nError: No such option: --json";
    assert_eq!(
        error_line(usage),
        "Exit code 2 · Error: No such option: --json"
    );
    let quiet = "Exit code 1\naccepts at most 1 arg(s), received 3";
    assert_eq!(
        error_line(quiet),
        "Exit code 1 · accepts at most 1 arg(s), received 3"
    );
    assert_eq!(error_line("Exit code 1"), "Exit code 1");
    assert_eq!(
        error_line("\nFile does not exist.\nmore"),
        "File does not exist."
    );
}

/// A command's output is cut on a character boundary, counted in UTF-16
/// units, with the wrapper tag left out of both.
#[test]
fn command_output_head_counts_what_it_leaves_out() {
    let show = "csift show @s";
    assert_eq!(head_said(&"a".repeat(500), 500, show, 3), "a".repeat(500));
    assert_eq!(
        head_said(&"a".repeat(501), 500, show, 3),
        format!(
            "{}[… 1 character cut; `csift show @s --line 3 --no-truncate` prints it …]",
            "a".repeat(500)
        )
    );
    // An emoji (two units) across the limit stays out whole.
    let s = format!("{}😀b", "a".repeat(499));
    assert!(head_said(&s, 500, show, 3).starts_with(&format!("{}[… 3 characters", "a".repeat(499))));
    assert_eq!(
        command_output("<local-command-stdout>out</local-command-stdout>"),
        ("[command output]", "out")
    );
    assert_eq!(
        command_output("<local-command-stderr>bad</local-command-stderr>"),
        ("[command error output]", "bad")
    );
}
