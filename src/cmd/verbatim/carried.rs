//! How much of a turn a compaction summary carried. A summary keeps task
//! state, and lists the user's messages in a section of its own, but it loses
//! a turn by VOLUME: its bullets track the turn count closely while carrying
//! a fraction of the characters, and the assistant side shrinks to at most
//! one quote (CMP-009, CMP-010). So a turn's carried share is the characters
//! of its prompts that a bullet of the summary covering it holds, plus those
//! of a quote matching one of its assistant messages, over the turn's own.
//!
//! The summary covering a turn is the first one at or after the turn's start:
//! one the turn holds itself (its prompt precedes it), else the oldest of the
//! newer turns'. Turns after the newest summary are covered by none.

use super::pack::{units, Turn};

/// Characters of a bullet and a prompt compared: enough to tell two prompts
/// apart, short enough that a bullet cut with `...` still matches.
const PREFIX: usize = 40;

/// What one summary body carries: the user-message bullets and the quotes of
/// its next-step section, normalised ([`norm`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Summary {
    bullets: Vec<String>,
    quotes: Vec<String>,
}

impl Summary {
    /// Read a summary body. The user-message section is found by its title
    /// (`6. All user messages:`, `## User Messages` …: the numbered headers
    /// are the common rendering, not the only one); without one, every `- `
    /// line is taken as a bullet.
    pub(crate) fn parse(body: &str) -> Summary {
        let lines: Vec<&str> = body.lines().collect();
        let section = |title: &str| -> Option<&[&str]> {
            let at = lines
                .iter()
                .position(|l| is_header(l) && l.to_lowercase().contains(title))?;
            let len = lines[at + 1..]
                .iter()
                .position(|l| is_header(l))
                .unwrap_or(lines.len() - at - 1);
            Some(&lines[at + 1..at + 1 + len])
        };
        let bullet_lines = section("user messages").unwrap_or(&lines);
        let bullets = bullet_lines
            .iter()
            .filter_map(|l| {
                let t = l.trim_start();
                t.strip_prefix("- ").or_else(|| t.strip_prefix("* "))
            })
            .map(norm)
            .filter(|b| !b.is_empty())
            .collect();
        let quotes = section("next step")
            .map(|s| s.iter().flat_map(|l| quoted(l)).map(norm).collect())
            .unwrap_or_default();
        Summary { bullets, quotes }
    }

    /// The share of `t` (UTF-16 units) this summary carries, 0 to 1. The
    /// summaries the turn holds are not its own words and do not count; a
    /// turn of nothing else is carried whole.
    pub(crate) fn share(&self, t: &Turn) -> f64 {
        let held: usize = t.summary_bodies.iter().map(|b| units(b)).sum();
        let total = units(&t.text).saturating_sub(held);
        if total == 0 {
            return 1.0;
        }
        let mut carried = 0;
        for p in &t.prompts {
            let p = norm(p);
            if let Some(b) = self.bullets.iter().find(|b| same_start(b, &p)) {
                carried += units(b).min(units(&p));
            }
        }
        for (r, _) in &t.assistant {
            let Some(m) = t.text.get(r.clone()).map(norm) else {
                continue;
            };
            carried += self
                .quotes
                .iter()
                .filter(|q| m.contains(q.as_str()))
                .map(|q| units(q))
                .sum::<usize>();
        }
        (carried as f64 / total as f64).min(1.0)
    }
}

/// Walks turns newest first and gives each the share the summary covering it
/// carried, `None` when no summary covers it.
#[derive(Default)]
pub(crate) struct Tracker {
    cover: Option<Summary>,
}

impl Tracker {
    pub(crate) fn see(&mut self, t: &Turn) -> Option<f64> {
        if let Some(body) = t.summary_bodies.first() {
            self.cover = Some(Summary::parse(body));
        }
        self.cover.as_ref().map(|s| s.share(t))
    }
}

/// A section title: a numbered line at the margin (`6. All user messages:`),
/// a markdown heading, or a bold line.
fn is_header(l: &str) -> bool {
    let digits = l.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && l[digits..].starts_with(". "))
        || l.starts_with('#')
        || (l.starts_with("**") && !l.trim_start().starts_with("- "))
}

/// The double-quoted spans of a line long enough to be a quote, not a word.
fn quoted(l: &str) -> Vec<&str> {
    l.split(['"', '“', '”'])
        .skip(1)
        .step_by(2)
        .filter(|q| q.chars().count() >= 20)
        .collect()
}

/// Lowercase, quotes and a trailing ellipsis gone, whitespace single: a
/// bullet `- "Fix the build..."` reads as the prompt `fix the build now` starts.
fn norm(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix("[assistant]").unwrap_or(s);
    let s =
        s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '“' | '”'));
    let s = s.trim_end_matches(['.', '…']);
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether two normalised texts start the same way (the shorter one's first
/// [`PREFIX`] characters).
fn same_start(a: &str, b: &str) -> bool {
    let n = a.chars().count().min(b.chars().count()).min(PREFIX);
    n > 0 && a.chars().take(n).eq(b.chars().take(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a real summary body (the corpus's 3ae3ab59): nine
    /// numbered sections, quoted bullets, some annotated or cut.
    const BODY: &str = "This session is being continued from a previous conversation that ran out of context.\n\nAnalysis:\n1. **Initial request**: the user asked for a fix.\n\nSummary:\n1. Primary Request and Intent:\n   - Fix the parser\n\n6. All user messages:\n   - \"Implement the following plan: # Fix Gemini Transcript Parsing [detailed plan with 4 steps]\"\n   - \"commit this, push and open a draft PR\"\n   - \"it's not adding the trailer properly??\"\n\n7. Pending Tasks:\n   - none\n\n9. Optional Next Step:\n   The user asked: \"compare the two pull requests in detail please\" and I said \"I will read the e2e test code from PR #343 next\".\n";

    fn turn(prompts: &[&str], text: &str) -> Turn {
        Turn {
            n: 1,
            first_line: 1,
            last_line: 2,
            text: text.to_string(),
            summaries: Vec::new(),
            show: String::new(),
            assistant: Vec::new(),
            prompts: prompts.iter().map(|p| p.to_string()).collect(),
            summary_bodies: Vec::new(),
        }
    }

    #[test]
    fn bullets_and_quotes_of_the_sections_cmp_009() {
        let s = Summary::parse(BODY);
        assert_eq!(
            s.bullets,
            [
                "implement the following plan: # fix gemini transcript parsing [detailed plan with 4 steps]",
                "commit this, push and open a draft pr",
                "it's not adding the trailer properly??",
            ]
        );
        assert_eq!(
            s.quotes,
            [
                "compare the two pull requests in detail please",
                "i will read the e2e test code from pr #343 next"
            ]
        );
        // No section title: every bullet line.
        let loose = Summary::parse("Summary\n- first thing asked\n- second\n");
        assert_eq!(loose.bullets, ["first thing asked", "second"]);
    }

    /// A turn whose prompt a bullet holds whole is carried by that much of
    /// its text; one no bullet holds, not at all.
    #[test]
    fn a_turn_is_carried_by_the_share_its_bullets_hold_cmp_009() {
        let s = Summary::parse(BODY);
        let short = turn(
            &["commit this, push and open a draft PR"],
            "── turn 2 ──\n[user] commit this, push and open a draft PR\n[assistant] Pushed.\n\n",
        );
        let long = turn(
            &["Commit this, push and open a draft PR"],
            &format!(
                "── turn 2 ──\n[user] x\n{}",
                "[tool] Bash $ git push\n".repeat(40)
            ),
        );
        let none = turn(
            &["something never listed"],
            "── turn 3 ──\n[user] something never listed\n\n",
        );
        let (a, b, c) = (s.share(&short), s.share(&long), s.share(&none));
        assert!(a > 0.4 && a < 1.0, "{a}");
        assert!(b > 0.0 && b < 0.1, "{b}");
        assert_eq!(c, 0.0);
    }
}
