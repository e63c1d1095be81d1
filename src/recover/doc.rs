//! The reconstruction: a file as a sequence of known lines and gaps.
//!
//! A file's text is its lines joined by `\n`, lines being `text.split('\n')`:
//! Claude Code counts lines the same way, so a newline-terminated file has an
//! empty last line (REC-050) and `totalLines` is exactly our length. A gap
//! stands for whole lines: a known number of them, or an unknown number (zero
//! or more). A known line carries the evidence it came from; nothing here
//! ever makes a line up.

use std::fmt::Write as _;

/// One known line and the evidence (index) that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cell {
    pub(crate) text: String,
    pub(crate) src: u32,
}

/// Why lines are unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// No evidence ever covered them.
    NoEvidence,
    /// The file changed outside what the transcript shows (the step index).
    Boundary(u32),
    /// Bash stdout drops leading blank lines (BASH-010).
    TrimmedHead,
    /// Bash stdout drops trailing whitespace, blank lines and the final newline.
    TrimmedTail,
    /// An edit may have changed lines next to an unknown region.
    Straddle,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Known(Vec<Cell>),
    Gap { len: Option<usize>, why: Why },
}

/// A file as far as the evidence goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Doc {
    pub(crate) segs: Vec<Seg>,
}

pub(crate) fn split(text: &str, src: u32) -> Vec<Cell> {
    text.split('\n')
        .map(|l| Cell {
            text: l.to_string(),
            src,
        })
        .collect()
}

impl Doc {
    /// Nothing known, not even the length.
    pub(crate) fn unknown(why: Why) -> Doc {
        Doc {
            segs: vec![Seg::Gap { len: None, why }],
        }
    }

    /// The whole file, known.
    pub(crate) fn full(text: &str, src: u32) -> Doc {
        Doc {
            segs: vec![Seg::Known(split(text, src))],
        }
    }

    /// Merge neighbours, drop empty pieces.
    pub(crate) fn tidy(&mut self) {
        let mut out: Vec<Seg> = Vec::with_capacity(self.segs.len());
        for s in self.segs.drain(..) {
            match (out.last_mut(), s) {
                (_, Seg::Known(v)) if v.is_empty() => {}
                (_, Seg::Gap { len: Some(0), .. }) => {}
                (Some(Seg::Known(a)), Seg::Known(b)) => a.extend(b),
                (Some(Seg::Gap { len: a, why: wa }), Seg::Gap { len: b, why: wb }) => {
                    *a = match (*a, b) {
                        (Some(x), Some(y)) => Some(x + y),
                        _ => None,
                    };
                    if *wa == Why::NoEvidence {
                        *wa = wb;
                    }
                }
                (_, s) => out.push(s),
            }
        }
        if out.is_empty() {
            out.push(Seg::Known(vec![Cell {
                text: String::new(),
                src: u32::MAX,
            }]));
        }
        self.segs = out;
    }

    /// The whole text, when every line is known.
    pub(crate) fn text(&self) -> Option<String> {
        match self.segs.as_slice() {
            [Seg::Known(v)] => Some(
                v.iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }

    pub(crate) fn is_whole(&self) -> bool {
        matches!(self.segs.as_slice(), [Seg::Known(_)])
    }

    /// Whether no line at all is known.
    pub(crate) fn is_blank(&self) -> bool {
        self.segs.iter().all(|s| matches!(s, Seg::Gap { .. }))
    }

    /// The number of lines, when every gap's length is known.
    pub(crate) fn total(&self) -> Option<usize> {
        self.segs.iter().try_fold(0, |n, s| match s {
            Seg::Known(v) => Some(n + v.len()),
            Seg::Gap { len, .. } => len.map(|l| n + l),
        })
    }

    pub(crate) fn known_lines(&self) -> usize {
        self.segs
            .iter()
            .map(|s| match s {
                Seg::Known(v) => v.len(),
                Seg::Gap { .. } => 0,
            })
            .sum()
    }

    /// One slot per line (`None` unknown), when the length is known.
    pub(crate) fn flat(&self) -> Option<Vec<Option<Cell>>> {
        self.total()?;
        let mut out = Vec::new();
        for s in &self.segs {
            match s {
                Seg::Known(v) => out.extend(v.iter().cloned().map(Some)),
                Seg::Gap { len, .. } => out.extend(std::iter::repeat_n(None, len.unwrap_or(0))),
            }
        }
        Some(out)
    }

    /// The document of a flat slot list; unknown slots are gaps for `why`.
    pub(crate) fn from_flat(flat: Vec<Option<Cell>>, why: Why) -> Doc {
        let mut segs = Vec::new();
        for slot in flat {
            segs.push(match slot {
                Some(c) => Seg::Known(vec![c]),
                None => Seg::Gap { len: Some(1), why },
            });
        }
        let mut d = Doc { segs };
        d.tidy();
        d
    }

    /// Render the text with each gap as one marker line (never filled).
    pub(crate) fn render(&self, out: &mut String) {
        let mut line = 1usize;
        let mut placed = true;
        let mut first = true;
        for s in &self.segs {
            match s {
                Seg::Known(v) => {
                    for c in v {
                        if !first {
                            out.push('\n');
                        }
                        first = false;
                        out.push_str(&c.text);
                        line += 1;
                    }
                }
                Seg::Gap { len, why } => {
                    if !first {
                        out.push('\n');
                    }
                    first = false;
                    out.push_str(&gap_marker(*len, *why, placed.then_some(line)));
                    match len {
                        Some(n) => line += n,
                        None => placed = false,
                    }
                }
            }
        }
    }
}

/// The marker line printed in place of unknown lines.
pub(crate) fn gap_marker(len: Option<usize>, why: Why, from: Option<usize>) -> String {
    let mut s = String::from("<<csift gap: ");
    match (len, from) {
        (Some(1), Some(a)) => {
            let _ = write!(s, "line {a} unknown");
        }
        (Some(n), Some(a)) => {
            let _ = write!(s, "lines {a}-{} unknown ({n} lines)", a + n - 1);
        }
        (Some(n), None) => {
            let _ = write!(s, "{n} unknown lines");
        }
        (None, Some(a)) => {
            let _ = write!(s, "unknown lines from line {a} (how many is unknown)");
        }
        (None, None) => s.push_str("unknown lines (how many is unknown)"),
    }
    let reason = match why {
        Why::NoEvidence => "no evidence",
        Why::Boundary(_) => "the file changed outside the transcript",
        Why::TrimmedHead => "bash stdout drops leading blank lines",
        Why::TrimmedTail => "bash stdout drops trailing whitespace and newlines",
        Why::Straddle => "an edit may have reached into unknown lines",
    };
    let _ = write!(s, ": {reason}>>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// REC-050: a newline-terminated file has an empty last line; the text
    /// round-trips byte for byte.
    #[test]
    fn split_and_join_round_trip() {
        for t in ["", "a", "a\n", "a\nb\n\n", "\r\nx\r\n"] {
            let d = Doc::full(t, 0);
            assert_eq!(d.text().as_deref(), Some(t));
        }
        assert_eq!(Doc::full("a\nb\n", 0).total(), Some(3));
    }

    #[test]
    fn gaps_render_as_markers_and_tidy_merges() {
        let mut d = Doc {
            segs: vec![
                Seg::Known(split("a", 1)),
                Seg::Gap {
                    len: Some(1),
                    why: Why::NoEvidence,
                },
                Seg::Gap {
                    len: Some(1),
                    why: Why::NoEvidence,
                },
                Seg::Known(split("d\n", 2)),
            ],
        };
        d.tidy();
        assert_eq!(d.segs.len(), 3);
        assert_eq!(d.total(), Some(5));
        let mut s = String::new();
        d.render(&mut s);
        assert_eq!(
            s,
            "a\n<<csift gap: lines 2-3 unknown (2 lines): no evidence>>\nd\n"
        );
        let f = d.flat().unwrap();
        assert_eq!(Doc::from_flat(f, Why::NoEvidence), d);
    }
}
