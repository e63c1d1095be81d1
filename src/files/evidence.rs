//! Content evidence, decoded: what a structured call's echo (or, with no
//! echo, SUB-026, its input) and a clean `cat` result say the file held. The
//! join ([`super::join`]) decodes it during the pass, or keeps its place
//! ([`super::place`]) and `recover` decodes it again with [`decode`] from the
//! same bytes read again, so the evidence is the same either way. The echo's
//! strings are what Claude Code applied (REC-059).

use serde_json::value::RawValue;

use super::echo::{self, Echo, Evidence, Step};
use super::place::{Place, What};
use super::Kind;

/// The evidence at `p`, from its echo's and input's bytes read again: what
/// the pass would have decoded from the same bytes.
pub(crate) fn decode(
    p: &Place,
    raw_echo: Option<&RawValue>,
    input: Option<&RawValue>,
) -> Option<Evidence> {
    let echo = raw_echo.and_then(Echo::parse);
    match p.what {
        What::Structured { tool, kind } => evidence(tool, kind, echo.as_ref(), input?),
        What::Cat => cat(echo.as_ref()),
    }
}

/// Content evidence of a structured call, from its echo or (no echo, SUB-026)
/// its input. The echo's strings are what Claude Code applied (REC-059).
pub(super) fn evidence(
    tool: &str,
    kind: Kind,
    echo: Option<&Echo<'_>>,
    input: &RawValue,
) -> Option<Evidence> {
    let inp = Echo::parse(input);
    match tool {
        "Read" => {
            let f = echo?.file.as_ref()?;
            if matches!(kind, Kind::ReadUnchanged | Kind::ReadOther) {
                return None;
            }
            Some(Evidence::Read {
                start: echo::uint(f.start_line)?,
                num: echo::uint(f.num_lines)?,
                total: echo::uint(f.total_lines)?,
                content: echo::string(f.content)?.into_owned(),
                truncated: kind == Kind::ReadTruncated,
            })
        }
        "Write" => {
            // FH-050, REC-058: an update echo can be stripped to "" — the
            // input holds the bytes written unless the user edited them.
            let from_echo = echo.and_then(|e| {
                let c = echo::string(e.content)?;
                let stripped = c.is_empty() && e.kind().as_deref() == Some("update");
                (!stripped).then(|| c.into_owned())
            });
            let user_modified = echo.is_some_and(|e| echo::is_true(e.user_modified));
            let from_input = || {
                let i: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(input.get()).ok()?;
                i.get("content")?.as_str().map(str::to_string)
            };
            let content = from_echo.or_else(|| (!user_modified).then(from_input).flatten())?;
            Some(Evidence::Write { content })
        }
        "Edit" | "MultiEdit" => edit_evidence(tool, echo, inp.as_ref(), input),
        _ => Some(Evidence::Notebook {
            updated: echo
                .and_then(|e| echo::string(e.updated_file))
                .map(|c| c.into_owned()),
        }),
    }
}

fn edit_evidence(
    tool: &str,
    echo: Option<&Echo<'_>>,
    input: Option<&Echo<'_>>,
    raw_input: &RawValue,
) -> Option<Evidence> {
    let steps = if tool == "MultiEdit" {
        echo.and_then(|e| echo::multi_steps(e.edits))
            .or_else(|| input.and_then(|i| echo::multi_steps(i.edits)))?
    } else {
        let from_echo = echo.and_then(|e| {
            Some(Step {
                old: echo::string(e.old_string)?.into_owned(),
                new: echo::string(e.new_string)?.into_owned(),
                all: echo::is_true(e.replace_all),
            })
        });
        vec![from_echo.or_else(|| input_step(raw_input))?]
    };
    let original = echo
        .and_then(|e| {
            echo::string(e.original_file).or_else(|| echo::string(e.original_file_contents))
        })
        .map(|c| c.into_owned())
        // REC-060: an empty pre-image is the stripped form, not an empty file.
        .filter(|c| !c.is_empty());
    let hunks = echo
        .map(|e| echo::hunks(e.structured_patch))
        .unwrap_or_default();
    Some(Evidence::Edit {
        steps,
        original,
        hunks,
    })
}

/// An Edit input's step (snake_case keys, REC-081: `replace_all` always there).
fn input_step(input: &RawValue) -> Option<Step> {
    #[derive(serde::Deserialize)]
    struct I {
        old_string: String,
        new_string: String,
        #[serde(default)]
        replace_all: Option<bool>,
    }
    let i: I = serde_json::from_str(input.get()).ok()?;
    Some(Step {
        old: i.old_string,
        new: i.new_string,
        all: i.replace_all.unwrap_or(false),
    })
}

/// A `cat` result's stdout, when the result is positively clean.
pub(super) fn cat(echo: Option<&Echo<'_>>) -> Option<Evidence> {
    let e = echo?;
    let clean = echo::string(e.stderr).is_some_and(|s| s.is_empty())
        && !echo::is_true(e.interrupted)
        && e.persisted_output_path.is_none()
        && e.background_task_id.is_none();
    let stdout = echo::string(e.stdout)?;
    clean.then(|| Evidence::Cat {
        stdout: stdout.into_owned(),
    })
}
