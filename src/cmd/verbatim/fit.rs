//! Fitting one turn into the room it gets. A turn that fits is kept whole.
//! One that does not first gives up its shorter assistant messages, keeping
//! the longest: a compaction summary carries at most one of a turn's
//! assistant messages, and not reliably the last (CMP-010), so everything
//! between the first and last message of a long run survives only in the
//! transcript, and the longest is the one most likely to carry the substance
//! (a plan, a diagnosis) among "let me look" declarations. Messages are kept
//! longest first while they fit beside the rest of the turn (its prompts, tool
//! lines, notifications, summaries); only when not even the longest fits is
//! the turn cut in the middle ([`super::pack::cut_counted`]). Either way one
//! marker says how many characters were left out, which messages, and how to
//! print the turn whole.

use super::pack::{self, units, Turn};

/// Assistant messages a marker names by line before it counts the rest.
const LINES_NAMED: usize = 6;

/// `turn`'s text fitted to `limit` UTF-16 units, and how many units of the
/// turn were left out (0: whole). Never longer than `limit`.
pub(crate) fn fit(turn: &Turn, limit: usize) -> (String, usize) {
    let total = units(&turn.text);
    if total <= limit {
        return (turn.text.clone(), 0);
    }
    if turn.assistant.len() < 2 {
        return pack::cut_counted(&turn.text, limit, &turn.summaries, &turn.show);
    }
    let sizes: Vec<usize> = turn
        .assistant
        .iter()
        .map(|(r, _)| units(&turn.text[r.clone()]))
        .collect();
    // Longest first; among equals the later one (nearer the turn's end).
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]).then(b.cmp(&a)));
    let rest = total - sizes.iter().sum::<usize>();
    // Room for the marker however the choice falls: no marker is longer.
    let bound = units(&marker_bound(turn, limit, total));
    // The longest is kept in any case; the others longest first, each where
    // it still fits.
    let mut keep = vec![false; sizes.len()];
    keep[order[0]] = true;
    let mut used = rest + bound + sizes[order[0]];
    let longest_fits = used <= limit;
    for &i in order.iter().skip(1).filter(|_| longest_fits) {
        if used + sizes[i] <= limit {
            keep[i] = true;
            used += sizes[i];
        }
    }
    let dropped: Vec<usize> = (0..sizes.len()).filter(|&j| !keep[j]).collect();
    let gone: usize = dropped.iter().map(|&j| sizes[j]).sum();
    let exact = units(&marker(turn, limit, &dropped, gone));
    if !longest_fits && rest + sizes[order[0]] + exact > limit {
        // Not even the longest fits beside the rest: keep it, drop the
        // others, and cut what remains in the middle; one marker counts both.
        let text = without(turn, &dropped, None);
        let note = format!(
            " ({} left out, the longest kept and cut; `{} --turn {}` prints the turn whole)",
            what(turn, &dropped),
            turn.show,
            turn.n
        );
        return pack::cut_more(&text, limit, &turn.summaries, &turn.show, gone, &note);
    }
    let text = without(turn, &dropped, Some(marker(turn, limit, &dropped, gone)));
    debug_assert!(units(&text) <= limit);
    (text, gone)
}

/// The turn's text without the assistant messages `dropped` (indices into
/// `turn.assistant`, ascending), `marker` standing where the first of them
/// stood.
fn without(turn: &Turn, dropped: &[usize], marker: Option<String>) -> String {
    let mut out = String::with_capacity(turn.text.len());
    let mut at = 0;
    let mut marker = marker;
    for &j in dropped {
        let r = &turn.assistant[j].0;
        out.push_str(&turn.text[at..r.start]);
        if let Some(m) = marker.take() {
            out.push_str(&m);
        }
        at = r.end;
    }
    out.push_str(&turn.text[at..]);
    out
}

/// `N shorter assistant messages (lines a, b, …) of M`: the messages
/// `dropped` by line.
fn what(turn: &Turn, dropped: &[usize]) -> String {
    let lines: Vec<usize> = dropped.iter().map(|&j| turn.assistant[j].1).collect();
    said(&lines, turn.assistant.len())
}

fn said(lines: &[usize], of: usize) -> String {
    let mut named: Vec<String> = lines
        .iter()
        .take(LINES_NAMED)
        .map(usize::to_string)
        .collect();
    if lines.len() > LINES_NAMED {
        named.push(format!("and {} more", lines.len() - LINES_NAMED));
    }
    let (n, s) = match lines.len() {
        1 => ("1 shorter assistant message".to_string(), ""),
        n => (format!("{n} shorter assistant messages"), "s"),
    };
    format!("{n} (line{s} {}) of {of}", named.join(", "))
}

/// The one line that says what [`fit`] left out: `omitted` characters, the
/// assistant messages `dropped` by line, and the command printing the turn.
fn marker(turn: &Turn, limit: usize, dropped: &[usize], omitted: usize) -> String {
    marker_of(turn, limit, &what(turn, dropped), omitted)
}

fn marker_of(turn: &Turn, limit: usize, what: &str, omitted: usize) -> String {
    format!(
        "[… csift verbatim: {omitted} characters of this turn cut ({what} left out, the longest kept; `{} --turn {}` prints the turn whole) to fit a {limit}-character window{} …]\n",
        turn.show,
        turn.n,
        pack::held(&turn.summaries, &turn.show),
    )
}

/// A marker at least as long as any [`marker`] of this turn: the most lines
/// named, each as long as the longest, and counts as large as they can be.
fn marker_bound(turn: &Turn, limit: usize, total: usize) -> String {
    let n = turn.assistant.len();
    let widest = turn.assistant.iter().map(|(_, l)| *l).max().unwrap_or(0);
    let lines = vec![widest; n];
    marker_of(turn, limit, &said(&lines, n), total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn of a prompt, a tool line and assistant messages of the given
    /// lengths (each an `[assistant] …` entry), as the walker renders it.
    fn turn(sizes: &[usize]) -> Turn {
        let mut text = String::from("── turn 3 · - ──\n[user] go\n[tool] Bash $ make → 2 lines\n");
        let mut assistant = Vec::new();
        for (i, &n) in sizes.iter().enumerate() {
            let start = text.len();
            let body = char::from(b'a' + i as u8).to_string().repeat(n);
            text.push_str(&format!("[assistant] {body}\n"));
            assistant.push((start..text.len(), 100 + i));
        }
        text.push('\n');
        Turn {
            n: 3,
            first_line: 1,
            last_line: 200,
            text,
            summaries: Vec::new(),
            show: "csift show @s".into(),
            assistant,
            prompts: vec!["go".into()],
            summary_bodies: Vec::new(),
        }
    }

    /// CMP-010: the budget forces a choice, and the longest message is the one
    /// kept, not the last; the marker counts what went and names the lines.
    #[test]
    fn the_longest_assistant_message_is_kept_cmp_010() {
        let t = turn(&[300, 2000, 400, 350]);
        let (text, omitted) = fit(&t, 3000);
        assert!(units(&text) <= 3000, "{}", units(&text));
        assert!(text.contains(&"b".repeat(2000)), "the longest is whole");
        assert!(
            !text.contains(&"d".repeat(350)),
            "the last is not kept over it"
        );
        assert!(text.contains("[user] go") && text.contains("[tool] Bash $ make"));
        // Longest first while they fit: 2000, then 400; 350 and 300 no
        // longer fit beside the marker.
        let kept: Vec<bool> = ['a', 'b', 'c', 'd']
            .iter()
            .map(|c| text.contains(&c.to_string().repeat(300)))
            .collect();
        assert_eq!(kept, [false, true, true, false], "{text}");
        assert_eq!(omitted, 313 + 363);
        assert!(
            text.contains(&format!(
                "verbatim: {omitted} characters of this turn cut (2 shorter assistant messages (lines 100, 103) of 4 left out, the longest kept; `csift show @s --turn 3` prints the turn whole) to fit a 3000-character window …]"
            )),
            "{text}"
        );
        // The marker stands where the first dropped message stood.
        assert!(text.find("verbatim:") < text.find(&"b".repeat(10)));
    }

    /// A turn that fits is whole; one with a single message is cut as before;
    /// one where not even the longest fits keeps it and is cut in the middle,
    /// the one marker counting both.
    #[test]
    fn whole_single_and_too_long_turns() {
        let t = turn(&[100, 200]);
        assert_eq!(fit(&t, 10_000), (t.text.clone(), 0));
        let one = turn(&[5000]);
        let (text, omitted) = fit(&one, 1000);
        assert!(units(&text) <= 1000 && omitted > 4000);
        assert!(text.contains(&format!("verbatim: {omitted} characters of this turn cut")));
        let t = turn(&[3000, 6000, 100]);
        let (text, omitted) = fit(&t, 2000);
        assert!(units(&text) <= 2000);
        assert!(!text.contains(&"a".repeat(50)) && !text.contains(&"c".repeat(50)));
        assert!(text.contains(&"b".repeat(200)), "the longest's head stays");
        assert!(text.contains(&format!("verbatim: {omitted} characters of this turn cut")));
        assert!(omitted > 3000 + 100 + 4000);
    }
}
