//! A unified diff of two texts by lines (LCS over the lines between the
//! common head and tail), with three lines of context: what `hooks install`
//! shows before it writes.

use std::io::{self, Write};

const CONTEXT: usize = 3;

/// One line of the edit script.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

pub(crate) fn unified<W: Write>(w: &mut W, old: &str, new: &str, name: &str) -> io::Result<()> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let script = script(&a, &b);
    writeln!(w, "--- {name}")?;
    writeln!(w, "+++ {name} (with csift hooks)")?;
    // Hunks: runs of changes with their context, merged when close.
    let changed: Vec<usize> = (0..script.len())
        .filter(|&i| script[i].0 != Op::Same)
        .collect();
    let mut i = 0;
    while i < changed.len() {
        let start = changed[i].saturating_sub(CONTEXT);
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] - changed[j] <= 2 * CONTEXT {
            j += 1;
        }
        let end = (changed[j] + CONTEXT + 1).min(script.len());
        let hunk = &script[start..end];
        let (a0, b0) = (script[start].1, script[start].2);
        let na = hunk.iter().filter(|s| s.0 != Op::Add).count();
        let nb = hunk.iter().filter(|s| s.0 != Op::Del).count();
        // An empty side starts at line 0, as diff -u writes it.
        let at = |n: usize, first: usize| if n == 0 { first } else { first + 1 };
        writeln!(w, "@@ -{},{na} +{},{nb} @@", at(na, a0), at(nb, b0))?;
        for &(op, ai, bi) in hunk {
            let (mark, line) = match op {
                Op::Same => (' ', a[ai]),
                Op::Del => ('-', a[ai]),
                Op::Add => ('+', b[bi]),
            };
            writeln!(w, "{mark}{}", crate::output::sanitize::clean(line))?;
        }
        i = j + 1;
    }
    Ok(())
}

/// The edit script: (op, index in a, index in b) for every line.
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let head = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[head..a.len() - tail], &b[head..b.len() - tail]);
    let mut out: Vec<(Op, usize, usize)> = (0..head).map(|i| (Op::Same, i, i)).collect();
    // LCS table over the middle (a settings file is small; a huge middle
    // falls back to all-deleted, all-added, which is still a true diff).
    let (n, m) = (am.len(), bm.len());
    if n.saturating_mul(m) > 4_000_000 {
        out.extend((0..n).map(|i| (Op::Del, head + i, head)));
        out.extend((0..m).map(|j| (Op::Add, head + n, head + j)));
    } else {
        let mut t = vec![0u32; (n + 1) * (m + 1)];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                t[i * (m + 1) + j] = if am[i] == bm[j] {
                    t[(i + 1) * (m + 1) + j + 1] + 1
                } else {
                    t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && am[i] == bm[j] {
                out.push((Op::Same, head + i, head + j));
                i += 1;
                j += 1;
            } else if j < m && (i == n || t[i * (m + 1) + j + 1] >= t[(i + 1) * (m + 1) + j]) {
                out.push((Op::Add, head + i, head + j));
                j += 1;
            } else {
                out.push((Op::Del, head + i, head + j));
                i += 1;
            }
        }
    }
    let (at, bt) = (a.len() - tail, b.len() - tail);
    out.extend((0..tail).map(|k| (Op::Same, at + k, bt + k)));
    out
}
