//! Claude's 5-hour usage blocks, as ccusage defines them: messages in time
//! order; a block opens at the first message, its start floored to the UTC
//! hour; a message more than 5 hours after its block's start (or after the
//! block's last message) opens the next block. A block is active while the
//! clock is within 5 hours of its last message and before its end.

use jiff::{SignedDuration, Timestamp};

/// Length of a block.
pub(crate) const BLOCK: SignedDuration = SignedDuration::from_hours(5);

/// One block's span (its messages are those the caller passed in between).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: Timestamp,
    pub(crate) first: Timestamp,
    pub(crate) last: Timestamp,
    /// Index range of its messages in the sorted input.
    pub(crate) from: usize,
    pub(crate) to: usize,
}

impl Span {
    pub(crate) fn end(&self) -> Timestamp {
        self.start.checked_add(BLOCK).unwrap_or(self.start)
    }

    pub(crate) fn active(&self, now: Timestamp) -> bool {
        now.duration_since(self.last) < BLOCK && now < self.end()
    }
}

/// `t` floored to its UTC hour.
pub(crate) fn floor_hour(t: Timestamp) -> Timestamp {
    let s = t.as_second();
    Timestamp::from_second(s - s.rem_euclid(3600)).unwrap_or(t)
}

/// The blocks of messages at `times`, which must be sorted ascending.
pub(crate) fn spans(times: &[Timestamp]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (i, &t) in times.iter().enumerate() {
        if let Some(b) = out.last_mut() {
            let since_start = t.duration_since(b.start);
            let since_last = t.duration_since(b.last);
            if since_start <= BLOCK && since_last <= BLOCK {
                b.last = t;
                b.to = i + 1;
                continue;
            }
        }
        out.push(Span {
            start: floor_hour(t),
            first: t,
            last: t,
            from: i,
            to: i + 1,
        });
    }
    out
}

/// Where an active block stands at `now`, from its token and cost totals:
/// ccusage's burn rate (tokens over the minutes from its first to its last
/// message) and a projection to its end at that rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Progress {
    pub(crate) elapsed_min: i64,
    pub(crate) remaining_min: i64,
    /// `None` when first and last message are the same instant.
    pub(crate) tokens_per_min: Option<f64>,
    pub(crate) projected_tokens: Option<u64>,
    pub(crate) projected_cost_pico: Option<u128>,
}

pub(crate) fn progress(b: &Span, now: Timestamp, tokens: u64, cost: Option<u128>) -> Progress {
    let mins = |d: SignedDuration| d.as_secs().div_euclid(60);
    let remaining = b.end().duration_since(now).max(SignedDuration::ZERO);
    let span_min = b.last.duration_since(b.first).as_secs_f64() / 60.0;
    let rate = (span_min > 0.0).then(|| tokens as f64 / span_min);
    let rem_min = remaining.as_secs_f64() / 60.0;
    Progress {
        elapsed_min: mins(now.duration_since(b.start).max(SignedDuration::ZERO)),
        remaining_min: mins(remaining),
        tokens_per_min: rate,
        projected_tokens: rate.map(|r| tokens.saturating_add((r * rem_min).round() as u64)),
        projected_cost_pico: match (cost, span_min > 0.0) {
            (Some(c), true) => Some(c + (c as f64 / span_min * rem_min).round() as u128),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn blocks_open_floored_and_close_after_five_hours() {
        let times = [
            t("2026-01-20T09:47:00Z"),
            t("2026-01-20T10:30:00Z"),
            t("2026-01-20T14:00:00Z"), // 4h13m after 09:00: same block
            t("2026-01-20T14:00:01Z"), // past 14:00 = 09:00 + 5h: next block
            t("2026-01-21T03:00:00Z"),
        ];
        let s = spans(&times);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].start, t("2026-01-20T09:00:00Z"));
        assert_eq!((s[0].from, s[0].to), (0, 3));
        assert_eq!(s[1].start, t("2026-01-20T14:00:00Z"));
        assert_eq!(s[1].end(), t("2026-01-20T19:00:00Z"));
        assert_eq!((s[2].from, s[2].to), (4, 5));
    }

    #[test]
    fn an_active_block_projects_its_burn_rate() {
        let times = [t("2026-01-20T10:10:00Z"), t("2026-01-20T10:40:00Z")];
        let b = spans(&times)[0];
        let now = t("2026-01-20T11:00:00Z");
        assert!(b.active(now));
        assert!(!b.active(t("2026-01-20T15:00:00Z")));
        let p = progress(&b, now, 3000, Some(30_000));
        assert_eq!((p.elapsed_min, p.remaining_min), (60, 240));
        assert_eq!(p.tokens_per_min, Some(100.0));
        assert_eq!(p.projected_tokens, Some(3000 + 24_000));
        assert_eq!(p.projected_cost_pico, Some(30_000 + 240_000));
        let one = spans(&times[..1])[0];
        assert_eq!(progress(&one, now, 5, None).tokens_per_min, None);
    }
}
