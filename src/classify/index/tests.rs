//! Unit tests of `index`.

use super::*;

/// The static patterns compile and find what they are for.
#[test]
fn static_patterns_compile() {
    assert!(literal(0).is_match(br#"{"type":"user"}"#));
    assert!(literal(1).is_match(br#"{"type": "user"}"#));
    assert!(carrier_markers().is_match(b"User has answered your questions"));
}

fn user(uuid: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"user","uuid":"{uuid}","parentUuid":"{parent}","message":{{"role":"user","content":"{text}"}}}}"#
    )
}

/// Everything the index answers about a buffer, line by line, to compare
/// indexes built with different cuts.
fn facts(idx: &FileIndex, lines: usize) -> Vec<String> {
    let mut out: Vec<String> = (1..=lines + 1)
        .map(|l| {
            let t = (
                idx.turn(l),
                idx.is_draft(l),
                idx.is_opener(l),
                idx.is_seed(l),
            );
            format!("{l} {t:?} {:?}", idx.next_opener_from(l))
        })
        .collect();
    out.extend(
        (0..=idx.turns() + 1).map(|n| format!("{:?} {:?}", idx.turn_opener(n), idx.turn_end(n))),
    );
    out.push(format!(
        "{} {} {:?} {} {:?}",
        idx.is_spawn("t1"),
        idx.is_wakeup_prompt("wake me up"),
        idx.tool_name("w1"),
        idx.drafts(),
        idx.turns()
    ));
    out
}

/// The index's passes run block by block inside pieces, and search's
/// candidate lines are found in the same blocks: every piece and block
/// size must give the index of one uncut pass, and the lines a pass of
/// their own finds from the given line on. Covers a lane seed (REC-031),
/// superseded drafts (TURN-022), a spawn (CLS-010) and an armed wakeup
/// prompt (CLS-015) on either side of a cut.
#[test]
fn blocks_and_pieces_index_and_find_as_one_pass_turn_022_cls_010_cls_015() {
    let mut lines = vec![
        user("u0", "", "do the task with a needle"),
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u0","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"needle child"}},{"type":"tool_use","id":"w1","name":"ScheduleWakeup","input":{"prompt":"wake me up"}}]}}"#.to_string(),
        r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"child report needle"}]}}"#.to_string(),
        user("u3", "u2", "wake me up"),
        user("d", "u3", "first try"),
        user("p", "u3", "second try needle"),
    ];
    for i in 0..6 {
        lines.push(user(&format!("q{i}"), "p", &format!("sibling {i}")));
        lines.push(format!(r#"{{"type":"assistant","uuid":"b{i}","message":{{"role":"assistant","content":[{{"type":"text","text":"reply {i} needle"}}]}}}}"#));
    }
    let buf = lines.join("\n") + "\n";
    let buf = buf.as_bytes();
    let re = Regex::new("needle").unwrap();
    let whole = Sizes {
        piece: usize::MAX,
        block: usize::MAX,
        tools: true,
        numbered: true,
    };
    for lane in [false, true] {
        for from_line in [1, 3, 8] {
            let from = crate::scan::Lines::new(buf)
                .nth(from_line - 1)
                .unwrap()
                .offset;
            let want_lines: Vec<_> = HitLines::from(buf, &re, from, from_line)
                .map(|(l, _)| (l.no, l.offset, l.bytes))
                .collect();
            let (want, _) = FileIndex::build_inner(buf, lane, None::<&Also<'_, Regex>>, whole);
            // CLS-010: the Task call is a spawn (its result is the child's
            // report), the ScheduleWakeup beside it is not; CLS-015: its
            // prompt is armed, so line 4 is a fired wakeup, not a prompt.
            assert!(want.is_spawn("t1") && !want.is_spawn("w1"));
            assert!(want.is_wakeup_prompt("wake me up"));
            assert!(!want.is_wakeup_prompt("first try"));
            let want = facts(&want, lines.len());
            assert!(want_lines.len() >= 6 && want.iter().any(|f| f.contains("(None, true")));
            for piece in [1, 150, 700, usize::MAX] {
                for block in (1..buf.len() + 2).step_by(13).chain([usize::MAX]) {
                    let sizes = Sizes {
                        piece,
                        block,
                        tools: true,
                        numbered: true,
                    };
                    let also = Also { re: &re, from };
                    let (idx, got) = FileIndex::build_inner(buf, lane, Some(&also), sizes);
                    let got: Vec<_> = got.iter().map(|l| (l.no, l.offset, l.bytes)).collect();
                    let at =
                        format!("lane {lane}, from line {from_line}, piece {piece}, block {block}");
                    assert_eq!(got, want_lines, "{at}");
                    assert_eq!(facts(&idx, lines.len()), want, "{at}");
                }
            }
        }
    }
}

/// TURN-007, IMG-001: a bare slash command and an image-only prompt open a
/// turn only when the model answers before the next prompt: not a
/// built-in's local output, a subagent's record nested in a progress
/// record, an inline sidechain's reply or a `<synthetic>` notice. Decided
/// the same however the file is cut into pieces and blocks.
#[test]
fn a_bare_command_or_image_opens_a_turn_only_when_answered_turn_007_img_001() {
    let assistant = |uuid: &str, extra: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}",{extra}"message":{{"role":"assistant","model":"claude-x","content":[{{"type":"text","text":"ok"}}]}}}}"#
        )
    };
    let image = r#"{"type":"user","uuid":"i1","parentUuid":"p1","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}}"#;
    let lines = [
        user("m1", "", "<command-name>/model</command-name><command-args></command-args>"),
        user("m2", "m1", "<local-command-stdout>Set model to opus</local-command-stdout>"),
        user("g1", "m2", "<command-message>go</command-message><command-name>/go</command-name>"),
        r#"{"type":"progress","uuid":"n1","data":{"type":"agent_progress","message":{"type":"assistant","message":{"role":"assistant","content":[]}}}}"#.to_string(),
        assistant("s1", r#""isSidechain":true,"#),
        assistant("x1", "").replace("claude-x", "<synthetic>"),
        user("p1", "x1", "now the real prompt"),
        assistant("a1", ""),
        image.to_string(),
        assistant("a2", ""),
        user("g2", "a2", "<command-name>/go</command-name>"),
        assistant("a3", ""),
        user("g3", "a3", "<command-name>/late</command-name>"),
    ];
    let buf = lines.join("\n") + "\n";
    let buf = buf.as_bytes();
    let whole = Sizes {
        piece: usize::MAX,
        block: usize::MAX,
        tools: true,
        numbered: true,
    };
    let (idx, _) = FileIndex::build_inner(buf, false, None::<&Also<'_, Regex>>, whole);
    assert_eq!(idx.turns(), 3, "the prompt, the image and the answered /go");
    assert_eq!(
        FileIndex::count_turns(buf, false),
        3,
        "without the tools pass"
    );
    assert_eq!(
        [7, 9, 11].map(|l| idx.turn_start(idx.turn(l).unwrap())),
        [Some(7), Some(9), Some(11)]
    );
    assert!(!idx.is_opener(1) && !idx.is_opener(3) && !idx.is_opener(13));
    assert_eq!(idx.turn(5), Some(0));
    let want = facts(&idx, lines.len());
    for piece in [1, 90, 400, usize::MAX] {
        for block in (1..buf.len() + 2).step_by(17).chain([usize::MAX]) {
            let sizes = Sizes {
                piece,
                block,
                tools: true,
                numbered: true,
            };
            let (idx, _) = FileIndex::build_inner(buf, false, None::<&Also<'_, Regex>>, sizes);
            assert_eq!(
                facts(&idx, lines.len()),
                want,
                "piece {piece}, block {block}"
            );
        }
    }
    // Record by record (the census's way), the same index.
    let mut p = Piece::new(false);
    for l in crate::scan::Lines::new(buf) {
        for (_, r) in line_records(&l) {
            p.note(&r, l.no, l.offset);
        }
    }
    assert_eq!(facts(&p.finish(buf), lines.len()), want);
}

/// REC-038: openers of both spacings count when either end of the file is
/// spaced, past blank lines there and a torn last line of the other form.
#[test]
fn a_file_spaced_at_one_end_keeps_every_opener_rec_038() {
    let spaced = |l: String| l.replace("\":\"", "\": \"").replace("\",\"", "\", \"");
    let compact = [user("a", "", "one"), user("b", "a", "two")].join("\n");
    let respaced = [user("c", "b", "three"), user("d", "c", "four")]
        .map(spaced)
        .join("\n");
    let files = [
        format!("{compact}\n{respaced}\n"),
        format!("{compact}\n{respaced}\n\n \n"),
        format!("{compact}\n{respaced}\n{{\"type\":\"us"),
        format!("\n{respaced}\n{compact}\n"),
        format!("\r\n{respaced}\r\n{compact}\r\n"),
    ];
    for f in &files {
        assert_eq!(FileIndex::build(f.as_bytes(), false).turns(), 4, "{f:?}");
    }
    // Compact at both ends: the spaced middle is not looked for.
    let middle = format!("{compact}\n{respaced}\n{compact}\n");
    assert!(!has_spaced_end(middle.as_bytes()));
}

/// TURN-022/023 with REC-091: a draft `d` superseded by `p`, then a resume
/// replaying both under the same parent. The replayed draft must not turn
/// the kept prompt before it into a draft, and the copies reopen turn 1.
#[test]
fn a_replayed_draft_leaves_the_kept_prompt_a_turn_turn_022_rec_091() {
    let lines = [
        user("d", "x", "draft"),
        user("p", "x", "kept"),
        user("d", "x", "draft"),
        user("p", "x", "kept"),
        user("q", "p", "next"),
    ];
    let buf = lines.join("\n") + "\n";
    let idx = FileIndex::build(buf.as_bytes(), false);
    assert_eq!(idx.drafts(), 2, "both copies of the draft");
    assert!(idx.is_draft(1) && idx.is_draft(3));
    assert_eq!(idx.turns(), 2);
    assert_eq!([2, 4, 5].map(|l| idx.turn(l)), [Some(1), Some(1), Some(2)]);
    assert_eq!(idx.turn_start(1), Some(2));
    assert_eq!(idx.turn_start(2), Some(5));
    // Turn 1's first stretch ends at the replayed copy's line.
    let third = buf.match_indices('\n').nth(2).map(|(i, _)| i + 1);
    assert_eq!(idx.turn_end(1), third);
    assert!(idx.is_opener(4) && !idx.is_opener(3));
}

/// A turn count keys openers by their lines' offsets instead of numbering
/// lines: the same count as the whole index's on every real transcript,
/// lanes included, and on built files with drafts (TURN-022), replayed
/// openers (REC-091), answered-only openers (TURN-007) and both spacings
/// (REC-038).
#[test]
fn a_turn_count_without_line_numbers_is_the_index_count_turn_022_rec_091() {
    let mut files: Vec<(Vec<u8>, bool)> = crate::discovery::sample_and_public()
        .iter()
        .map(|t| (std::fs::read(&t.path).unwrap(), t.is_lane()))
        .collect();
    let built = [
        user("a", "", "first"),
        user("d", "a", "a draft"),
        user("k", "a", "the kept one"),
        user("a", "", "first"),
        user("g", "k", "<command-name>/go</command-name>"),
        r#"{"type":"assistant","uuid":"r","message":{"role":"assistant","content":[]}}"#.into(),
        user("s", "r", "spaced").replace("\":\"", "\": \""),
    ]
    .join("\n");
    files.push((built.clone().into_bytes(), false));
    files.push((built.into_bytes(), true));
    let mut turns = 0;
    for (buf, lane) in &files {
        let want = FileIndex::build(buf, *lane).turns();
        assert_eq!(FileIndex::count_turns(buf, *lane), want);
        turns += want;
    }
    assert!(turns > 100, "{turns}");
}

/// `build_turns` (audit's unanswered-call check) leaves out the tool pass
/// only: every turn fact is `build`'s, on every transcript of the sample
/// and public homes, read as a main file and as a lane.
#[test]
fn build_turns_gives_builds_turns() {
    for t in crate::discovery::sample_and_public() {
        let buf = std::fs::read(&t.path).unwrap();
        let lines = buf.iter().filter(|&&b| b == b'\n').count();
        for lane in [false, true] {
            let (whole, turns) = (
                FileIndex::build(&buf, lane),
                FileIndex::build_turns(&buf, lane),
            );
            let at = format!("{} lane {lane}", t.path.display());
            assert_eq!(facts(&turns, lines), facts(&whole, lines), "{at}");
            assert_eq!(turns.turns(), whole.turns(), "{at}");
        }
    }
}

/// The labels `classify` gives a line's record under `idx`, in order.
fn labels_under(r: &Record<'_>, no: usize, idx: &FileIndex) -> Vec<String> {
    let mut units = Vec::new();
    crate::classify::classify_labels(r, no, idx, &mut units);
    units
        .iter()
        .map(|u| format!("{:?}/{:?}", u.label, u.also))
        .collect()
}

/// What stats' revisit relies on to skip re-reading a turn opener: a user
/// record [`index_bound`](crate::classify::unit::index_bound) calls free is
/// labelled alike under the finished index and an empty one unless its line
/// is a draft or a lane's seed. Checked on every user record of the sample
/// and public homes, read as a main file and as a lane, and on built files
/// with a draft, a lane seed, an answered bare slash command and a meta text
/// repeating an armed wakeup prompt (TURN-022, REC-031, TURN-007, CLS-015).
#[test]
fn an_index_free_user_record_is_relabelled_only_as_a_draft_or_a_seed() {
    let mut files: Vec<Vec<u8>> = crate::discovery::sample_and_public()
        .iter()
        .map(|t| std::fs::read(&t.path).unwrap())
        .collect();
    let wakeup = r#"{"type":"assistant","uuid":"w","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ScheduleWakeup","input":{"prompt":"check the build"}}]}}"#;
    let meta = r#"{"type":"user","uuid":"m","parentUuid":"w","isMeta":true,"message":{"role":"user","content":"check the build"}}"#;
    let built = [
        user("a", "", "first"),
        user("d", "a", "a draft"),
        user("k", "a", "the kept one"),
        user("g", "k", "<command-name>/go</command-name>"),
        r#"{"type":"assistant","uuid":"r","message":{"role":"assistant","content":[]}}"#.into(),
        wakeup.into(),
        meta.into(),
    ]
    .join("\n");
    files.push(built.into_bytes());
    let (mut free, mut relabelled) = (0, 0);
    for buf in &files {
        for lane in [false, true] {
            let (idx, empty) = (FileIndex::build(buf, lane), FileIndex::empty(lane));
            for l in crate::scan::Lines::new(buf) {
                let crate::record::Parsed::Record(r) = crate::record::parse_line(&l) else {
                    continue;
                };
                if r.kind() != "user" {
                    continue;
                }
                let (now, before) = (labels_under(&r, l.no, &idx), labels_under(&r, l.no, &empty));
                let bound = crate::classify::unit::index_bound(&r);
                if !bound && !idx.is_draft(l.no) && !idx.is_seed(l.no) {
                    free += 1;
                    assert_eq!(now, before, "line {} lane {lane}", l.no);
                } else if now != before {
                    relabelled += 1;
                }
            }
        }
    }
    // Both arms ran: most prompts are free, and some lines did change.
    assert!(free > 300 && relabelled > 100, "{free} {relabelled}");
}
