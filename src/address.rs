//! `--line LIST` and `--turn RANGE` values: parsing the tokens (`17`, `100..120`,
//! `..20`, `-5..`, `-1`) and resolving them against what one transcript holds. A
//! single number names one thing and is a miss when absent; a range is clamped and
//! is a miss only when nothing is left (REC-093). Negative numbers count from the
//! end: `-1` is the last, `-5..` the last five.

use std::ops::RangeInclusive;

/// One end of a token: a 1-based position, or a count back from the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    From(usize),
    Back(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    One(End),
    /// Inclusive; an open end reaches the first or last there is.
    Range(Option<End>, Option<End>),
}

/// A parsed token, kept with its spelling for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub token: String,
    pub spec: Spec,
}

fn end(s: &str, token: &str) -> Result<End, String> {
    let bad = || format!("cannot read `{token}`: expected N, -N, A..B, ..B, A.. or -N..");
    match s.strip_prefix('-') {
        Some(n) => match n.parse::<usize>() {
            Ok(0) | Err(_) => Err(bad()),
            Ok(k) => Ok(End::Back(k)),
        },
        None => s.parse::<usize>().map(End::From).map_err(|_| bad()),
    }
}

/// Parse repeatable, comma-separated values into items.
pub fn parse(values: &[String]) -> Result<Vec<Item>, String> {
    let mut out = Vec::new();
    for tok in values.iter().flat_map(|v| v.split(',')) {
        let tok = tok.trim();
        if tok.is_empty() {
            continue;
        }
        let spec = match tok.split_once("..") {
            Some((a, b)) => {
                let a = (!a.is_empty()).then(|| end(a, tok)).transpose()?;
                let b = (!b.is_empty()).then(|| end(b, tok)).transpose()?;
                Spec::Range(a, b)
            }
            None => Spec::One(end(tok, tok)?),
        };
        out.push(Item {
            token: tok.to_string(),
            spec,
        });
    }
    Ok(out)
}

/// Resolve `item` against positions `lo..=hi` (lines: 1..=count, turns: 0..=count).
/// `None` is a miss.
pub fn resolve(item: &Item, lo: usize, hi: usize) -> Option<RangeInclusive<usize>> {
    // `Back(k)` is the k-th from the end: hi + 1 - k, which may fall before `lo`.
    let at = |e: End| -> Option<usize> {
        match e {
            End::From(n) => Some(n),
            End::Back(k) => (hi + 1).checked_sub(k),
        }
    };
    match &item.spec {
        Spec::One(e) => {
            let n = at(*e)?;
            (n >= lo && n <= hi).then_some(n..=n)
        }
        Spec::Range(a, b) => {
            let a = a.map_or(Some(lo), at).unwrap_or(lo).max(lo);
            let b = match b {
                None => hi,
                Some(e) => at(*e)?.min(hi),
            };
            (a <= b && hi >= lo).then_some(a..=b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str, lo: usize, hi: usize) -> Option<(usize, usize)> {
        let items = parse(&[s.to_string()]).unwrap();
        resolve(&items[0], lo, hi).map(|r| (*r.start(), *r.end()))
    }

    #[test]
    fn single_lines_and_lists() {
        let items = parse(&["17,40".into(), "3".into()]).unwrap();
        assert_eq!(items.len(), 3);
        assert_eq!(r("17", 1, 100), Some((17, 17)));
        assert_eq!(r("-1", 1, 100), Some((100, 100)));
        assert_eq!(r("-100", 1, 100), Some((1, 1)));
        // A single address beyond the file is a miss, never clamped (REC-093).
        assert_eq!(r("101", 1, 100), None);
        assert_eq!(r("0", 1, 100), None);
        assert_eq!(r("-101", 1, 100), None);
    }

    #[test]
    fn ranges_clamp_and_fail_only_when_empty_rec_093() {
        assert_eq!(r("100..120", 1, 110), Some((100, 110)));
        assert_eq!(r("..20", 1, 100), Some((1, 20)));
        assert_eq!(r("-5..", 1, 100), Some((96, 100)));
        assert_eq!(r("-500..", 1, 100), Some((1, 100)));
        assert_eq!(r("42..", 1, 100), Some((42, 100)));
        assert_eq!(r("200..300", 1, 100), None);
        assert_eq!(r("5..3", 1, 100), None);
        assert_eq!(r("1..", 1, 0), None);
    }

    #[test]
    fn turns_start_at_zero() {
        assert_eq!(r("0", 0, 5), Some((0, 0)));
        assert_eq!(r("-1", 0, 5), Some((5, 5)));
        assert_eq!(r("-3..", 0, 5), Some((3, 5)));
        assert_eq!(r("..2", 0, 5), Some((0, 2)));
        assert_eq!(r("6", 0, 5), None);
    }

    #[test]
    fn bad_tokens_are_errors() {
        for bad in ["x", "1..y", "-0", "1.5", "--3"] {
            assert!(parse(&[bad.to_string()]).is_err(), "{bad}");
        }
    }
}
