//! Waking the watch loop: filesystem notifications (inotify on Linux, through
//! the `notify` crate) so a wait on an idle session costs no CPU, with a slow
//! tick as the safety net and a polling fallback where notifications cannot be
//! had (no inotify, its watch limit reached, `--poll`). Access events (csift's
//! own reads open the files it watches) never wake the loop; an event outside
//! what the loop cares about wakes it only to be dropped by [`Notifier::wait`]'s
//! caller filter.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};

/// How the loop is woken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Filesystem notifications, plus a tick of this length.
    Notify(Duration),
    /// Polling every interval.
    Poll(Duration),
}

/// The safety-net tick under notifications: it re-checks what a missed event
/// or a not-yet-existing folder would hide, and ages the verdict.
pub(crate) const TICK: Duration = Duration::from_secs(2);

pub(crate) struct Notifier {
    watcher: Option<notify::RecommendedWatcher>,
    rx: Receiver<Vec<PathBuf>>,
    watched: HashSet<PathBuf>,
    pub(crate) mode: Mode,
    /// Why notifications are off, when they are.
    pub(crate) fallback: Option<String>,
}

impl Notifier {
    /// Notifications when they work, else polling at `poll`; `force_poll`
    /// polls without trying.
    pub(crate) fn new(poll: Duration, force_poll: bool) -> Notifier {
        let (tx, rx) = channel();
        let mut n = Notifier {
            watcher: None,
            rx,
            watched: HashSet::new(),
            mode: Mode::Poll(poll),
            fallback: None,
        };
        if force_poll {
            return n;
        }
        let handler = move |res: notify::Result<notify::Event>| {
            // A read (ours included) is no change; an error wakes the loop to look.
            let paths = match res {
                Ok(e) if matches!(e.kind, EventKind::Access(_)) => return,
                Ok(e) => e.paths,
                Err(_) => Vec::new(),
            };
            let _ = tx.send(paths);
        };
        match notify::recommended_watcher(handler) {
            Ok(w) => {
                n.watcher = Some(w);
                n.mode = Mode::Notify(TICK);
            }
            Err(e) => n.fallback = Some(format!("no filesystem notifications ({e})")),
        }
        n
    }

    /// Watch `dir` (once) if it exists; a failure falls back to polling.
    pub(crate) fn watch(&mut self, dir: &Path, recursive: bool) {
        let Some(w) = self.watcher.as_mut() else {
            return;
        };
        if self.watched.contains(dir) || !dir.is_dir() {
            return;
        }
        let mode = match recursive {
            true => RecursiveMode::Recursive,
            false => RecursiveMode::NonRecursive,
        };
        match w.watch(dir, mode) {
            Ok(()) => {
                self.watched.insert(dir.to_path_buf());
            }
            Err(e) => {
                self.watcher = None;
                self.fallback = Some(format!(
                    "cannot watch {} ({e})",
                    crate::output::sanitize::path(dir)
                ));
                if let Mode::Notify(_) = self.mode {
                    self.mode = Mode::Poll(Duration::from_millis(500));
                }
            }
        }
    }

    /// Forget a watched folder that is gone (it may come back).
    pub(crate) fn forget_missing(&mut self) {
        self.watched.retain(|d| d.is_dir());
    }

    /// Block until an event, or `limit`. Returns the paths of the events
    /// drained (`None`: the time ran out; `Some(empty)`: an event without paths).
    pub(crate) fn wait(&self, limit: Duration) -> Option<Vec<PathBuf>> {
        let limit = match self.mode {
            Mode::Notify(tick) => limit.min(tick),
            Mode::Poll(every) => {
                std::thread::sleep(limit.min(every));
                return None;
            }
        };
        let mut paths = match self.rx.recv_timeout(limit) {
            Ok(p) => p,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(limit);
                return None;
            }
        };
        while let Ok(more) = self.rx.try_recv() {
            paths.extend(more);
        }
        Some(paths)
    }
}
