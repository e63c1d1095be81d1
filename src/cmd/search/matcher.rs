//! Building the matcher from the user's patterns and flags: `-e` repeatable, `-F`
//! literal, `-w` words, smart case (`-s`/`-i` override), `--multiline`. The
//! compiled regex runs on decoded unit text; [`super::prefilter`] derives the
//! raw-byte prefilter from the same patterns.

use regex::{Regex, RegexBuilder};

use crate::error::{Error, Result};

/// Submatch positions kept per unit.
pub(crate) const MAX_SUBMATCHES: usize = 10_000;

/// Regex size ceiling: keeps compile time and memory bounded on huge alternations.
const SIZE_LIMIT: usize = 128 << 20;

pub(crate) struct Matcher {
    pub(crate) regex: Regex,
    /// The patterns as regex syntax (after `-F` escaping and `-w` wrapping).
    pub(crate) patterns: Vec<String>,
    pub(crate) case_insensitive: bool,
    /// The empty pattern matches every unit: a way to list or count by label.
    pub(crate) match_all: bool,
}

pub(crate) struct Options {
    pub(crate) fixed: bool,
    pub(crate) word: bool,
    pub(crate) ignore_case: bool,
    pub(crate) case_sensitive: bool,
    pub(crate) multiline: bool,
}

impl Matcher {
    pub(crate) fn new(raw: &[String], o: &Options) -> Result<Matcher> {
        if raw.is_empty() {
            return Err(Error::Usage(
                "no pattern given: pass PATTERN or -e PATTERN (use '' to match every unit)".into(),
            ));
        }
        let patterns: Vec<String> = raw
            .iter()
            .map(|p| {
                let p = if o.fixed { regex::escape(p) } else { p.clone() };
                // As ripgrep 14: no word character right before or after the
                // match, so `-w '\.go'` finds `*.go` and not `state.go` (a
                // plain `\b` needs a word character on the far side).
                if o.word {
                    format!(r"\b{{start-half}}(?:{p})\b{{end-half}}")
                } else {
                    p
                }
            })
            .collect();
        // Smart case (as ripgrep): insensitive unless some pattern has an uppercase
        // letter outside an escape.
        let case_insensitive = if o.case_sensitive {
            false
        } else {
            o.ignore_case || !raw.iter().any(|p| has_uppercase_literal(p))
        };
        let joined = if patterns.len() == 1 {
            patterns[0].clone()
        } else {
            patterns
                .iter()
                .map(|p| format!("(?:{p})"))
                .collect::<Vec<_>>()
                .join("|")
        };
        // `^` and `$` match at every line of a unit's text, as ripgrep's do at
        // every line of a file; `--multiline` adds `.` matching a newline.
        let regex = RegexBuilder::new(&joined)
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .dot_matches_new_line(o.multiline)
            .size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| Error::Usage(format!("invalid pattern: {e}")))?;
        let match_all = raw.iter().all(String::is_empty);
        Ok(Matcher {
            regex,
            patterns,
            case_insensitive,
            match_all,
        })
    }

    /// Byte ranges of the first [`MAX_SUBMATCHES`] matches in `text`, and how many
    /// more there were. Empty matches are dropped when a non-empty one exists (they
    /// mark nothing); a unit where the pattern matches only the empty string
    /// (`^`, `\b`, `x*`) is still a hit, as a line is in ripgrep, with its first
    /// zero-width match. The cap keeps memory bounded when a pattern matches
    /// every byte of a huge unit; the count says what was left out.
    pub(crate) fn find_all(&self, text: &str) -> (Vec<(usize, usize)>, usize) {
        if self.match_all {
            return (vec![(0, 0)], 0);
        }
        let Some(first) = self.regex.find(text) else {
            return (Vec::new(), 0);
        };
        let mut it = self
            .regex
            .find_iter(text)
            .filter(|m| m.start() != m.end())
            .peekable();
        if first.start() == first.end() && it.peek().is_none() {
            return (vec![(first.start(), first.start())], 0);
        }
        let kept: Vec<(usize, usize)> = it
            .by_ref()
            .take(MAX_SUBMATCHES)
            .map(|m| (m.start(), m.end()))
            .collect();
        let more = if kept.len() == MAX_SUBMATCHES {
            it.count()
        } else {
            0
        };
        (kept, more)
    }
}

/// Whether a pattern has an uppercase letter that is not part of an escape like
/// `\S`, `\W`, `\D`, `\P{..}`.
fn has_uppercase_literal(p: &str) -> bool {
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            it.next();
            continue;
        }
        if c.is_uppercase() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            fixed: false,
            word: false,
            ignore_case: false,
            case_sensitive: false,
            multiline: false,
        }
    }

    /// `^`/`$` match at each line of a unit, as ripgrep's do at each line of a
    /// file; a unit where the pattern matches only the empty string is a hit
    /// with one zero-width submatch; empty matches beside real ones are dropped.
    #[test]
    fn anchors_are_per_line_and_empty_matches_still_hit() {
        let text = "first line\nok  done\nlast";
        let m = Matcher::new(&["^ok  ".into()], &opts()).unwrap();
        assert_eq!(m.find_all(text).0, vec![(11, 15)]);
        let m = Matcher::new(&["line$".into()], &opts()).unwrap();
        assert_eq!(m.find_all(text).0, vec![(6, 10)]);
        let m = Matcher::new(&["^".into()], &opts()).unwrap();
        assert_eq!(m.find_all(text).0, vec![(0, 0)]);
        let m = Matcher::new(&[r"\b".into()], &opts()).unwrap();
        assert_eq!(m.find_all("  x").0, vec![(2, 2)]);
        assert!(m.find_all("  ").0.is_empty());
        let m = Matcher::new(&["x*".into()], &opts()).unwrap();
        assert_eq!(m.find_all("abxxc").0, vec![(2, 4)]);
        assert_eq!(m.find_all("abc").0, vec![(0, 0)]);
        // Without -U `.` stops at a newline; with it, it does not.
        let m = Matcher::new(&["line.ok".into()], &opts()).unwrap();
        assert!(m.find_all(text).0.is_empty());
        let u = Options {
            multiline: true,
            ..opts()
        };
        let m = Matcher::new(&["line.ok".into()], &u).unwrap();
        assert_eq!(m.find_all(text).0, vec![(6, 13)]);
    }

    #[test]
    fn smart_case() {
        let m = Matcher::new(&["needle".into()], &opts()).unwrap();
        assert!(m.case_insensitive);
        let m = Matcher::new(&["Needle".into()], &opts()).unwrap();
        assert!(!m.case_insensitive);
        let m = Matcher::new(&[r"\Sx".into()], &opts()).unwrap();
        assert!(m.case_insensitive);
        let m = Matcher::new(
            &["Needle".into()],
            &Options {
                ignore_case: true,
                ..opts()
            },
        )
        .unwrap();
        assert!(m.case_insensitive);
    }

    #[test]
    fn fixed_and_word() {
        let m = Matcher::new(
            &["a.b(".into()],
            &Options {
                fixed: true,
                ..opts()
            },
        )
        .unwrap();
        assert_eq!(m.find_all("x a.b( y").0, vec![(2, 6)]);
        let m = Matcher::new(
            &["cat".into()],
            &Options {
                word: true,
                ..opts()
            },
        )
        .unwrap();
        assert_eq!(m.find_all("concat cat").0, vec![(7, 10)]);
    }

    #[test]
    fn a_word_starting_or_ending_in_punctuation_is_whole_as_in_ripgrep() {
        let word = |p: &str, fixed: bool| {
            Matcher::new(
                &[p.into()],
                &Options {
                    word: true,
                    fixed,
                    ..opts()
                },
            )
            .unwrap()
        };
        let m = word(r"\.go", false);
        assert_eq!(m.find_all("x *.go y").0, vec![(3, 6)]);
        assert!(m.find_all("state.go").0.is_empty());
        let m = word(".go", true);
        assert_eq!(m.find_all("cli/*.go").0, vec![(5, 8)]);
        assert!(m.find_all(r#"state.go""#).0.is_empty());
        let m = word(r"main\.", false);
        assert_eq!(m.find_all("and main. end").0, vec![(4, 9)]);
        assert!(m.find_all("main.rs").0.is_empty());
    }

    #[test]
    fn several_patterns_and_empty() {
        let m = Matcher::new(&["alpha".into(), "beta".into()], &opts()).unwrap();
        assert_eq!(m.find_all("beta alpha").0.len(), 2);
        let m = Matcher::new(&["a".into()], &opts()).unwrap();
        let (kept, more) = m.find_all(&"a".repeat(MAX_SUBMATCHES + 7));
        assert_eq!((kept.len(), more), (MAX_SUBMATCHES, 7));
        let m = Matcher::new(&[String::new()], &opts()).unwrap();
        assert!(m.match_all);
        assert!(Matcher::new(&["(".into()], &opts()).is_err());
    }
}
