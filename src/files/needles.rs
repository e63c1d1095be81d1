//! The line prefilter: a line is parsed only when it holds one of the byte
//! needles every relevant record carries (MISC-029, MISC-030). A tool_use names
//! its tool and its path key; a structured echo carries `filePath`; an errored
//! result `is_error`; the freshness signals and file-history lines their own
//! keys. Bare words, so any JSON spacing matches (REC-037). Everything else —
//! most tool results, all prose — is never parsed, which keeps `files` at
//! search speed.
//!
//! The known blind spot (MISC-029): a new mutating tool whose name and input
//! key hold none of these is dropped before the parse. The four structured
//! tools (FH-037) all carry `file_path` or `notebook_path`.

use regex::bytes::Regex;

/// Needles for `files`: the calls, their structured echoes and errors, the
/// freshness signals and the file-history lines.
const FILES: &[&str] = &[
    "file_path",
    "notebook_path",
    "filePath",
    // Image, PDF and parts Read echoes name no filePath (IMG-011, IMG-012).
    "originalSize",
    "Bash",
    "PowerShell",
    "is_error",
    "staleReadFileStateHint",
    "edited_text_file",
    "read_truncation_notice",
    "file-history-",
];

/// `recover` also needs every Bash result (a `cat` echo's stdout, BASH-010).
const RECOVER_EXTRA: &[&str] = &["stdout"];

/// The words as one literal alternation.
fn alternation(words: &[&str]) -> String {
    let alt: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    alt.join("|")
}

/// The candidate-line finder (`recover` also admits Bash results).
pub(crate) fn finder(recover: bool) -> &'static Regex {
    if recover {
        crate::scan::re!(bytes & alternation(&[FILES, RECOVER_EXTRA].concat()))
    } else {
        crate::scan::re!(bytes & alternation(FILES))
    }
}

/// The second look at a candidate line: a strong needle admits it; `Bash` /
/// `PowerShell` only on a line carrying a tool_use block (`"tool_use"`,
/// quoted: a result's `"tool_use_id"` does not match); `is_error` only when
/// one of its values is `true` (most results carry `"is_error":false`); in
/// `recover`, any Bash result (`stdout`).
pub(crate) fn admit(line: &[u8], recover: bool) -> bool {
    use crate::scan::lit;
    // One multi-literal pass for the strong needles (a memmem per needle cost
    // a tenth of `files`' time on real homes: echo lines are long).
    if strong().is_match(line) {
        return true;
    }
    if recover && lit!(b"stdout").find(line).is_some() {
        return true;
    }
    let shell = lit!(b"Bash").find(line).is_some() || lit!(b"PowerShell").find(line).is_some();
    if shell && lit!(b"\"tool_use\"").find(line).is_some() {
        return true;
    }
    error_true(line)
}

/// Needles that admit a line on their own.
fn strong() -> &'static Regex {
    crate::scan::re!(
        bytes
            & alternation(&[
                "file_path",
                "notebook_path",
                "filePath",
                "originalSize",
                "staleReadFileStateHint",
                "edited_text_file",
                "read_truncation_notice",
                "file-history-",
            ])
    )
}

/// Whether some `"is_error"` key holds `true` (any spacing).
fn error_true(line: &[u8]) -> bool {
    let f = crate::scan::lit!(b"\"is_error\"");
    let mut at = 0;
    while let Some(i) = f.find(&line[at..]) {
        let rest = &line[at + i + 10..];
        let rest = rest.trim_ascii_start();
        if let Some(v) = rest.strip_prefix(b":") {
            if v.trim_ascii_start().starts_with(b"true") {
                return true;
            }
        }
        at += i + 10;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MISC-029: every structured file tool's call line carries a needle, in
    /// any spacing; a plain assistant text line does not.
    #[test]
    fn structured_calls_and_echoes_hit() {
        let f = finder(false);
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"/a"}}]}}"#,
            r#"{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "NotebookEdit", "input": {"notebook_path": "/n.ipynb"}}]}}"#,
            r#"{"type":"user","toolUseResult":{"type":"create","filePath":"/a"}}"#,
            r#"{"type":"file-history-snapshot","snapshot":{}}"#,
        ] {
            assert!(f.is_match(line.as_bytes()), "{line}");
        }
        assert!(!f.is_match(
            br#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}"#
        ));
        assert!(!f.is_match(br#"{"type":"user","toolUseResult":{"stdout":"x"}}"#));
        assert!(finder(true).is_match(br#"{"type":"user","toolUseResult":{"stdout":"x"}}"#));
    }

    /// Most results carry `"is_error":false`, and results quote `Bash` in
    /// prose: neither is parsed; an error (any spacing) and a Bash call are.
    #[test]
    fn the_second_look() {
        assert!(!admit(br#"{"message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":false}]}}"#, false));
        assert!(admit(br#"{"message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error" :  true}]}}"#, false));
        assert!(!admit(br#"{"message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ran Bash"}]}}"#, false));
        assert!(admit(
            br#"{"message":{"content":[{"type": "tool_use","name": "Bash","input":{}}]}}"#,
            false
        ));
        assert!(admit(br#"{"toolUseResult":{"stdout":"x"}}"#, true));
    }
}
