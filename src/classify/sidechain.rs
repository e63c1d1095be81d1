//! Inline sidechains: Claude Code 1.0.x wrote a Task subagent's records into
//! the main transcript itself, each `isSidechain:true`, instead of into a lane
//! file of its own (REC-031, TURN-021 name the later lane files). Each chain of
//! such records is one lane: a sidechain record whose `parentUuid` is no
//! earlier sidechain record's `uuid` (the parentless spawn prompt) starts one,
//! and every other joins its parent's. `agents` lists these lanes
//! (`inline:<uuid>`); `list` and `stats` count them with the lane files, by
//! this one rule, so the three agree. Each reads the records in its own pass
//! (agents' and stats' record parse, list's literal pass): finding them costs
//! no pass of its own.

use std::collections::HashMap;

/// The inline lanes of one main file, placed record by record in file order.
#[derive(Debug, Default)]
pub(crate) struct InlineLanes {
    chain_of: HashMap<String, usize>,
    lanes: usize,
}

impl InlineLanes {
    /// Place a sidechain record of a main file: the index of its lane, and
    /// whether it starts that lane.
    pub(crate) fn place(&mut self, uuid: Option<&str>, parent: Option<&str>) -> (usize, bool) {
        let known = parent.and_then(|p| self.chain_of.get(p)).copied();
        let (lane, new) = match known {
            Some(l) => (l, false),
            None => {
                self.lanes += 1;
                (self.lanes - 1, true)
            }
        };
        if let Some(u) = uuid {
            self.chain_of.insert(u.to_string(), lane);
        }
        (lane, new)
    }

    /// How many lanes the records placed so far make.
    pub(crate) fn len(&self) -> usize {
        self.lanes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two Task chains inline in a 1.0.x main file, interleaved with each
    /// other and with main records; a sidechain record whose parent is a main
    /// record starts a lane too.
    #[test]
    fn chains_of_sidechain_records_are_lanes() {
        let mut l = InlineLanes::default();
        assert_eq!(l.place(Some("s1"), None), (0, true));
        assert_eq!(l.place(Some("s2"), Some("s1")), (0, false));
        assert_eq!(l.place(Some("t1"), None), (1, true));
        assert_eq!(l.place(Some("s3"), Some("s2")), (0, false));
        assert_eq!(l.place(Some("t2"), Some("t1")), (1, false));
        assert_eq!(l.place(Some("c"), Some("main-record")), (2, true));
        assert_eq!(l.place(None, Some("c")), (2, false));
        assert_eq!(l.len(), 3);
    }
}
