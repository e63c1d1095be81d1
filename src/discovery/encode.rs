//! Claude Code's project-directory encoding of a cwd (PATH-001…005, PATH-013).
//! Forward only: the encoding is lossy, so csift never decodes a directory name
//! back into a path (the cwd shown anywhere comes from the records).

use unicode_normalization::UnicodeNormalization;

/// Longest encoded name Claude Code stores whole (`MAX_SANITIZED_LENGTH`, PATH-004).
pub const MAX_ENCODED: usize = 200;

/// Full encoding, before the 200-character cap: NFC, then every UTF-16 code unit
/// outside `[A-Za-z0-9]` becomes one `-`, with no collapsing (PATH-001). An astral
/// character is two code units and so becomes `--` (PATH-013).
pub fn encode_full(cwd: &str) -> String {
    let nfc: String = cwd.nfc().collect();
    let mut out = String::with_capacity(nfc.len());
    for unit in nfc.encode_utf16() {
        match u8::try_from(unit) {
            Ok(b) if b.is_ascii_alphanumeric() => out.push(char::from(b)),
            _ => out.push('-'),
        }
    }
    out
}

/// The directory name Claude Code writes for `cwd`: the full encoding when it is at
/// most 200 characters, else `<first 200>-<hash>` where the hash is the 31-multiplier
/// int32 string hash of the original cwd, absolute-valued, in base 36 (PATH-005).
pub fn encode(cwd: &str) -> String {
    let full = encode_full(cwd);
    if full.len() <= MAX_ENCODED {
        return full;
    }
    format!("{}-{}", &full[..MAX_ENCODED], hash36(cwd))
}

/// The prefix a capped directory starts with; Claude Code itself prefix-scans for it
/// rather than recomputing the hash (PATH-005), and so does csift.
pub fn capped_prefix(cwd: &str) -> Option<String> {
    let full = encode_full(cwd);
    (full.len() > MAX_ENCODED).then(|| format!("{}-", &full[..MAX_ENCODED]))
}

/// JavaScript's `(h << 5) - h + charCodeAt(i) | 0` over UTF-16 code units, then
/// `Math.abs(h).toString(36)` (PATH-005). `Math.abs(-2^31)` is 2^31 in JS, so the
/// absolute value is taken in i64.
pub fn hash36(s: &str) -> String {
    let mut h: i32 = 0;
    for unit in s.encode_utf16() {
        h = h
            .wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit));
    }
    let mut n = i64::from(h).unsigned_abs();
    if n == 0 {
        return "0".into();
    }
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut buf = Vec::new();
    while n > 0 {
        buf.push(digits[(n % 36) as usize]);
        n /= 36;
    }
    buf.reverse();
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_examples_path_001() {
        assert_eq!(
            encode("/Users/testuser/Projects/widget_app_prototype"),
            "-Users-testuser-Projects-widget-app-prototype"
        );
        assert_eq!(
            encode("/Users/testuser/Projects/Acme/widget_factory-worktrees/main"),
            "-Users-testuser-Projects-Acme-widget-factory-worktrees-main"
        );
        assert_eq!(encode("/home/u/.claude/x"), "-home-u--claude-x");
    }

    #[test]
    fn windows_drive_letter_leads_path_003() {
        assert_eq!(encode(r"C:\Users\x"), "C--Users-x");
    }

    #[test]
    fn astral_char_is_two_dashes_path_013() {
        assert_eq!(encode("/a/😀b"), "-a---b");
        // A BMP non-ASCII character is one code unit, one dash.
        assert_eq!(encode("/a/é"), "-a--");
    }

    #[test]
    fn nfd_input_is_normalised_path_001() {
        assert_eq!(encode("/e\u{301}"), encode("/\u{e9}"));
    }

    #[test]
    fn long_path_is_capped_with_hash_path_004_path_005() {
        let cwd = format!("/{}", "abcdefghij/".repeat(22));
        let enc = encode(&cwd);
        let prefix = capped_prefix(&cwd).unwrap();
        assert!(enc.starts_with(&prefix));
        assert_eq!(prefix.len(), 201);
        let suffix = &enc[201..];
        assert!(!suffix.is_empty() && suffix.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_eq!(suffix, hash36(&cwd));
        assert!(capped_prefix("/short").is_none());
    }

    #[test]
    fn hash_matches_javascript() {
        // Values computed with node: Math.abs(h).toString(36) of the Java-style hash.
        assert_eq!(hash36(""), "0");
        assert_eq!(hash36("a"), "2p");
        assert_eq!(hash36("hello"), "1n1e4y");
    }
}
