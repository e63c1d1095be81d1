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

/// `f` over `items` in parallel, one job per item, the items larger than
/// `over` bytes started first, largest first, then the rest in input order;
/// the results in `items`' order. A large file started late ran alone at the
/// end of the pool: the dense home's 67 MB transcript held one core for the
/// last ~30 ms of a ~175 ms `audit` in path order. `over` 0 starts every item
/// by size; `stats` passes its chunk size, so only the files it cuts into
/// parallel chunks (whose merge and settle run on one core) move ahead and
/// the rest keep path order, which lets a cold cache write each project's
/// pack as soon as its files are done.
pub(crate) fn par_map_larger_first<T: Sync, R: Send>(
    items: &[T],
    size: impl Fn(&T) -> u64,
    over: u64,
    f: impl Fn(&T) -> R + Sync + Send,
) -> Vec<R> {
    let order = larger_first(items, size, over);
    let mut done: Vec<(usize, R)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| (i, f(&items[i])))
        .collect();
    done.sort_unstable_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

/// The indices of `items` (each once): those larger than `over` first,
/// largest first, then the rest in input order.
fn larger_first<T>(items: &[T], size: impl Fn(&T) -> u64, over: u64) -> Vec<usize> {
    let sizes: Vec<u64> = items.iter().map(size).collect();
    let mut order: Vec<usize> = (0..items.len()).filter(|&i| sizes[i] > over).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    order.extend((0..items.len()).filter(|&i| sizes[i] <= over));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn larger_first_moves_only_what_is_over_the_bound() {
        let sizes = [5u64, 90, 7, 200, 90, 1];
        assert_eq!(larger_first(&sizes, |s| *s, 10), vec![3, 1, 4, 0, 2, 5]);
        assert_eq!(larger_first(&sizes, |s| *s, 0), vec![3, 1, 4, 2, 0, 5]);
        assert_eq!(larger_first(&sizes, |s| *s, 1_000), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(larger_first(&[] as &[u64], |s| *s, 0), Vec::<usize>::new());
    }

    /// On one thread the jobs run in the order chosen; the results come back
    /// in input order whatever that order was.
    #[test]
    fn par_map_larger_first_starts_large_and_returns_input_order() -> Result<(), String> {
        let sizes = [3u64, 90, 7, 90, 1, 40];
        let started = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| e.to_string())?;
        let out = pool.install(|| {
            par_map_larger_first(
                &sizes,
                |s| *s,
                0,
                |s| {
                    if let Ok(mut v) = started.lock() {
                        v.push(*s);
                    }
                    s * 2
                },
            )
        });
        assert_eq!(out, vec![6, 180, 14, 180, 2, 80]);
        let started = started.into_inner().map_err(|e| e.to_string())?;
        assert_eq!(started, vec![90, 90, 40, 7, 3, 1]);
        // On the default pool too, every result in input order.
        let plus = |s: &u64| s + 1;
        assert_eq!(
            par_map_larger_first(&sizes, |s| *s, 8, plus),
            vec![4, 91, 8, 91, 2, 41]
        );
        assert_eq!(par_map(&sizes, plus), vec![4, 91, 8, 91, 2, 41]);
        Ok(())
    }
}
