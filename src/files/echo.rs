//! Reading a tool result's structured echo (`toolUseResult`) and the content
//! evidence it carries. The echo is an open object (REC-067, REC-069): only
//! the keys named here are read, every value as a raw slice decoded on demand,
//! so an unexpected type on one key never fails the rest. Big strings
//! (`content`, `originalFile`, `stdout`) are decoded only for `recover`.
//!
//! Shapes (REC-042…086): a Read echo nests `file{filePath, content, startLine,
//! numLines, totalLines, truncatedByTokenCap?}` under a `type`; a Write echo is
//! `{type: create|update, filePath, content, structuredPatch, originalFile}`;
//! an Edit echo has no `type` and carries `oldString`/`newString`/`replaceAll`
//! (REC-059, REC-066); MultiEdit carries `edits[]`; NotebookEdit names
//! `notebook_path` and `updated_file` (REC-072); a Bash echo carries
//! `stdout`/`stderr`/`interrupted` and maybe `staleReadFileStateHint`
//! (BASH-009). A failed call's echo is a string (REC-073): not an object.

use std::borrow::Cow;

use serde::Deserialize;

use crate::record::Raw;

/// The keys of a `toolUseResult` object csift reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Echo<'a> {
    #[serde(rename = "type", borrow, default)]
    pub(crate) kind: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) file: Option<FileEcho<'a>>,
    #[serde(borrow, default)]
    pub(crate) content: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) old_string: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) new_string: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) replace_all: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) original_file: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) original_file_contents: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) structured_patch: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) user_modified: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) stale_recovered: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) edits: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) stdout: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) stderr: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) interrupted: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) persisted_output_path: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) background_task_id: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) stale_read_file_state_hint: Raw<'a>,
    #[serde(rename = "updated_file", borrow, default)]
    pub(crate) updated_file: Raw<'a>,
}

/// A Read echo's `file` object (any variant: only text carries `content`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileEcho<'a> {
    #[serde(borrow, default)]
    pub(crate) content: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) start_line: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) num_lines: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) total_lines: Raw<'a>,
    #[serde(borrow, default)]
    pub(crate) truncated_by_token_cap: Raw<'a>,
}

impl<'a> Echo<'a> {
    /// The echo of a record, when it is an object csift can read.
    pub(crate) fn parse(raw: &'a serde_json::value::RawValue) -> Option<Echo<'a>> {
        let s = raw.get();
        if !s.starts_with('{') {
            return None;
        }
        serde_json::from_str(s).ok()
    }

    pub(crate) fn kind(&self) -> Option<Cow<'a, str>> {
        string(self.kind)
    }
}

/// The few facts of an echo a touch's kind needs (from the skim or from
/// [`Echo`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// `type`: `create`/`update` (Write), `text`/`image`/… (Read).
    pub(crate) kind: Option<String>,
    /// A Read echo's `file` object is there, and whether it holds `content`.
    pub(crate) file: bool,
    pub(crate) content: bool,
    pub(crate) start: Option<usize>,
    pub(crate) num: Option<usize>,
    pub(crate) total: Option<usize>,
    pub(crate) truncated: bool,
    pub(crate) stale: bool,
    pub(crate) hint: Option<String>,
}

impl Facts {
    pub(crate) fn of(e: &Echo<'_>) -> Facts {
        let f = e.file.as_ref();
        Facts {
            kind: e.kind().map(Cow::into_owned),
            file: f.is_some(),
            content: f.is_some_and(|f| f.content.is_some_and(|c| c.get().starts_with('"'))),
            start: f.and_then(|f| uint(f.start_line)),
            num: f.and_then(|f| uint(f.num_lines)),
            total: f.and_then(|f| uint(f.total_lines)),
            truncated: f.is_some_and(|f| is_true(f.truncated_by_token_cap)),
            stale: is_true(e.stale_recovered),
            hint: string(e.stale_read_file_state_hint).map(Cow::into_owned),
        }
    }
}

/// A raw value decoded as a string; `None` for any other JSON type.
pub(crate) fn string<'a>(raw: Raw<'a>) -> Option<Cow<'a, str>> {
    let r = raw?;
    if !r.get().starts_with('"') {
        return None;
    }
    serde_json::from_str::<Cow<'a, str>>(r.get()).ok()
}

/// A raw value read as a non-negative integer.
pub(crate) fn uint(raw: Raw<'_>) -> Option<usize> {
    raw?.get().parse::<usize>().ok()
}

/// A raw value that is the literal `true` (absence and every other value are
/// false: the flags are spread only as `true`, FH-027, FH-035).
pub(crate) fn is_true(raw: Raw<'_>) -> bool {
    raw.is_some_and(|r| r.get() == "true")
}

/// Content evidence a touch carries, for `recover`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// A Read echo's window: `content` placed at `start` (REC-042, REC-050).
    Read {
        start: usize,
        num: usize,
        total: usize,
        content: String,
        /// Cut by the token cap (FH-026, FH-044): the last line may be partial (FH-042).
        truncated: bool,
    },
    /// The whole file after a write (Write echo or input, or a literal heredoc).
    Write { content: String },
    /// Bytes appended to the file (a literal heredoc into `>>` / `tee -a`).
    Append { content: String },
    /// An Edit or MultiEdit: the string edits in order, the pre-image when the
    /// echo kept it, and the display patch (tabs shown as two spaces).
    Edit {
        steps: Vec<Step>,
        original: Option<String>,
        hunks: Vec<Hunk>,
    },
    /// A NotebookEdit's whole notebook after the edit, when echoed (REC-072).
    Notebook { updated: Option<String> },
    /// A clean `cat FILE` stdout: the file with its edges trimmed (BASH-010).
    Cat { stdout: String },
    /// An `edited_text_file` snippet: `(line, text)` pairs (FH-007, FH-008, FH-049).
    Snippet { lines: Vec<(usize, String)> },
}

/// One string replacement (REC-061: `replaceAll` is the only signal of a global one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) old: String,
    pub(crate) new: String,
    pub(crate) all: bool,
}

/// One `structuredPatch` hunk (REC-062): exactly five keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub(crate) old_start: usize,
    pub(crate) old_lines: usize,
    pub(crate) new_start: usize,
    pub(crate) new_lines: usize,
    pub(crate) lines: Vec<String>,
}

/// Parse a `structuredPatch` array; a hunk missing a key is dropped (REC-062).
pub(crate) fn hunks(raw: Raw<'_>) -> Vec<Hunk> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct H {
        old_start: Option<usize>,
        old_lines: Option<usize>,
        new_start: Option<usize>,
        new_lines: Option<usize>,
        #[serde(default)]
        lines: Vec<String>,
    }
    let Some(r) = raw.filter(|r| r.get().starts_with('[')) else {
        return Vec::new();
    };
    let Ok(hs) = serde_json::from_str::<Vec<H>>(r.get()) else {
        return Vec::new();
    };
    hs.into_iter()
        .filter_map(|h| {
            Some(Hunk {
                old_start: h.old_start?,
                old_lines: h.old_lines?,
                new_start: h.new_start?,
                new_lines: h.new_lines?,
                lines: h.lines,
            })
        })
        .collect()
}

/// MultiEdit `edits[]` (from the echo or the input): `old_string`/`new_string`/`replace_all`.
pub(crate) fn multi_steps(raw: Raw<'_>) -> Option<Vec<Step>> {
    #[derive(Deserialize)]
    struct E {
        old_string: String,
        new_string: String,
        #[serde(default)]
        replace_all: Option<bool>,
    }
    let r = raw.filter(|r| r.get().starts_with('['))?;
    let es: Vec<E> = serde_json::from_str(r.get()).ok()?;
    Some(
        es.into_iter()
            .map(|e| Step {
                old: e.old_string,
                new: e.new_string,
                all: e.replace_all.unwrap_or(false),
            })
            .collect(),
    )
}

/// Parse a `staleReadFileStateHint` into its named paths (FH-005): `[This
/// command modified N file(s) you've previously read: p1, p2 and M more. Call
/// <Read> before editing.]`. At most five names; the remainder names none.
pub(crate) fn hint_paths(hint: &str) -> Vec<String> {
    let Some(rest) = hint.trim().strip_prefix("[This command modified ") else {
        return Vec::new();
    };
    let Some(colon) = rest.find(": ") else {
        return Vec::new();
    };
    let mut tail = &rest[colon + 2..];
    // The closing clause names the Read tool, whatever it is called (FH-005).
    if let Some(end) = tail.rfind(". Call ") {
        tail = &tail[..end];
    }
    if let Some(more) = tail.rfind(" and ") {
        if tail[more + 5..].ends_with(" more") {
            tail = &tail[..more];
        }
    }
    tail.split(", ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// `(line number, text)` of each gutter line of an `edited_text_file` snippet
/// (FH-008: `N<TAB>text`; FH-049: `:` when tab-aware; an older `→`). A line
/// with no gutter (the `... [N lines truncated] ...` tail, FH-034) is skipped:
/// a number is never invented.
pub(crate) fn gutter_lines(snippet: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for line in snippet.split('\n') {
        let t = line.trim_start();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let rest = &t[digits..];
        let text = rest
            .strip_prefix('\t')
            .or_else(|| rest.strip_prefix('\u{2192}'))
            .or_else(|| rest.strip_prefix(':'));
        if let (Some(text), Ok(n)) = (text, t[..digits].parse::<usize>()) {
            out.push((n, text.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FH-005: the five-name cap, the remainder and the interpolated tool name.
    #[test]
    fn stale_hint_names() {
        assert_eq!(
            hint_paths("[This command modified 1 file you've previously read: tests/cli.rs. Call Read before editing.]"),
            vec!["tests/cli.rs"]
        );
        assert_eq!(
            hint_paths("[This command modified 6 files you've previously read: a, b, c, d, e and 1 more. Call View before editing.]"),
            vec!["a", "b", "c", "d", "e"]
        );
        assert!(hint_paths("something else").is_empty());
    }

    /// FH-008, FH-049: TAB, colon and arrow gutters; the truncation tail has none.
    #[test]
    fn gutters() {
        let s = "12\tfn a() {\n13:  x\n14\u{2192}}\n... [3 lines truncated] ...";
        assert_eq!(
            gutter_lines(s),
            vec![
                (12, "fn a() {".into()),
                (13, "  x".into()),
                (14, "}".into())
            ]
        );
        assert!(gutter_lines("").is_empty());
    }

    /// REC-059/066: an Edit echo has no type; a Write echo's type is read as is.
    #[test]
    fn echo_shapes() {
        let raw = serde_json::value::RawValue::from_string(
            r#"{"filePath":"/a","oldString":"x","newString":"y","replaceAll":false,"originalFile":null,"structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-x","+y"]}],"userModified":false}"#.into(),
        )
        .unwrap();
        let e = Echo::parse(&raw).unwrap();
        assert!(e.kind().is_none());
        assert_eq!(string(e.old_string).as_deref(), Some("x"));
        assert_eq!(hunks(e.structured_patch).len(), 1);
        assert!(!is_true(e.replace_all));
        let raw = serde_json::value::RawValue::from_string(
            r#""Error: String to replace not found""#.into(),
        )
        .unwrap();
        assert!(
            Echo::parse(&raw).is_none(),
            "REC-073: a failed call's echo is a string"
        );
    }

    /// The echo is an open object: keys csift does not read never change what
    /// it reads. REC-067: a remote session's `gitDiff` rider; REC-049: a Read's
    /// `artifactRead` sibling of `file`; BASH-009, BASH-026: the Bash echo's five
    /// core keys beside optional ones that drift with the version.
    #[test]
    fn unread_riders_change_nothing_rec_067_rec_049_bash_026() {
        let facts = |s: &str| {
            let raw = serde_json::value::RawValue::from_string(s.into()).unwrap();
            Facts::of(&Echo::parse(&raw).unwrap())
        };
        let edit = r#"{"filePath":"/a","oldString":"x","newString":"y","replaceAll":false,"originalFile":"x","structuredPatch":[],"userModified":false,"staleRecovered":true}"#;
        let remote = edit.replace(r#""userModified":false"#, r#""userModified":false,"gitDiff":{"filename":"a","status":"modified","additions":1,"deletions":1,"changes":2,"patch":"@@"}"#);
        assert_eq!(facts(&remote), facts(edit)); // REC-067
        assert!(facts(edit).stale);
        let read = r#"{"type":"text","file":{"filePath":"/a","content":"one","numLines":1,"startLine":1,"totalLines":1}}"#;
        let artifact = read.replace(r#"}}"#, r#"},"artifactRead":{"slug":"notes","ver":"3"}}"#);
        assert_eq!(facts(&artifact), facts(read)); // REC-049
        assert_eq!(facts(read).kind.as_deref(), Some("text"));
        let bash = r#"{"stdout":"ok","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"staleReadFileStateHint":"[This command modified 1 file you've previously read: a.rs. Call Read before editing.]"}"#;
        let drifted = bash.replace(r#""isImage":false"#, r#""isImage":false,"backgroundedByUser":false,"gitOperation":"commit","returnCodeInterpretation":"ok","timedOutAfterMs":null"#);
        assert_eq!(facts(&drifted), facts(bash)); // BASH-026
        let raw = serde_json::value::RawValue::from_string(drifted).unwrap();
        let e = Echo::parse(&raw).unwrap();
        assert_eq!(string(e.stdout).as_deref(), Some("ok")); // BASH-009
        assert!(!is_true(e.interrupted)); // BASH-009
        assert_eq!(hint_paths(&facts(bash).hint.unwrap()), ["a.rs"]); // BASH-009
    }
}
