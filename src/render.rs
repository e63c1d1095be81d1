//! Turning a unit into readable text: a tool call as its name and input (a Bash
//! command as `$ cmd`), a tool result from its `toolUseResult` echo where that says
//! more (Bash stdout/stderr split, the file a Read returned, the patch an Edit or
//! Write made from `structuredPatch`), and everything else as its decoded text.
//! These are plain strings: the printers sanitise them. `verbatim` uses the same
//! functions so a tool call reads the same in both commands.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::classify::{Label, Unit};
use crate::record::{opt_str, Block, Record};
pub(crate) use images::images;

mod images;

/// A tool call's input, readable: `$ command` for Bash, else one `key: value` per
/// field (multi-line strings under their key).
pub(crate) fn tool_input(name: &str, input: &str) -> String {
    // Fields in the order Claude Code wrote them (old_string before
    // new_string; serde_json's map sorts them), by the skim's field walk,
    // nested values as their compact JSON, in order too.
    let Some(fields) = ordered_fields(input) else {
        return input.to_string();
    };
    let string = crate::record::surrogate::string;
    let mut out = String::new();
    if name == "Bash" {
        if let Some(c) = fields
            .iter()
            .find(|(k, _)| k == "command")
            .and_then(|(_, v)| string(v))
        {
            let _ = writeln!(out, "$ {c}");
        }
    }
    for (k, v) in &fields {
        if name == "Bash" && k == "command" {
            continue;
        }
        match string(v) {
            Some(s) if s.contains('\n') => {
                let _ = writeln!(out, "{k}:\n{s}");
            }
            Some(s) => {
                let _ = writeln!(out, "{k}: {s}");
            }
            None => {
                let _ = writeln!(out, "{k}: {}", crate::scan::json::compact(v));
            }
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// A JSON object's top-level fields in file order: decoded keys and raw
/// values; `None` unless `input` is one valid object.
fn ordered_fields(input: &str) -> Option<Vec<(String, &str)>> {
    serde_json::from_str::<serde::de::IgnoredAny>(input).ok()?;
    let b = input.as_bytes();
    let start = b.iter().position(|c| !c.is_ascii_whitespace())?;
    let mut out = Vec::new();
    for kv in crate::scan::json::Fields::new(b, start) {
        let (k, v) = kv.ok()?;
        let key = serde_json::from_slice::<String>(&[b"\"", k, b"\""].concat()).ok()?;
        out.push((key, std::str::from_utf8(v).ok()?));
    }
    Some(out)
}

/// A tool call in one line: `Bash $ cargo test`, `Read src/main.rs`, `Grep "foo"`.
pub(crate) fn tool_line(name: &str, input: &str) -> String {
    let map = serde_json::from_str::<Map<String, Value>>(input).unwrap_or_default();
    let s = |k: &str| map.get(k).and_then(Value::as_str);
    let arg = match name {
        "Bash" => s("command").map(|c| format!("$ {c}")),
        _ => [
            "file_path",
            "path",
            "pattern",
            "url",
            "query",
            "description",
            "prompt",
        ]
        .iter()
        .find_map(|k| s(k).map(str::to_string)),
    };
    let arg = arg.unwrap_or_else(|| input.to_string());
    let arg = crate::output::sanitize::one_line(&arg);
    format!(
        "{} {}",
        crate::output::sanitize::one_line(name),
        cut_chars(&arg, 200)
    )
}

/// At most `n` chars of `s`, with `…` when cut.
pub(crate) fn cut_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Echo<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    stdout: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    stderr: Option<Cow<'a, str>>,
    #[serde(default)]
    interrupted: Option<bool>,
    /// Bash's reading of a non-zero exit (`No matches found` for grep's 1).
    #[serde(borrow, default, deserialize_with = "opt_str")]
    return_code_interpretation: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file: Option<FileView<'a>>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type", deserialize_with = "opt_str")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    structured_patch: Option<Vec<Hunk<'a>>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileView<'a> {
    #[serde(borrow, default, deserialize_with = "opt_str")]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "opt_str")]
    content: Option<Cow<'a, str>>,
    #[serde(default)]
    start_line: Option<u64>,
    #[serde(default)]
    num_lines: Option<u64>,
    #[serde(default)]
    total_lines: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Hunk<'a> {
    #[serde(default)]
    old_start: u64,
    #[serde(default)]
    old_lines: u64,
    #[serde(default)]
    new_start: u64,
    #[serde(default)]
    new_lines: u64,
    #[serde(borrow, default)]
    lines: Vec<Cow<'a, str>>,
}

/// A tool result's body. `echo` is the record's `toolUseResult` when this block is
/// the record's only tool_result (the echo cannot be attributed otherwise).
pub(crate) fn tool_result(text: &str, echo: Option<&str>) -> String {
    let Some(echo) = echo.filter(|e| e.starts_with('{')) else {
        return text.to_string();
    };
    // A lone surrogate escape in the echo (a cut output) reads as U+FFFD.
    let fixed;
    let e = match serde_json::from_str::<Echo<'_>>(echo) {
        Ok(e) => e,
        Err(_) => {
            fixed = crate::record::surrogate::repaired_str(echo);
            match fixed.as_deref().map(serde_json::from_str::<Echo<'_>>) {
                Some(Ok(e)) => e,
                _ => return text.to_string(),
            }
        }
    };
    let Some(mut out) = echo_body(&e, text) else {
        return text.to_string();
    };
    // Only the newlines the render added: a patch's last line can be a blank
    // context line (" "), and a body can end in spaces of its own.
    out.truncate(out.trim_end_matches('\n').len());
    // What the model saw can hold more than the echo: a Read's echo is the raw
    // file with no `<system-reminder>` (REC-044), while its text can end with one
    // (a malware caution, or before 2.1.206 the truncation banner, FH-028), and
    // `show` prints what the record says.
    if let Some(extra) = reminders(text).filter(|x| !out.contains(x)) {
        out.push_str("\n\n");
        out.push_str(extra);
    }
    out
}

/// The echo read by its shape: a shell's output, a file window, a patch or a
/// created file; `None` when it is none of them (the text is shown instead).
fn echo_body(e: &Echo<'_>, text: &str) -> Option<String> {
    let mut out = String::new();
    if e.stdout.is_some() || e.stderr.is_some() {
        shell_output(&mut out, e, text);
    } else if let Some(f) = e.file.as_ref().filter(|f| f.content.is_some()) {
        file_window(&mut out, f);
    } else if let Some(hunks) = e.structured_patch.as_ref().filter(|h| !h.is_empty()) {
        patch(&mut out, e.file_path.as_deref(), hunks);
    } else if e.kind.as_deref() == Some("create") {
        let body = e
            .content
            .map(crate::record::content::raw_text)
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} (created)\n{body}",
            e.file_path.as_deref().unwrap_or("?")
        );
    } else {
        return None;
    }
    Some(out)
}

/// A shell's stdout and stderr apart; with neither, the text or why it is empty.
fn shell_output(out: &mut String, e: &Echo<'_>, text: &str) {
    let (so, se) = (
        e.stdout.as_deref().unwrap_or(""),
        e.stderr.as_deref().unwrap_or(""),
    );
    if !so.is_empty() {
        let _ = writeln!(out, "stdout:\n{}", so.trim_end_matches('\n'));
    }
    if !se.is_empty() {
        let _ = writeln!(out, "stderr:\n{}", se.trim_end_matches('\n'));
    }
    if so.is_empty() && se.is_empty() {
        match e.return_code_interpretation.as_deref() {
            _ if !text.trim().is_empty() => out.push_str(text),
            Some(why) if !why.trim().is_empty() => {
                let _ = writeln!(out, "(no output: {why})");
            }
            _ => out.push_str("(no output)\n"),
        }
    }
    if e.interrupted == Some(true) {
        out.push_str("[interrupted]\n");
    }
}

/// A Read's window: `path (lines A..B of N)` and the lines.
fn file_window(out: &mut String, f: &FileView<'_>) {
    let from = f.start_line.unwrap_or(1);
    let path = f.file_path.as_deref().unwrap_or("?");
    match f.num_lines {
        // An empty file (or a window past its end) holds no line.
        Some(0) => {
            let _ = write!(out, "{path} (no lines");
        }
        n => {
            let to = from + n.unwrap_or(0).saturating_sub(1);
            let _ = write!(out, "{path} (lines {from}..{to}");
        }
    }
    if let Some(t) = f.total_lines {
        let _ = write!(out, " of {t}");
    }
    let _ = writeln!(out, ")\n{}", f.content.as_deref().unwrap_or(""));
}

/// An edit's structured patch, hunk by hunk.
fn patch(out: &mut String, path: Option<&str>, hunks: &[Hunk<'_>]) {
    let _ = writeln!(out, "{}", path.unwrap_or("?"));
    for h in hunks {
        let _ = writeln!(
            out,
            "@@ -{},{} +{},{} @@",
            h.old_start, h.old_lines, h.new_start, h.new_lines
        );
        for l in &h.lines {
            let _ = writeln!(out, "{l}");
        }
    }
}

/// A result's text without the `<system-reminder>` sections after it: what
/// the tool returned (a Read's lines, not the caution appended to them).
pub(crate) fn without_reminders(text: &str) -> &str {
    match reminder_start(text) {
        Some(at) => text[..at].trim_end(),
        None => text,
    }
}

/// The `<system-reminder>` sections that start a line of a result's text (not
/// quoted inside a numbered file line), through the end of the text.
fn reminders(text: &str) -> Option<&str> {
    let at = reminder_start(text)?;
    Some(text[at..].trim_end()).filter(|x| !x.is_empty())
}

/// Where the first `<system-reminder>` starting a line of `text` begins.
fn reminder_start(text: &str) -> Option<usize> {
    const TAG: &str = "<system-reminder>";
    if text.starts_with(TAG) {
        return Some(0);
    }
    Some(text.find(&format!("\n{TAG}"))? + 1)
}

/// The body of `u` (a unit of `r`): tool calls and results rendered, else its text.
pub(crate) fn unit_body(r: &Record<'_>, u: &Unit<'_>) -> String {
    let block: Option<&Block<'_>> = u.block.and_then(|i| r.blocks().get(i));
    if u.labels().any(|l| l == Label::AgentToolUse) {
        if let Some(b) = block {
            return tool_input(b.name.as_deref().unwrap_or(""), &b.input_text());
        }
    }
    if u.labels().any(|l| l == Label::AgentToolResult) {
        let sole = r
            .blocks()
            .iter()
            .filter(|b| b.kind() == "tool_result")
            .count()
            == 1;
        let echo = r.tool_use_result().filter(|_| sole).map(|raw| raw.get());
        return tool_result(&u.text, echo);
    }
    // CLS-018: redacted thinking has opaque content; say so rather than print
    // an empty body (its unit's text stays empty for search and JSON).
    if block.is_some_and(|b| b.kind() == "redacted_thinking") {
        return "[redacted thinking: its content is opaque]".to_string();
    }
    // A prompt's attached images are blocks beside its text (IMG-001): each
    // is said, with its media type and size, never its base64 bytes. An
    // image-only prompt's text is only `[image]` placeholders: the images are
    // its body.
    let images = if r.kind() == "user" && u.block.is_none() {
        images(r)
    } else {
        Vec::new()
    };
    if !images.is_empty() && crate::classify::unit::image_only_text(r).is_some() {
        return images.join("\n");
    }
    // A slash command reads as typed, `/name args`, not as its wrapper XML
    // (TURN-008); search's text stays the wrapper, as written on disk.
    let text = match u.label {
        Label::UserMessage | Label::HarnessCommandInvocation => {
            crate::classify::markers::slash_typed(&u.text)
        }
        _ => None,
    }
    .unwrap_or_else(|| u.text.to_string());
    match images.is_empty() {
        true => text,
        false => format!("{text}\n{}", images.join("\n")),
    }
}

#[cfg(test)]
mod tests;
