//! Parallel maps over files: rayon across items, one job per item, results
//! back in input order so output is deterministic however the work ran, and
//! the order a run starts its items in (the largest first where one large
//! file would otherwise end the run on one core).

use rayon::prelude::*;

/// Map `f` over `items` in parallel; results come back in input order, so output
/// is deterministic however the work was scheduled.
///
/// One job per item: rayon's default split ran each thread's share as long
/// sequential pieces, and a piece holding a large file ended the run on one
/// core while the other sat idle (`floors serde`, largest first, big home
/// 374 -> 347 ms wall, real home 419 -> 381 ms; the commands on the small
/// home unchanged).
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    items.par_iter().with_max_len(1).map(f).collect()
}

/// `f` over `items` in parallel, started in `order` (each index of `items`
/// once; an index out of range or repeated is skipped), one job per item;
/// the results in `items`' order.
pub(crate) fn par_map_in<T: Sync, R: Send>(
    items: &[T],
    order: &[usize],
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let done: Vec<(usize, Option<R>)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| (i, items.get(i).map(&f)))
        .collect();
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in done {
        if let Some(slot) = slots.get_mut(i) {
            if slot.is_none() {
                *slot = r;
            }
        }
    }
    slots.into_iter().flatten().collect()
}

/// The indices of `items`, the largest first by `size` (ties in input
/// order): the order that keeps a large file from starting late and running
/// alone at the end (the dense home's 67 MB transcript held one core for the
/// last ~30 ms of a ~175 ms `audit` in path order).
pub(crate) fn largest_first<T>(items: &[T], size: impl Fn(&T) -> u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(size(&items[i])));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// On one thread the jobs run in the order given; the results come back
    /// in input order whatever that order was.
    #[test]
    fn par_map_in_starts_in_order_and_returns_input_order() {
        let sizes = [3u64, 90, 7, 90, 1, 40];
        let order = largest_first(&sizes, |s| *s);
        assert_eq!(order, vec![1, 3, 5, 2, 0, 4]);
        let started = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool");
        let out = pool.install(|| {
            par_map_in(&sizes, &order, |s| {
                started.lock().expect("not poisoned").push(*s);
                s * 2
            })
        });
        assert_eq!(out, vec![6, 180, 14, 180, 2, 80]);
        let started = started.into_inner().expect("not poisoned");
        assert_eq!(started, vec![90, 90, 40, 7, 3, 1]);
        // On the default pool too, every result in input order.
        assert_eq!(
            par_map_in(&sizes, &order, |s| s + 1),
            vec![4, 91, 8, 91, 2, 41]
        );
        assert_eq!(par_map(&sizes, |s| s + 1), vec![4, 91, 8, 91, 2, 41]);
    }
}
