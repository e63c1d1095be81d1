//! One test per branch of the ported classifier (BASH-015…017, WIN-005/011).

use super::danger::{lone_amp_to_semicolon, strip_groups, MAX_SUBSTITUTIONS};
use super::*;

fn flagged(cmd: &str) -> Option<(&'static str, String)> {
    match dangerous_rm(cmd) {
        Verdict::DangerousRm { command, target } => Some((command, target)),
        _ => None,
    }
}

#[track_caller]
fn yes(cmd: &str, target: &str) {
    assert_eq!(
        flagged(cmd).map(|(_, t)| t),
        Some(target.to_string()),
        "{cmd:?}"
    );
}

#[track_caller]
fn no(cmd: &str) {
    assert_eq!(dangerous_rm(cmd), Verdict::Clear, "{cmd:?}");
}

#[test]
fn entry_guard_needs_an_rm_word_and_a_dollar_bash_015() {
    // BASH-015
    no("echo $HOME/*");
    no("rm -rf /tmp/build/*");
    // JavaScript's \b is ASCII: `farm` holds no rm word, `é` is not a word character.
    no("farm $X/*");
    yes("érm $X/*; rm $X/*", "$X/*");
}

#[test]
fn clause_head_branches_bash_016() {
    // BASH-016
    yes("rm $X/*", "$X/*");
    assert_eq!(flagged("rmdir $D/"), Some(("rmdir", "$D/".into())));
    yes("FOO=1 BAR+=x rm -rf $X/*", "$X/*");
    yes(r"\rm -rf $X/*", "$X/*");
    yes("/bin/rm -rf $X/*", "$X/*");
    // rm must end at whitespace or the end: `rmx` and `rm-x` are other words.
    no("rmx $X/*");
    // An `=` in the prefix makes it an assignment, not a path: no rm head.
    no("x=/bin/rm $X/*");
    // rm as a subcommand of another program does not start the clause.
    no("docker images rm $X/*");
}

#[test]
fn target_branches_bash_016() {
    // BASH-016
    for t in [
        "$X/*",
        "$X/$y",
        "$X//",
        r#""$X/""#,
        "$X/'",
        "${X}/",
        r#""$X"/"#,
        r#""${X}/$f""#,
        "$X/",
    ] {
        yes(&format!("rm -rf {t}"), t);
    }
    // `$VAR/literal` is not flagged (the exact boundary; do not broaden it).
    no("rm -rf $TMP/build");
    no("rm -rf ${DIR}/sub");
    // No slash, a positional parameter, a path before the variable: not a target.
    no("rm -rf $FILE");
    no("rm -rf $1/*");
    no("rm -rf ./$X/*");
}

#[test]
fn operand_walk_skips_flags_quotes_and_redirects_bash_016() {
    // BASH-016
    yes("rm -r -f --one-file-system $X/*", "$X/*");
    // A single-quoted operand never expands.
    no("rm -rf '$X/*'");
    // A bare redirect operator takes the next operand with it; a fused one is one.
    no("rm -r $X > $TMP/");
    no("rm -r $X 2>$TMP/");
    yes("rm -r 2> /dev/null $X/*", "$X/*");
    // A trailing `)`, `]` or `}` run is trimmed before the test.
    yes("[ -d x ] && rm -rf $X/*]", "$X/*");
}

#[test]
fn preprocessing_line_continuations_and_backticks_bash_016() {
    // BASH-016
    yes("rm -rf \\\n  $X/*", "$X/*");
    yes("rm -rf \\\r\n  $X/*", "$X/*");
    // A backtick substitution is blanked, its body never read.
    no("echo `rm -rf $X/*`");
    // Leading `(` and `{` are dropped, so a grouped removal is its own clause.
    yes("( rm -rf $X/* )", "$X/*");
    yes("{ rm -rf $X/*; }", "$X/*");
}

#[test]
fn groups_are_stripped_to_a_fixpoint_win_011() {
    // WIN-011
    assert_eq!(strip_groups("a $(b $(c)) d"), "a   d");
    assert_eq!(strip_groups("a (b (c) d) e"), "a   e");
    // A `$`-preceded group is left to the `$(` pass of the next round.
    assert_eq!(strip_groups("x$((1+2))"), "x ");
    assert_eq!(strip_groups("((a)"), "( ");
    // So a removal inside a later subshell or substitution is not read (BASH-017).
    no("cd /x; (rm -rf $X/*)");
    no("echo $(rm -rf $X/*)");
    // But a variable built by a substitution leaves the removal visible.
    yes(r#"D=$(mktemp -d); rm -rf "$D/""#, r#""$D/""#);
}

#[test]
fn clauses_split_on_separators_and_a_lone_amp_bash_016() {
    // BASH-016
    for sep in ["; ", " | ", " && ", "\n", "\r\n", " & "] {
        yes(&format!("make{sep}rm -rf $X/*"), "$X/*");
    }
    // `||` splits on each `|`.
    yes("false || rm -rf $X/*", "$X/*");
    assert_eq!(lone_amp_to_semicolon("a & b&"), "a ; b;");
    assert_eq!(
        lone_amp_to_semicolon("a && b 2>&1 &>x <&0"),
        "a && b 2>&1 &>x <&0"
    );
}

#[test]
fn loop_and_branch_bodies_are_read_as_statements() {
    yes("for f in a b; do rm -rf $T/$f; done", "$T/$f");
    yes("if true; then rm $T/*; else rm $U/*; fi", "$T/*");
    yes("while read f; do ! rm $T/*; done", "$T/*");
    // A keyword must be a whole word: `done_rm` is not `do`.
    no("dox rm $T/*");
}

#[test]
fn the_teardown_that_froze_a_lane_is_flagged_sub_024() {
    // SUB-024
    // A lane frozen for half an hour on this call (a subagent's teardown loop).
    let cmd = "SCRATCH=\"/tmp/x\"\nfor f in a.txt b.txt; do\n  [ -f \"$SCRATCH/$f\" ] && rm -f \"$SCRATCH/$f\" && echo \"  shredded $f\"\ndone";
    assert_eq!(flagged(cmd), Some(("rm", "\"$SCRATCH/$f\"".to_string())));
}

#[test]
fn lexical_only_an_assigned_variable_still_counts_bash_015() {
    // BASH-015
    // Claude Code never checks whether the variable is empty; neither does csift.
    yes("SCRATCH=/tmp/real\nrm -rf $SCRATCH/*", "$SCRATCH/*");
}

#[test]
fn more_than_64_substitutions_bail_to_approval_win_011() {
    // WIN-011
    let subs = |n: usize| "$(true) ".repeat(n);
    let at = format!("echo {} && rm -rf build", subs(MAX_SUBSTITUTIONS));
    no(&at);
    let over = format!("echo {} && rm -rf build", subs(MAX_SUBSTITUTIONS + 1));
    assert_eq!(
        dangerous_rm(&over),
        Verdict::TooManySubstitutions { count: 65 }
    );
    assert!(is_dangerous_rm(&over));
    // Without an rm word the pass has no verdict.
    no(&format!("echo {}", subs(100)));
    // Process substitutions, backtick pairs and funsubs count; quoted text does not.
    let mixed = format!(
        "rm x {} {} {} '{}'",
        "<(a) >(b) ".repeat(20),
        "`c` ".repeat(20),
        "${ d; } ".repeat(5),
        "$(e) ".repeat(50)
    );
    assert_eq!(
        dangerous_rm(&mixed),
        Verdict::TooManySubstitutions { count: 65 }
    );
    assert_eq!(super::subst::count("$((1+2)) \\$(x) # $(y)\n$(z)"), 1);
}

#[test]
fn powershell_is_never_read_as_bash_win_005() {
    // WIN-005
    let cmd = "Remove-Item -Recurse -Force $env:TEMP/*; rm -rf $X/*";
    assert_eq!(for_tool("PowerShell", cmd), None);
    assert!(for_tool("Bash", cmd).is_some_and(|v| v.escalates()));
    assert_eq!(for_tool("Read", cmd), None);
}

#[test]
fn reasons_use_claude_codes_wording_bash_015() {
    // BASH-015
    assert_eq!(
        dangerous_rm("rm -rf $X/*").reason().as_deref(),
        Some("Dangerous rm operation on possibly-empty variable path: $X/*")
    );
    assert_eq!(Verdict::Clear.reason(), None);
    assert!(Verdict::TooManySubstitutions { count: 70 }
        .reason()
        .is_some_and(|r| r.ends_with("(70)")));
}
