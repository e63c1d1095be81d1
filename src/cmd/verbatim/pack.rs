//! Choosing and packing whole turns, newest first, into windows. Lengths are
//! UTF-16 code units, the unit Claude Code's additionalContext threshold counts
//! (JavaScript `String.length`, MISC-012): an astral character counts 2.
//!
//! Rule: walk back from the newest turn. A turn goes into the current window when
//! it fits; otherwise it opens the next window while one is left; otherwise the
//! walk stops. The total never passes the budget. A turn longer than a window is
//! cut to exactly fit one, keeping its head and tail around an explicit marker;
//! without slicing there is one window the size of the budget, so only a newest
//! turn larger than the whole budget is ever cut. Turns that render to nothing are
//! skipped. The same turns and arguments always give the same windows.

/// A rendered turn, as the walk produces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Turn {
    pub(crate) n: usize,
    pub(crate) first_line: usize,
    pub(crate) last_line: usize,
    pub(crate) text: String,
    /// Lines of the compaction summaries this turn holds (CMP-011: members).
    pub(crate) summaries: Vec<usize>,
    /// The command that prints a line of this transcript, `csift show @S`,
    /// completed by `--line N` where a marker points at a line.
    pub(crate) show: String,
    /// The agent's messages in `text`: their byte ranges (each a whole entry,
    /// its newline included) and lines, in order; what [`super::fit`] may
    /// leave out when the turn does not fit (CMP-010).
    pub(crate) assistant: Vec<(std::ops::Range<usize>, usize)>,
    /// The text of the user's messages in this turn, which a compaction
    /// summary lists in its user-messages section ([`super::carried`]).
    pub(crate) prompts: Vec<String>,
    /// The bodies of the compaction summaries this turn holds, in the order
    /// of `summaries`.
    pub(crate) summary_bodies: Vec<String>,
}

/// A selected turn, possibly cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) turn: Turn,
    pub(crate) cut: bool,
    /// Characters (UTF-16 units) of the turn's text the cut left out.
    pub(crate) omitted: usize,
}

/// Packing limits: `windows` windows of `window` units each, `budget` in total.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub(crate) windows: usize,
    pub(crate) window: usize,
    pub(crate) budget: usize,
}

pub(crate) fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Largest char boundary of `s` at or below `n` UTF-16 units from the start.
pub(super) fn head_at(s: &str, n: usize) -> usize {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        if used + c.len_utf16() > n {
            return i;
        }
        used += c.len_utf16();
    }
    s.len()
}

/// Smallest char boundary of `s` leaving at most `n` UTF-16 units after it.
fn tail_at(s: &str, n: usize) -> usize {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        if used + c.len_utf16() > n {
            return i + c.len_utf8();
        }
        used += c.len_utf16();
    }
    0
}

/// `text` cut to at most `limit` units: head, marker, tail; ends with a newline.
#[cfg(test)]
pub(crate) fn cut(text: &str, limit: usize) -> String {
    cut_counted(text, limit, &[], "csift show").0
}

/// [`cut`], and how many units of `text` it left out (0: whole). The marker
/// names the lines of the compaction summaries the turn holds (`summaries`):
/// the cut may fall inside one, and `show` (`csift show @S`) with `--line`
/// prints it whole.
pub(crate) fn cut_counted(
    text: &str,
    limit: usize,
    summaries: &[usize],
    show: &str,
) -> (String, usize) {
    cut_more(text, limit, summaries, show, 0, "")
}

/// [`cut_counted`] of a text from which `gone` units of the turn were already
/// left out, which `note` says (` (…)`): the marker and the count include them.
pub(crate) fn cut_more(
    text: &str,
    limit: usize,
    summaries: &[usize],
    show: &str,
    gone: usize,
    note: &str,
) -> (String, usize) {
    let total = units(text);
    if total <= limit && gone == 0 {
        return (text.to_string(), 0);
    }
    let held = held(summaries, show);
    let marker = |omitted: usize| {
        format!(
            "\n[… csift verbatim: {} characters of this turn cut{note} to fit a {limit}-character window{held} …]\n",
            omitted + gone
        )
    };
    // The marker with the largest count it can carry bounds its length.
    let room = limit.saturating_sub(units(&marker(total)) + 1);
    let h = head_at(text, room / 2);
    let t = tail_at(text, room - units(&text[..h]));
    let t = t.max(h);
    let omitted = total - units(&text[..h]) - units(&text[t..]);
    let mut out = format!("{}{}{}", &text[..h], marker(omitted), &text[t..]);
    let omitted = omitted + gone;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if units(&out) > limit {
        // A budget smaller than the marker (only --budget can be): a short
        // marker alone when it fits, else nothing; never a piece of one.
        let short = format!("[… csift verbatim: {} characters cut …]\n", total + gone);
        out = if units(&short) <= limit {
            short
        } else {
            String::new()
        };
        return (out, total + gone);
    }
    (out, omitted)
}

/// `; the turn holds the compaction summary of line L, whole in …`: what a
/// cut turn's marker says of the summaries it holds (empty when none).
pub(crate) fn held(summaries: &[usize], show: &str) -> String {
    match summaries {
        [] => String::new(),
        [l] => format!(
            "; the turn holds the compaction summary of line {l}, whole in `{show} --line {l} --no-truncate`"
        ),
        ls => {
            let ls: Vec<String> = ls.iter().map(usize::to_string).collect();
            format!(
                "; the turn holds the compaction summaries of lines {}, whole in `{show} --line N --no-truncate`",
                ls.join(", ")
            )
        }
    }
}

/// Select turns newest first (`turns` yields newest first) and pack them.
/// Returns windows oldest first, each window's pieces oldest first.
#[cfg(test)]
pub(crate) fn select(turns: impl Iterator<Item = Turn>, lim: Limits) -> Vec<Vec<Piece>> {
    select_why(turns, lim).0
}

/// What ended the walk of [`select_why`] before the oldest turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Every turn was kept (or none was left to keep).
    End,
    /// The next turn would pass the budget.
    Budget,
    /// The windows are full (slicing): the budget may still have room.
    Windows,
}

/// [`select`], and what stopped it.
pub(crate) fn select_why(
    turns: impl Iterator<Item = Turn>,
    lim: Limits,
) -> (Vec<Vec<Piece>>, Stop) {
    let mut stop = Stop::End;
    let mut windows: Vec<Vec<Piece>> = Vec::new();
    let mut room = 0;
    let mut total = 0;
    let cap_first = lim.window.min(lim.budget);
    for turn in turns {
        let len = units(&turn.text);
        if len == 0 {
            continue;
        }
        if windows.is_empty() {
            let (text, omitted) = super::fit::fit(&turn, cap_first);
            let used = units(&text);
            if omitted >= len {
                // No character of the turn fits beside its cut marker: no turn
                // is kept, and the older ones end the walk as past the budget.
                stop = Stop::Budget;
                break;
            }
            let cut = used < len;
            windows.push(vec![Piece {
                turn: Turn { text, ..turn },
                cut,
                omitted,
            }]);
            room = lim.window - used.min(lim.window);
            total = used;
            continue;
        }
        let piece_len = len.min(lim.window);
        if total + piece_len > lim.budget {
            stop = Stop::Budget;
            break;
        }
        if piece_len > room {
            if windows.len() >= lim.windows {
                stop = Stop::Windows;
                break;
            }
            windows.push(Vec::new());
            room = lim.window;
        }
        let (text, omitted) = super::fit::fit(&turn, lim.window);
        let used = units(&text);
        if omitted >= len {
            stop = Stop::Windows;
            break;
        }
        room -= used.min(room);
        total += used;
        let cut = used < len;
        if let Some(w) = windows.last_mut() {
            w.push(Piece {
                turn: Turn { text, ..turn },
                cut,
                omitted,
            });
        }
    }
    for w in &mut windows {
        w.reverse();
    }
    windows.reverse();
    (windows, stop)
}

/// A window's text: its pieces concatenated.
pub(crate) fn text(window: &[Piece]) -> String {
    window.iter().map(|p| p.turn.text.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(n: usize, len: usize) -> Turn {
        Turn {
            n,
            first_line: n,
            last_line: n,
            text: format!("{}\n", "x".repeat(len - 1)),
            summaries: Vec::new(),
            show: "csift show @s".into(),
            assistant: Vec::new(),
            prompts: Vec::new(),
            summary_bodies: Vec::new(),
        }
    }

    fn newest_first(lens: &[usize]) -> impl Iterator<Item = Turn> + '_ {
        lens.iter().enumerate().rev().map(|(i, &l)| t(i, l))
    }

    fn shape(w: &[Vec<Piece>]) -> Vec<Vec<usize>> {
        w.iter()
            .map(|w| w.iter().map(|p| p.turn.n).collect())
            .collect()
    }

    #[test]
    fn whole_turns_within_budget_oldest_first() {
        let lim = Limits {
            windows: 1,
            window: 100,
            budget: 100,
        };
        let w = select(newest_first(&[50, 30, 40, 50]), lim);
        // 50 + 40 fit; 30 more would pass 100.
        assert_eq!(shape(&w), vec![vec![2, 3]]);
        assert!(w[0].iter().all(|p| !p.cut));
    }

    #[test]
    fn newest_turn_larger_than_budget_is_cut_with_marker() {
        let lim = Limits {
            windows: 1,
            window: 300,
            budget: 300,
        };
        let w = select(newest_first(&[10, 1000]), lim);
        assert_eq!(shape(&w), vec![vec![1]]);
        assert!(w[0][0].cut);
        let said = format!("verbatim: {} characters of this turn cut", w[0][0].omitted);
        assert!(
            w[0][0].turn.text.contains(&said),
            "the count the marker says"
        );
        assert!(w[0][0].omitted > 600);
        assert!(units(&w[0][0].turn.text) <= 300);
        assert!(w[0][0]
            .turn
            .text
            .contains("cut to fit a 300-character window"));
    }

    #[test]
    fn slices_pack_whole_turns_under_the_window_misc_012() {
        let lim = Limits {
            windows: 3,
            window: 100,
            budget: 300,
        };
        let w = select(newest_first(&[60, 60, 30, 70, 20, 90]), lim);
        assert_eq!(shape(&w), vec![vec![1, 2], vec![3, 4], vec![5]]);
        let w = select(
            newest_first(&[60, 60, 30, 70, 20, 90]),
            Limits {
                windows: 2,
                window: 100,
                budget: 1000,
            },
        );
        assert_eq!(shape(&w), vec![vec![3, 4], vec![5]]);
        for win in &w {
            assert!(units(&text(win)) <= 100);
        }
    }

    #[test]
    fn an_oversize_turn_takes_a_window_of_its_own() {
        let lim = Limits {
            windows: 3,
            window: 200,
            budget: 600,
        };
        let w = select(newest_first(&[100, 900, 50]), lim);
        assert_eq!(shape(&w), vec![vec![0], vec![1], vec![2]]);
        assert!(w[1][0].cut && !w[0][0].cut);
        let n = units(&w[1][0].turn.text);
        assert!((190..=200).contains(&n), "{n}");
    }

    /// A limit smaller than the marker gives a short marker, or nothing;
    /// never a fragment of a marker (`\n[… csift ` at --budget 10).
    #[test]
    fn a_tiny_limit_gets_a_whole_short_marker_or_nothing() {
        let s = "y".repeat(5000);
        assert_eq!(cut(&s, 60), "[… csift verbatim: 5000 characters cut …]\n");
        assert_eq!(cut(&s, 10), "");
        assert_eq!(cut(&s, 0), "");
    }

    /// A budget that holds no turn keeps none (it printed every turn as an
    /// empty cut piece at --budget 10).
    #[test]
    fn a_budget_too_small_for_any_marker_keeps_no_turn() {
        let lim = Limits {
            windows: 1,
            window: 10,
            budget: 10,
        };
        assert!(select(newest_first(&[500, 400, 300]), lim).is_empty());
        // A marker alone (no character of the turn) is not a kept turn either.
        for budget in [60, 80] {
            let lim = Limits {
                windows: 1,
                window: budget,
                budget,
            };
            assert!(select(newest_first(&[3000]), lim).is_empty(), "{budget}");
        }
    }

    #[test]
    fn cut_counts_utf16_units() {
        let s = format!("{}\n", "😀".repeat(400));
        let c = cut(&s, 250);
        assert!(units(&c) <= 250, "{}", units(&c));
        assert!(c.ends_with('\n'));
    }
}
