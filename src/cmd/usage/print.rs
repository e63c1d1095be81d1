//! Printing a usage report: a table (human), JSON Lines (a `row` per group,
//! then the `total`), or CSV; and the pricing table. Names read from
//! transcripts (models, sessions, projects) are sanitised in human and CSV
//! form; JSON is exact (escaped).

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use super::group::{Cell, Report, RowOut, Tot};
use crate::output::sanitize::one_line;
use crate::output::{json_line, Style};
use crate::timefmt;
use crate::tokens::file::FileNotes;
use crate::tokens::pricing::usd;

/// What the total adds beside the rows.
pub(crate) struct Extra {
    pub(crate) notes: FileNotes,
    pub(crate) files: usize,
    pub(crate) errors: usize,
}

fn cost_value(c: Option<u128>) -> Value {
    c.map_or(Value::Null, |c| json!(usd(c)))
}

/// The token and cost fields of a set of messages.
fn fields(t: &Tot) -> Map<String, Value> {
    let v = &t.vals;
    let pairs = [
        ("messages", json!(t.messages)),
        ("input", json!(v.input)),
        ("output", json!(v.output)),
        ("cache_read", json!(v.cache_read)),
        ("cache_write", json!(v.cache_creation)),
        ("cache_write_5m", json!(v.cc_5m)),
        ("cache_write_1h", json!(v.cc_1h)),
        ("thinking", json!(v.thinking)),
        ("total", json!(t.total())),
        ("cost_usd", cost_value(t.cost())),
        ("cost_priced_usd", json!(usd(t.cost))),
        ("unpriced", json!(t.unpriced)),
        ("models", json!(t.models)),
        ("nested_only", json!(t.nested_only)),
    ];
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn cell_fields(c: &Cell, breakdown: bool) -> Map<String, Value> {
    let mut m = fields(&c.tot);
    if breakdown {
        let per: Map<String, Value> = c
            .per_model
            .iter()
            .map(|(k, t)| {
                let mut f = fields(t);
                f.remove("models");
                f.remove("unpriced");
                (k.clone(), Value::Object(f))
            })
            .collect();
        m.insert("per_model".into(), Value::Object(per));
    }
    m
}

fn block_fields(m: &mut Map<String, Value>, r: &RowOut) {
    let Some(b) = r.block else { return };
    let ts = |t| json!(timefmt::utc_exact(t));
    m.insert("start".into(), ts(b.span.start));
    m.insert("end".into(), ts(b.span.end()));
    m.insert("first".into(), ts(b.span.first));
    m.insert("last".into(), ts(b.span.last));
    m.insert("active".into(), json!(b.active.is_some()));
    if let Some(p) = b.active {
        m.insert("elapsed_min".into(), json!(p.elapsed_min));
        m.insert("remaining_min".into(), json!(p.remaining_min));
        m.insert("burn_tokens_per_min".into(), json!(p.tokens_per_min));
        m.insert("projected_total".into(), json!(p.projected_tokens));
        m.insert(
            "projected_cost_usd".into(),
            cost_value(p.projected_cost_pico),
        );
    }
}

pub(crate) fn json<W: Write>(w: &mut W, r: &Report, x: &Extra) -> io::Result<()> {
    let by = r.by.name();
    for row in &r.rows {
        let mut m = Map::new();
        m.insert("type".into(), json!("row"));
        m.insert("by".into(), json!(by));
        m.insert("key".into(), json!(row.key));
        m.extend(cell_fields(&row.cell, r.breakdown));
        block_fields(&mut m, row);
        json_line(w, &Value::Object(m))?;
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("total"));
    m.insert("by".into(), json!(by));
    m.extend(cell_fields(&r.total, r.breakdown));
    let n = &x.notes;
    let mut synthetic = fields(&r.synthetic);
    synthetic.retain(|k, _| ["messages", "total"].contains(&k.as_str()));
    let more = [
        ("rows", json!(r.rows.len())),
        ("unplaced", json!(r.unplaced)),
        ("synthetic", Value::Object(synthetic)),
        ("files", json!(x.files)),
        ("copies", json!(n.copies)),
        ("nested_copies", json!(n.nested_copies)),
        ("zeroed_copies_recovered", json!(n.zeroed_recovered)),
        ("idless", json!(n.idless)),
        ("assistant_without_usage", json!(n.without_usage)),
        ("unreadable_lines", json!(n.unreadable_lines)),
        ("errors", json!(x.errors)),
        ("pricing_checked", json!(r.pricing_checked)),
    ];
    m.extend(more.into_iter().map(|(k, v)| (k.to_string(), v)));
    json_line(w, &Value::Object(m))
}

/// `1,186`.
pub(crate) fn n(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `$12.34`; a cost with unpriced messages shows its priced part and `+?`.
pub(crate) fn dollars(t: &Tot) -> String {
    let d = format!("${:.2}", usd(t.cost));
    if t.unpriced.is_empty() {
        d
    } else {
        format!("{d}+?")
    }
}

/// A model name for a table: without the `claude-` prefix.
fn short(m: &str) -> String {
    one_line(m.strip_prefix("claude-").unwrap_or(m))
}

const HEAD: [&str; 11] = [
    "MSGS",
    "INPUT",
    "OUTPUT",
    "CACHE_READ",
    "CACHE_WRITE",
    "CW_5M",
    "CW_1H",
    "THINKING",
    "TOTAL",
    "COST",
    "MODELS",
];

fn cols(t: &Tot, models: bool) -> [String; 11] {
    let v = &t.vals;
    [
        n(t.messages),
        n(v.input),
        n(v.output),
        n(v.cache_read),
        n(v.cache_creation),
        n(v.cc_5m),
        n(v.cc_1h),
        n(v.thinking),
        n(t.total()),
        dollars(t),
        if models {
            t.models
                .iter()
                .map(|m| short(m))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            String::new()
        },
    ]
}

fn human_key(row: &RowOut) -> String {
    match (&row.key, row.block) {
        (_, Some(b)) => timefmt::local(b.span.start),
        (Some(k), None) => one_line(k),
        (None, None) => "(no time)".into(),
    }
}

pub(crate) fn human<W: Write>(w: &mut W, st: Style, r: &Report, x: &Extra) -> io::Result<()> {
    let mut lines: Vec<(String, [String; 11], bool)> = Vec::new();
    for row in &r.rows {
        lines.push((human_key(row), cols(&row.cell.tot, true), false));
        for (m, t) in &row.cell.per_model {
            lines.push((format!("  {}", short(m)), cols(t, false), true));
        }
    }
    let total = ("TOTAL".to_string(), cols(&r.total.tot, true), false);
    let kw = lines
        .iter()
        .chain([&total])
        .map(|l| l.0.chars().count())
        .max()
        .unwrap_or(0)
        .max(r.by.name().len());
    let mut width = [0usize; 11];
    for (i, h) in HEAD.iter().enumerate() {
        width[i] = lines
            .iter()
            .chain([&total])
            .map(|l| l.1[i].chars().count())
            .max()
            .unwrap_or(0)
            .max(h.len());
    }
    let row = |w: &mut W, key: &str, c: &[String], style: &str| -> io::Result<()> {
        write!(w, "{style}{key:<kw$}")?;
        for i in 0..10 {
            write!(w, "  {:>1$}", c[i], width[i])?;
        }
        writeln!(w, "  {}{}", c[10], st.reset)
    };
    let head: Vec<String> = HEAD.iter().map(|h| h.to_string()).collect();
    row(w, &r.by.name().to_uppercase(), &head, st.head)?;
    for (k, c, sub) in &lines {
        row(w, k, c, if *sub { st.dim } else { "" })?;
    }
    row(w, &total.0, &total.1, st.head)?;
    for row in &r.rows {
        if let Some(p) = row.block.and_then(|b| b.active) {
            let rate = p
                .tokens_per_min
                .map_or("n/a".into(), |v| format!("{} tok/min", n(v.round() as u64)));
            let proj = match (p.projected_tokens, p.projected_cost_pico) {
                (Some(t), Some(c)) => format!("{} tok, ${:.2}", n(t), usd(c)),
                (Some(t), None) => format!("{} tok", n(t)),
                _ => "n/a".into(),
            };
            writeln!(
                w,
                "active block: {} elapsed, {} left · burn {rate} · projected {proj}",
                timefmt::duration(p.elapsed_min * 60),
                timefmt::duration(p.remaining_min * 60),
            )?;
        }
    }
    notes(w, st, r, x)
}

fn notes<W: Write>(w: &mut W, st: Style, r: &Report, x: &Extra) -> io::Result<()> {
    let mut parts = vec![format!(
        "each API message once: {} from {} files",
        n(r.total.tot.messages),
        n(x.files as u64)
    )];
    if r.total.tot.nested_only > 0 {
        parts.push(format!(
            "{} only from agent_progress copies (subagents without a lane file)",
            n(r.total.tot.nested_only)
        ));
    }
    if r.unplaced > 0 {
        parts.push(format!("{} without a time", n(r.unplaced)));
    }
    if r.synthetic.messages > 0 {
        parts.push(format!("{} <synthetic> apart", n(r.synthetic.messages)));
    }
    if !r.total.tot.unpriced.is_empty() {
        let names: Vec<String> = r.total.tot.unpriced.iter().map(|m| one_line(m)).collect();
        parts.push(format!("no price: {} (+?)", names.join(", ")));
    }
    parts.push(format!("prices of {}", r.pricing_checked));
    writeln!(w, "{}{}{}", st.dim, parts.join(" · "), st.reset)
}

/// RFC 4180 field: quoted when it holds a comma, quote or line break.
fn csv_field(s: &str) -> String {
    let s = crate::output::sanitize::clean(s);
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.into_owned()
    }
}

fn csv_line<W: Write>(
    w: &mut W,
    kind: &str,
    by: &str,
    key: &str,
    model: &str,
    t: &Tot,
) -> io::Result<()> {
    let v = &t.vals;
    let cost = t.cost().map_or(String::new(), |c| usd(c).to_string());
    let models: Vec<&str> = t.models.iter().map(String::as_str).collect();
    let nums = [
        t.messages,
        v.input,
        v.output,
        v.cache_read,
        v.cache_creation,
        v.cc_5m,
        v.cc_1h,
        v.thinking,
        t.total(),
    ]
    .map(|x| x.to_string());
    writeln!(
        w,
        "{kind},{by},{},{},{},{cost},{},{}",
        csv_field(key),
        csv_field(model),
        nums.join(","),
        csv_field(&models.join(";")),
        t.nested_only
    )
}

pub(crate) fn csv<W: Write>(w: &mut W, r: &Report) -> io::Result<()> {
    writeln!(
        w,
        "type,by,key,model,messages,input,output,cache_read,cache_write,cache_write_5m,cache_write_1h,thinking,total,cost_usd,models,nested_only"
    )?;
    let by = r.by.name();
    for row in &r.rows {
        let key = row.key.clone().unwrap_or_default();
        csv_line(w, "row", by, &key, "", &row.cell.tot)?;
        for (m, t) in &row.cell.per_model {
            csv_line(w, "row", by, &key, m, t)?;
        }
    }
    csv_line(w, "total", by, "", "", &r.total.tot)?;
    for (m, t) in &r.total.per_model {
        csv_line(w, "total", by, "", m, t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_csv_quoting() {
        assert_eq!(n(0), "0");
        assert_eq!(n(1186), "1,186");
        assert_eq!(n(102_275_288), "102,275,288");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
