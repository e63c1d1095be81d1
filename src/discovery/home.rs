//! Resolving the Claude config home: `--claude-home`, else `CLAUDE_CONFIG_DIR`,
//! else `$HOME/.claude`, NFC-normalised the way Claude Code does it (PATH-006).
//! This module only decides *which* directory; it never reads or writes inside it.

use std::ffi::OsString;
use std::path::PathBuf;

use unicode_normalization::UnicodeNormalization;

use crate::error::Error;

/// Where the home came from, so errors and `--verbose` output can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HomeSource {
    Flag,
    Env,
    UserHome,
}

#[derive(Debug, Clone)]
pub struct ClaudeHome {
    pub root: PathBuf,
    pub source: HomeSource,
}

impl ClaudeHome {
    /// `<home>/projects`, where every transcript lives (PATH-006).
    pub(crate) fn projects(&self) -> PathBuf {
        self.root.join("projects")
    }

    /// ` --claude-home DIR` (shell-quoted) when the home came from that flag,
    /// else nothing: what a command printed for the user to run must add so
    /// an `@id` in it is looked up in this home.
    pub(crate) fn flag_args(&self) -> String {
        match self.source {
            HomeSource::Flag => format!(
                " --claude-home {}",
                crate::output::sanitize::shell_word(&self.root.to_string_lossy())
            ),
            _ => String::new(),
        }
    }
}

/// Pure resolver, testable without touching the process environment.
///
/// `env` is the raw value of `CLAUDE_CONFIG_DIR` (`None` = unset). An empty value
/// counts as *set*: Claude Code's `??` only falls back on undefined, so it then
/// writes relative to its own cwd (PATH-011). csift refuses to guess instead.
pub(crate) fn resolve(
    flag: Option<PathBuf>,
    env: Option<OsString>,
    user_home: Option<PathBuf>,
) -> Result<ClaudeHome, Error> {
    if let Some(dir) = flag {
        return Ok(ClaudeHome {
            root: nfc(dir),
            source: HomeSource::Flag,
        });
    }
    if let Some(value) = env {
        if value.is_empty() {
            return Err(Error::Usage(
                "CLAUDE_CONFIG_DIR is set but empty. Claude Code treats an empty value as set \
                 and writes its projects/ relative to its own working directory (PATH-011), so \
                 csift cannot know where they are: pass --claude-home DIR, or unset the variable"
                    .into(),
            ));
        }
        return Ok(ClaudeHome {
            root: nfc(PathBuf::from(value)),
            source: HomeSource::Env,
        });
    }
    match user_home {
        Some(home) => Ok(ClaudeHome { root: nfc(home.join(".claude")), source: HomeSource::UserHome }),
        None => Err(Error::Usage(
            "cannot find the Claude home: HOME is not set; pass --claude-home DIR or set CLAUDE_CONFIG_DIR"
                .into(),
        )),
    }
}

/// A path a hook payload names, `~/…` read against `$HOME` (guard and
/// `verbatim --hook-json` read payloads alike); else as given.
pub(crate) fn expand_tilde(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(h)) => PathBuf::from(h).join(rest),
        _ => PathBuf::from(p),
    }
}

/// Resolve from the real process environment.
pub fn from_env(flag: Option<PathBuf>) -> Result<ClaudeHome, Error> {
    resolve(
        flag,
        std::env::var_os("CLAUDE_CONFIG_DIR"),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// NFC-normalise a path when it is valid UTF-8; other paths pass through untouched.
fn nfc(p: PathBuf) -> PathBuf {
    match p.to_str() {
        Some(s) => PathBuf::from(s.nfc().collect::<String>()),
        None => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_wins_over_env_path_006() {
        let h = resolve(Some("/a".into()), Some("/b".into()), Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/a"));
        assert_eq!(h.source, HomeSource::Flag);
    }

    #[test]
    fn env_wins_over_home_path_006() {
        let h = resolve(None, Some("/b".into()), Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/b"));
        assert_eq!(h.projects(), PathBuf::from("/b/projects"));
    }

    #[test]
    fn home_fallback() {
        let h = resolve(None, None, Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/h/.claude"));
    }

    #[test]
    fn empty_env_counts_as_set_path_011() {
        let e = resolve(None, Some(OsString::new()), Some("/h".into())).unwrap_err();
        assert!(e.to_string().contains("set but empty"), "{e}");
    }

    #[test]
    fn nfc_normalises_path_006() {
        // "é" as e + combining acute (NFD) must become the single code point.
        let h = resolve(Some("/x/e\u{301}".into()), None, None).unwrap();
        assert_eq!(h.root, PathBuf::from("/x/\u{e9}"));
    }
}
