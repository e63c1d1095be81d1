//! Grouping the folded messages into report rows: each message once, in the
//! row its earliest time (or its owner file, or its model) gives it, priced
//! at its own time; `<synthetic>` apart; a window keeps messages by time.

use std::collections::{BTreeMap, BTreeSet};

use jiff::civil::Date;
use jiff::Timestamp;

use crate::cli::usage::By;
use crate::discovery::Transcript;
use crate::timefmt::Window;
use crate::tokens::blocks::{self, Progress, Span};
use crate::tokens::fold::Folded;
use crate::tokens::ledger::{Msg, TOP};
use crate::tokens::pricing::Pricer;
use crate::tokens::{Vals, SYNTHETIC};

/// Sums over a set of messages.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tot {
    pub(crate) messages: u64,
    pub(crate) vals: Vals,
    /// Picodollars of the priced messages.
    pub(crate) cost: u128,
    /// Models without a price (their messages are not in `cost`).
    pub(crate) unpriced: BTreeSet<String>,
    pub(crate) models: BTreeSet<String>,
    /// Messages seen only in agent_progress copies.
    pub(crate) nested_only: u64,
    pub(crate) first: Option<Timestamp>,
}

impl Tot {
    fn add(&mut self, model: &str, m: &Msg, cost: Option<u128>) {
        self.messages += 1;
        self.vals.add(m.vals);
        match cost {
            Some(c) => self.cost += c,
            None if !self.unpriced.contains(model) => {
                self.unpriced.insert(model.to_string());
            }
            None => {}
        }
        if !self.models.contains(model) {
            self.models.insert(model.to_string());
        }
        self.nested_only += u64::from(m.seen & TOP == 0);
        self.first = match (self.first, m.first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// input + output + cache read + cache write (thinking is part of output).
    pub(crate) fn total(&self) -> u64 {
        let v = &self.vals;
        v.input
            .saturating_add(v.output)
            .saturating_add(v.cache_read)
            .saturating_add(v.cache_creation)
    }

    /// The cost, `None` when a message in it has no price.
    pub(crate) fn cost(&self) -> Option<u128> {
        self.unpriced.is_empty().then_some(self.cost)
    }
}

/// A row's totals, split per model when asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Cell {
    pub(crate) tot: Tot,
    pub(crate) per_model: BTreeMap<String, Tot>,
}

impl Cell {
    fn add(&mut self, model: &str, m: &Msg, cost: Option<u128>, split: bool) {
        self.tot.add(model, m, cost);
        if split {
            self.per_model
                .entry(model.to_string())
                .or_default()
                .add(model, m, cost);
        }
    }
}

/// A block row's span, and where the active one stands.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockInfo {
    pub(crate) span: Span,
    pub(crate) active: Option<Progress>,
}

#[derive(Debug, Clone)]
pub(crate) struct RowOut {
    /// `None`: messages with no time (for a time grouping).
    pub(crate) key: Option<String>,
    pub(crate) cell: Cell,
    pub(crate) block: Option<BlockInfo>,
}

/// Everything the printers need.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) by: By,
    pub(crate) breakdown: bool,
    pub(crate) rows: Vec<RowOut>,
    pub(crate) total: Cell,
    /// Messages with no time at all (in the total, in no time row or block).
    pub(crate) unplaced: u64,
    pub(crate) synthetic: Tot,
    pub(crate) pricing_checked: String,
}

/// Group `f`'s messages (owner ranks index `files`).
pub(crate) fn build(
    f: &Folded,
    files: &[Transcript],
    pricer: &Pricer,
    by: By,
    window: &Window,
    breakdown: bool,
    now: Timestamp,
) -> Report {
    let mut total = Cell::default();
    let mut synthetic = Tot::default();
    let mut rows: BTreeMap<Option<String>, Cell> = BTreeMap::new();
    let mut timed: Vec<(Timestamp, &str, Msg, Option<u128>)> = Vec::new();
    let mut unplaced = 0;
    // Time rows gather by local date first (one name per row, not per message).
    let tz = crate::timefmt::system_zone();
    let mut dated: BTreeMap<Date, Cell> = BTreeMap::new();
    let prices: Vec<_> = (0..f.ledger.models())
        .map(|i| pricer.model(f.ledger.model_name(i)))
        .collect();
    for m in f.messages() {
        let name = f.ledger.model_name(m.model);
        if !window.is_open() && !window.contains(m.first) {
            continue;
        }
        let cost = prices
            .get(m.model as usize)
            .copied()
            .flatten()
            .and_then(|p| p.cost(m.first, &m.vals));
        if name == SYNTHETIC {
            synthetic.add(name, &m, cost);
            continue;
        }
        total.add(name, &m, cost, breakdown);
        unplaced += u64::from(m.first.is_none());
        if by == By::Block {
            if let Some(t) = m.first {
                timed.push((t, name, m, cost));
            }
            continue;
        }
        if let (Some(_), Some(t)) = (time_format(by), m.first) {
            let day = bucket(by, tz.to_datetime(t).date());
            dated.entry(day).or_default().add(name, &m, cost, breakdown);
            continue;
        }
        let key = key(by, &m, name, files);
        rows.entry(key).or_default().add(name, &m, cost, breakdown);
    }
    if let Some(fmt) = time_format(by) {
        for (day, cell) in dated {
            rows.insert(Some(day.strftime(fmt).to_string()), cell);
        }
    }
    let rows = match by {
        By::Block => block_rows(timed, breakdown, now),
        _ => ordered(by, rows),
    };
    Report {
        by,
        breakdown,
        rows,
        total,
        unplaced,
        synthetic,
        pricing_checked: pricer.table.checked.clone(),
    }
}

/// The name a time row's local date is printed by.
fn time_format(by: By) -> Option<&'static str> {
    match by {
        By::Day => Some("%Y-%m-%d"),
        By::Week => Some("%G-W%V"),
        By::Month => Some("%Y-%m"),
        _ => None,
    }
}

/// The first date of `d`'s row: its day, its ISO week's Monday, its month's
/// first day; every date of a row prints the row's name.
fn bucket(by: By, d: Date) -> Date {
    match by {
        By::Week => d
            .checked_sub(jiff::Span::new().days(d.weekday().to_monday_zero_offset()))
            .unwrap_or(d),
        By::Month => d.first_of_month(),
        _ => d,
    }
}

fn key(by: By, m: &Msg, model: &str, files: &[Transcript]) -> Option<String> {
    let owner = files.get(m.owner.rank as usize);
    match by {
        // Timed messages gather by date in `build`; these have no time.
        By::Day | By::Week | By::Month => None,
        By::Session => owner.map(|t| t.session_id.clone()),
        By::Project => owner.map(Transcript::project_name),
        By::Model => Some(model.to_string()),
        By::Block => None,
    }
}

/// Time keys in order (no time last); sessions and projects by their first
/// message; models by name.
fn ordered(by: By, rows: BTreeMap<Option<String>, Cell>) -> Vec<RowOut> {
    let mut out: Vec<RowOut> = rows
        .into_iter()
        .map(|(key, cell)| RowOut {
            key,
            cell,
            block: None,
        })
        .collect();
    match by {
        By::Session | By::Project => out.sort_by(|a, b| {
            let k = |r: &RowOut| (r.cell.tot.first.is_none(), r.cell.tot.first, r.key.clone());
            k(a).cmp(&k(b))
        }),
        _ => out.sort_by(|a, b| (a.key.is_none(), &a.key).cmp(&(b.key.is_none(), &b.key))),
    }
    out
}

fn block_rows(
    mut timed: Vec<(Timestamp, &str, Msg, Option<u128>)>,
    breakdown: bool,
    now: Timestamp,
) -> Vec<RowOut> {
    timed.sort_by_key(|x| x.0);
    let times: Vec<Timestamp> = timed.iter().map(|x| x.0).collect();
    blocks::spans(&times)
        .into_iter()
        .map(|span| {
            let mut cell = Cell::default();
            for (_, name, m, cost) in &timed[span.from..span.to] {
                cell.add(name, m, *cost, breakdown);
            }
            let active = span
                .active(now)
                .then(|| blocks::progress(&span, now, cell.tot.total(), cell.tot.cost()));
            RowOut {
                key: Some(crate::timefmt::utc(span.start)),
                cell,
                block: Some(BlockInfo { span, active }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every date of a row prints the row's name, and two rows never share
    /// one: day, ISO week (across year ends, where the Monday is in the year
    /// before or the week in the year after) and month, over 1999–2032.
    #[test]
    fn a_rows_first_date_prints_the_rows_name() {
        let mut d = Date::constant(1999, 1, 1);
        let end = Date::constant(2032, 12, 31);
        let mut names: BTreeMap<(u8, Date), String> = BTreeMap::new();
        let mut days = 0;
        while d <= end {
            for (i, by) in [By::Day, By::Week, By::Month].into_iter().enumerate() {
                let fmt = time_format(by).expect("a time grouping has a format");
                let b = bucket(by, d);
                let name = d.strftime(fmt).to_string();
                assert_eq!(b.strftime(fmt).to_string(), name, "{by:?} {d}");
                assert!(b <= d, "{by:?} {d}: a row starts at or before its dates");
                names.insert((i as u8, b), name);
            }
            days += 1;
            let Ok(next) = d.tomorrow() else { break };
            d = next;
        }
        let mut seen = std::collections::BTreeSet::new();
        for ((i, _), name) in &names {
            assert!(seen.insert((*i, name.clone())), "two rows named {name}");
        }
        assert!(days > 12_000);
    }
}
