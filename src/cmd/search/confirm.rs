//! The line confirm: the pattern itself, translated to match a candidate line's
//! raw bytes wherever it matches the line's decoded text, so a candidate line
//! it misses needs no parse. The prefilter ([`super::prefilter`]) looks for one
//! required literal; a pattern such as `hooks?[.]go` flags every line holding
//! `hook`, ten times the lines that hold a match on a real home. Those lines
//! were parsed, classified and matched, and a file with one of them was indexed.
//!
//! A translation exists only when no character the pattern can match is one a
//! unit's text may hold where the line does not hold it as written:
//! - the glue a unit's text adds between pieces on disk: a space (a call's name
//!   and input, a system record's subtype and detail, REC-037), a newline
//!   (text blocks, result parts), the brackets of a `[kind]` placeholder, and
//!   U+FFFD for a lone surrogate escape ([`crate::record::surrogate`]);
//! - what compact JSON drops or keeps beside a dropped blank (REC-038): JSON's
//!   whitespace and its structural characters `{ } [ ] : ,` and the quote (a
//!   blank JSON drops always stands next to one of these);
//! - what JSON must escape (the quote, the backslash, control characters).
//!
//! Every other character of a match is on the line in one of its JSON forms:
//! as written, `\uXXXX` (any character may be, a pair past U+FFFF), or `\/`
//! for a slash; each class of the pattern is offered in all of them. A match
//! of such a pattern in a unit's text (or in a call's decoded input, or in
//! an unmodelled part's values, [`super::unmodelled`]) is therefore a run of
//! one JSON string's content, or of raw JSON between its tokens, and the
//! translation matches that run on the line. Zero-width assertions (`\b`,
//! `^`, `-w`) are dropped: the bytes beside a run on disk are not the text's,
//! and dropping one only lets more lines through. When a pattern has no
//! translation, every candidate line is read as before.

use std::cell::Cell;

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition};

use super::forms;
use super::prefilter::Prefilter;
use crate::scan::find::Find;
use crate::scan::lines;

/// The confirm: the pattern over a line's raw bytes.
pub(crate) struct Confirm {
    regex: Regex,
}

/// What the confirm makes of a candidate line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It matches: the line may hold a hit, and is parsed.
    Confirmed,
    /// It does not, but the line is broken in its structure or its UTF-8
    /// ([`unreadable`]): read only to be reported as malformed.
    Broken,
    /// It does not, and the line is well formed: not read.
    Dropped,
}

impl Confirm {
    /// Whether the confirm matches `line`.
    pub(crate) fn is_match(&self, line: &[u8]) -> bool {
        self.regex.is_match(line)
    }

    /// The verdict on one candidate line: the confirm first, the structure
    /// and UTF-8 check only of a line it misses, each once.
    pub(crate) fn judge(&self, line: &[u8]) -> Verdict {
        if self.is_match(line) {
            Verdict::Confirmed
        } else if unreadable(line) {
            Verdict::Broken
        } else {
            Verdict::Dropped
        }
    }
}

/// The streaming pass's finder with the confirm: a line the prefilter flags
/// counts only when its [`Verdict`] is not `Dropped`, so that a line broken
/// in its structure or its UTF-8 is still read and reported as before. A
/// well-formed object the confirm misses is not parsed, so a record in it
/// with a field of the wrong type is not reported (as with a label search's
/// needles before it): the help's `malformed_lines` counts the lines the
/// prefilter lets through. A file none of whose lines count ends in the
/// streaming pass: it is neither held, nor indexed, nor parsed.
///
/// Searched from line starts only (the streaming pass's chunks are), so the
/// bytes from `at` to a flagged byte's newline are whole lines.
pub(crate) struct Confirmed<'a> {
    pre: &'a Prefilter,
    confirm: &'a Confirm,
    /// The last `is_match`: haystack address and length, and what it found,
    /// so the streaming pass's `find_at` right after it does not search again.
    last: Cell<Option<Found>>,
}

/// A haystack's address and length, and the match found in it.
type Found = (usize, usize, Option<(usize, usize)>);

impl<'a> Confirmed<'a> {
    pub(crate) fn new(pre: &'a Prefilter, confirm: &'a Confirm) -> Confirmed<'a> {
        Confirmed {
            pre,
            confirm,
            last: Cell::new(None),
        }
    }
}

impl Find for Confirmed<'_> {
    fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        if at == 0 {
            if let Some((addr, len, found)) = self.last.get() {
                if addr == hay.as_ptr() as usize && len == hay.len() {
                    return found;
                }
            }
        }
        let mut pos = at;
        while pos < hay.len() {
            let (s, e) = self.pre.find_at(hay, pos)?;
            let (start, end, _) = lines::around(hay, pos, s);
            let line = lines::trim_cr(&hay[start..end]);
            if self.confirm.judge(line) != Verdict::Dropped {
                return Some((s, e));
            }
            pos = end + 1;
        }
        None
    }

    fn is_match(&self, hay: &[u8]) -> bool {
        self.last.set(None);
        let found = self.find_at(hay, 0);
        self.last
            .set(Some((hay.as_ptr() as usize, hay.len(), found)));
        found.is_some()
    }
}

/// The confirm for `patterns` (regex syntax, as matched), or `None` when one
/// of them may match a character a unit's text holds other than as written.
pub(crate) fn build(patterns: &[String], case_insensitive: bool) -> Option<Confirm> {
    let mut alts = Vec::new();
    for p in patterns {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .build()
            .parse(p)
            .ok()?;
        alts.push(raw(&hir)?);
    }
    let hir = Hir::alternation(alts);
    let regex = RegexBuilder::new(&hir.to_string())
        .size_limit(64 << 20)
        .build()
        .ok()?;
    Some(Confirm { regex })
}

/// `hir` over raw line bytes, or `None` when it has no translation.
fn raw(hir: &Hir) -> Option<Hir> {
    Some(match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Hir::empty(),
        HirKind::Literal(lit) => {
            let s = std::str::from_utf8(&lit.0).ok()?;
            let chars: Option<Vec<Hir>> = s
                .chars()
                .map(|c| class(&ClassUnicode::new([ClassUnicodeRange::new(c, c)])))
                .collect();
            Hir::concat(chars?)
        }
        HirKind::Class(Class::Unicode(c)) => class(c)?,
        HirKind::Class(Class::Bytes(_)) => return None,
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(raw(&r.sub)?),
        }),
        HirKind::Capture(c) => raw(&c.sub)?,
        HirKind::Concat(items) => Hir::concat(items.iter().map(raw).collect::<Option<_>>()?),
        HirKind::Alternation(alts) => {
            Hir::alternation(alts.iter().map(raw).collect::<Option<_>>()?)
        }
    })
}

/// Whether a line is broken in its structure (not one JSON object) or its
/// UTF-8: read and reported as malformed even where no hit can be on it.
pub(crate) fn unreadable(line: &[u8]) -> bool {
    crate::scan::json::one_object(line).is_err() || simdutf8::basic::from_utf8(line).is_err()
}

/// An ASCII byte a unit's text may hold where its line does not hold it as
/// written: one JSON escapes in a string ([`forms::escapes`], and DEL, a
/// control character a writer may escape too), the glue a unit's text adds
/// and JSON's blank (a space; the newline is escaped), the brackets of a
/// `[kind]` placeholder, and JSON's structure.
fn not_as_written(b: u8) -> bool {
    forms::escapes(b) || b == 0x7f || b" []{}:,".contains(&b)
}

/// A class of characters in every JSON form a line holds them in, or `None`
/// when it holds a character of glue, of JSON's structure or that JSON escapes.
fn class(c: &ClassUnicode) -> Option<Hir> {
    for r in c.iter() {
        if (r.start()..=r.end().min('\x7f')).any(|ch| not_as_written(ch as u8))
            || (r.start()..=r.end()).contains(&'\u{FFFD}')
        {
            return None;
        }
    }
    // As written; an ASCII hex letter in either case, since a tool input's
    // text is its JSON written again (`scan::json::compact`), whose `\u`
    // escapes are lowercase where the line's may be uppercase.
    let mut written = c.clone();
    for (lo, hi) in [('a', 'f'), ('A', 'F')] {
        let mut hex = ClassUnicode::new([ClassUnicodeRange::new(lo, hi)]);
        hex.intersect(c);
        let swapped = hex.iter().map(|r| {
            let flip = |ch: char| char::from(ch as u8 ^ 0x20);
            ClassUnicodeRange::new(flip(r.start()), flip(r.end()))
        });
        written.union(&ClassUnicode::new(swapped));
    }
    let mut forms = vec![Hir::class(Class::Unicode(written))];
    // Any character may be a `\u` escape on disk (two past U+FFFF); hex digits
    // in either case, so these do not depend on the pattern's case.
    let hex = Hir::class(Class::Unicode(ClassUnicode::new([
        ClassUnicodeRange::new('0', '9'),
        ClassUnicodeRange::new('A', 'F'),
        ClassUnicodeRange::new('a', 'f'),
    ])));
    let unit = Hir::concat(vec![
        Hir::literal(*b"\\u"),
        Hir::repetition(Repetition {
            min: 4,
            max: Some(4),
            greedy: true,
            sub: Box::new(hex),
        }),
    ]);
    forms.push(Hir::repetition(Repetition {
        min: 1,
        max: Some(2),
        greedy: true,
        sub: Box::new(unit),
    }));
    if c.iter().any(|r| (r.start()..=r.end()).contains(&'/')) {
        forms.push(Hir::literal(*b"\\/"));
    }
    Some(Hir::alternation(forms))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confirm(p: &str, ci: bool) -> Option<Confirm> {
        build(&[p.to_string()], ci)
    }

    #[test]
    fn a_pattern_of_plain_characters_is_confirmed_on_the_line() {
        let re = confirm("hooks?[.]go", true).unwrap();
        assert!(re.is_match(br#"{"input":{"file_path":"/x/HOOKS.go"}}"#));
        assert!(re.is_match(br#"{"text":"see hook.go"}"#));
        assert!(!re.is_match(br#"{"type":"hook_progress","hookEvent":"go"}"#));
        // Smart case folds `k` to the Kelvin sign and `s` to the long s, on
        // disk as written (REC-095) or `\u`-escaped (REC-038).
        assert!(re.is_match("hoo\u{212A}s.go".as_bytes()));
        assert!(re.is_match(br#"hoo\u212As.go"#));
        // Any character may be a `\u` escape, a slash `\/`.
        assert!(re.is_match(br#"hooks\u002ego"#));
        let re = confirm("a/b", false).unwrap();
        assert!(re.is_match(br#"["a\/b"]"#));
        let re = confirm("日本", false).unwrap();
        assert!(re.is_match(br#"["\u65e5\u672c"]"#));
        assert!(confirm(r"ok \w+", false).is_none());
        let re = confirm(r"\bcargo\b", false).unwrap();
        assert!(re.is_match(b"xcargox"), "zero-width assertions dropped");
    }

    /// A tool input's text is its JSON written again, `\u` escapes in
    /// lowercase: a case-sensitive pattern over an escape's hex letters must
    /// still confirm a line that writes them in uppercase.
    #[test]
    fn hex_letters_are_confirmed_in_either_case() {
        let line = br#"{"input":{"command":"a\u001Fb"}}"#;
        for p in ["u001[a-z]b", "u001[f-h]b", "u001f{1,3}b"] {
            assert!(confirm(p, false).unwrap().is_match(line), "{p}");
        }
        assert!(!confirm("u001[g-z]b", false).unwrap().is_match(line));
    }

    /// Each candidate line is judged once: the confirm, then the structure
    /// and UTF-8 check only of a line it misses.
    #[test]
    fn a_line_is_confirmed_broken_or_dropped() {
        let c = confirm("hooks?[.]go", true).unwrap();
        let pad = "x".repeat(500);
        let line = format!(r#"{{"a":"hook {pad} hooks.go"}}"#);
        assert_eq!(c.judge(line.as_bytes()), Verdict::Confirmed);
        let other = line.replace("hooks.go", "hooks-go");
        assert_eq!(c.judge(other.as_bytes()), Verdict::Dropped);
        let cut = &other[..other.len() - 2];
        assert_eq!(c.judge(cut.as_bytes()), Verdict::Broken);
        // A cut line that the confirm matches is parsed, and reported there.
        assert_eq!(
            c.judge(&line.as_bytes()[..line.len() - 2]),
            Verdict::Confirmed
        );
    }

    /// A line the confirm misses is still read when it is broken in its
    /// structure or its UTF-8, so it is reported as malformed.
    #[test]
    fn a_line_broken_in_structure_or_utf8_is_unreadable() {
        assert!(unreadable(br#"{"type":"user""#));
        assert!(unreadable(b"{\"text\":\"hook \xff here\"}"));
        assert!(!unreadable(br#"{"type":"user","uuid":5}"#));
    }

    #[test]
    fn a_pattern_that_may_match_glue_structure_or_an_escape_has_none() {
        for p in [
            "a b",
            "a.b",
            r"a\sb",
            "[^x]",
            r#"say "hi""#,
            "a:b",
            "x,y",
            r"\[image\]",
            "{}",
            r"a\\b",
            "a\nb",
            "\u{FFFD}",
        ] {
            assert!(confirm(p, false).is_none(), "{p}");
        }
    }
}
