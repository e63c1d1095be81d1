//! The library's error type: what went wrong, with enough context (file, line,
//! what to do) for a user to act, and the exit status it maps to
//! ([`Error::exit_code`]). Every command returns it, and `run_main`, the
//! binary edge, prints it once; no library path uses `anyhow` (only the
//! corpus generator example does).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad arguments or an environment csift cannot work from.
    #[error("{0}")]
    Usage(String),
    /// A target that names nothing, or names too much.
    #[error("{0}")]
    Target(String),
    /// An I/O failure on a specific path. The OS error is in the message and is
    /// not a `source`: an error chain (`{:#}`) would print it twice.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A file that was cut (or otherwise changed) while csift read it: said
    /// for that file, and the command goes on with the others.
    #[error("{path}: changed while reading ({detail})")]
    Changed { path: PathBuf, detail: String },
    /// Writing output failed (a broken pipe is mapped to exit 0 by the caller).
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
    /// An explicit address (`--line`, `--uuid`, `--turn`) that resolved to nothing.
    #[error("{0}")]
    NotFound(String),
    /// A failure inside csift itself (a worker thread panicked).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The exit status this error ends a command with: 2 (ripgrep's error
    /// status), except a broken pipe on output (`csift … | head`), which is
    /// no error and exits 0 as ripgrep does.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
            Error::Usage(_)
            | Error::Target(_)
            | Error::Io { .. }
            | Error::Changed { .. }
            | Error::Output(_)
            | Error::NotFound(_)
            | Error::Internal(_) => 2,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            error: source,
        }
    }
}

pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;
