//! The raw-byte prefilter. Patterns match a unit's *decoded* text (REC-036), but
//! scanning raw JSON bytes is what makes search run at memchr speed. The prefilter
//! must never lose a hit, so it is built from literals every match must contain
//! (found by walking the regex's HIR), each offered in every form it can take on
//! disk:
//! - verbatim (non-ASCII is written verbatim by Claude Code, REC-095; a tool_use's
//!   input is matched as the raw JSON it was written as, REC-037);
//! - JSON-escaped the way JavaScript's `JSON.stringify` escapes (`"` `\` and
//!   control characters), for text that was decoded;
//! - for a literal containing a space, the piece after each space, because a
//!   tool_use unit's text joins the tool name and the input JSON with a space
//!   that is not on disk.
//!
//! When no required literal exists (`.*`, `\w+`), there is no prefilter and every
//! line is a candidate: slower, never wrong.

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};

/// A set of byte strings of which every match contains at least one.
type Req = Vec<Vec<u8>>;

/// Build the prefilter for `patterns` (already in regex syntax), or `None` when a
/// pattern has no required literal.
pub fn build(patterns: &[String], case_insensitive: bool) -> Option<Regex> {
    let mut all: Req = Vec::new();
    for p in patterns {
        let hir = regex_syntax::ParserBuilder::new().build().parse(p).ok()?;
        all.extend(required(&hir)?);
    }
    let mut forms: Vec<Vec<u8>> = Vec::new();
    for lit in &all {
        for f in forms_of(lit) {
            if !f.is_empty() && !forms.contains(&f) {
                forms.push(f);
            }
        }
    }
    if forms.is_empty() {
        return None;
    }
    let alternation: Vec<String> = forms
        .iter()
        .map(|f| regex::escape(&String::from_utf8_lossy(f)))
        .collect();
    RegexBuilder::new(&alternation.join("|"))
        .case_insensitive(case_insensitive)
        .size_limit(64 << 20)
        .build()
        .ok()
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

/// Every on-disk form of a decoded literal.
fn forms_of(lit: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![lit.to_vec()];
    let esc = json_escape(lit);
    if esc != lit {
        out.push(esc);
    }
    for (i, _) in lit.iter().enumerate().filter(|(_, &b)| b == b' ') {
        let piece = if i + 1 < lit.len() {
            &lit[i + 1..]
        } else {
            &lit[..i]
        };
        out.push(piece.to_vec());
        let e = json_escape(piece);
        if e != piece {
            out.push(e);
        }
    }
    out
}

/// JavaScript `JSON.stringify` string escaping (without the quotes).
pub fn json_escape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b if b < 0x20 => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            b => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf(p: &str, ci: bool) -> Option<Regex> {
        build(&[p.to_string()], ci)
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
        // A decoded quote or newline is escaped on disk; the prefilter must see it.
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
    fn alternation_needs_every_branch() {
        let re = pf("alpha|beta", false).unwrap();
        assert!(re.is_match(b"beta"));
        assert!(re.is_match(b"alpha"));
        assert!(!re.is_match(b"gamma"));
    }
}
