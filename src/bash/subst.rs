//! Counting a command's substitutions, for Claude Code's "too many to analyse"
//! bail (WIN-011, BASH-017). Claude Code counts tree-sitter nodes:
//! `command_substitution` (`$(…)` and backticks), `process_substitution`
//! (`<(…)`, `>(…)`) and `${ …}` / `${| …}` funsubs. Without a parser the same
//! openings are counted lexically, each once however deeply nested, and never
//! inside single quotes, after a backslash or in a `#` comment; `<(`/`>(` count
//! only outside double quotes, where bash reads them; `$((` is arithmetic.

/// The number of substitutions in `command`, as Claude Code's AST pass counts them.
pub(crate) fn count(command: &str) -> usize {
    let b = command.as_bytes();
    let mut n = 0;
    let mut i = 0;
    let mut ticks = 0usize;
    let mut dquote = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'\'' if !dquote => {
                // A single-quoted run: nothing inside it expands.
                i = memchr::memchr(b'\'', &b[i + 1..]).map_or(b.len(), |j| i + 1 + j + 1);
                continue;
            }
            b'"' => dquote = !dquote,
            b'#' if !dquote && (i == 0 || b" \t\r\n;&|(".contains(&b[i - 1])) => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |j| i + j);
                continue;
            }
            b'`' => ticks += 1,
            b'$' => match (b.get(i + 1), b.get(i + 2)) {
                (Some(b'('), Some(b'(')) => i += 1,
                (Some(b'('), _) => n += 1,
                (Some(b'{'), Some(b' ' | b'\t' | b'\n' | b'\r' | b'|')) => n += 1,
                _ => {}
            },
            b'<' | b'>' if !dquote && b.get(i + 1) == Some(&b'(') => n += 1,
            _ => {}
        }
        i += 1;
    }
    // A backtick substitution is a pair of backticks (an unclosed one still opens).
    n + ticks.div_ceil(2)
}
