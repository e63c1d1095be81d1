//! The hand-written `sample` preset: four projects, six sessions of plausible work.

use std::path::Path;

use anyhow::Result;

use crate::emit::{Ident, Sess};
use crate::json::{encode_cwd, Rng};
use crate::synth::{compaction, run_agent, T0};
use crate::text::{self, Lang};

const MARA: &str = "/Users/mara";
const TIDEPOOL: &str = "/Users/mara/code/tidepool";
const LEDGER: &str = "/Users/mara/code/ledgerline";
const HANAMI: &str = "/Users/kenji/dev/hanami-notes";
const DOCS: &str = "/Users/mara/code/tidepool/.worktrees/docs-site";

/// A 24x16 PNG, standing in for a pasted screenshot.
const PNG_B64: &str = "iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAACk0lEQVR42g3MkQLFIABA0XiSjONJMo4nyTieJON4kozjSTKOJ8nleJLsO947H3CEEAyCUaAEk2AWGMEiWAVOsAl2QRAcglOQBJfgFhTBI0DQBK/gEwghGSSjREkmySwxkkWySpxkk+ySIDkkpyRJLsktKZJHgqRJXskn/5FiUIwKpZgUs8IoFsWqcIpNsSuC4lCciqS4FLeiKB4FiqZ4FZ/6R5pBM2qUZtLMGqNZNKvGaTbNrgmaQ3NqkubS3JqieTRomubVfPofGQbDaFCGyTAbjGExrAZn2Ay7IRgOw2lIhstwG4rhMWBohtfwmX9kGSyjRVkmy2wxlsWyWpxls+yWYDkspyVZLsttKZbHgqVZXstn/5FjcIwO5Zgcs8M4FsfqcI7NsTuC43CcjuS4HLejOB4HjuZ4HZ/7R57BM3qUZ/LMHuNZPKvHeTbP7gmew3N6kufy3J7ieTx4muf1fP4fBYbAGFCBKTAHTGAJrAEX2AJ7IASOwBlIgStwB0rgCRBogTfwhX8UGSJjREWmyBwxkSWyRlxki+yREDkiZyRFrsgdKZEnQqRF3sgX/1FiSIwJlZgSc8IklsSacIktsSdC4kiciZS4EneiJJ4EiZZ4E1/6R5khM2ZUZsrMGZNZMmvGZbbMngmZI3NmUubK3JmSeTJkWubNfPkfFYbCWFCFqTAXTGEprAVX2Ap7IRSOwllIhatwF0rhKVBohbfwlX9UGSpjRVWmylwxlaWyVlxlq+yVUDkqZyVVrspdKZWnQqVV3spX/1FjaIwN1Zgac8M0lsbacI2tsTdC42icjdS4GnejNJ4GjdZ4G1/7R52hM3ZUZ+rMHdNZOmvHdbbO3gmdo3N2Uufq3J3SeTp0WuftfJ0f6NuBX8MWRq8AAAAASUVORK5CYII=";

fn ident(
    rng: &mut Rng,
    cwd: &str,
    home: &str,
    version: &str,
    branch: &str,
    slug: &str,
    hook: Option<&str>,
) -> Ident {
    Ident {
        sid: rng.uuid(),
        cwd: cwd.into(),
        version: version.into(),
        branch: branch.into(),
        slug: slug.into(),
        home: home.into(),
        enc: encode_cwd(cwd),
        hook_cmd: hook.map(Into::into),
    }
}

pub fn build(projects: &Path, base: &Rng) -> Result<()> {
    let mut rng = base.fork(0x5A);
    tidepool_dst(projects, &mut rng)?;
    tidepool_json(projects, &mut rng)?;
    ledger_recurring(projects, &mut rng)?;
    ledger_bom(projects, &mut rng)?;
    hanami_cjk(projects, &mut rng)?;
    docs_site(projects, &mut rng)?;
    Ok(())
}

const PREDICT_RS: &str = r#"use jiff::{tz::TimeZone, Timestamp, Zoned};

use crate::harmonics::{Constituent, Station};

/// One predicted high or low water.
#[derive(Debug, Clone, PartialEq)]
pub struct TideEvent {
    pub at: Zoned,
    pub height_m: f64,
    pub kind: EventKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    High,
    Low,
}

/// Predict extrema between `from` and `to`, sampling every `step_min` minutes.
pub fn predict(station: &Station, from: Timestamp, to: Timestamp, step_min: i64) -> Vec<TideEvent> {
    let offset = station.utc_offset_hours;
    let mut events = Vec::new();
    let mut prev = height_at(&station.constituents, from);
    let mut rising = None;
    let mut t = from;
    while t < to {
        let next = t + jiff::Span::new().minutes(step_min);
        let h = height_at(&station.constituents, next);
        let now_rising = h > prev;
        if let Some(was) = rising {
            if was != now_rising {
                let kind = if was { EventKind::High } else { EventKind::Low };
                let local = t.to_zoned(TimeZone::fixed(jiff::tz::offset(offset)));
                events.push(TideEvent { at: local, height_m: prev, kind });
            }
        }
        rising = Some(now_rising);
        prev = h;
        t = next;
    }
    events
}

fn height_at(cs: &[Constituent], t: Timestamp) -> f64 {
    let hours = t.as_second() as f64 / 3600.0;
    cs.iter()
        .map(|c| c.amplitude * (c.speed.to_radians() * hours - c.phase.to_radians()).cos())
        .sum()
}
"#;

fn tidepool_dst(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        TIDEPOOL,
        MARA,
        "2.1.90",
        "fix/dst-offset",
        "steady-tidal-heron",
        Some("cargo fmt -- --check"),
    );
    let mut s = Sess::create(projects, id, rng.fork(1), T0 + 3_600_000)?;
    s.permission_mode("default");
    s.session_start(&["Rust workspace. Run `cargo fmt` and `cargo clippy --all-targets` before declaring a change done."]);
    s.prompt("`tidepool predict seattle --days 2` is off by exactly one hour since the clocks changed on Sunday. NOAA says high water is 06:41 PDT and we print 05:41. Can you figure out why?");

    let prompt = "Find where tidepool converts prediction timestamps to local time for a station. I need: the function(s) that do the conversion, where the station's timezone/offset comes from (struct fields + the loader), and any tests that pin local times. Report file paths with line numbers. Do not edit anything.";
    let task = s.call("Task", |o| {
        o.s("description", "Find local-time conversion")
            .s("prompt", prompt)
            .s("subagent_type", "Explore");
    });
    s.step(
        "An exact one-hour error right after a DST transition almost always means something is using a fixed UTC offset instead of a real timezone. I should find where local time is computed. An Explore agent can map this quickly while I keep context small.",
        "An exact one-hour shift right after the DST change smells like a fixed UTC offset somewhere. Let me have an Explore agent map where local times are produced.",
        &[&task],
    );
    run_agent(
        &mut s,
        &task,
        "Explore",
        "Find local-time conversion",
        prompt,
        |l| {
            let g = l.call("Grep", |o| {
                o.s("pattern", "to_zoned|utc_offset|TimeZone")
                    .s("path", TIDEPOOL)
                    .s("output_mode", "files_with_matches");
            });
            l.step("", "", &[&g]);
            l.grep_res(
                &g,
                &[
                    "/Users/mara/code/tidepool/src/predict.rs",
                    "/Users/mara/code/tidepool/src/station.rs",
                    "/Users/mara/code/tidepool/tests/predict.rs",
                ],
            );
            let r = l.call("Read", |o| {
                o.s("file_path", "/Users/mara/code/tidepool/src/predict.rs");
            });
            l.step("", "", &[&r]);
            l.read_res(
                &r,
                "/Users/mara/code/tidepool/src/predict.rs",
                PREDICT_RS,
                1,
            );
            let r2 = l.call("Read", |o| {
                o.s("file_path", "/Users/mara/code/tidepool/src/station.rs")
                    .n("offset", 1)
                    .n("limit", 40);
            });
            l.step("", "", &[&r2]);
            l.read_res(&r2, "/Users/mara/code/tidepool/src/station.rs", "use serde::Deserialize;\n\n#[derive(Debug, Deserialize)]\npub struct StationRecord {\n    pub id: String,\n    pub name: String,\n    /// IANA zone, e.g. \"America/Los_Angeles\".\n    pub tz: String,\n    /// Standard-time offset from the NOAA metadata (hours).\n    pub utc_offset_hours: i8,\n    pub constituents: Vec<ConstituentRecord>,\n}\n", 1);
            Ok("Local time is produced in exactly one place:\n\n- `src/predict.rs:33` — `t.to_zoned(TimeZone::fixed(jiff::tz::offset(offset)))` where `offset = station.utc_offset_hours` (line 21).\n- `src/station.rs:9-10` — `StationRecord` carries BOTH `tz: String` (IANA, e.g. `America/Los_Angeles`) and `utc_offset_hours: i8`, the *standard-time* offset from NOAA metadata. `Station` copies `utc_offset_hours`; `tz` is loaded but never used.\n- `tests/predict.rs` — `seattle_january_highs` pins local times, but only for January (standard time), so the fixed offset passes.\n\nThe conversion ignores DST: during PDT it renders UTC-8 instead of UTC-7, i.e. one hour early.".into())
        },
    )?;

    let read = s.call("Read", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/predict.rs");
    });
    s.step(
        "",
        "That confirms it: `predict` builds a `TimeZone::fixed` from the standard-time offset, so every summer prediction is an hour early. The station already has an IANA `tz` we never use. Let me look at the code before changing it.",
        &[&read],
    );
    s.read_res(
        &read,
        "/Users/mara/code/tidepool/src/predict.rs",
        PREDICT_RS,
        1,
    );

    let old = "                let local = t.to_zoned(TimeZone::fixed(jiff::tz::offset(offset)));";
    let new = "                let local = t.to_zoned(station.tz.clone());";
    let edit = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/predict.rs")
            .s("old_string", old)
            .s("new_string", new)
            .t("replace_all", false);
    });
    s.step(
        "I'll switch to the station's real timezone. `Station` needs a `tz: TimeZone` field resolved once at load time with `TimeZone::get(&record.tz)`, rather than resolving per event. Then the `offset` variable becomes unused and should go.",
        "",
        &[&edit],
    );
    s.track_file("src/predict.rs");
    s.edit_res(
        &edit,
        "/Users/mara/code/tidepool/src/predict.rs",
        old,
        new,
        33,
    );
    let old2 = "    let offset = station.utc_offset_hours;\n";
    let edit2 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/predict.rs")
            .s("old_string", old2)
            .s("new_string", "")
            .t("replace_all", false);
    });
    s.step("", "", &[&edit2]);
    s.edit_res(
        &edit2,
        "/Users/mara/code/tidepool/src/predict.rs",
        old2,
        "",
        21,
    );
    let old3 = "    pub utc_offset_hours: i8,\n    pub constituents: Vec<Constituent>,";
    let new3 = "    pub tz: TimeZone,\n    pub constituents: Vec<Constituent>,";
    let edit3 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/harmonics.rs")
            .s("old_string", old3)
            .s("new_string", new3)
            .t("replace_all", false);
    });
    s.step(
        "",
        "Now give `Station` a resolved `TimeZone` instead of the raw offset.",
        &[&edit3],
    );
    s.track_file("src/harmonics.rs");
    s.edit_res(
        &edit3,
        "/Users/mara/code/tidepool/src/harmonics.rs",
        old3,
        new3,
        12,
    );

    let test = s.call("Bash", |o| {
        o.s("command", "cargo test 2>&1 | tail -n 30")
            .s("description", "Run the test suite");
    });
    s.step("", "", &[&test]);
    s.bash_res(&test, "   Compiling tidepool v0.4.2 (/Users/mara/code/tidepool)\nerror[E0609]: no field `utc_offset_hours` on type `StationRecord`\n  --> src/station.rs:41:33\n   |\n41 |             utc_offset_hours: rec.utc_offset_hours,\n   |                                   ^^^^^^^^^^^^^^^^ unknown field\n\nerror: could not compile `tidepool` (lib) due to 1 previous error", "", 101);

    let old4 = "            utc_offset_hours: rec.utc_offset_hours,";
    let new4 = "            tz: TimeZone::get(&rec.tz)\n                .with_context(|| format!(\"station {}: unknown timezone {:?}\", rec.id, rec.tz))?,";
    let edit4 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/station.rs")
            .s("old_string", old4)
            .s("new_string", new4)
            .t("replace_all", false);
    });
    s.step(
        "The loader still fills the old field. `TimeZone::get` returns a Result, and `load_station` already returns anyhow::Result, so I can attach context with the station id.",
        "The loader still sets the removed field; resolve the IANA zone there instead.",
        &[&edit4],
    );
    s.track_file("src/station.rs");
    s.edit_res(
        &edit4,
        "/Users/mara/code/tidepool/src/station.rs",
        old4,
        new4,
        41,
    );

    let add = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/tests/predict.rs")
            .s("old_string", "#[test]\nfn seattle_january_highs() {")
            .s("new_string", "#[test]\nfn seattle_highs_after_dst_change() {\n    let st = fixtures::seattle();\n    let ev = predict(&st, ts(\"2026-03-09T12:00:00Z\"), ts(\"2026-03-10T12:00:00Z\"), 6);\n    let first_high = ev.iter().find(|e| e.kind == EventKind::High).unwrap();\n    assert_eq!(first_high.at.strftime(\"%H:%M %Z\").to_string(), \"06:41 PDT\");\n}\n\n#[test]\nfn seattle_january_highs() {")
            .t("replace_all", false);
    });
    s.step(
        "",
        "And a regression test pinned to the NOAA value you quoted:",
        &[&add],
    );
    s.track_file("tests/predict.rs");
    s.edit_res(&add, "/Users/mara/code/tidepool/tests/predict.rs", "#[test]\nfn seattle_january_highs() {", "#[test]\nfn seattle_highs_after_dst_change() {\n    ...\n}\n\n#[test]\nfn seattle_january_highs() {", 18);

    let test2 = s.call("Bash", |o| {
        o.s("command", "cargo test 2>&1 | tail -n 15")
            .s("description", "Re-run the tests");
    });
    s.step("", "", &[&test2]);
    s.bash_res(&test2, "running 14 tests\ntest cache::tests::expires_after_ttl ... ok\ntest harmonics::tests::m2_period ... ok\ntest predict::tests::extrema_alternate ... ok\ntest station::tests::rejects_unknown_tz ... ok\ntest seattle_highs_after_dst_change ... ok\ntest seattle_january_highs ... ok\n\ntest result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s", "", 0);
    s.say("Fixed. The bug was in `src/predict.rs`: local times were rendered with `TimeZone::fixed(utc_offset_hours)`, the station's *standard-time* offset, so everything during daylight time came out one hour early.\n\nChanges:\n- `Station` now holds a resolved `jiff::tz::TimeZone` (from the IANA `tz` the NOAA metadata already had) instead of `utc_offset_hours`.\n- `load_station` resolves it once and errors with the station id if the zone is unknown.\n- New regression test `seattle_highs_after_dst_change` expects `06:41 PDT`.\n\nAll 14 tests pass.");
    s.end_turn();

    s.prompt("nice. commit it");
    let commit = s.call("Bash", |o| {
        o.s("command", "git add -A && git commit -m \"predict: render local times in the station's IANA zone\n\nThe fixed standard-time offset made every DST-period prediction one\nhour early. Resolve the zone once when loading the station.\"")
            .s("description", "Commit the DST fix");
    });
    s.step("", "", &[&commit]);
    s.bash_res(&commit, "[fix/dst-offset 3e9b1c4] predict: render local times in the station's IANA zone\n 4 files changed, 17 insertions(+), 6 deletions(-)", "", 0);
    s.say("Committed as `3e9b1c4` on `fix/dst-offset`.");
    s.end_turn();
    s.ai_title("Fix one-hour DST offset in tide predictions");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}

const MAIN_RS: &str = "use clap::{Parser, Subcommand};\n\n#[derive(Parser)]\n#[command(version, about = \"Tide predictions from NOAA harmonic constituents\")]\nstruct Cli {\n    #[command(subcommand)]\n    cmd: Cmd,\n}\n\n#[derive(Subcommand)]\nenum Cmd {\n    /// Predict highs and lows for a station\n    Predict {\n        station: String,\n        #[arg(long, default_value_t = 1)]\n        days: u32,\n    },\n    /// List known stations\n    Stations,\n}\n\nfn main() -> anyhow::Result<()> {\n    let cli = Cli::parse();\n    match cli.cmd {\n        Cmd::Predict { station, days } => tidepool::cmd::predict(&station, days),\n        Cmd::Stations => tidepool::cmd::stations(),\n    }\n}\n";

fn tidepool_json(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        TIDEPOOL,
        MARA,
        "2.1.90",
        "feat/json-output",
        "amber-drifting-comet",
        Some("cargo fmt -- --check"),
    );
    let mut s = Sess::create(projects, id, rng.fork(2), T0 + 86_400_000 + 1_800_000)?;
    s.permission_mode("default");
    s.session_start(&[]);
    s.slash(
        "model",
        "opus",
        "Set model to opus (claude-opus-4-5-20251101)",
    );
    s.prompt("add a --json flag to `tidepool predict` so I can pipe it into jq");
    let read = s.call("Read", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/main.rs");
    });
    s.step("", "", &[&read]);
    s.read_res(&read, "/Users/mara/code/tidepool/src/main.rs", MAIN_RS, 1);
    let q = "How should `--json` shape the output?";
    let opts: &[(&str, &str)] = &[
        ("Array of events (Recommended)", "[{\"time\":\"2026-03-10T06:41:00-07:00\",\"kind\":\"high\",\"height_m\":3.2}, ...] — one object per high/low, easy to filter with jq."),
        ("Object keyed by day", "{\"2026-03-10\": [...], ...} — groups events per local day, matches the text output layout."),
        ("NDJSON", "One JSON object per line; streams well but `jq -s` is needed to slurp."),
    ];
    let ask = s.call("AskUserQuestion", |o| {
        o.a("questions", |a| {
            a.o(|o| {
                o.s("question", q)
                    .s("header", "JSON shape")
                    .a("options", |a| {
                        for (l, d) in opts {
                            a.o(|o| {
                                o.s("label", l).s("description", d);
                            });
                        }
                    });
                o.t("multiSelect", false);
            });
        });
    });
    s.step(
        "There are a few reasonable JSON shapes and the choice affects downstream jq usage, so it's worth asking rather than guessing.",
        "",
        &[&ask],
    );
    s.ask_res(
        &ask,
        &[(q, "JSON shape", opts, "Array of events (Recommended)")],
    );

    let output_rs = "use serde::Serialize;\n\nuse crate::predict::{EventKind, TideEvent};\n\n#[derive(Serialize)]\nstruct JsonEvent<'a> {\n    time: String,\n    kind: &'a str,\n    height_m: f64,\n}\n\n/// Render events as a JSON array (one object per high/low).\npub fn to_json(events: &[TideEvent]) -> serde_json::Result<String> {\n    let rows: Vec<JsonEvent> = events\n        .iter()\n        .map(|e| JsonEvent {\n            time: e.at.timestamp().to_string(),\n            kind: match e.kind {\n                EventKind::High => \"high\",\n                EventKind::Low => \"low\",\n            },\n            height_m: (e.height_m * 100.0).round() / 100.0,\n        })\n        .collect();\n    serde_json::to_string_pretty(&rows)\n}\n";
    let write = s.call("Write", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/output.rs")
            .s("content", output_rs);
    });
    s.step(
        "",
        "Array of events it is. I'll put the serializer in its own module:",
        &[&write],
    );
    s.track_file("src/output.rs");
    s.write_res(&write, "/Users/mara/code/tidepool/src/output.rs", output_rs);
    let old = "        #[arg(long, default_value_t = 1)]\n        days: u32,\n    },";
    let new = "        #[arg(long, default_value_t = 1)]\n        days: u32,\n        /// Print events as a JSON array instead of a table\n        #[arg(long)]\n        json: bool,\n    },";
    let edit = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/main.rs")
            .s("old_string", old)
            .s("new_string", new)
            .t("replace_all", false);
    });
    s.step("", "", &[&edit]);
    s.track_file("src/main.rs");
    s.edit_res(&edit, "/Users/mara/code/tidepool/src/main.rs", old, new, 14);
    let run = s.call("Bash", |o| {
        o.s(
            "command",
            "cargo run -q -- predict seattle --json | jq '.[0]'",
        )
        .s("description", "Try the new flag");
    });
    s.step("", "", &[&run]);
    s.bash_res(
        &run,
        "{\n  \"time\": \"2026-03-10T13:41:00Z\",\n  \"kind\": \"high\",\n  \"height_m\": 3.21\n}",
        "",
        0,
    );
    let old2 = "            time: e.at.timestamp().to_string(),";
    let new2 = "            time: e.at.strftime(\"%Y-%m-%dT%H:%M:%S%:z\").to_string(),";
    let edit2 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/tidepool/src/output.rs")
            .s("old_string", old2)
            .s("new_string", new2)
            .t("replace_all", false);
    });
    s.step(
        "The time is printed as a UTC timestamp. The option description promised an offset-bearing local time (-07:00). I should render the zoned value with its offset instead of `timestamp()`.",
        "That's UTC; the option I described promised local time with an offset. Fixing:",
        &[&edit2],
    );
    s.edit_res(
        &edit2,
        "/Users/mara/code/tidepool/src/output.rs",
        old2,
        new2,
        17,
    );
    let run2 = s.call("Bash", |o| {
        o.s(
            "command",
            "cargo run -q -- predict seattle --json | jq -c '.[:2][]'",
        )
        .s("description", "Check local offsets");
    });
    s.step("", "", &[&run2]);
    s.bash_res(&run2, "{\"time\":\"2026-03-10T06:41:00-07:00\",\"kind\":\"high\",\"height_m\":3.21}\n{\"time\":\"2026-03-10T12:58:00-07:00\",\"kind\":\"low\",\"height_m\":0.44}", "", 0);
    s.say("`tidepool predict <station> --json` now prints an array of `{time, kind, height_m}` objects, with `time` in the station's local offset. The serializer lives in `src/output.rs`; the table output is unchanged when the flag is absent.");
    s.end_turn();
    s.ai_title("Add --json output to predict");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}

fn ledger_recurring(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        LEDGER,
        MARA,
        "2.1.97",
        "feat/recurring",
        "brisk-humming-otter",
        Some("npx prettier --write $CLAUDE_FILE_PATHS"),
    );
    let mut s = Sess::create(projects, id, rng.fork(3), T0 + 2 * 86_400_000)?;
    s.permission_mode("acceptEdits");
    s.session_start(&[
        "ledgerline: TypeScript 5, vitest, pnpm. Money is integer cents everywhere.",
    ]);
    s.prompt("Let's implement recurring transactions. A transaction can have a rule like \"every month on the 1st\" or \"every 2 weeks from 2026-01-05\", and the ledger should materialise occurrences up to a horizon date. Start with the model + schedule expansion, no UI yet.");
    let mut crng = rng.fork(30);
    let files = [
        "src/model/transaction.ts",
        "src/model/ledger.ts",
        "src/import/csv.ts",
        "src/api/routes.ts",
    ];
    for f in files {
        let p = format!("{LEDGER}/{f}");
        let r = s.call("Read", |o| {
            o.s("file_path", &p);
        });
        s.step("", "", &[&r]);
        let size = crng.range(1_200, 5_000) as usize;
        let body = text::code(&mut crng, Lang::Ts, size);
        s.read_res(&r, &p, &body, 1);
    }
    let sched = "import { addDays, addMonths, isAfter } from \"../util/date\";\nimport type { Transaction } from \"../model/transaction\";\n\nexport type Rule =\n  | { kind: \"monthly\"; day: number }\n  | { kind: \"everyNDays\"; n: number; from: string };\n\n/** Expand `tx.rule` into concrete occurrences up to `horizon` (inclusive). */\nexport function expand(tx: Transaction & { rule: Rule }, horizon: string): Transaction[] {\n  const out: Transaction[] = [];\n  let cursor = first(tx.rule, tx.date);\n  while (!isAfter(cursor, horizon)) {\n    out.push({ ...tx, id: `${tx.id}@${cursor}`, date: cursor, recurringOf: tx.id });\n    cursor = next(tx.rule, cursor);\n  }\n  return out;\n}\n\nfunction first(rule: Rule, start: string): string {\n  return rule.kind === \"monthly\" ? clampDay(start, rule.day) : rule.from;\n}\n\nfunction next(rule: Rule, d: string): string {\n  return rule.kind === \"monthly\" ? clampDay(addMonths(d, 1), rule.day) : addDays(d, rule.n);\n}\n";
    let w = s.call("Write", |o| {
        o.s(
            "file_path",
            "/Users/mara/code/ledgerline/src/recurring/schedule.ts",
        )
        .s("content", sched);
    });
    s.step(
        "Transactions are plain objects with integer cents and ISO dates as strings. The schedule module should be pure: given a rule and a horizon, return occurrences. Month-end clamping matters: \"monthly on the 31st\" must land on Feb 28/29.",
        "I have the shape of the model now. Adding a pure `schedule.ts` that expands a rule into occurrences:",
        &[&w],
    );
    s.track_file("src/recurring/schedule.ts");
    s.write_res(
        &w,
        "/Users/mara/code/ledgerline/src/recurring/schedule.ts",
        sched,
    );
    for i in 0..5 {
        let p = format!("{LEDGER}/{}", files[i % 2]);
        let old = format!("  memo?: string;\n  // field {i}");
        let new =
            format!("  memo?: string;\n  rule?: Rule;\n  recurringOf?: string;\n  // field {i}");
        let e = s.call("Edit", |o| {
            o.s("file_path", &p)
                .s("old_string", &old)
                .s("new_string", &new)
                .t("replace_all", false);
        });
        s.step(
            "",
            if i == 0 {
                "Now thread `rule` / `recurringOf` through the model and ledger."
            } else {
                ""
            },
            &[&e],
        );
        s.edit_res(&e, &p, &old, &new, 20 + i * 7);
    }
    let t = s.call("Bash", |o| {
        o.s("command", "pnpm vitest run --reporter=verbose 2>&1")
            .s("description", "Run the full vitest suite");
    });
    s.step(
        "",
        "Running the whole suite, verbose, to see what else touches transactions:",
        &[&t],
    );
    let full = text::test_output(&mut crng, Lang::Ts, 42_000, false);
    s.bash_persisted(&t, &full)?;
    s.say(
        "All 612 tests pass, including the CSV import tests that construct transactions directly.",
    );
    s.end_turn();

    s.prompt("good. also start the watcher in the background so we notice regressions while we keep going");
    let bg = s.call("Bash", |o| {
        o.s(
            "command",
            "pnpm vitest run test/recurring.test.ts --reporter=dot",
        )
        .s("description", "Run recurring tests in background")
        .t("run_in_background", true);
    });
    s.step("", "", &[&bg]);
    let tur = crate::json::render(|o| {
        o.s("stdout", "")
            .s("stderr", "")
            .t("interrupted", false)
            .t("isImage", false)
            .t("noOutputExpected", false)
            .s("backgroundTaskId", "b7f31c2");
    });
    let ack = format!("Command running in background with ID: b7f31c2. Output is being written to: /tmp/claude-501/{}/{}/tasks/b7f31c2.output", s.id.enc, s.id.sid);
    s.result_text(&bg, &ack, Some(false), Some(&tur), (80, 300));
    s.say("Started in the background (task `b7f31c2`). I'll report when it finishes.");
    s.end_turn();
    s.task_notification(
        "b7f31c2",
        &bg.id,
        "Background command \"Run recurring tests in background\" completed (exit code 0)",
        "",
        true,
    );
    s.say("The background run finished: 9 recurring tests, all green.");
    s.end_turn();

    s.prompt("now add month-end clamping tests: monthly on the 31st through Feb in a leap year and a normal year");
    for k in 0..3 {
        let p = format!("{LEDGER}/test/recurring.test.ts");
        let old = format!("describe(\"expand\", () => {{\n  // case {k}");
        let new = format!("describe(\"expand\", () => {{\n  it(\"clamps the 31st in Feb {}\", () => {{\n    const occ = expand(tx({{ kind: \"monthly\", day: 31 }}, \"{}-01-31\"), \"{}-03-31\");\n    expect(occ.map((o) => o.date)).toEqual([\"{}-01-31\", \"{}-02-{}\", \"{}-03-31\"]);\n  }});\n  // case {k}", 2027 + k, 2027 + k, 2027 + k, 2027 + k, 2027 + k, if k == 1 { 29 } else { 28 }, 2027 + k);
        let e = s.call("Edit", |o| {
            o.s("file_path", &p)
                .s("old_string", &old)
                .s("new_string", &new)
                .t("replace_all", false);
        });
        s.step("", "", &[&e]);
        s.track_file("test/recurring.test.ts");
        s.edit_res(&e, &p, &old, &new, 12 + k * 6);
    }
    let t2 = s.call("Bash", |o| {
        o.s("command", "pnpm vitest run test/recurring.test.ts")
            .s("description", "Run recurring tests");
    });
    s.step("", "", &[&t2]);
    s.bash_res(&t2, " ✓ test/recurring.test.ts (12 tests) 18ms\n\n Test Files  1 passed (1)\n      Tests  12 passed (12)", "", 0);
    s.say("Added three clamping cases (2027, 2028 leap year, 2029); all 12 recurring tests pass.");
    s.end_turn();

    let summary = "Summary:\n1. Primary Request and Intent:\n   Implement recurring transactions in ledgerline: a rule (\"monthly\" on a day, or \"everyNDays\" from a start date) on a Transaction, expanded into concrete occurrences up to a horizon date. Model and schedule expansion only, no UI.\n\n2. Key Technical Concepts:\n   - Money is integer cents; dates are ISO strings (YYYY-MM-DD)\n   - Pure expansion function; occurrence ids are `${tx.id}@${date}` with `recurringOf` back-pointer\n   - Month-end clamping (31st -> Feb 28/29)\n\n3. Files and Code Sections:\n   - src/recurring/schedule.ts (new): `expand(tx, horizon)`, `first`, `next`, uses `clampDay`\n   - src/model/transaction.ts, src/model/ledger.ts: added optional `rule` and `recurringOf`\n   - test/recurring.test.ts: clamping tests for 2027, 2028 (leap), 2029\n\n4. Errors and fixes:\n   - none so far; full suite green (612 tests)\n\n5. Pending Tasks:\n   - Materialise occurrences in Ledger.balanceAt()\n   - Decide how edits to a recurring parent propagate to already-materialised occurrences\n\n6. Current Work:\n   Clamping tests just passed; next step is wiring expansion into the ledger balance.";
    let lane_summary = format!("<analysis>\nThe user asked for recurring transactions. I read the model, wrote schedule.ts, threaded the new fields through, ran the suite (persisted output), started a background run, then added clamping tests.\n</analysis>\n\n<summary>\n{summary}\n</summary>");
    compaction(
        &mut s,
        &[
            "Let's implement recurring transactions. A transaction can have a rule like \"every month on the 1st\" or \"every 2 weeks from 2026-01-05\", and the ledger should materialise occurrences up to a horizon date. Start with the model + schedule expansion, no UI yet.",
            "I have the shape of the model now. Adding a pure `schedule.ts` that expands a rule into occurrences.",
            "Added three clamping cases (2027, 2028 leap year, 2029); all 12 recurring tests pass.",
        ],
        &lane_summary,
        summary,
        true,
    )?;
    let r = s.call("Read", |o| {
        o.s(
            "file_path",
            "/Users/mara/code/ledgerline/src/model/ledger.ts",
        )
        .n("offset", 40)
        .n("limit", 60);
    });
    s.step(
        "",
        "Picking up with the ledger wiring: `balanceAt` needs to include expanded occurrences.",
        &[&r],
    );
    let body = text::code(&mut crng, Lang::Ts, 2_400);
    s.read_res(
        &r,
        "/Users/mara/code/ledgerline/src/model/ledger.ts",
        &body,
        40,
    );
    let old = "    const txs = this.transactions.filter((t) => t.date <= date);";
    let new = "    const txs = this.transactions\n      .flatMap((t) => (t.rule ? expand(t as Transaction & { rule: Rule }, date) : [t]))\n      .filter((t) => t.date <= date);";
    let e = s.call("Edit", |o| {
        o.s(
            "file_path",
            "/Users/mara/code/ledgerline/src/model/ledger.ts",
        )
        .s("old_string", old)
        .s("new_string", new)
        .t("replace_all", false);
    });
    s.step("", "", &[&e]);
    s.edit_res(
        &e,
        "/Users/mara/code/ledgerline/src/model/ledger.ts",
        old,
        new,
        52,
    );
    let t3 = s.call("Bash", |o| {
        o.s("command", "pnpm vitest run 2>&1 | tail -n 5")
            .s("description", "Run the suite");
    });
    s.step("", "", &[&t3]);
    s.bash_res(&t3, " Test Files  48 passed (48)\n      Tests  624 passed (624)\n   Start at  15:02:11\n   Duration  4.81s", "", 0);
    s.say("`Ledger.balanceAt(date)` now expands recurring transactions up to `date` before summing. 624 tests pass. Remaining open question from earlier: how edits to a recurring parent should affect occurrences that were already materialised — worth deciding before the UI work.");
    s.end_turn();
    s.ai_title("Implement recurring transactions");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}

fn ledger_bom(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        LEDGER,
        MARA,
        "2.1.97",
        "fix/csv-bom",
        "quiet-rolling-maple",
        Some("npx prettier --write $CLAUDE_FILE_PATHS"),
    );
    let mut s = Sess::create(projects, id, rng.fork(4), T0 + 3 * 86_400_000 + 600_000)?;
    s.permission_mode("default");
    s.session_start(&[]);
    s.prompt("CSV import fails on exports from my bank: \"unknown column: \u{feff}Date\". The file opens fine in Numbers.");
    let csv_ts = "import { parse } from \"csv-parse/sync\";\nimport type { Transaction } from \"../model/transaction\";\n\nconst REQUIRED = [\"Date\", \"Amount\", \"Description\"] as const;\n\nexport function importCsv(text: string): Transaction[] {\n  const rows: Record<string, string>[] = parse(text, { columns: true, skip_empty_lines: true });\n  const header = Object.keys(rows[0] ?? {});\n  for (const col of header) {\n    if (!KNOWN.has(col)) throw new Error(`unknown column: ${col}`);\n  }\n  return rows.map(toTransaction);\n}\n";
    let r = s.call("Read", |o| {
        o.s("file_path", "/Users/mara/code/ledgerline/src/import/csv.ts");
    });
    s.step("The \\ufeff prefix is a UTF-8 byte order mark. The header check sees it as part of the first column name.", "That's a UTF-8 byte-order mark glued to the first header. Let me look at the importer.", &[&r]);
    s.read_res(
        &r,
        "/Users/mara/code/ledgerline/src/import/csv.ts",
        csv_ts,
        1,
    );
    let bad_old = "  const rows = parse(text, { columns: true });";
    let e = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/ledgerline/src/import/csv.ts")
            .s("old_string", bad_old)
            .s(
                "new_string",
                "  const rows = parse(text, { columns: true, bom: true });",
            )
            .t("replace_all", false);
    });
    s.step("", "csv-parse has a `bom` option for exactly this.", &[&e]);
    s.err_res(&e, "String to replace not found in file.\nString:   const rows = parse(text, { columns: true });");
    let old = "  const rows: Record<string, string>[] = parse(text, { columns: true, skip_empty_lines: true });";
    let new = "  const rows: Record<string, string>[] = parse(text, { columns: true, skip_empty_lines: true, bom: true });";
    let e2 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/ledgerline/src/import/csv.ts")
            .s("old_string", old)
            .s("new_string", new)
            .t("replace_all", false);
    });
    s.step("I abbreviated the line from memory; the real call has a type annotation and skip_empty_lines. Use the exact text.", "", &[&e2]);
    s.track_file("src/import/csv.ts");
    s.edit_res(
        &e2,
        "/Users/mara/code/ledgerline/src/import/csv.ts",
        old,
        new,
        7,
    );
    let w = s.call("Write", |o| {
        o.s(
            "file_path",
            "/Users/mara/code/ledgerline/test/fixtures/bom.csv",
        )
        .s(
            "content",
            "\u{feff}Date,Amount,Description\n2026-02-01,-1250,Coffee beans\n",
        );
    });
    s.step(
        "",
        "Adding a fixture with a BOM so this stays fixed:",
        &[&w],
    );
    s.reject(&w);
    s.prompt("wait, we already have a stripBom() helper in src/util/text.ts — use that instead of the csv-parse option so the JSON importer gets the same treatment");
    let g = s.call("Grep", |o| {
        o.s("pattern", "stripBom")
            .s("path", "/Users/mara/code/ledgerline/src")
            .s("output_mode", "files_with_matches");
    });
    s.step("", "Good call — one helper for both importers.", &[&g]);
    s.grep_res(
        &g,
        &[
            "/Users/mara/code/ledgerline/src/util/text.ts",
            "/Users/mara/code/ledgerline/src/import/json.ts",
        ],
    );
    let e3 = s.call("Edit", |o| {
        o.s("file_path", "/Users/mara/code/ledgerline/src/import/csv.ts").s("old_string", new).s("new_string", "  const rows: Record<string, string>[] = parse(stripBom(text), { columns: true, skip_empty_lines: true });").t("replace_all", false);
    });
    s.step("", "", &[&e3]);
    s.edit_res(&e3, "/Users/mara/code/ledgerline/src/import/csv.ts", new, "  const rows: Record<string, string>[] = parse(stripBom(text), { columns: true, skip_empty_lines: true });", 7);
    let t = s.call("Bash", |o| {
        o.s("command", "pnpm vitest run test/csv.test.ts")
            .s("description", "Run CSV import tests");
    });
    s.step("", "", &[&t]);
    s.bash_res(&t, " ✓ test/csv.test.ts (7 tests) 11ms\n\n Test Files  1 passed (1)\n      Tests  7 passed (7)", "", 0);
    s.say("Switched to the existing `stripBom()` helper (the same one the JSON importer uses) instead of the csv-parse option. CSV tests pass. I didn't create the fixture file since you interrupted that step — want me to add it?");
    s.end_turn();
    s.ai_title("Fix BOM handling in CSV import");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}

const SYNC_PY: &str = "from __future__ import annotations\n\nfrom pathlib import Path\n\nfrom hanami.markdown import parse_headings\nfrom hanami.store import Store\n\n\ndef sync_dir(root: Path, store: Store) -> int:\n    \"\"\"Push every note under root to the store; return how many changed.\"\"\"\n    changed = 0\n    for path in sorted(root.rglob(\"*.md\")):\n        with open(path) as fh:\n            text = fh.read()\n        headings = parse_headings(text)\n        if store.put(path.relative_to(root).as_posix(), text, headings):\n            changed += 1\n    return changed\n";

fn hanami_cjk(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        HANAMI,
        "/Users/kenji",
        "2.1.81",
        "sync-encoding",
        "lucid-drifting-heron",
        None,
    );
    let mut s = Sess::create(projects, id, rng.fork(5), T0 + 4 * 86_400_000 + 7_200_000)?;
    s.permission_mode("default");
    s.session_start(&[]);
    s.prompt_blocks("このスクリーンショットを見てください。Windows で同期したあと、ノートの見出しが「縺薙ｓ縺ｫ縺。縺ｯ」みたいに文字化けしています。macOS では問題ありません。原因を調べてもらえますか？", PNG_B64);
    let r = s.call("Read", |o| {
        o.s("file_path", "/Users/kenji/dev/hanami-notes/hanami/sync.py");
    });
    s.step(
        "The garbling pattern 縺薙ｓ縺ｫ縺。縺ｯ is classic UTF-8 bytes decoded as cp932 (Shift_JIS). On Windows, open() without an encoding uses the locale encoding (cp932 on Japanese Windows), whereas macOS defaults to UTF-8. Let me check how files are opened.",
        "「縺薙ｓ縺ｫ縺。縺ｯ」は UTF-8 のバイト列を cp932（Shift_JIS）として読んだときの典型的な文字化けです。ファイルの開き方を確認します。",
        &[&r],
    );
    s.read_res(
        &r,
        "/Users/kenji/dev/hanami-notes/hanami/sync.py",
        SYNC_PY,
        1,
    );
    let old = "        with open(path) as fh:";
    let new = "        with open(path, encoding=\"utf-8\") as fh:";
    let e = s.call("Edit", |o| {
        o.s("file_path", "/Users/kenji/dev/hanami-notes/hanami/sync.py")
            .s("old_string", old)
            .s("new_string", new)
            .t("replace_all", false);
    });
    s.step("", "原因はこれです。`open(path)` にエンコーディングの指定がないため、Windows ではロケールの既定（cp932）で読み込まれます。UTF-8 を明示します。", &[&e]);
    s.track_file("hanami/sync.py");
    s.edit_res(
        &e,
        "/Users/kenji/dev/hanami-notes/hanami/sync.py",
        old,
        new,
        13,
    );
    let g = s.call("Grep", |o| {
        o.s("pattern", "open\\((?![^)]*encoding)")
            .s("path", "/Users/kenji/dev/hanami-notes/hanami")
            .s("output_mode", "files_with_matches");
    });
    s.step("", "他にも同じ書き方がないか探します。", &[&g]);
    s.grep_res(&g, &["/Users/kenji/dev/hanami-notes/hanami/store.py"]);
    let old2 = "    with open(self.index_path, \"w\") as fh:";
    let new2 = "    with open(self.index_path, \"w\", encoding=\"utf-8\") as fh:";
    let e2 = s.call("Edit", |o| {
        o.s("file_path", "/Users/kenji/dev/hanami-notes/hanami/store.py")
            .s("old_string", old2)
            .s("new_string", new2)
            .t("replace_all", false);
    });
    s.step("", "", &[&e2]);
    s.track_file("hanami/store.py");
    s.edit_res(
        &e2,
        "/Users/kenji/dev/hanami-notes/hanami/store.py",
        old2,
        new2,
        41,
    );
    let t = s.call("Bash", |o| {
        o.s(
            "command",
            "PYTHONWARNDEFAULTENCODING=1 python -m pytest -q -W error::EncodingWarning",
        )
        .s("description", "Run tests, failing on implicit encodings");
    });
    s.step("", "`EncodingWarning` をエラー扱いにしてテストを実行し、暗黙のエンコーディングが残っていないことを確認します。", &[&t]);
    s.bash_res(&t, "............................                                    [100%]\n28 passed in 0.94s", "", 0);
    s.say("修正しました。\n\n**原因**：`hanami/sync.py` と `hanami/store.py` で `open()` にエンコーディングを指定していなかったため、日本語版 Windows ではロケール既定の cp932 で読み書きされ、UTF-8 の見出しが文字化けしていました。\n\n**変更点**：\n- `sync.py` の読み込みと `store.py` のインデックス書き込みに `encoding=\"utf-8\"` を追加\n- `PYTHONWARNDEFAULTENCODING=1` と `-W error::EncodingWarning` で全 28 テストが通ることを確認\n\nすでに文字化けした状態で保存されたインデックスは、`hanami reindex` で作り直してください。");
    s.end_turn();
    s.prompt("ありがとう！CI でも同じチェックをしたいです。");
    let old3 = "      - run: python -m pytest -q";
    let new3 = "      - run: python -m pytest -q -W error::EncodingWarning\n        env:\n          PYTHONWARNDEFAULTENCODING: \"1\"";
    let e3 = s.call("Edit", |o| {
        o.s(
            "file_path",
            "/Users/kenji/dev/hanami-notes/.github/workflows/ci.yml",
        )
        .s("old_string", old3)
        .s("new_string", new3)
        .t("replace_all", false);
    });
    s.step("", "", &[&e3]);
    s.edit_res(
        &e3,
        "/Users/kenji/dev/hanami-notes/.github/workflows/ci.yml",
        old3,
        new3,
        22,
    );
    s.say("CI のテストステップに同じ設定を追加しました。今後、エンコーディング未指定の `open()` が入ると CI が失敗します。");
    s.end_turn();
    s.ai_title("Windows での見出し文字化けを修正");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}

fn docs_site(projects: &Path, rng: &mut Rng) -> Result<()> {
    let id = ident(
        rng,
        DOCS,
        MARA,
        "2.1.97",
        "docs-site",
        "brisk-drifting-otter",
        Some("~/.claude/hooks/format.sh"),
    );
    let mut s = Sess::create(projects, id, rng.fork(6), T0 + 5 * 86_400_000)?;
    s.permission_mode("default");
    s.session_start(&[]);
    s.prompt("write a docs page for the stations subcommand, based on what the code actually does");
    let g = s.call("Grep", |o| {
        o.s("pattern", "fn stations")
            .s("path", DOCS)
            .s("output_mode", "content")
            .s("-n", "true");
    });
    s.step("", "", &[&g]);
    let tur = crate::json::render(|o| {
        o.s("mode", "content")
            .n("numFiles", 1)
            .a("filenames", |_| {})
            .s(
                "content",
                "src/cmd.rs:88:pub fn stations() -> anyhow::Result<()> {",
            )
            .n("numLines", 1);
    });
    s.result_text(
        &g,
        "src/cmd.rs:88:pub fn stations() -> anyhow::Result<()> {",
        None,
        Some(&tur),
        (40, 300),
    );
    let page = "# `tidepool stations`\n\nLists every station in the bundled NOAA catalogue.\n\n```console\n$ tidepool stations | head -3\n9447130  Seattle, WA          America/Los_Angeles\n9414290  San Francisco, CA    America/Los_Angeles\n8518750  The Battery, NY      America/New_York\n```\n\nColumns: NOAA station id, display name, IANA timezone used for local times.\n";
    let w = s.call("Write", |o| {
        o.s(
            "file_path",
            "/Users/mara/code/tidepool/.worktrees/docs-site/docs/stations.md",
        )
        .s("content", page);
    });
    s.step("", "", &[&w]);
    s.track_file("docs/stations.md");
    s.write_res(
        &w,
        "/Users/mara/code/tidepool/.worktrees/docs-site/docs/stations.md",
        page,
    );
    let b = s.call("Bash", |o| {
        o.s("command", "mkdocs build --strict")
            .s("description", "Build docs strictly")
            .t("run_in_background", true);
    });
    s.step(
        "",
        "Building the site in the background to catch broken links:",
        &[&b],
    );
    let tur = crate::json::render(|o| {
        o.s("stdout", "")
            .s("stderr", "")
            .t("interrupted", false)
            .t("isImage", false)
            .t("noOutputExpected", false)
            .s("backgroundTaskId", "b2a90e1");
    });
    let ack = format!("Command running in background with ID: b2a90e1. Output is being written to: /tmp/claude-501/{}/{}/tasks/b2a90e1.output", s.id.enc, s.id.sid);
    s.result_text(&b, &ack, Some(false), Some(&tur), (60, 200));
    s.end_turn();
    s.task_notification(
        "b2a90e1",
        &b.id,
        "Background command \"Build docs strictly\" completed (exit code 0)",
        "",
        true,
    );
    s.say("Added `docs/stations.md`; `mkdocs build --strict` passed with no warnings.");
    s.end_turn();
    s.prompt("can you also regenerate the CLI reference page?");
    s.say("Sure — I'll run `cargo run -- --help` for each subcommand and rebuild `docs/cli.md` from the output, keeping the hand-written intro paragraph at the top.");
    s.interrupt();
    s.prompt("never mind, CI generates that one. we're done here");
    s.say("Got it — leaving `docs/cli.md` to CI. The stations page is the only change on this branch.");
    s.end_turn();
    s.ai_title("Docs page for stations subcommand");
    s.last_prompt_line();
    s.finish()?;
    Ok(())
}
