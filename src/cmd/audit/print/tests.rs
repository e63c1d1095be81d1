//! Unit tests of `print`.

use super::*;
use crate::output::{COLOR, PLAIN};

/// Findings shaped as the detectors write them on the public corpus.
fn report() -> Report {
    let finding =
        |kind, line, sidechain, ts: Option<&str>, mid: Option<&str>, detail: &str| Finding {
            record: "finding",
            kind,
            file: "/h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl".into(),
            line,
            session_id: "5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44".into(),
            message_id: mid.map(str::to_string),
            sidechain,
            timestamp: ts.map(str::to_string),
            version: Some("1.0.51".into()),
            detail: detail.into(),
        };
    Report {
        kinds: vec![Kind::EatenText, Kind::MissingTranscript],
        findings: vec![
            finding(
                Kind::EatenText,
                412,
                false,
                Some("2025-07-14T09:21:07.118Z"),
                Some("msg_01XkT9"),
                "2 thinking records, 0 text records (message.id group)",
            ),
            finding(
                Kind::EatenText,
                88,
                true,
                Some("2025-06-30T17:02:41.502Z"),
                Some("msg_01Ab\x1b[2J"),
                "3 thinking records, 0 text records",
            ),
            finding(
                Kind::MissingTranscript,
                0,
                false,
                None,
                None,
                "session folder without its transcript",
            ),
        ],
        files: 3,
        bytes: 123_456,
        multi_block: 1,
        untimed_left_out: 0,
    }
}

fn human(view: View, st: Style) -> String {
    let mut w = Vec::new();
    print(&mut w, st, &report(), view, Instant::now(), 0).unwrap();
    String::from_utf8(w).unwrap()
}

const HUMAN: View = View {
    format: Format::Human,
    by: None,
    max_count: usize::MAX,
};

#[test]
fn human_table_counts_main_sidechain_and_transcripts() {
    let text = human(HUMAN, PLAIN);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("KIND "));
    let eaten = lines.next().unwrap();
    let cols: Vec<&str> = eaten.split_whitespace().collect();
    assert_eq!(
        cols,
        [
            "eaten-text",
            "1",
            "1",
            "1",
            "2025-06-30T17:02:41.502Z",
            "2025-07-14T09:21:07.118Z"
        ]
    );
    assert!(lines.next().unwrap().starts_with("missing-transcript "));
}

#[test]
fn human_findings_newest_first_folder_without_line_zero() {
    let text = human(HUMAN, PLAIN);
    assert!(text.contains(
        "2025-07-14T09:21:07.118Z eaten-text /h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl:412 [5e2c7a91] msg_01XkT9\n    2 thinking"
    ));
    assert!(text.contains("[5e2c7a91 sidechain]"));
    // A folder finding names the path alone, never `:0`.
    assert!(text.contains("- missing-transcript /h/projects/-work-app/5e2c7a91-0b1d-4c3e-9f8a-2d6b1c0e7f44.jsonl [5e2c7a91]\n"));
    assert!(!text.contains(".jsonl:0"));
    // Transcript text reaches the terminal cleaned.
    assert!(!text.contains('\x1b'));
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("3 findings in 3 files, 120.6K in "),
        "{last}"
    );
}

#[test]
fn human_max_count_says_what_it_left_out() {
    let text = human(
        View {
            max_count: 1,
            ..HUMAN
        },
        PLAIN,
    );
    assert!(text.contains("[… 2 more findings not shown; raise --max-count]"));
    assert!(!text.contains(":88 "));
    let none = human(
        View {
            max_count: 0,
            ..HUMAN
        },
        PLAIN,
    );
    assert!(none.contains("[… 3 more findings not shown"));
}

#[test]
fn human_by_month_breaks_down_per_kind_and_key() {
    let text = human(
        View {
            by: Some(By::Month),
            ..HUMAN
        },
        PLAIN,
    );
    let row = |k: &str, key: &str| {
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>().get(..2) == Some(&[k, key][..]))
    };
    assert!(text.contains("MONTH"));
    assert!(row("eaten-text", "2025-07"));
    assert!(row("eaten-text", "2025-06"));
    assert!(row("missing-transcript", "-"));
}

#[test]
fn colour_only_from_the_style() {
    let text = human(HUMAN, COLOR);
    assert!(text.starts_with(COLOR.head));
    assert!(text.contains(COLOR.label));
}

#[test]
fn json_findings_then_counts_then_summary() {
    let mut w = Vec::new();
    let view = View {
        format: Format::Json,
        by: Some(By::Version),
        max_count: 1,
    };
    print(&mut w, PLAIN, &report(), view, Instant::now(), 2).unwrap();
    let rows: Vec<serde_json::Value> = String::from_utf8(w)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // --max-count narrows the human list only: JSON carries every finding.
    let types: Vec<&str> = rows.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["finding", "finding", "finding", "count", "count", "summary"]
    );
    assert_eq!(rows[0]["kind"], "eaten-text");
    assert_eq!(rows[2]["line"], serde_json::Value::Null);
    assert_eq!(rows[3]["by"], "version");
    assert_eq!(rows[3]["key"], "1.0.51");
    let s = &rows[5];
    assert_eq!(s["counts"]["eaten-text"]["transcripts"], 1);
    assert_eq!(s["counts"]["eaten-text"]["sidechain"], 1);
    assert_eq!(s["errors"], 2);
    assert_eq!(s["multi_block_assistant_records"], 1);
}
