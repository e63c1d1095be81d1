//! Claude Code's `dangerous-rm` classifier, ported from its own text (BASH-015…017,
//! WIN-011; the 2.1.258 function `hnt`, byte-identical back to 2.1.193's `Ywa`).
//!
//! What Claude Code does: an `rm`/`rmdir` whose target is a bare `$VAR/…` or
//! `${VAR}/…` is hoisted to a human approval prompt even under bypass permissions
//! (`classifierApprovable:false`, circuit breaker `dangerousRemoval`, the one
//! bash-reachable breaker that is bypass-immune, BASH-015). The decision is two
//! regexes, a clause head and a target (BASH-016), after the command text is
//! stripped of line continuations, backtick substitutions and every `$(…)`/`(…)`
//! group to a FIXPOINT (WIN-011, BASH-017). It is PURELY LEXICAL: it never asks
//! whether the variable is empty, and neither does this port — resolving
//! variables would "improve" it away from the decision Claude Code really makes.
//!
//! A separate pass refuses to analyse a command carrying more than 64
//! substitutions: with an `rm`/`rmdir` word in it, Claude Code asks for explicit
//! approval (WIN-011, BASH-017). Its count is tree-sitter's (command and process
//! substitutions and `${ …}` funsubs); [`super::subst`] counts the same openings
//! lexically.
//!
//! Deviations, each the price of not embedding a bash parser:
//! - Claude Code splits statements with tree-sitter before this runs; the port
//!   reads the whole command as one statement (that splitter's own fallback for
//!   input it cannot parse), recovers the separated clauses with the harness's
//!   own split on `;`, `|`, `&&`, newlines and a lone `&`, and strips a leading
//!   `do`/`then`/`else`/`!`… so a loop or branch body is seen as its statement.
//! - The two replaces that need lookaround (`(?<!\$)\(…\)` and the lone-`&`
//!   rule) are hand-ported byte scans.
//! - `\s` and `\b` are Unicode-aware in Rust; `\b` is pinned to ASCII here as in
//!   JavaScript, `\s` differs only on U+0085 and U+FEFF.
//! - The 2.1.258 build also reads the bodies of command substitutions ("inside
//!   command substitution" is one of its reasons); the claims do not describe
//!   how, so a removal only inside `$(…)` is not flagged.

use regex::Regex;

/// `_to` (2.1.258) / `egp` (2.1.193), verbatim (BASH-016): optional `NAME=value`
/// assignments, an optional backslash, an optional `path/` prefix, then `rm` or
/// `rmdir` and whitespace or the end. Capture 1 is the verb.
fn head() -> &'static Regex {
    crate::scan::re!(r"^(?:[A-Za-z_][A-Za-z0-9_]*\+?=[^\s]*\s+)*\\?(?:[^\s=]*/)?(rm|rmdir)(?:\s|$)")
}

/// `yto` / `Zhp`, verbatim (BASH-016): an optional `"`, `$NAME` or `${NAME}`, an
/// optional `"`, `/`, then `*`, `$`, `/`, a quote or the end.
fn target() -> &'static Regex {
    crate::scan::re!(
        r#"^"?\$(?:\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)"?/(?:\*|\$|/|["']|$)"#
    )
}

/// The entry guard `/\brm(?:dir)?\b/`, with JavaScript's ASCII word boundary.
fn rm_word() -> &'static Regex {
    crate::scan::re!(r"(?-u:\b)rm(?:dir)?(?-u:\b)")
}

/// `/^[\d&]*[<>]/`: an operand that starts like a redirection.
fn redir_start() -> &'static Regex {
    crate::scan::re!(r"^[0-9&]*[<>]")
}

/// `/^(?:[0-9]+|&)?(?:>>?[|&]?|<<?<?|<>)$/`: a bare redirect operator, whose
/// target is the next operand.
fn redir_op() -> &'static Regex {
    crate::scan::re!(r"^(?:[0-9]+|&)?(?:>>?[|&]?|<<?<?|<>)$")
}

/// `/\\\r?\n/`: a line continuation (CRLF too).
fn line_cont() -> &'static Regex {
    crate::scan::re!(r"\\\r?\n")
}

/// `` /`[^`]*`/ ``: a backtick substitution.
fn backticks() -> &'static Regex {
    crate::scan::re!(r"`[^`]*`")
}

/// `/\$\([^()]*\)/`: an innermost `$(…)`.
fn dollar_group() -> &'static Regex {
    crate::scan::re!(r"\$\([^()]*\)")
}

/// `/\([^()]*\)/`: an innermost `(…)`; the `(?<!\$)` guard is applied in code.
fn plain_group() -> &'static Regex {
    crate::scan::re!(r"\([^()]*\)")
}

/// `/[;|\n\r]|&&/`: the clause separators.
fn clauses() -> &'static Regex {
    crate::scan::re!(r"[;|\n\r]|&&")
}

/// Past this many substitutions Claude Code will not analyse a command (WIN-011).
pub const MAX_SUBSTITUTIONS: usize = 64;

/// What Claude Code's classifier decides about one bash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No dangerous-rm hoist: the call runs as its permission mode says.
    Clear,
    /// `rm`/`rmdir` on a bare `$VAR/…` target: hoisted to a human (BASH-015/016).
    DangerousRm {
        /// `rm` or `rmdir`.
        command: &'static str,
        /// The operand as written, e.g. `"$SCRATCH/$f"`.
        target: String,
    },
    /// More than [`MAX_SUBSTITUTIONS`] substitutions and an `rm` word: too many to
    /// analyse, so Claude Code asks for explicit approval (WIN-011, BASH-017).
    TooManySubstitutions { count: usize },
}

impl Verdict {
    /// Whether Claude Code would stop this call for a human "Yes".
    pub fn escalates(&self) -> bool {
        !matches!(self, Verdict::Clear)
    }

    /// Claude Code's own reason text (`Dangerous ${e} operation ${r}`, BASH-015),
    /// or `None` for [`Verdict::Clear`].
    pub fn reason(&self) -> Option<String> {
        match self {
            Verdict::Clear => None,
            Verdict::DangerousRm { command, target } => Some(format!(
                "Dangerous {command} operation on possibly-empty variable path: {target}"
            )),
            Verdict::TooManySubstitutions { count } => Some(format!(
                "Dangerous rm operation \u{2014} too many command substitutions to analyze ({count})"
            )),
        }
    }
}

/// Would Claude Code hoist this bash command to a human (any escalating verdict)?
pub fn is_dangerous_rm(command: &str) -> bool {
    dangerous_rm(command).escalates()
}

/// Claude Code's verdict on one bash command. Bash text only: PowerShell goes
/// through [`super::for_tool`], which declines it (WIN-005).
pub fn dangerous_rm(command: &str) -> Verdict {
    if !rm_word().is_match(command) {
        return Verdict::Clear;
    }
    let count = super::subst::count(command);
    if count > MAX_SUBSTITUTIONS {
        return Verdict::TooManySubstitutions { count };
    }
    match lexical(command) {
        Some((command, target)) => Verdict::DangerousRm { command, target },
        None => Verdict::Clear,
    }
}

/// `hnt`: the first `rm`/`rmdir` clause with a bare `$VAR/…` operand.
fn lexical(command: &str) -> Option<(&'static str, String)> {
    if !command.contains('$') {
        return None;
    }
    let n = line_cont().replace_all(command, " ");
    let n = backticks().replace_all(&n, " ");
    let mut n: &str = n.trim_start();
    while let Some(rest) = n.strip_prefix(['(', '{']) {
        n = rest.trim_start();
    }
    let n = lone_amp_to_semicolon(&strip_groups(n));
    for clause in clauses().split(&n) {
        let clause = leading_keywords_stripped(clause);
        let Some(caps) = head().captures(clause) else {
            continue;
        };
        let verb = if &caps[1] == "rmdir" { "rmdir" } else { "rm" };
        let rest = &clause[caps.get(0).map_or(0, |m| m.end())..];
        let operands: Vec<&str> = rest.split_whitespace().collect();
        if let Some(target) = dangerous_operand(&operands) {
            return Some((verb, target.to_string()));
        }
    }
    None
}

/// The operand walk: a trailing `)`/`]`/`}` run trimmed; empty, `-flag` and
/// `'quoted` operands skipped; a redirection skipped with, for a bare operator,
/// its target; the first [`target`] wins.
fn dangerous_operand<'a>(operands: &[&'a str]) -> Option<&'a str> {
    let mut i = 0;
    while i < operands.len() {
        let c = operands[i].trim_end_matches([')', ']', '}']);
        i += 1;
        if c.is_empty() || c.starts_with(['-', '\'']) {
            continue;
        }
        if redir_start().is_match(c) {
            if redir_op().is_match(c) {
                i += 1;
            }
            continue;
        }
        if target().is_match(c) {
            return Some(c);
        }
    }
    None
}

/// The fixpoint (WIN-011): `$(…)` then `(?<!\$)(…)` groups, innermost first,
/// each replaced by a space, until the text stops changing. Each round removes
/// at least one group, so it ends.
pub(crate) fn strip_groups(s: &str) -> String {
    let mut n = s.to_string();
    while n.contains('(') {
        let next = plain_groups_blanked(&dollar_group().replace_all(&n, " "));
        if next == n {
            break;
        }
        n = next;
    }
    n
}

/// `replace(/(?<!\$)\([^()]*\)/g, " ")`: a group right after `$` is kept (the
/// `$(` pass owns it). A match holds no parenthesis, so skipping one cannot hide
/// another match inside it, as the JavaScript scan would not find one either.
fn plain_groups_blanked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for m in plain_group().find_iter(s) {
        out.push_str(&s[last..m.start()]);
        if s[..m.start()].ends_with('$') {
            out.push_str(m.as_str());
        } else {
            out.push(' ');
        }
        last = m.end();
    }
    out.push_str(&s[last..]);
    out
}

/// `replace(/(?<![<>&])&(?![<>&])/g, ";")`: a lone `&` ends a clause; `&&`,
/// `>&`, `<&`, `&>` and `&<` stay. All bytes involved are ASCII, so the scan
/// never splits a character.
pub(crate) fn lone_amp_to_semicolon(s: &str) -> String {
    let b = s.as_bytes();
    let near = |i: Option<usize>| i.and_then(|i| b.get(i)).is_some_and(|c| b"<>&".contains(c));
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, _) in s.match_indices('&') {
        if !near(i.checked_sub(1)) && !near(Some(i + 1)) {
            out.push_str(&s[last..i]);
            out.push(';');
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
    out
}

/// A clause with its leading reserved words (`do`, `then`, `else`, `elif`,
/// `if`, `while`, `until`, `time`) and `!` removed: what a statement splitter
/// would hand the classifier for a loop or branch body.
fn leading_keywords_stripped(clause: &str) -> &str {
    const WORDS: [&str; 8] = ["do", "then", "else", "elif", "if", "while", "until", "time"];
    let mut s = clause.trim_start();
    loop {
        if let Some(rest) = s.strip_prefix('!') {
            s = rest.trim_start();
            continue;
        }
        let word = WORDS.iter().find_map(|w| {
            s.strip_prefix(w)
                .filter(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
        });
        match word {
            Some(rest) => s = rest.trim_start(),
            None => return s,
        }
    }
}
