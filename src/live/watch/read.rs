//! Reading what a wait's cursors gained and matching the record conditions:
//! each appended transcript record (counted into the activity), each sidecar
//! marker line. A replaced file is re-baselined and said; a deleted transcript
//! is an error.

use std::path::Path;

use super::cursor::{Read, Role};
use super::{Event, Say, Source, Wait};
use crate::discovery::Transcript;
use crate::elicitation::Marker;
use crate::error::{Error, Result};

impl Wait<'_> {
    /// Read one cursor and match what it gained.
    pub(super) fn read(&mut self, i: usize, say: Say<'_>) -> Result<Option<Event>> {
        let c = &mut self.cursors[i];
        let got = c.read().map_err(|e| Error::io(&c.path, e))?;
        let (session, role, path) = (c.session, c.role, c.path.clone());
        match got {
            Read::Same => Ok(None),
            Read::Gone if role == Role::Sidecar => {
                self.cursors.remove(i);
                Ok(None)
            }
            Read::Gone => Err(Error::Target(format!(
                "{}: the transcript was deleted while waiting",
                path.display()
            ))),
            Read::Rebaselined { len, why } => {
                say(&format!(
                    "csift: note: {}: {why}; re-baselined at byte {len} (what it holds is history)",
                    crate::output::sanitize::path(&path)
                ));
                self.dirty[session] = true;
                Ok(None)
            }
            Read::Lines { at, bytes } => {
                self.dirty[session] = true;
                match role {
                    Role::Sidecar => Ok(self.sidecar_lines(&path, &bytes)),
                    _ => Ok(self.records(i, at, &bytes)),
                }
            }
        }
    }

    fn transcript(&self, i: usize) -> Option<Transcript> {
        let c = &self.cursors[i];
        let f = &self.sessions[c.session].files;
        f.main
            .iter()
            .chain(&f.lanes)
            .find(|t| t.path == c.path)
            .cloned()
    }

    /// Match each record of `bytes` (read at byte `at` of cursor `i`).
    fn records(&mut self, i: usize, at: u64, bytes: &[u8]) -> Option<Event> {
        let role = self.cursors[i].role;
        let agent = self.cursors[i].agent_id.clone();
        let transcript = self.transcript(i)?;
        for line in crate::scan::Lines::new(bytes) {
            let line = crate::scan::Line {
                offset: at as usize + line.offset,
                ..line
            };
            for (sub, rec) in crate::record::line_records(&line) {
                self.activity.records += 1;
                if let Some(a) = &agent {
                    if self.activity.lane_ids.insert(a.clone()) {
                        self.activity.lanes += 1;
                    }
                }
                let mut first_use = None;
                for b in rec.blocks().iter().filter(|b| b.kind() == "tool_use") {
                    let name = b.name.as_deref().unwrap_or("(unnamed)").to_string();
                    *self.activity.tools.entry(name).or_default() += 1;
                    first_use = first_use.or(b.id.as_deref().map(str::to_string));
                }
                let source = |use_id: Option<String>| Source::Record {
                    transcript: transcript.clone(),
                    offset: sub.offset as u64,
                    tool_use_id: use_id,
                };
                self.last = Some(source(first_use.clone()));
                for c in &self.spec.conds {
                    if let Some(why) = c.record(&rec, role) {
                        return Some(Event {
                            cond: c.spec.clone(),
                            why,
                            source: source(first_use),
                        });
                    }
                }
            }
        }
        None
    }

    fn sidecar_lines(&mut self, path: &Path, bytes: &[u8]) -> Option<Event> {
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.activity.sidecar_lines += 1;
            let Ok(m) = serde_json::from_slice::<Marker>(line) else {
                continue;
            };
            for c in &self.spec.conds {
                if let Some(why) = c.marker(&m) {
                    return Some(Event {
                        cond: c.spec.clone(),
                        why,
                        source: Source::Sidecar {
                            path: path.to_path_buf(),
                            marker: Box::new(m),
                        },
                    });
                }
            }
        }
        None
    }
}
