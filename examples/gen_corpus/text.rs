//! Content pools for the procedural (bench / many-small) sessions.

use crate::json::Rng;

pub struct Proj {
    pub cwd: &'static str,
    pub home: &'static str,
    pub lang: Lang,
    pub branches: &'static [&'static str],
    pub files: &'static [&'static str],
}

#[derive(Clone, Copy)]
pub enum Lang {
    Rust,
    Ts,
    Py,
    Go,
}

pub const PROJECTS: &[Proj] = &[
    Proj {
        cwd: "/Users/mara/code/tidepool",
        home: "/Users/mara",
        lang: Lang::Rust,
        branches: &["main", "fix/harmonics-phase", "feat/json-output"],
        files: &[
            "src/main.rs",
            "src/predict.rs",
            "src/station.rs",
            "src/harmonics.rs",
            "src/cache.rs",
            "src/output.rs",
            "tests/predict.rs",
        ],
    },
    Proj {
        cwd: "/Users/mara/code/ledgerline",
        home: "/Users/mara",
        lang: Lang::Ts,
        branches: &["main", "feat/recurring", "fix/csv-bom"],
        files: &[
            "src/import/csv.ts",
            "src/model/transaction.ts",
            "src/recurring/schedule.ts",
            "src/api/routes.ts",
            "src/ui/LedgerTable.tsx",
            "test/csv.test.ts",
        ],
    },
    Proj {
        cwd: "/Users/kenji/dev/hanami-notes",
        home: "/Users/kenji",
        lang: Lang::Py,
        branches: &["main", "sync-encoding"],
        files: &[
            "hanami/sync.py",
            "hanami/markdown.py",
            "hanami/store.py",
            "hanami/cli.py",
            "tests/test_sync.py",
        ],
    },
    Proj {
        cwd: "/home/ops/src/relay-gateway",
        home: "/home/ops",
        lang: Lang::Go,
        branches: &["main", "retry-budget", "otel-spans"],
        files: &[
            "internal/proxy/handler.go",
            "internal/proxy/retry.go",
            "internal/config/config.go",
            "cmd/relay/main.go",
            "internal/proxy/retry_test.go",
        ],
    },
    Proj {
        cwd: "/Users/mara/code/tidepool/.worktrees/docs-site",
        home: "/Users/mara",
        lang: Lang::Rust,
        branches: &["docs-site"],
        files: &[
            "docs/index.md",
            "docs/stations.md",
            "src/main.rs",
            "mkdocs.yml",
        ],
    },
    Proj {
        cwd: "/Users/priya/work/orchard_api",
        home: "/Users/priya",
        lang: Lang::Py,
        branches: &["main", "feature/harvest-export"],
        files: &[
            "orchard/api/views.py",
            "orchard/models.py",
            "orchard/export.py",
            "tests/test_export.py",
        ],
    },
];

pub const PROMPTS: &[&str] = &[
    "the tests in {file} are flaky on CI, can you look into it?",
    "can you refactor {file} so the parsing and the IO are separated?",
    "add a unit test covering the empty-input case in {file}",
    "why does `{fn_name}` allocate so much? profile says it's hot",
    "rename `{fn_name}` to something clearer and update the call sites",
    "I'm seeing a panic in {file} when the config file is missing. fix it please",
    "review the diff on this branch and tell me if anything looks risky",
    "add structured logging around the retry loop",
    "make the error messages in {file} actionable, include the path that failed",
    "run the full test suite and fix whatever is broken",
    "can you explain how {fn_name} works? I didn't write it",
    "bump the dependency versions and make sure everything still builds",
    "the CLI help text is out of date, update it to match the flags we actually have",
    "add a --dry-run flag that prints what would change without writing",
    "this function is 200 lines long, split it up",
    "write a short doc comment for every public item in {file}",
    "ok looks good. commit it with a sensible message",
    "let's also handle the case where the timestamp has no timezone",
    "can you check whether we still need the cache invalidation in {file}?",
    "lint is failing on main, can you fix the warnings",
];

/// Prompts of the sessions held in Japanese or Chinese (multi-byte UTF-8 text
/// for search, windows and truncation to cut correctly).
pub const PROMPTS_CJK: &[&str] = &[
    "{file} のテストが CI で不安定です。原因を調べてもらえますか？",
    "`{fn_name}` のエラーメッセージをもっと分かりやすくしてください。失敗したパスも含めて。",
    "{file} のパース処理と入出力を分けてリファクタリングしてほしい",
    "空の入力のケースを {file} の単体テストに追加してください",
    "请帮我看一下 {file} 里的 `{fn_name}`，为什么内存占用这么高？",
    "把 {file} 的日志改成结构化日志，并在重试循环里加上上下文",
    "このスクリーンショットのエラーを直してください。Windows だけで起きます。",
    "全部のテストを実行して、壊れているものを直してください",
];

/// End-of-turn summaries for the same sessions.
pub const SAY_CJK: &[&str] = &[
    "修正しました。\n\n- `{fn_name}` は空の入力で早期リターンするようになりました\n- {file} に回帰テストを追加しました\n- エラーメッセージに失敗したパスを含めました",
    "ビルドは通っています。{file} と呼び出し箇所を更新しました。他に変更は必要ありませんでした。",
    "已修复。`{fn_name}` 现在复用缓冲区，{file} 中的分配次数减少了约 80%，所有测试通过。",
    "このテストの失敗は今回の変更とは無関係です（`main` でも失敗します）。そのままにして報告だけします。",
];

pub const THINK: &[&str] = &[
    "The user wants me to look at {file}. Let me read it first to understand the current structure before changing anything.",
    "The failure mentions `{fn_name}`. I should check where it is called from and whether the input can actually be empty there.",
    "I need to be careful not to change the public signature of `{fn_name}` - other modules depend on it. Let me grep for call sites.",
    "The test output shows one failure. The assertion compares the formatted string, so the difference is probably in rounding.",
    "Let me think about the ordering here. The lock is taken in {file} before the cache read, but released after the network call, which could explain the contention.",
    "That edit compiled. Now I should run the focused tests and then the whole suite to make sure nothing else regressed.",
    "Before writing the new module I want to see how errors are reported elsewhere in the project, so the new code matches the existing conventions.",
];

pub const SAY: &[&str] = &[
    "Let me look at {file} first.",
    "I'll check how `{fn_name}` is used across the codebase.",
    "Found it. `{fn_name}` assumes the input is non-empty and indexes into it directly. I'll add an early return.",
    "Now let me run the tests to confirm the fix.",
    "All tests pass. Here's a summary of what changed:\n\n- `{fn_name}` now returns early on empty input instead of panicking\n- Added a regression test in {file}\n- The error message now includes the offending path",
    "The build is clean. I've updated {file} and the call sites; nothing else needed to change.",
    "That test failure is unrelated to this change - it fails on `main` too. I'll leave it alone and mention it.",
    "Done. The refactor keeps behaviour identical; the only visible change is the clearer error text.",
];

pub const TITLES: &[&str] = &[
    "Fix flaky tests in prediction module",
    "Refactor parser and IO separation",
    "Add dry-run flag to CLI",
    "Debug config panic on missing file",
    "Tidy lint warnings and bump deps",
    "Explain retry loop and add logging",
];

const IDENTS: &[&str] = &[
    "station", "offset", "window", "cache", "entry", "record", "buffer", "parser", "config",
    "retry", "budget", "span", "ledger", "amount", "schedule", "note", "heading", "token",
    "cursor", "batch",
];
const VERBS: &[&str] = &[
    "load", "parse", "apply", "resolve", "render", "flush", "fetch", "merge", "split", "validate",
];

pub fn fn_name(rng: &mut Rng) -> String {
    format!("{}_{}", rng.pick(VERBS), rng.pick(IDENTS))
}

/// A base64 PNG payload of about `bytes` bytes (a screenshot pasted into a
/// prompt): the PNG signature, then random base64, padded to a multiple of 4.
pub fn png_b64(rng: &mut Rng, bytes: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::from("iVBORw0KGgoAAAANSUhEUgAA");
    while s.len() < bytes.max(32) {
        let mut v = rng.next();
        for _ in 0..10 {
            s.push(ALPHABET[(v & 63) as usize] as char);
            v >>= 6;
        }
    }
    while s.len() % 4 != 0 {
        s.push('=');
    }
    s
}

pub fn fill(rng: &mut Rng, tpl: &str, file: &str) -> String {
    let f = fn_name(rng);
    tpl.replace("{file}", file).replace("{fn_name}", &f)
}

/// A plausible source file of roughly `bytes` bytes.
pub fn code(rng: &mut Rng, lang: Lang, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 256);
    match lang {
        Lang::Rust => {
            s.push_str("use std::collections::HashMap;\nuse anyhow::{Context, Result};\n\n")
        }
        Lang::Ts => s.push_str(
            "import { z } from \"zod\";\nimport type { Ledger } from \"../model/ledger\";\n\n",
        ),
        Lang::Py => s.push_str(
            "from __future__ import annotations\n\nimport json\nfrom pathlib import Path\n\n",
        ),
        Lang::Go => {
            s.push_str("package proxy\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"time\"\n)\n\n")
        }
    }
    while s.len() < bytes {
        let f = fn_name(rng);
        let a = *rng.pick(IDENTS);
        let b = *rng.pick(IDENTS);
        let n = rng.range(2, 9);
        match lang {
            Lang::Rust => {
                s.push_str(&format!("/// {} the {a} for a {b}.\npub fn {f}({a}: &{}, limit: usize) -> Result<Vec<u32>> {{\n", cap(&f), cap(a)));
                for i in 0..n {
                    s.push_str(&format!("    let {b}_{i} = {a}.{}({i}).with_context(|| format!(\"{b} {i} of {{limit}}\"))?;\n", rng.pick(VERBS)));
                }
                s.push_str(&format!("    Ok(vec![{b}_0])\n}}\n\n"));
            }
            Lang::Ts => {
                s.push_str(&format!(
                    "export function {}({a}: {}, limit = {n}): number[] {{\n",
                    camel(&f),
                    cap(a)
                ));
                for i in 0..n {
                    s.push_str(&format!(
                        "  const {b}{i} = {a}.{}({i}); // {b}\n",
                        rng.pick(VERBS)
                    ));
                }
                s.push_str(&format!("  return [{b}0].slice(0, limit);\n}}\n\n"));
            }
            Lang::Py => {
                s.push_str(&format!("def {f}({a}: dict, limit: int = {n}) -> list[int]:\n    \"\"\"{} the {a} for a {b}.\"\"\"\n", cap(&f)));
                for i in 0..n {
                    s.push_str(&format!("    {b}_{i} = {a}.get(\"{b}\", {i})\n"));
                }
                s.push_str(&format!("    return [{b}_0][:limit]\n\n\n"));
            }
            Lang::Go => {
                s.push_str(&format!(
                    "func {}(ctx context.Context, {a} *{}) ([]int, error) {{\n",
                    cap(&camel(&f)),
                    cap(a)
                ));
                for i in 0..n {
                    s.push_str(&format!("\t{b}{i}, err := {a}.{}(ctx, {i})\n\tif err != nil {{\n\t\treturn nil, fmt.Errorf(\"{b} {i}: %w\", err)\n\t}}\n", cap(rng.pick::<&str>(VERBS))));
                }
                s.push_str(&format!("\treturn []int{{{b}0}}, nil\n}}\n\n"));
            }
        }
    }
    s
}

/// Test-runner / build output of roughly `bytes` bytes.
/// `lines` lines of source as a `Read` result shows it (`cat -n` numbering, a
/// tab, the line): string literals, Windows paths, regexes and escapes, so
/// most lines carry a quote or a backslash and every line a tab: a JSON
/// encoding escapes something on nearly every line.
pub fn source_body(rng: &mut Rng, lines: usize) -> String {
    let mut s = String::with_capacity(lines * 72);
    for n in 1..=lines {
        let f = fn_name(rng);
        let m = *rng.pick(IDENTS);
        let line = match rng.range(0, 5) {
            0 => format!("\t\tlet {f} = \"{m}\\\\{f}.rs\"; // \"{m}\""),
            1 => format!("\tassert_eq!({m}(\"\\\"{f}\\\"\"), r#\"\\d+\\s*\"#);"),
            2 => format!("\t\t\t\"{m}\": {{\"path\": \"C:\\\\Users\\\\{f}\", \"n\": {n}}},"),
            3 => format!("\tprintln!(\"{{}}\\t{{}}\\n\", {m}, {f});"),
            _ => "\t\t}".to_string(),
        };
        s.push_str(&format!("{n:>6}\t{line}\n"));
    }
    s
}

pub fn test_output(rng: &mut Rng, lang: Lang, bytes: usize, fail: bool) -> String {
    let mut s = String::with_capacity(bytes + 256);
    let mut n = 0;
    while s.len() < bytes {
        let f = fn_name(rng);
        let m = *rng.pick(IDENTS);
        match lang {
            Lang::Rust => s.push_str(&format!("test {m}::tests::{f} ... ok\n")),
            Lang::Ts => s.push_str(&format!(
                " \u{2713} test/{m}.test.ts > {f} ({}ms)\n",
                rng.range(1, 90)
            )),
            Lang::Py => s.push_str(&format!(
                "tests/test_{m}.py::test_{f} PASSED{:>30}\n",
                format!("[{:>3}%]", n % 100)
            )),
            Lang::Go => s.push_str(&format!(
                "=== RUN   Test{}\n--- PASS: Test{} (0.{:02}s)\n",
                cap(&camel(&f)),
                cap(&camel(&f)),
                rng.range(0, 99)
            )),
        }
        n += 1;
    }
    s.push_str(&match (lang, fail) {
        (Lang::Rust, false) => format!("\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.42s\n"),
        (Lang::Rust, true) => format!("\nfailures:\n    predict::tests::dst_boundary\n\ntest result: FAILED. {n} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.40s\n"),
        (_, false) => format!("\n{n} passed in 3.12s\n"),
        (_, true) => format!("\n1 failed, {n} passed in 3.40s\n"),
    });
    s
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn camel(s: &str) -> String {
    let mut out = String::new();
    for (i, p) in s.split('_').enumerate() {
        if i == 0 {
            out.push_str(p);
        } else {
            out.push_str(&cap(p));
        }
    }
    out
}
