//! Prices: a dated table compiled into the binary (`pricing.json`, which names
//! its sources), overridable per model with `--pricing FILE` of the same
//! shape. A price is per million tokens for input, output, cache reads, and
//! 5-minute and 1-hour cache writes, with a long-context tier where a model
//! bills a long request at other rates. An entry may start `from` a date (a
//! price change); a message is priced at the entry in force on its day.
//!
//! Costs are summed in integer picodollars (a price keeps six decimals of a
//! dollar per million tokens), so a total is the same whatever order its
//! messages are added in. A model the table does not know is never priced at
//! zero: its cost is `None`.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::Vals;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Rates {
    pub(crate) input: f64,
    pub(crate) output: f64,
    pub(crate) cache_read: f64,
    pub(crate) cache_write_5m: f64,
    pub(crate) cache_write_1h: f64,
}

/// Rates for a request whose prompt (input + cache reads + cache writes)
/// exceeds `above` tokens: all its tokens are billed at them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct LongContext {
    pub(crate) above: u64,
    #[serde(flatten)]
    pub(crate) rates: Rates,
}

/// One entry of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Price {
    pub(crate) model: String,
    /// In force from this UTC day (`YYYY-MM-DD`); absent: always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    #[serde(flatten)]
    pub(crate) rates: Rates,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) long_context: Option<LongContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
    /// Where the entry came from: `compiled`, or the `--pricing` file.
    #[serde(default = "compiled")]
    pub(crate) origin: String,
}

fn compiled() -> String {
    "compiled".to_string()
}

/// The pricing table in use.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Table {
    pub(crate) checked: String,
    #[serde(default)]
    pub(crate) unit: String,
    #[serde(default)]
    pub(crate) source: String,
    pub(crate) models: Vec<Price>,
}

/// Picodollars per token for each kind, in the order of [`Rates`].
type Pico = [u128; 5];

/// An entry ready to price with.
#[derive(Debug, Clone)]
struct Entry {
    from: Option<Timestamp>,
    base: Pico,
    long: Option<(u64, Pico)>,
}

/// A table indexed for pricing.
#[derive(Debug, Clone)]
pub(crate) struct Pricer {
    pub(crate) table: Table,
    by_model: BTreeMap<String, Vec<Entry>>,
}

const COMPILED: &str = include_str!("pricing.json");

fn pico(r: &Rates) -> Pico {
    [
        r.input,
        r.output,
        r.cache_read,
        r.cache_write_5m,
        r.cache_write_1h,
    ]
    .map(|v| (v * 1e6).round() as u128)
}

fn check_rates(what: &str, r: &Rates) -> Result<(), String> {
    let all = [
        r.input,
        r.output,
        r.cache_read,
        r.cache_write_5m,
        r.cache_write_1h,
    ];
    if all.iter().all(|v| v.is_finite() && *v >= 0.0 && *v < 1e9) {
        Ok(())
    } else {
        Err(format!("{what}: every rate must be a number from 0 up"))
    }
}

impl Pricer {
    /// The table compiled into csift.
    pub(crate) fn compiled() -> Pricer {
        // The compiled table is tested to parse; an empty table is the
        // fail-safe (every model unpriced, never priced at zero).
        serde_json::from_str::<Table>(COMPILED)
            .ok()
            .and_then(|t| Pricer::new(t).ok())
            .unwrap_or_else(|| Pricer {
                table: Table {
                    checked: String::new(),
                    unit: String::new(),
                    source: String::new(),
                    models: Vec::new(),
                },
                by_model: BTreeMap::new(),
            })
    }

    /// Index a table, checking every entry.
    pub(crate) fn new(table: Table) -> Result<Pricer, String> {
        let mut by_model: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
        for p in &table.models {
            let what = format!("model {:?}", p.model);
            if p.model.is_empty() {
                return Err("a model entry has an empty name".into());
            }
            check_rates(&what, &p.rates)?;
            let long = match &p.long_context {
                Some(l) => {
                    check_rates(&format!("{what} long_context"), &l.rates)?;
                    Some((l.above, pico(&l.rates)))
                }
                None => None,
            };
            let from = match &p.from {
                None => None,
                Some(d) => Some(
                    d.parse::<jiff::civil::Date>()
                        .ok()
                        .and_then(|d| d.to_zoned(jiff::tz::TimeZone::UTC).ok())
                        .map(|z| z.timestamp())
                        .ok_or_else(|| {
                            format!("{what}: `from` {d:?} is not a date (YYYY-MM-DD)")
                        })?,
                ),
            };
            let list = by_model.entry(p.model.clone()).or_default();
            if list.iter().any(|e| e.from == from) {
                return Err(format!("{what} is listed twice for one `from`"));
            }
            list.push(Entry {
                from,
                base: pico(&p.rates),
                long,
            });
        }
        for list in by_model.values_mut() {
            list.sort_by_key(|e| e.from);
        }
        Ok(Pricer { table, by_model })
    }

    /// `--pricing FILE`'s table ([`Pricer::with_file`]), else the compiled one.
    pub(crate) fn load(file: Option<&std::path::Path>) -> Result<Pricer, String> {
        match file {
            Some(p) => Pricer::with_file(p),
            None => Ok(Pricer::compiled()),
        }
    }

    /// The compiled table with the entries of `file` (same shape) in place
    /// of the compiled ones of the same models.
    pub(crate) fn with_file(path: &std::path::Path) -> Result<Pricer, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read pricing file {}: {e}", path.display()))?;
        let mut over: Table = serde_json::from_str(&text)
            .map_err(|e| format!("pricing file {}: {e}", path.display()))?;
        let mut t = Pricer::compiled().table;
        let origin = path.display().to_string();
        for p in &mut over.models {
            p.origin = origin.clone();
        }
        t.models
            .retain(|p| !over.models.iter().any(|o| o.model == p.model));
        t.models.extend(over.models);
        Pricer::new(t).map_err(|e| format!("pricing file {}: {e}", path.display()))
    }

    /// The entries for `model` under the names it may be written as: as is,
    /// then without a `[1m]`-style suffix, an `@date` or a `-YYYYMMDD` date.
    fn entries(&self, model: &str) -> Option<&[Entry]> {
        let mut name = model.trim();
        if let Some(e) = self.by_model.get(name) {
            return Some(e);
        }
        if let Some(i) = name.find('[') {
            name = &name[..i];
        }
        if let Some(i) = name.find('@') {
            name = &name[..i];
        }
        for suffix in ["-latest", "-v1:0"] {
            name = name.strip_suffix(suffix).unwrap_or(name);
        }
        if let Some((base, date)) = name.rsplit_once('-') {
            if date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()) {
                name = base;
            }
        }
        self.by_model.get(name).map(Vec::as_slice)
    }

    /// Whether `model` has a price.
    #[cfg(test)]
    pub(crate) fn knows(&self, model: &str) -> bool {
        self.entries(model).is_some()
    }

    /// The cost of one message in picodollars, `None` when its model has no
    /// price (see [`ModelPrices::cost`]).
    #[cfg(test)]
    pub(crate) fn cost(&self, model: &str, at: Option<Timestamp>, v: &Vals) -> Option<u128> {
        self.model(model)?.cost(at, v)
    }

    /// The prices of `model`, looked up once for many messages.
    pub(crate) fn model(&self, model: &str) -> Option<ModelPrices<'_>> {
        self.entries(model).map(ModelPrices)
    }
}

/// One model's entries in the table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelPrices<'a>(&'a [Entry]);

impl ModelPrices<'_> {
    /// The cost of one message in picodollars, at the entry in force on its
    /// day. Cache writes split 5m/1h as recorded: the 1h part (at most the
    /// whole write) at the 1h rate, the rest at the 5m rate (REC-098: the
    /// nested split may not sum to the flat count).
    pub(crate) fn cost(&self, at: Option<Timestamp>, v: &Vals) -> Option<u128> {
        let list = self.0;
        let e = match at {
            Some(t) => list
                .iter()
                .rev()
                .find(|e| e.from.is_none_or(|f| f <= t))
                .or(list.first())?,
            None => list.last()?,
        };
        let prompt = v
            .input
            .saturating_add(v.cache_read)
            .saturating_add(v.cache_creation);
        let r = match e.long {
            Some((above, long)) if prompt > above => long,
            _ => e.base,
        };
        let w1h = v.cc_1h.min(v.cache_creation);
        let w5m = v.cache_creation - w1h;
        let n = [v.input, v.output, v.cache_read, w5m, w1h];
        Some(n.iter().zip(r).map(|(n, p)| u128::from(*n) * p).sum())
    }
}

/// Picodollars as dollars.
pub(crate) fn usd(pico: u128) -> f64 {
    pico as f64 / 1e12
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(input: u64, output: u64, cache_read: u64, cw: u64, cc_1h: u64) -> Vals {
        Vals {
            input,
            output,
            cache_read,
            cache_creation: cw,
            cc_1h,
            cc_5m: cw.saturating_sub(cc_1h),
            ..Vals::default()
        }
    }

    #[test]
    fn the_compiled_table_parses_and_is_dated() {
        let p = Pricer::compiled();
        assert!(p.table.models.len() > 20);
        assert!(p.table.checked.parse::<jiff::civil::Date>().is_ok());
        assert!(p.table.source.contains("platform.claude.com"));
        assert!(serde_json::from_str::<Table>(COMPILED).is_ok());
        assert!(Pricer::new(serde_json::from_str(COMPILED).unwrap()).is_ok());
    }

    #[test]
    fn model_names_resolve_with_dates_and_suffixes() {
        let p = Pricer::compiled();
        for m in [
            "claude-opus-4-5-20251101",
            "claude-opus-4-6",
            "claude-sonnet-4-20250514",
            "claude-haiku-4-5-20251001",
            "claude-sonnet-4-5[1m]",
            "claude-opus-4-1@20250805",
            "claude-3-5-haiku-20241022",
        ] {
            assert!(p.knows(m), "{m}");
        }
        for m in ["<synthetic>", "gpt-5", "claude-opus-9", ""] {
            assert!(!p.knows(m), "{m}");
        }
    }

    /// $5 / $25 / $0.50 / $6.25 / $10 per MTok: one million of each kind.
    #[test]
    fn a_message_is_priced_per_kind_with_the_1h_split() {
        let p = Pricer::compiled();
        let m = 1_000_000;
        let c = p
            .cost("claude-opus-4-6", None, &v(m, m, m, 2 * m, m))
            .unwrap();
        assert_eq!(usd(c), 5.0 + 25.0 + 0.5 + 6.25 + 10.0);
        // A 1h count above the flat total is capped by it (REC-098).
        let c = p
            .cost("claude-opus-4-6", None, &v(0, 0, 0, 10, 40))
            .unwrap();
        assert_eq!(c, 10 * 10_000_000);
        assert_eq!(p.cost("<synthetic>", None, &v(1, 1, 1, 1, 0)), None);
    }

    /// Long context: a request over 200K prompt tokens bills all its tokens
    /// at $6 / $22.50 (Sonnet 4.5); at exactly 200K it does not.
    #[test]
    fn a_long_request_is_billed_at_the_long_context_rates() {
        let p = Pricer::compiled();
        let at = p
            .cost(
                "claude-sonnet-4-5-20250929",
                None,
                &v(200_000, 1000, 0, 0, 0),
            )
            .unwrap();
        assert_eq!(at, 200_000 * 3_000_000 + 1000 * 15_000_000);
        let over = p
            .cost(
                "claude-sonnet-4-5-20250929",
                None,
                &v(1, 1000, 200_000, 0, 0),
            )
            .unwrap();
        assert_eq!(over, 6_000_000 + 1000 * 22_500_000 + 200_000 * 600_000);
    }

    #[test]
    fn a_dated_entry_prices_messages_from_its_day() {
        let p = Pricer::compiled();
        let t = |s: &str| s.parse::<Timestamp>().ok();
        let m = v(0, 0, 1_000_000, 0, 0);
        let before = p.cost("claude-sonnet-5-5", t("2026-10-06T23:59:59Z"), &m);
        let after = p.cost("claude-sonnet-5-5", t("2026-10-07T00:00:00Z"), &m);
        assert_eq!(before.map(usd), Some(0.2));
        assert_eq!(after.map(usd), Some(0.1));
    }

    #[test]
    fn a_bad_table_is_an_error() {
        let bad = |s: &str| Pricer::new(serde_json::from_str(s).unwrap()).is_err();
        assert!(bad(
            r#"{"checked":"x","models":[{"model":"m","input":-1,"output":1,"cache_read":1,"cache_write_5m":1,"cache_write_1h":1}]}"#
        ));
        assert!(bad(
            r#"{"checked":"x","models":[{"model":"m","from":"soon","input":1,"output":1,"cache_read":1,"cache_write_5m":1,"cache_write_1h":1}]}"#
        ));
        assert!(bad(
            r#"{"checked":"x","models":[{"model":"","input":1,"output":1,"cache_read":1,"cache_write_5m":1,"cache_write_1h":1}]}"#
        ));
    }
}
