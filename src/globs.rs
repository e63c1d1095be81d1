//! Name globs for `--tool` and `--model`: shell globs (`*`, `?`, `[…]` with `!`
//! or `^` negation, `{a,b}`) matched by `globset`, as ripgrep and fd match
//! theirs, case-insensitively: tool and model names never differ by case, and a
//! search pattern is smart-case, so `--tool bash` finds the `Bash` calls.
//!
//! POSIX classes inside `[…]` (`[[:digit:]]`) read as a shell reads them (ASCII).
//!
//! Kept of csift's own: a value may list alternatives as `a,b` or `a|b` (the
//! forms an agent tries first; no tool or model name holds those characters),
//! split outside `[…]` and `{…}`.

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::error::Error;

/// The globs of one repeatable flag.
pub(crate) struct NameGlobs {
    set: GlobSet,
    /// Each alternative as given, to name those that match nothing seen.
    each: Vec<(String, GlobMatcher)>,
}

impl NameGlobs {
    /// `None` when no glob was given.
    pub(crate) fn parse(given: &[String]) -> Result<Option<NameGlobs>, Error> {
        let mut set = GlobSetBuilder::new();
        let mut each = Vec::new();
        for g in given {
            let g = g.trim();
            for part in split_alternatives(g).into_iter().map(str::trim) {
                if part.is_empty() {
                    return Err(Error::Usage(format!(
                        "bad glob list `{g}`: an empty alternative (write e.g. Write,Edit)"
                    )));
                }
                let glob = build(part)?;
                each.push((part.to_string(), glob.compile_matcher()));
                set.add(glob);
            }
        }
        if each.is_empty() {
            return Ok(None);
        }
        let set = set
            .build()
            .map_err(|e| Error::Usage(format!("bad glob `{}`: {e}", given.join(","))))?;
        Ok(Some(NameGlobs { set, each }))
    }

    pub(crate) fn is_match(&self, name: &str) -> bool {
        self.set.is_match(name)
    }

    /// The alternatives that match none of `seen`, as given.
    pub(crate) fn unmatched<'a, 'b>(
        &'a self,
        seen: impl Iterator<Item = &'b str> + Clone,
    ) -> Vec<&'a str> {
        self.each
            .iter()
            .filter(|(_, m)| !seen.clone().any(|n| m.is_match(n)))
            .map(|(g, _)| g.as_str())
            .collect()
    }
}

fn build(part: &str) -> Result<Glob, Error> {
    GlobBuilder::new(part)
        .case_insensitive(true)
        // A `[` with no `]` after it is itself, as in a shell.
        .allow_unclosed_class(true)
        .build()
        .map_err(|e| Error::Usage(format!("bad glob `{part}`: {e}")))
}

/// A glob list split at `,` and `|` outside `[…]` and `{…}`
/// (`claude-opus-4-[5,6]*` and `{Write,Edit}` are one glob each).
fn split_alternatives(g: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut class, mut braces) = (0, false, 0usize);
    for (i, c) in g.char_indices() {
        match c {
            '[' if !class => class = true,
            ']' if class => class = false,
            '{' if !class => braces += 1,
            '}' if !class => braces = braces.saturating_sub(1),
            ',' | '|' if !class && braces == 0 => {
                out.push(&g[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&g[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::NameGlobs;

    fn hits(glob: &str, names: &[&str]) -> Vec<String> {
        let g = NameGlobs::parse(&[glob.to_string()]).unwrap().unwrap();
        names
            .iter()
            .filter(|n| g.is_match(n))
            .map(|n| n.to_string())
            .collect()
    }

    /// `[…]` classes match as in a shell; they matched nothing before (the
    /// brackets were escaped as literals), silently.
    #[test]
    fn glob_classes_match_as_in_a_shell() {
        let tools = ["Bash", "Read", "Write", "[x]"];
        assert_eq!(hits("[BR]*", &tools), ["Bash", "Read"]);
        assert_eq!(hits("[!B]*", &tools), ["Read", "Write", "[x]"]);
        assert_eq!(hits("[^A-Q]*", &tools), ["Read", "Write", "[x]"]);
        assert_eq!(hits("[]x[]*", &tools), ["[x]"]);
        assert_eq!(hits("[x", &["[x", "x"]), ["[x"]);
        let models = [
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-opus-4-1",
        ];
        assert_eq!(
            hits("claude-opus-4-[56]*", &models),
            ["claude-opus-4-5-20251101", "claude-opus-4-6"]
        );
        assert_eq!(hits("a&&b[&~]", &["a&&b~", "a&&b&"]), ["a&&b~", "a&&b&"]);
        // POSIX classes, and a comma inside a class, as a shell reads them.
        assert_eq!(
            hits("[[:alpha:]]ash", &["Bash", "bash", "Dash", "_ash"]),
            ["Bash", "bash", "Dash"]
        );
        assert_eq!(hits("[![:alpha:]]ash", &["Bash", "_ash"]), ["_ash"]);
        assert_eq!(
            hits("mcp__*[[:digit:]]", &["mcp__a1", "mcp__ab"]),
            ["mcp__a1"]
        );
        assert_eq!(
            hits("x[[:punct:]]", &["x!", "x]", "x-", "xa"]),
            ["x!", "x]", "x-"]
        );
        assert_eq!(hits("x[[:graph:]]", &["x!", "x ", "xa"]), ["x!", "xa"]);
        assert_eq!(
            hits("claude-opus-4-[5,6]*", &models),
            ["claude-opus-4-5-20251101", "claude-opus-4-6"]
        );
        assert_eq!(hits("Read,[BW]*", &tools), ["Bash", "Read", "Write"]);
    }

    /// Tool and model names never differ by case; patterns are smart-case.
    #[test]
    fn names_match_whatever_their_case() {
        let tools = ["Bash", "BashOutput", "Read"];
        assert_eq!(hits("bash", &tools), ["Bash"]);
        assert_eq!(hits("BASH*", &tools), ["Bash", "BashOutput"]);
        assert_eq!(hits("{read,bash}", &tools), ["Bash", "Read"]);
        assert_eq!(hits("read|bash", &tools), ["Bash", "Read"]);
        assert_eq!(
            hits("mcp__{a,b}__*", &["mcp__a__x", "mcp__c__x"]),
            ["mcp__a__x"]
        );
    }

    #[test]
    fn an_empty_alternative_or_a_bad_glob_is_an_error() {
        assert!(NameGlobs::parse(&["Write,,Edit".into()]).is_err());
        assert!(NameGlobs::parse(&["[z-a]".into()]).is_err());
        assert!(NameGlobs::parse(&[]).unwrap().is_none());
    }

    #[test]
    fn unmatched_names_the_alternatives_that_match_nothing_seen() {
        let g = NameGlobs::parse(&["Read,Bsh".into(), "Ed*".into()])
            .unwrap()
            .unwrap();
        let seen = ["Bash", "Read"];
        assert_eq!(g.unmatched(seen.iter().copied()), ["Bsh", "Ed*"]);
    }
}
