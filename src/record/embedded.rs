//! Subagent records embedded in a parent's `progress` records. While a
//! synchronous Task/Agent subagent works, Claude Code writes each of its
//! messages into the parent transcript as a `type:"progress"` record whose
//! `data` is `{"message": <record>, "type": "agent_progress", "prompt",
//! "agentId", "normalizedMessages"}`; the nested record has the lane record's
//! shape (`type`, `message`, `uuid`, `timestamp`, at times `toolUseResult`).
//!
//! Measured on the public corpus (no claim covers it yet): 402 such records in
//! 12 sessions, every one with a nested `message`: 16 spawn prompts (user text
//! equal to `data.prompt`), 193 assistant tool_use records and 193 user
//! tool_result carriers; no assistant text or thinking. In 11 of the 12
//! sessions no lane file exists for that agent, so these records are the only
//! copy of the subagent's work. In the one session that has the lane file
//! (4d5611e5), all 67 nested uuids are records of that lane file.

use serde::Deserialize;

use super::{opt_str, Record, Str};

/// The subagent record inside an `agent_progress` record.
#[derive(Debug)]
pub(crate) struct Embedded<'a> {
    /// `data.agentId`: the subagent whose work this is (every one of the
    /// corpus's 402 has it).
    pub(crate) agent_id: Str<'a>,
    /// `data.prompt`: the spawn prompt (the nested seed repeats it).
    pub(crate) prompt: Str<'a>,
    /// `data.message`, read as a record of its own.
    pub(crate) record: Record<'a>,
}

impl Embedded<'_> {
    /// Whether the nested record is the spawn prompt delivered to the child:
    /// a user text equal to `data.prompt` (16 of 16 in the corpus).
    pub(crate) fn is_seed(&self, text: &str) -> bool {
        self.record.kind() == "user" && self.prompt.as_deref().is_some_and(|p| p == text)
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "opt_str")]
    kind: Str<'a>,
    /// Read in the same walk as `data`; only an object is a record (serde's
    /// derive would read an array's elements as the fields, in order).
    #[serde(borrow, default, deserialize_with = "object")]
    message: Option<Record<'a>>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    agent_id: Str<'a>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    prompt: Str<'a>,
}

/// A record from a JSON object only; `null` is no record; any other value
/// fails the parse of `data` (so the agent_progress is unreadable).
fn object<'de: 'a, 'a, D>(d: D) -> Result<Option<Record<'a>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Object<'a>(std::marker::PhantomData<Record<'a>>);
    impl<'de: 'a, 'a> serde::de::Visitor<'de> for Object<'a> {
        type Value = Option<Record<'a>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a record object")
        }
        fn visit_map<M: serde::de::MapAccess<'de>>(self, m: M) -> Result<Self::Value, M::Error> {
            Record::deserialize(serde::de::value::MapAccessDeserializer::new(m)).map(Some)
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Object(std::marker::PhantomData))
}

/// What a progress record's `data` nests.
#[derive(Debug)]
pub(crate) enum Nested<'a> {
    /// Any other progress (`bash_progress`, `hook_progress` …), or no `data`.
    None,
    /// An `agent_progress` whose `data` or `message` csift cannot read as a
    /// record: missing, not an object, or a field of an unexpected type. Its
    /// subagent's work is not classified, so it is counted, never dropped in
    /// silence (stats' `nested_record_types`, search's unmodelled note).
    Unreadable,
    /// The subagent record.
    Record(Box<Embedded<'a>>),
}

/// Read `data` of a progress record as an embedded subagent record.
pub(crate) fn read<'a>(data: &'a serde_json::value::RawValue) -> Nested<'a> {
    let raw = data.get();
    // Most progress records are hook and shell progress: skip them unparsed.
    if crate::scan::lit!(b"agent_progress")
        .find(raw.as_bytes())
        .is_none()
    {
        return Nested::None;
    }
    // A lone surrogate escape in the nested record's text reads as U+FFFD, as
    // on a line of its own ([`super::surrogate`]).
    // The fast reader first ([`super::fast`]); serde_json for what it declines.
    let fast = super::fast::seed(raw, std::marker::PhantomData::<Data<'a>>);
    let parsed = fast
        .map_or_else(|| serde_json::from_str::<Data<'a>>(raw), Ok)
        .or_else(|e| match super::surrogate::readable(raw.as_bytes()) {
            (fixed, true) => std::str::from_utf8(fixed)
                .map_err(|_| e)
                .and_then(serde_json::from_str::<Data<'a>>),
            _ => Err(e),
        });
    let Ok(d) = parsed else {
        // Unreadable only when the skim still sees an agent_progress.
        let kind = crate::scan::json::field(raw.as_bytes(), b"type");
        return match kind.and_then(crate::scan::json::string).as_deref() {
            Some("agent_progress") => Nested::Unreadable,
            _ => Nested::None,
        };
    };
    if d.kind.as_deref() != Some("agent_progress") {
        return Nested::None;
    }
    match d.message {
        Some(record) => Nested::Record(Box::new(Embedded {
            agent_id: d.agent_id,
            prompt: d.prompt,
            record,
        })),
        None => Nested::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of the public corpus's 4cdef911…:277, cut down.
    const LINE: &str = r#"{"type":"progress","data":{"message":{"type":"assistant","message":{"role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"uv run pytest"}}]},"uuid":"n-1","timestamp":"2026-02-24T16:47:16.000Z"},"normalizedMessages":[],"type":"agent_progress","prompt":"Run the tests","agentId":"af7659ef33663ab14"},"toolUseID":"agent_msg_1","parentToolUseID":"toolu_0","uuid":"e-1","timestamp":"2026-02-24T16:47:16.001Z"}"#;

    #[test]
    fn an_agent_progress_record_carries_the_subagent_record() {
        let r: Record<'_> = serde_json::from_str(LINE).unwrap();
        let e = r.embedded().unwrap();
        assert_eq!(e.agent_id.as_deref(), Some("af7659ef33663ab14"));
        assert_eq!(e.record.kind(), "assistant");
        assert_eq!(e.record.uuid.as_deref(), Some("n-1"));
        assert_eq!(e.record.model(), Some("claude-x"));
        assert_eq!(e.record.blocks()[0].name.as_deref(), Some("Bash"));
        // The envelope stays the record on the line.
        assert_eq!(r.uuid.as_deref(), Some("e-1"));
    }

    /// A lone surrogate escape in the nested record's text (a string cut inside
    /// an emoji) reads as U+FFFD, as on a line of its own.
    #[test]
    fn a_nested_record_with_a_lone_surrogate_escape_is_read() {
        let line = LINE.replace("uv run pytest", r"uv run pytest \ud83c");
        let r: Record<'_> = serde_json::from_str(&line).unwrap();
        // In a raw value (the input) it stays as written, decoded when read.
        let e = r.embedded().unwrap();
        let input = e.record.blocks()[0].input_json();
        assert!(input.contains(r"pytest \ud83c"), "{input}");
        let line = LINE.replace(
            r#""content":[{"type":"tool_use""#,
            r#""content":[{"type":"text","text":"cut \udf89"},{"type":"tool_use""#,
        );
        let r: Record<'_> = serde_json::from_str(&line).unwrap();
        let e = r.embedded().unwrap();
        assert_eq!(e.record.blocks()[0].text.as_deref(), Some("cut \u{FFFD}"));
    }

    /// Every agent_progress `data` of the sample and public homes is read by
    /// the fast reader as serde_json reads it.
    #[test]
    fn the_fast_reader_reads_every_real_nested_record_as_serde_does() {
        let mut n = 0;
        for t in crate::discovery::sample_and_public() {
            let bytes = std::fs::read(&t.path).unwrap();
            for l in bytes.split(|&c| c == b'\n') {
                let Ok(r) = serde_json::from_slice::<Record<'_>>(l) else {
                    continue;
                };
                let Some(raw) = r.data.map(|d| d.get()) else {
                    continue;
                };
                if !raw.contains("agent_progress") {
                    continue;
                }
                let fast = crate::record::fast::seed(raw, std::marker::PhantomData::<Data<'_>>);
                let serde = serde_json::from_str::<Data<'_>>(raw).ok();
                assert_eq!(format!("{fast:?}"), format!("{serde:?}"));
                n += usize::from(fast.is_some());
            }
        }
        assert!(n > 300, "{n} nested records read");
    }

    #[test]
    fn other_progress_and_other_records_embed_nothing() {
        for line in [
            r#"{"type":"progress","data":{"type":"bash_progress","output":"agent_progress"}}"#,
            r#"{"type":"progress","data":{"type":"bash_progress","agentId":7,"output":"agent_progress"}}"#,
            r#"{"type":"user","data":{"type":"agent_progress","agentId":"a1","message":{"type":"user"}}}"#,
        ] {
            let r: Record<'_> = serde_json::from_str(line).unwrap();
            assert!(r.embedded().is_none(), "{line}");
            assert!(!r.nested_unreadable(), "{line}");
        }
    }

    /// An agent_progress whose nested record cannot be read is told apart from
    /// other progress, so it can be counted rather than dropped in silence.
    #[test]
    fn an_agent_progress_without_a_readable_record_is_unreadable() {
        for line in [
            r#"{"type":"progress","data":{"type":"agent_progress","agentId":"a1","message":"x"}}"#,
            r#"{"type":"progress","data":{"type":"agent_progress","agentId":"a1"}}"#,
            r#"{"type":"progress","data":{"type":"agent_progress","agentId":7,"message":{"type":"user"}}}"#,
            r#"{"type":"progress","data":{"message":{"type":"user","uuid":5},"type":"agent_progress"}}"#,
            r#"{"type":"progress","data":{"type":"agent_progress","message":["user","x"]}}"#,
            r#"{"type":"progress","data":{"type":"agent_progress","message":[]}}"#,
            r#"{"type":"progress","data":{"type":"agent_progress","message":null}}"#,
        ] {
            let r: Record<'_> = serde_json::from_str(line).unwrap();
            assert!(r.embedded().is_none(), "{line}");
            assert!(r.nested_unreadable(), "{line}");
        }
        let r: Record<'_> = serde_json::from_str(LINE).unwrap();
        assert!(!r.nested_unreadable());
    }
}
