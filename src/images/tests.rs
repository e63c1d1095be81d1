//! The image engine on real-shaped records (IMG-001…015).

use base64::Engine as _;
use serde_json::{json, Value};

use super::*;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn img(mt: &str, bytes: &[u8]) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mt, "data": b64(bytes)}})
}

fn user(content: Value) -> Value {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    json!({"type": "user", "uuid": format!("u{n}"), "timestamp": "2026-09-01T10:00:00.000Z",
        "message": {"role": "user", "content": content}})
}

fn buf(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.push(b'\n');
    }
    out
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nfirst";
const JPG: &[u8] = b"\xff\xd8\xff\xe0second";

fn fixture() -> Vec<u8> {
    buf(&[
        // L1: a prompt with two pasted images and their markers (IMG-001, IMG-005).
        user(
            json!([{"type": "text", "text": "[Image #1] [Image #2] compare"}, img("image/png", PNG), img("image/jpeg", JPG)]),
        ),
        // L2: an image Read: nested block plus an EMPTY echo (IMG-013, IMG-014).
        json!({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/x/s.png"}}]}}),
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
            "content": [img("image/png", b"shot")]}]},
            "toolUseResult": {"type": "image", "file": {"base64": "", "type": "image/png", "originalSize": 4}}}),
        // L4: an echo with no nested block: read from the echo (IMG-011).
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "done"}]},
            "toolUseResult": {"type": "image", "file": {"base64": b64(b"echo"), "type": "image/png", "originalSize": 4}}}),
        // L5: the first image re-sent at a later prompt, now #1 again (IMG-006, IMG-008).
        user(json!([{"type": "text", "text": "[Image #1] again"}, img("image/png", PNG)])),
        // L6: a PDF Read since 2.1.251: one image per page in the result (IMG-015).
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t3",
            "content": [{"type": "text", "text": "PDF pages"}, img("image/jpeg", b"p1"), img("image/jpeg", b"p2")]}]}}),
        // L7: a document block; L8: a subagent's image nested in an
        // agent_progress record (its lane file holds it): counted, not listed.
        user(
            json!([{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}}]),
        ),
        json!({"type": "progress", "data": {"type": "agent_progress", "agentId": "a1",
            "message": {"type": "user", "message": {"role": "user", "content": [img("image/png", b"lane")]}}}}),
        user(
            json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "a!b="}}]),
        ),
        // L10: more markers than images (a back-reference): no handle is guessed.
        user(
            json!([{"type": "text", "text": "[Image #3] [Image #4]"}, img("image/png", b"third")]),
        ),
    ])
}

#[test]
fn every_carrier_in_document_order_img_001_002_013() {
    // IMG-001, IMG-002, IMG-013; the echo-only L4 is IMG-011, the PDF pages of
    // L6 IMG-012 and IMG-015; the malformed count stays said (IMG-009).
    let f = scan(&fixture(), false);
    let ids: Vec<(String, Carrier)> = f.images.iter().map(|i| (i.id(), i.carrier)).collect();
    assert_eq!(
        ids,
        [
            ("L1i1".to_string(), Carrier::Block),
            ("L1i2".into(), Carrier::Block),
            ("L3i1".into(), Carrier::ToolResult),
            ("L4i1".into(), Carrier::ReadEcho),
            ("L5i1".into(), Carrier::Block),
            ("L6i1".into(), Carrier::ToolResult),
            ("L6i2".into(), Carrier::ToolResult),
            ("L9i1".into(), Carrier::Block),
            ("L10i1".into(), Carrier::Block),
        ]
    );
    assert_eq!(f.documents, 1);
    assert_eq!(f.unlisted_lines, 1);
    assert_eq!(f.malformed, 0);
}

#[test]
fn handles_zip_only_when_counts_agree_img_005() {
    // IMG-005
    let f = scan(&fixture(), false);
    let h: Vec<Option<u32>> = f.images.iter().map(|i| i.handle).collect();
    assert_eq!(
        h,
        [
            Some(1),
            Some(2),
            None,
            None,
            Some(1),
            None,
            None,
            None,
            None
        ]
    );
    // Each image names the prompt its turn opened with.
    assert_eq!(f.images[0].turn, Some(1));
    assert_eq!(f.images[0].prompt_line, Some(1));
    assert_eq!(f.images[4].turn, Some(2));
    assert_eq!(f.images[4].prompt_line, Some(5));
}

#[test]
fn payloads_are_hashed_as_written_and_sized_without_decoding_img_014() {
    // IMG-014
    let f = scan(&fixture(), false);
    let first = &f.images[0];
    assert_eq!(first.bytes, PNG.len() as u64);
    assert_eq!(
        first.sha256,
        Some(<[u8; 32]>::from(sha2::Sha256::digest(b64(PNG).as_bytes())))
    );
    // The empty echo is never what is read: the block's bytes are (IMG-014).
    assert_eq!(f.images[2].bytes, 4);
    // A payload that will not decode is found out by --out, not by a listing.
    let bad = &f.images[7];
    assert_eq!(bad.id(), "L9i1");
    assert!(bad.sha256.is_some() && bad.error.is_none());
}

#[test]
fn copies_group_by_content_img_008() {
    // IMG-008
    let f = scan(&fixture(), false);
    let g = group(&f.images);
    assert_eq!(g.len(), 8, "{g:?}");
    assert_eq!(g[0].first, 0);
    assert_eq!(g[0].copies, [4]);
    // The same #1 on two different images would stay two rows (IMG-006):
    // L1i1 and L10i1 differ in content, so no merge.
    assert!(g.iter().all(|d| d.first != 4));
}

#[test]
fn a_file_without_the_key_costs_one_search() {
    let f = scan(&buf(&[user(json!("hello"))]), false);
    assert!(f.images.is_empty());
    assert_eq!(f.unlisted_lines, 0);
}

#[test]
fn a_respaced_line_still_reads_img_003() {
    // IMG-003
    let line = br#"{"type": "user", "message": {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"}}]}}"#;
    let mut b = line.to_vec();
    b.extend_from_slice(b"\r\n");
    let f = scan(&b, false);
    assert_eq!(f.images.len(), 1);
    assert_eq!(f.images[0].media_type, "image/gif");
    assert_eq!(f.images[0].bytes, 3);
}

use sha2::Digest as _;

#[test]
fn keys_in_any_order_still_read_img_002() {
    // IMG-002: both carriers, whatever order another writer puts the keys in.
    let line = br#"{"message":{"content":[{"source":{"data":"aGk=","media_type":"image/png","type":"base64"},"type":"image"},{"content":[{"source":{"media_type":"image/jpeg","data":"aGk="},"type":"image"}],"tool_use_id":"t","type":"tool_result"}],"role":"user"},"type":"user","uuid":"x"}"#;
    let f = scan(&[&line[..], b"\n"].concat(), false);
    let got: Vec<(String, Carrier, &str)> = f
        .images
        .iter()
        .map(|i| (i.id(), i.carrier, i.media_type.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("L1i1".into(), Carrier::Block, "image/png"),
            ("L1i2".into(), Carrier::ToolResult, "image/jpeg"),
        ]
    );
    assert_eq!(f.images[0].uuid.as_deref(), Some("x"));
}
