//! The raw-byte prefilter. Patterns match a unit's *decoded* text (REC-036), but
//! scanning raw JSON bytes is what makes search run at memchr speed. The prefilter
//! must never lose a hit, so it is built from literals every match must contain
//! (found by walking the regex's HIR), each offered in every form it can take on
//! disk:
//! - verbatim (non-ASCII is written verbatim by Claude Code, REC-095; a tool_use's
//!   input is matched as the raw JSON it was written as, REC-037);
//! - JSON-escaped the way JavaScript's `JSON.stringify` escapes (`"` `\` and
//!   control characters), for text that was decoded;
//! - with every non-ASCII character `\u`-escaped, as Python's `json.dumps`
//!   writes by default, for a transcript re-serialised by it (REC-038);
//! - for a literal containing a space, the piece after each space, because a
//!   tool_use unit's text joins the tool name and the input JSON with a space
//!   that is not on disk;
//! - for a literal containing a newline or brackets, only its piece that must
//!   be on disk ([`on_disk_piece`]): text blocks and tool-result parts are
//!   joined by a newline, and a part with no text reads `[image]`.
//!
//! When no required literal exists (`.*`, `\w+`), there is no prefilter and every
//! line is a candidate: slower, never wrong.
//!
//! A form that contains another is dropped (a line holding it holds the other
//! too), so `cargo test` is searched for as `test`. When one case-insensitive
//! ASCII form is left, the common smart-case search, it is found with
//! [`Caseless`] instead of the regex: the same matches, about twice as fast.

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};

use super::forms::{ascii_escaped, forms_of, on_disk_piece};
use crate::scan::find::{Caseless, Find};

/// The raw-byte prefilter: a regex over every form, or for a single
/// case-insensitive ASCII word, [`Caseless`].
pub(crate) struct Prefilter {
    regex: Regex,
    caseless: Option<Caseless>,
}

impl Find for Prefilter {
    fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        match &self.caseless {
            Some(c) => c.find_at(hay, at),
            None => Find::find_at(&self.regex, hay, at),
        }
    }

    fn is_match(&self, hay: &[u8]) -> bool {
        match &self.caseless {
            Some(c) => c.is_match(hay),
            None => self.regex.is_match(hay),
        }
    }
}

/// A set of byte strings of which every match contains at least one.
type Req = Vec<Vec<u8>>;

/// Build the prefilter for `patterns` (already in regex syntax), or `None` when a
/// pattern has no required literal.
pub(crate) fn build(patterns: &[String], case_insensitive: bool) -> Option<Prefilter> {
    let mut all: Req = Vec::new();
    for p in patterns {
        let hir = regex_syntax::ParserBuilder::new().build().parse(p).ok()?;
        for lit in required(&hir)? {
            all.push(on_disk_piece(&lit)?.to_vec());
        }
    }
    let mut forms: Vec<Vec<u8>> = Vec::new();
    for lit in &all {
        for f in forms_of(lit) {
            if !f.is_empty() && !forms.contains(&f) {
                forms.push(f);
            }
        }
    }
    let forms = minimal(forms, case_insensitive);
    if forms.is_empty() {
        return None;
    }
    let mut alternation: Vec<String> = forms
        .iter()
        .map(|f| regex::escape(&String::from_utf8_lossy(f)))
        .collect();
    let escaped: Vec<String> = all
        .iter()
        .filter_map(|lit| ascii_escaped(lit, case_insensitive))
        .collect();
    let plain = escaped.is_empty();
    alternation.extend(escaped);
    let regex = RegexBuilder::new(&alternation.join("|"))
        .case_insensitive(case_insensitive)
        .size_limit(64 << 20)
        .build()
        .ok()?;
    let caseless = match forms.as_slice() {
        [one] if case_insensitive && plain => Caseless::new(one),
        _ => None,
    };
    Some(Prefilter { regex, caseless })
}

/// The forms that contain no other form: a line holding a dropped one holds
/// the form inside it, so the lines flagged are the same.
fn minimal(forms: Vec<Vec<u8>>, case_insensitive: bool) -> Vec<Vec<u8>> {
    let key = |f: &[u8]| {
        if case_insensitive {
            f.to_ascii_lowercase()
        } else {
            f.to_vec()
        }
    };
    let keys: Vec<Vec<u8>> = forms.iter().map(|f| key(f)).collect();
    let mut out = Vec::new();
    for (i, f) in forms.iter().enumerate() {
        let holds_another = keys.iter().enumerate().any(|(j, k)| {
            j != i
                && memchr::memmem::find(&keys[i], k).is_some()
                // Of two equal keys keep the first.
                && (k.len() < keys[i].len() || j < i)
        });
        if !holds_another {
            out.push(f.clone());
        }
    }
    out
}

/// Literals a match of `hir` must contain (one of them), or `None`.
fn required(hir: &Hir) -> Option<Req> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(c) => required(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        HirKind::Alternation(alts) => {
            let mut out = Vec::new();
            for a in alts {
                out.extend(required(a)?);
            }
            Some(out)
        }
        HirKind::Concat(items) => {
            // Merge adjacent literals into runs, then keep the most selective child.
            let mut best: Option<Req> = None;
            let mut run: Vec<u8> = Vec::new();
            let consider = |cand: Req, best: &mut Option<Req>| {
                if score(&cand) > best.as_ref().map_or(0, score) {
                    *best = Some(cand);
                }
            };
            for it in items {
                if let HirKind::Literal(lit) = it.kind() {
                    run.extend_from_slice(&lit.0);
                    continue;
                }
                if !run.is_empty() {
                    consider(vec![std::mem::take(&mut run)], &mut best);
                }
                if let Some(r) = required(it) {
                    consider(r, &mut best);
                }
            }
            if !run.is_empty() {
                consider(vec![run], &mut best);
            }
            best
        }
        _ => None,
    }
}

/// A set is as selective as its shortest member.
fn score(r: &Req) -> usize {
    r.iter().map(Vec::len).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(p: &str, ci: bool) -> Option<Prefilter> {
        build(&[p.to_string()], ci)
    }

    #[test]
    fn a_literal_across_a_join_is_looked_for_by_its_piece_on_disk() {
        // Text blocks and tool-result parts are joined by a newline that is
        // not on disk: the longer side of the literal's newlines stands for it.
        assert_eq!(on_disk_piece(b"file>\ncreate me"), Some(&b"create me"[..]));
        assert_eq!(on_disk_piece(b"ab\nx\nc"), Some(&b"ab"[..]));
        assert_eq!(on_disk_piece(b"\n"), None);
        // A part with no text reads `[image]`; its kind is on disk as its type.
        assert_eq!(on_disk_piece(b"[image]"), Some(&b"image"[..]));
        assert_eq!(on_disk_piece(b"caption\n[image]"), Some(&b"caption"[..]));
        assert_eq!(on_disk_piece(b"[]"), None);
        assert_eq!(on_disk_piece(b"plain"), Some(&b"plain"[..]));
        // U+FFFD may be a lone surrogate escape on disk (`\ud83c`).
        let fffd = "fix the \u{FFFD} deploy banner";
        assert_eq!(on_disk_piece(fffd.as_bytes()), Some(&b" deploy banner"[..]));
        assert_eq!(on_disk_piece("\u{FFFD}".as_bytes()), None);
        // A literal with no piece sure to be on disk means no prefilter.
        assert!(build(&[r"\\n".into()], false).is_some());
        assert!(build(&[r"\n".into()], false).is_none());
        assert!(build(&[r"a|\[\]".into()], false).is_none());
    }

    #[test]
    fn literal_and_concat_runs() {
        let re = pf("foo.*barbaz", false).unwrap();
        assert!(re.is_match(b"xx barbaz"));
        assert!(!re.is_match(b"foo only"));
    }

    #[test]
    fn no_required_literal_means_no_prefilter() {
        assert!(pf(r"\w+", false).is_none());
        assert!(pf("a|.*", false).is_none());
        assert!(pf("(foo)?", false).is_none());
    }

    #[test]
    fn escaped_forms_rec_036() {
        // A decoded quote or newline is escaped on disk; the prefilter must see it
        // (MISC-015: the rendered text differs byte for byte from the line).
        let re = pf("say \"hi\"\nnow", false).unwrap();
        assert!(re.is_match(br#"{"text":"say \"hi\"\nnow"}"#));
        let re = pf(r"C:\\dir", false).unwrap();
        assert!(re.is_match(br#"{"text":"C:\\dir"}"#));
    }

    #[test]
    fn tool_use_name_and_input_straddle_rec_037() {
        // Unit text is `Bash {"command":"ls"}`; on disk the name and input are apart.
        let re = pf(r#"Bash \{"command""#, false).unwrap();
        assert!(re.is_match(br#"{"name":"Bash","input":{"command":"ls"}}"#));
    }

    #[test]
    fn case_insensitive_and_cjk_rec_095() {
        let re = pf("needle", true).unwrap();
        assert!(re.is_match(b"a NEEDLE here"));
        let re = pf("中文検索", false).unwrap();
        assert!(re.is_match("{\"text\":\"ここで中文検索\"}".as_bytes()));
    }

    #[test]
    fn a_form_holding_another_is_dropped_and_flags_the_same_lines() {
        // `cargo test` is searched for as `test` (the piece after the space);
        // `say "hi"` as `"hi"` and its escaped form, which does not hold it.
        assert_eq!(
            minimal(forms_of(b"cargo test"), false),
            vec![b"test".to_vec()]
        );
        assert_eq!(
            minimal(forms_of(br#"say "hi""#), false),
            vec![br#""hi""#.to_vec(), br#""hi\""#.to_vec()]
        );
        assert_eq!(minimal(vec![b"Ab".to_vec(), b"aB".to_vec()], true).len(), 1);
        assert_eq!(
            minimal(vec![b"Ab".to_vec(), b"aB".to_vec()], false).len(),
            2
        );
        for (pat, ci) in [
            ("cargo test", true),
            ("say \"hi\" now", false),
            ("a b", true),
        ] {
            let full = build(&[pat.to_string()], ci).unwrap();
            let alternation: Vec<String> = forms_of(pat.as_bytes())
                .iter()
                .map(|f| regex::escape(&String::from_utf8_lossy(f)))
                .collect();
            let every = RegexBuilder::new(&alternation.join("|"))
                .case_insensitive(ci)
                .build()
                .unwrap();
            for line in [
                "cargo test",
                "TEST only",
                "cargo",
                r#"say \"hi\" now"#,
                "\"hi\"",
                "b",
                "a",
            ] {
                assert_eq!(
                    full.is_match(line.as_bytes()),
                    every.is_match(line.as_bytes()),
                    "{pat}: {line}"
                );
            }
        }
    }

    #[test]
    fn one_lowercase_word_is_found_by_the_caseless_finder() {
        let p = pf("weirdness", true).unwrap();
        if std::is_x86_feature_detected!("avx2") {
            assert!(p.caseless.is_some());
        }
        assert!(p.is_match(b"{\"text\":\"such WEIRDNESS\"}"));
        assert!(p.is_match("weirdneſs".as_bytes()));
        assert!(!p.is_match(b"weird ness"));
        // Case-sensitive, several forms, or not ASCII: the regex.
        assert!(pf("weirdness", false).unwrap().caseless.is_none());
        assert!(pf("\"quoted\"", true).unwrap().caseless.is_none());
        assert!(pf("naïve", true).unwrap().caseless.is_none());
    }

    /// REC-095, REC-038: a literal with non-ASCII also flags the line Python's
    /// `json.dumps` writes, every such character `\u`-escaped (either hex
    /// case; with smart case, either letter case).
    #[test]
    fn python_escaped_non_ascii_is_flagged_rec_095() {
        let re = pf("déjà vu", false).unwrap();
        assert!(re.is_match(br#"{"text":"d\u00e9j\u00e0 vu"}"#));
        assert!(re.is_match(br#"{"text":"d\u00E9j\u00E0 vu"}"#));
        assert!(re.is_match("{\"text\":\"déjà vu\"}".as_bytes()));
        // (`vu`, the piece after the space, flags any line holding it.)
        let re = pf("déjà", false).unwrap();
        assert!(!re.is_match(br#"{"text":"d\u00e8j\u00e0"}"#));
        assert!(re.is_match(br#"{"text":"d\u00e9j\u00e0"}"#));
        let re = pf("été", true).unwrap();
        assert!(re.is_match(br#"{"text":"\u00c9T\u00c9"}"#));
        // The regex's simple case folding, not only upper and lower case.
        assert!(pf("σ", true).unwrap().is_match(br#"["\u03c2"]"#));
        assert!(pf("ω", true).unwrap().is_match(br#"["\u2126"]"#));
        assert!(re.is_match(br#"{"text":"\u00e9t\u00e9"}"#));
        // Past U+FFFF: a surrogate pair.
        let re = pf("ok 🚀", false).unwrap();
        assert!(re.is_match(br#"{"text":"ok \ud83d\ude80"}"#));
        assert!(pf("日本", false).unwrap().is_match(br#"["\u65e5\u672c"]"#));
    }

    /// A decoded tool input's match can run over a string's closing quote
    /// (`"glob":"".gitignore""}` on disk is `"glob":"\".gitignore\""}`):
    /// every mix of escaped and raw quotes is a form; a line re-spaced by
    /// `json.dumps` (REC-038) holds `"a": "b", 1` for `"a":"b",1`.
    #[test]
    fn mixed_quotes_and_spaced_json_are_flagged_rec_037_rec_038() {
        let re = pf(r#"re""}"#, false).unwrap();
        assert!(re.is_match(br#""glob":"\".gitignore\""}"#));
        let re = pf(r#""command":"git"#, false).unwrap();
        assert!(re.is_match(br#"{"input": {"command": "git status"}}"#));
        let re = pf(r#"false,"file_"#, false).unwrap();
        assert!(re.is_match(br#"{"a": false, "file_path": "x"}"#));
        // Past four quotes, the longest quote-free piece stands for the mixes.
        let re = pf(r#""a"+"bcd"+"e""#, false).unwrap();
        assert!(re.is_match(br#"x \"a\"+"bcd"+\"e\" y"#));
    }

    #[test]
    fn alternation_needs_every_branch() {
        let re = pf("alpha|beta", false).unwrap();
        assert!(re.is_match(b"beta"));
        assert!(re.is_match(b"alpha"));
        assert!(!re.is_match(b"gamma"));
    }
}
