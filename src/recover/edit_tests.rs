//! Tests of the edit replay.

use super::doc::{split, Doc, Seg, Why};
use super::edit::*;
use crate::files::echo::{Hunk, Step};

fn step(old: &str, new: &str, all: bool) -> Step {
    Step {
        old: old.into(),
        new: new.into(),
        all,
    }
}

/// REC-061: once unless replaceAll; a non-unique old text is refused.
#[test]
fn claude_codes_replacement() {
    assert_eq!(
        replace("a b a", &step("b", "c", false)).as_deref(),
        Some("a c a")
    );
    assert_eq!(
        replace("a b a", &step("a", "x", true)).as_deref(),
        Some("x b x")
    );
    assert_eq!(replace("a b a", &step("a", "x", false)), None);
    assert_eq!(replace("a b", &step("z", "x", false)), None);
    // An empty new string takes the newline after the old text.
    assert_eq!(
        replace("keep\ndrop\nkeep\n", &step("drop", "", false)).as_deref(),
        Some("keep\nkeep\n")
    );
    // REC-086: an empty old string only creates.
    assert_eq!(replace("", &step("", "new", false)).as_deref(), Some("new"));
    assert_eq!(replace("x", &step("", "new", false)), None);
}

/// The display patch expands tabs; a whole replay still agrees with it.
#[test]
fn whole_doc_edit_checked_against_a_tab_expanded_patch() {
    let mut d = Doc::full("func a() {\n\treturn 1\n}\n", 0);
    let hunks = vec![Hunk {
        old_start: 2,
        old_lines: 1,
        new_start: 2,
        new_lines: 1,
        lines: vec!["-  return 1".into(), "+  return 2".into()],
    }];
    assert_eq!(
        apply(&mut d, &[step("return 1", "return 2", false)], &hunks, 1, 9),
        Applied::Exact
    );
    assert_eq!(d.text().as_deref(), Some("func a() {\n\treturn 2\n}\n"));
    // A base that was not the edited file is refused, never patched up.
    let mut d = Doc::full("other\n", 0);
    assert_eq!(
        apply(&mut d, &[step("return 1", "return 2", false)], &hunks, 1, 9),
        Applied::Refused
    );
    assert!(d.is_blank());
}

/// A partial doc: an edit found once in known text applies there.
#[test]
fn partial_doc_edit_in_known_text() {
    let mut d = Doc {
        segs: vec![
            Seg::Gap {
                len: Some(10),
                why: Why::NoEvidence,
            },
            Seg::Known(split("alpha\nbeta", 0)),
            Seg::Gap {
                len: Some(5),
                why: Why::NoEvidence,
            },
        ],
    };
    assert_eq!(
        apply(&mut d, &[step("beta", "gamma\ndelta", false)], &[], 1, 9),
        Applied::Exact
    );
    assert_eq!(d.total(), Some(18));
    let mut s = String::new();
    d.render(&mut s);
    assert!(
        s.contains("alpha\ngamma\ndelta\n<<csift gap: lines 14-18"),
        "{s}"
    );
}

/// An edit of unknown lines is placed by the patch; a patch line with a
/// double space stays unknown (it may have held a tab).
#[test]
fn partial_doc_edit_placed_by_patch() {
    let mut d = Doc {
        segs: vec![
            Seg::Known(split("a\nb", 0)),
            Seg::Gap {
                len: Some(2),
                why: Why::NoEvidence,
            },
        ],
    };
    let hunks = vec![Hunk {
        old_start: 3,
        old_lines: 2,
        new_start: 3,
        new_lines: 2,
        lines: vec!["-x".into(), "+y".into(), "-  z".into(), "+  w".into()],
    }];
    assert_eq!(
        apply(&mut d, &[step("x\n  z", "y\n  w", false)], &hunks, 1, 9),
        Applied::Placed
    );
    let f = d.flat().unwrap();
    assert_eq!(f[2].as_ref().map(|c| c.text.as_str()), Some("y"));
    assert!(f[3].is_none());
}

/// REC-063: the `\ No newline at end of file` sentinel is neither side of a
/// hunk, so it never becomes a line.
#[test]
fn the_no_newline_sentinel_is_no_line() {
    let mut d = Doc {
        segs: vec![
            Seg::Known(split("a", 0)),
            Seg::Gap {
                len: Some(1),
                why: Why::NoEvidence,
            },
        ],
    };
    let hunks = vec![Hunk {
        old_start: 2,
        old_lines: 1,
        new_start: 2,
        new_lines: 1,
        lines: vec![
            "-b".into(),
            "\\ No newline at end of file".into(),
            "+c".into(),
        ],
    }];
    let steps = [Step {
        old: "b".into(),
        new: "c".into(),
        all: false,
    }];
    assert_eq!(apply(&mut d, &steps, &hunks, 1, 9), Applied::Placed);
    assert_eq!(d.text().as_deref(), Some("a\nc"));
}
