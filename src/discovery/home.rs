//! Resolving the Claude config home: `--claude-home`, else `CLAUDE_CONFIG_DIR`,
//! else `<user home>/.claude`, NFC-normalised the way Claude Code does it
//! (PATH-006). The user home is the runtime's `os.homedir()` (PATH-007, WIN-002):
//! `$HOME` on Unix, `%USERPROFILE%` on Windows, where a Git-Bash `HOME` is never
//! read (it often holds a POSIX spelling Claude Code never wrote under).
//! This module only decides *which* directory; it never reads or writes inside it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

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
        None => Err(Error::Usage(format!(
            "cannot find the Claude home: {} is not set; pass --claude-home DIR or set CLAUDE_CONFIG_DIR",
            if cfg!(windows) { "USERPROFILE" } else { "HOME" }
        ))),
    }
}

/// The Claude home a transcript sits in: the parent of its `projects` ancestor.
pub(crate) fn home_of(transcript: &Path) -> Option<PathBuf> {
    transcript
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "projects"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// A path a hook payload names, `~/…` read against the user home (guard and
/// `verbatim --hook-json` read payloads alike); else as given.
pub(crate) fn expand_tilde(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), user_home()) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(p),
    }
}

/// The user home as Claude Code's runtime finds it (`os.homedir()`, PATH-007):
/// [`user_home_from`] over this process's environment, else the platform's own
/// lookup (the password database on Unix).
pub(crate) fn user_home() -> Option<PathBuf> {
    user_home_from(
        cfg!(windows),
        std::env::var_os("HOME"),
        std::env::var_os("USERPROFILE"),
    )
    .or_else(|| {
        #[allow(deprecated)] // un-deprecated since Rust 1.86; correct on Windows since 1.85
        std::env::home_dir()
    })
}

/// `$HOME` on Unix; on Windows `%USERPROFILE%` only, even when a Git-Bash or
/// MSYS shell exported a `HOME` (WIN-002, PATH-007). An empty value is unset.
pub(crate) fn user_home_from(
    windows: bool,
    home: Option<OsString>,
    userprofile: Option<OsString>,
) -> Option<PathBuf> {
    let var = if windows { userprofile } else { home };
    var.filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Resolve from the real process environment.
pub fn from_env(flag: Option<PathBuf>) -> Result<ClaudeHome, Error> {
    resolve(flag, std::env::var_os("CLAUDE_CONFIG_DIR"), user_home())
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
    fn a_transcripts_home_is_the_parent_of_its_nearest_projects_folder() {
        let h = |p: &str| home_of(Path::new(p)).map(|p| p.display().to_string());
        assert_eq!(
            h("/u/.claude/projects/-w/s.jsonl").as_deref(),
            Some("/u/.claude")
        );
        assert_eq!(
            h("/u/.claude/projects/-w/s/subagents/agent-a1.jsonl").as_deref(),
            Some("/u/.claude")
        );
        assert_eq!(h("/tmp/s.jsonl"), None);
    }

    #[test]
    fn flag_wins_over_env_path_006() {
        // PATH-006
        let h = resolve(Some("/a".into()), Some("/b".into()), Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/a"));
        assert_eq!(h.source, HomeSource::Flag);
    }

    #[test]
    fn env_wins_over_home_path_006() {
        // PATH-006; MISC-010: CLAUDE_CONFIG_DIR ?? <home>/.claude
        let h = resolve(None, Some("/b".into()), Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/b"));
        assert_eq!(h.projects(), PathBuf::from("/b/projects"));
    }

    #[test]
    fn home_fallback() {
        let h = resolve(None, None, Some("/h".into())).unwrap();
        assert_eq!(h.root, PathBuf::from("/h/.claude")); // MISC-010
    }

    #[test]
    fn empty_env_counts_as_set_path_011() {
        // PATH-011; MISC-010: `??` takes an empty CLAUDE_CONFIG_DIR as set, so
        // csift says so instead of falling back to ~/.claude.
        let e = resolve(None, Some(OsString::new()), Some("/h".into())).unwrap_err();
        assert!(e.to_string().contains("set but empty"), "{e}");
    }

    #[test]
    fn windows_home_is_userprofile_never_a_git_bash_home_path_007_win_002() {
        // PATH-007, WIN-002
        let home = || Some(OsString::from("/c/Users/ana"));
        let profile = || Some(OsString::from(r"C:\Users\ana"));
        // HOME unset (cmd, PowerShell): the profile directory.
        assert_eq!(
            user_home_from(true, None, profile()),
            Some(PathBuf::from(r"C:\Users\ana"))
        );
        // A Git-Bash HOME beside it is never read.
        assert_eq!(
            user_home_from(true, home(), profile()),
            Some(PathBuf::from(r"C:\Users\ana"))
        );
        assert_eq!(user_home_from(true, home(), None), None);
        // Unix reads HOME, and an empty one counts as unset.
        assert_eq!(
            user_home_from(false, home(), profile()),
            Some(PathBuf::from("/c/Users/ana"))
        );
        assert_eq!(
            user_home_from(false, Some(OsString::new()), profile()),
            None
        );
        let h = resolve(None, None, user_home_from(true, None, profile())).unwrap();
        assert_eq!(h.root, PathBuf::from(r"C:\Users\ana").join(".claude"));
    }

    #[test]
    fn nfc_normalises_path_006() {
        // PATH-006
        // "é" as e + combining acute (NFD) must become the single code point.
        let h = resolve(Some("/x/e\u{301}".into()), None, None).unwrap();
        assert_eq!(h.root, PathBuf::from("/x/\u{e9}"));
    }
}
