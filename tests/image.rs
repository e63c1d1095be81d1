//! `csift image`: listing, identity, copies, `--id` and `--out` on real-shaped
//! records (IMG-001…015, CMP-018).

use crate::common;

use base64::Engine as _;
use common::{json_lines, Home, Session};
use serde_json::{json, Value};
use sha2::Digest as _;

const P: &str = "-work-app";
const S: &str = "6c2214d7-1111-4111-8111-111111111111";
const CWD: &str = "/work/app";

const A: &[u8] = b"\x89PNG\r\n\x1a\nfirst image";
const B: &[u8] = b"\xff\xd8\xff\xe0second image";
const C: &[u8] = b"\x89PNG\r\n\x1a\nthird image";

fn img(mt: &str, bytes: &[u8]) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mt,
        "data": base64::engine::general_purpose::STANDARD.encode(bytes)}})
}

fn prompt(s: &mut Session, text: &str, images: &[Value]) -> String {
    let mut content = vec![json!({"type": "text", "text": text})];
    content.extend(images.iter().cloned());
    s.push(json!({"type": "user", "message": {"role": "user", "content": content}}))
}

/// A session: two pasted images (L1), an image Read with an empty echo (L3-L4),
/// a compaction re-sending the first image under #1 (L5-L7), a new #1 (L8),
/// a bad payload (L9); and a lane with one screenshot.
fn fixture() -> Home {
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    prompt(
        &mut m,
        "[Image #1] [Image #2] why do these differ?",
        &[img("image/png", A), img("image/jpeg", B)],
    );
    m.text("m1", "Let me look at the file.");
    m.tool_use(
        "m2",
        "t1",
        "Read",
        json!({"file_path": "/work/app/shot.png"}),
    );
    m.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": [img("image/png", C)]}]},
        "toolUseResult": {"type": "image", "file": {"base64": "", "type": "image/png", "originalSize": 20}}}));
    m.system("compact_boundary", json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 1000}}));
    m.push(
        json!({"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
        "message": {"role": "user", "content": "This session is being continued..."}}),
    );
    prompt(
        &mut m,
        "[Image #1] same picture again",
        &[img("image/png", A)],
    );
    prompt(
        &mut m,
        "[Image #1] another one",
        &[img("image/png", b"\x89PNG\r\n\x1a\nfourth")],
    );
    m.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "a!b="}}]}}));
    h.write(P, &m.file_name(), &m.lines);
    let mut l = Session::lane(S, CWD, "a1b2c3d4e5f6a7b8c");
    l.user("Take a screenshot");
    l.tool_use("ml", "t9", "mcp__browser__screenshot", json!({}));
    l.push(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t9", "content": [{"type": "text", "text": "ok"}, img("image/webp", b"RIFFwebp")]}]}}));
    h.write(
        P,
        &format!("{S}/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl"),
        &l.lines,
    );
    h
}

fn rows(h: &Home, args: &[&str]) -> (Vec<Value>, Value) {
    let out = h
        .cmd()
        .arg("image")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let summary = lines.last().unwrap().clone();
    assert_eq!(summary["type"], "summary");
    (lines[..lines.len() - 1].to_vec(), summary)
}

/// The listing's hash: SHA-256 of the base64 payload as written.
fn sha(b: &[u8]) -> String {
    hex(&sha2::Sha256::digest(
        base64::engine::general_purpose::STANDARD
            .encode(b)
            .as_bytes(),
    ))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn lists_every_carrier_once_per_content_img_001_002_008() {
    // IMG-001, IMG-002, IMG-008
    let h = fixture();
    let (all, s) = rows(&h, &[&format!("@{S}")]);
    let (r, lane): (Vec<Value>, Vec<Value>) =
        all.into_iter().partition(|r| r["agent_id"].is_null());
    let ids: Vec<&str> = r.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["L1i1", "L1i2", "L4i1", "L8i1", "L9i1"]);
    // The first image, re-sent after the compaction, is one row with its copy.
    assert_eq!(r[0]["handle"], 1);
    assert_eq!(r[0]["turn"], 1);
    assert_eq!(r[0]["prompt_line"], 1);
    assert_eq!(r[0]["sha256"], sha(A));
    assert_eq!(r[0]["bytes"], A.len());
    assert_eq!(r[0]["copies"][0]["id"], "L7i1");
    assert_eq!(r[0]["copies"][0]["handle"], 1);
    assert_eq!(r[1]["media_type"], "image/jpeg");
    // The Read's empty echo is never what is read (IMG-013/014).
    assert_eq!(r[2]["carrier"], "tool_result");
    assert_eq!(r[2]["bytes"], C.len());
    assert_eq!(r[2]["handle"], Value::Null);
    // A payload that does not decode is found by --out (below), not a listing.
    assert_eq!(r[4]["id"], "L9i1");
    assert_eq!(r[4]["error"], Value::Null);
    // The lane's screenshot, in its lane's file.
    assert_eq!(lane.len(), 1);
    assert_eq!(lane[0]["id"], "L3i1");
    assert_eq!(lane[0]["agent_id"], "a1b2c3d4e5f6a7b8c");
    assert_eq!(lane[0]["media_type"], "image/webp");
    assert_eq!(lane[0]["carrier"], "tool_result");
    assert_eq!(s["images"], 7);
    assert_eq!(s["distinct"], 6);
    assert_eq!(s["copies"], 1);
    assert_eq!(s["bad_payloads"], 0);
}

#[test]
fn a_line_address_stays_valid_across_compaction_cmp_018() {
    // CMP-018
    // The copy after the boundary has its own id; the original keeps L1i1.
    let h = fixture();
    let (r, _) = rows(&h, &[&format!("@{S}"), "--id", "L7i1"]);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["id"], "L1i1");
}

#[test]
fn a_handle_naming_two_images_is_an_error_listing_them_img_006() {
    // IMG-006
    let h = fixture();
    let out = h
        .cmd()
        .args(["image", &format!("@{S}"), "--id", "#1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("ambiguous") && e.contains("--id L1i1") && e.contains("--id L8i1"),
        "{e}"
    );
    let (r, _) = rows(&h, &[&format!("@{S}"), "--id", "2"]);
    assert_eq!(r[0]["id"], "L1i2");
}

#[test]
fn a_missing_handle_names_the_ones_present_img_007() {
    // IMG-007
    let h = fixture();
    let out = h
        .cmd()
        .args(["image", &format!("@{S}"), "--id", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("present here: #1 #2") && e.contains("without a handle"),
        "{e}"
    );
}

#[test]
fn out_writes_each_distinct_image_once_and_never_overwrites_img_004() {
    // IMG-004
    let h = fixture();
    let dir = tempfile::tempdir().unwrap();
    let out = h
        .cmd()
        .args(["image", &format!("@{S}"), "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    // The bad payload is said with its id, the rest are written: exit 2.
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("L9i1: bad base64") && e.contains("not written"),
        "{e}"
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "6c2214d7-L1i1.png",
            "6c2214d7-L1i2.jpg",
            "6c2214d7-L4i1.png",
            "6c2214d7-L8i1.png",
            "6c2214d7-a1b2c3d4e5f6a7b8c-L3i1.webp",
        ]
    );
    assert_eq!(
        std::fs::read(dir.path().join("6c2214d7-L1i1.png")).unwrap(),
        A
    );
    assert_eq!(
        std::fs::read(dir.path().join("6c2214d7-L1i2.jpg")).unwrap(),
        B
    );
    // Again: every file exists, nothing is written, the run says which.
    std::fs::write(dir.path().join("6c2214d7-L1i2.jpg"), b"mine").unwrap();
    let again = h
        .cmd()
        .args(["image", &format!("@{S}"), "--id", "L1i2", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exist"));
    assert_eq!(
        std::fs::read(dir.path().join("6c2214d7-L1i2.jpg")).unwrap(),
        b"mine"
    );
    let forced = h
        .cmd()
        .args([
            "image",
            &format!("@{S}"),
            "--id",
            "L1i2",
            "--force",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(forced.status.code(), Some(0));
    assert_eq!(
        std::fs::read(dir.path().join("6c2214d7-L1i2.jpg")).unwrap(),
        B
    );
}

#[test]
fn out_never_writes_under_the_claude_home() {
    let h = fixture();
    let under = h.path().join("exports");
    let out = h
        .cmd()
        .args(["image", &format!("@{S}"), "--out"])
        .arg(&under)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside the Claude home"));
    assert!(!under.exists());
    // Nor through a symlink that leads there.
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("link");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(h.path(), &link).unwrap();
        let out = h
            .cmd()
            .args(["image", &format!("@{S}"), "--out"])
            .arg(link.join("x"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(!h.path().join("x").exists());
    }
}

#[test]
fn no_image_exits_1_and_human_rows_read() {
    let h = Home::new();
    let mut m = Session::new(S, CWD);
    m.user("no pictures here");
    h.write(P, &m.file_name(), &m.lines);
    let out = h.cmd().arg("image").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let h = fixture();
    let out = h.cmd().args(["image", &format!("@{S}")]).output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("L1i1") && s.contains("#1") && s.contains("copies: L7i1"),
        "{s}"
    );
    assert!(
        s.contains("7 images (6 distinct, 1 copy) in 2 files"),
        "{s}"
    );
}
