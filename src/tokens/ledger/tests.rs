//! Unit tests of `ledger`.

use super::*;

fn vals(output: u64, cache_read: u64) -> Vals {
    Vals {
        output,
        cache_read,
        ..Vals::default()
    }
}

/// REC-035: the parent's copy and the child's replay of one spawning
/// message are one message; every field takes its largest value, and the
/// result is the same whichever file folds first.
#[test]
fn copies_across_files_merge_by_max_in_any_order_rec_035() {
    let t = |s: &str| s.parse::<Timestamp>().ok();
    let parent = Msg {
        owner: Owner::new(t("2026-01-01T10:00:00Z"), 1),
        ..Msg::new(0, vals(5598, 51101), t("2026-01-01T10:00:00Z"), TOP)
    };
    let child = Msg {
        owner: Owner::new(t("2026-01-01T10:00:02Z"), 0),
        ..Msg::new(0, vals(4, 51101), t("2026-01-01T10:00:02Z"), NESTED)
    };
    for order in [[parent, child], [child, parent]] {
        let mut l = Ledger::default();
        for m in order {
            l.admit(7, m);
        }
        l.settle();
        assert_eq!(l.len(), 1);
        let (_, m) = l.messages().next().unwrap();
        assert_eq!(m.vals, vals(5598, 51101));
        assert_eq!((m.files, m.records, m.seen), (2, 2, TOP | NESTED));
        assert_eq!(m.first, t("2026-01-01T10:00:00Z"));
        assert_eq!(m.owner.rank, 1, "the earliest copy's file owns it");
    }
}

/// A packed slot gives back the message it was given: counts past
/// `u32` (kept wide), a time before 1970 with its nanoseconds, no time;
/// and many keys admitted in any order, across several compactions of
/// the vector, settle to one message each with its copies merged.
#[test]
fn slots_round_trip_and_settle_across_compactions() {
    let t = |s: &str| s.parse::<Timestamp>().ok();
    let mut l = Ledger::default();
    let wide = Msg {
        records: 1 << 40,
        ..Msg::new(3, vals(u64::MAX, 1), t("1969-12-31T23:59:59.5Z"), NESTED)
    };
    l.admit(1, wide);
    l.admit(2, Msg::new(0, vals(9, 9), None, TOP));
    for i in 0..5000u64 {
        l.admit(10 + (i * 7919) % 2500, Msg::new(1, vals(i, 0), None, TOP));
    }
    l.settle();
    assert_eq!(l.len(), 2 + 2500);
    let all: Vec<(u64, Msg)> = l.messages().collect();
    let (k, m) = all[0];
    assert_eq!(k, 1);
    assert_eq!(
        (m.vals, m.records, m.model, m.seen),
        (wide.vals, 1 << 40, 3, NESTED)
    );
    assert_eq!(m.first, wide.first);
    assert_eq!(all[1].1.first, None);
    assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
    // Key 10 + j holds i = j and i = j + 2500 (7919 is prime to 2500).
    assert!(all[2..]
        .iter()
        .all(|(_, m)| m.files == 2 && m.vals.output >= 2500));
    let mut ks = KeySet::default();
    for i in 0..3000u64 {
        ks.insert(i % 1200);
    }
    ks.settle();
    let mut other = KeySet::default();
    other.insert(5);
    other.settle();
    assert_eq!((ks.len(), ks.count_not_in(&other)), (1200, 1199));
}

#[test]
fn an_untimed_copy_never_owns_over_a_timed_one() {
    let a = Owner::new(None, 0);
    let b = Owner::new("2026-01-01T00:00:00Z".parse().ok(), 9);
    assert!(b < a);
}

/// Two ledgers of disjoint files, one absorbed into the other, hold what one
/// ledger of all the files holds: models by name, copies merged, file counts
/// added, wide values kept.
#[test]
fn an_absorbed_ledger_is_the_ledger_of_all_its_files() {
    let t = |s: &str| s.parse::<Timestamp>().ok();
    // (file, model, key, output, cache_read)
    let copies: Vec<(u32, &str, u64, u64, u64)> = (0..3000u64)
        .map(|i| {
            // A key is a (model, message id) pair: one model per key.
            let model = if (i % 1100) % 3 == 0 { "a" } else { "b" };
            (
                i as u32 % 7,
                model,
                i % 1100,
                i,
                u64::from(u32::MAX) + i % 2,
            )
        })
        .collect();
    let admit = |l: &mut Ledger, model: &str, key: u64, out: u64, read: u64| {
        let m = l.model(model);
        let at = t("2026-01-01T10:00:00Z");
        l.admit(key, Msg::new(m, vals(out, read), at, TOP));
    };
    let mut one = Ledger::default();
    let (mut even, mut odd) = (Ledger::default(), Ledger::default());
    odd.model("z"); // another model order in each
    for &(file, model, key, out, read) in &copies {
        admit(&mut one, model, key, out, read);
        let part = if file % 2 == 0 { &mut even } else { &mut odd };
        admit(part, model, key, out, read);
    }
    // The first absorb into an empty ledger takes the other whole.
    let mut all = Ledger::default();
    all.absorb(even);
    all.absorb(odd);
    let mut even = all;
    for l in [&mut one, &mut even] {
        l.settle();
    }
    let named = |l: &Ledger| -> Vec<(u64, String, Vals, u64, u32)> {
        l.messages()
            .map(|(k, m)| {
                (
                    k,
                    l.model_name(m.model).to_string(),
                    m.vals,
                    m.records,
                    m.files,
                )
            })
            .collect()
    };
    assert_eq!(named(&one), named(&even));
    assert_eq!(one.len(), 1100);
}

#[test]
fn an_absorbed_key_set_is_the_union() {
    let (mut a, mut b) = (KeySet::default(), KeySet::default());
    for k in 0..5000u64 {
        a.insert(k % 3000);
        b.insert(2000 + k % 2500);
    }
    a.absorb(b);
    a.settle();
    assert_eq!(a.len(), 4500);
    // Into an empty set, and a settled set into one with unsettled keys.
    let mut c = KeySet::default();
    c.absorb(a);
    let mut d = KeySet::default();
    for k in (0..9000u64).rev() {
        d.insert(k * 7 % 9001);
    }
    d.absorb(c);
    d.settle();
    let mut want: Vec<u64> = (0..9000u64).map(|k| k * 7 % 9001).collect();
    want.extend(0..4500);
    want.sort_unstable();
    want.dedup();
    assert_eq!(d.keys, want);
}
