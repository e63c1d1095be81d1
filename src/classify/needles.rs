//! Line needles: bytes that every line holding a unit of a given label contains,
//! for the labels whose units come only from one kind of content block (see
//! [`super::unit`]). A search restricted to such labels (`-t agent.tool.use`)
//! skips reading candidate lines without one: a pattern that hits the file
//! bodies in tool results then costs no parse of those results.
//!
//! A needle is a block's `type` value with its closing quote: a bare value, never
//! a compact `"key":"value"` pair, so a line re-serialised with spaces around
//! the colon still matches (REC-038). Inside a JSON string the quote would be
//! escaped (`tool_use\"`), so text that merely mentions a block type is no
//! needle hit. `tool_use"` also ends `server_tool_use"` and `mcp_tool_use"`, and
//! `tool_result"` ends every `*_tool_result"` block type.

use super::{Label, LabelSet};

/// The needles of `label` (a line holds one of them), or `None` when units of
/// `label` can come from a record without a fixed byte string.
pub(crate) fn of(label: Label) -> Option<&'static [&'static [u8]]> {
    match label {
        // tool_use / server_tool_use / mcp_tool_use blocks of assistant records;
        // a spawn or SendMessage call is also `agent.tool.use` (CLS-010).
        Label::AgentToolUse => Some(&[b"tool_use\""]),
        // tool_result blocks of carriers (and the answers, rejections and inbox
        // results that are also `agent.tool.result`), `*_tool_result` blocks of
        // assistant records.
        Label::AgentToolResult => Some(&[b"tool_result\""]),
        // thinking and redacted_thinking blocks (CLS-018).
        Label::AgentThinking | Label::AgentThinkingNarration => Some(&[b"thinking\""]),
        _ => None,
    }
}

/// The needles of every label in `set`, or `None` when one of them has none (or
/// the set is empty): then every candidate line must be read.
pub(crate) fn of_set(set: LabelSet) -> Option<Vec<&'static [u8]>> {
    let mut out: Vec<&'static [u8]> = Vec::new();
    for label in set.iter() {
        for &n in of(label)? {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Whether `line` holds one of `needles`.
pub(crate) fn line_has(line: &[u8], needles: &[&[u8]]) -> bool {
    needles
        .iter()
        .any(|n| memchr::memmem::find(line, n).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{classify, FileIndex};
    use crate::record::{parse_line, Parsed};
    use crate::scan::{Lines, Source};

    /// The needle table is a claim about the classifier: on every real and
    /// sample transcript, each unit of a needled label (primary or secondary)
    /// sits on a line holding one of its needles (REC-038: bare values only).
    #[test]
    fn every_unit_of_a_needled_label_sits_on_a_line_with_its_needle_rec_038() {
        let files = crate::discovery::sample_and_public();
        let mut checked = [0usize; 3];
        for t in &files {
            let f = &t.path;
            let src = Source::open(f).unwrap();
            let idx = FileIndex::build(&src, t.is_lane());
            for line in Lines::new(&src) {
                let Parsed::Record(r) = parse_line(&line) else {
                    continue;
                };
                let mut units = Vec::new();
                classify(&r, line.no, &idx, &mut units);
                for u in &units {
                    for l in u.labels() {
                        let Some(n) = of(l) else { continue };
                        assert!(
                            line_has(line.bytes, n),
                            "{}:{}: a {} unit on a line without {:?}",
                            f.display(),
                            line.no,
                            l.name(),
                            n.iter()
                                .map(|b| String::from_utf8_lossy(b))
                                .collect::<Vec<_>>()
                        );
                        checked[match l {
                            Label::AgentToolUse => 0,
                            Label::AgentToolResult => 1,
                            _ => 2,
                        }] += 1;
                    }
                }
            }
        }
        // Every needled label is exercised by the real data.
        assert!(checked.iter().all(|&c| c > 0), "{checked:?}");
    }

    #[test]
    fn a_set_has_needles_only_when_every_label_has() {
        let uses = LabelSet::EMPTY.with(Label::AgentToolUse);
        assert_eq!(of_set(uses), Some(vec![&b"tool_use\""[..]]));
        let tools = uses.with(Label::AgentToolResult);
        assert_eq!(of_set(tools).map(|v| v.len()), Some(2));
        let thinking = LabelSet::EMPTY
            .with(Label::AgentThinking)
            .with(Label::AgentThinkingNarration);
        assert_eq!(of_set(thinking), Some(vec![&b"thinking\""[..]]));
        assert_eq!(of_set(uses.with(Label::UserMessage)), None);
        assert_eq!(of_set(LabelSet::EMPTY), None);
        assert_eq!(of_set(LabelSet::visible()), None);
        // Spaced re-serialisation still holds the bare value (REC-038); an escaped
        // mention inside text does not.
        assert!(line_has(br#"{"type": "tool_use"}"#, &[b"tool_use\""]));
        assert!(line_has(br#"{"type":"server_tool_use"}"#, &[b"tool_use\""]));
        assert!(!line_has(
            br#"{"content":"a \"tool_use\" block"}"#,
            &[b"tool_use\""]
        ));
    }
}
