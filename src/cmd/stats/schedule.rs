//! The order `stats` censuses files in. Files cut into parallel chunks come
//! first, largest first: such a file ends in a sequential chunk merge and
//! settle (about 60 ms for the generated home's 320 MB transcript), and
//! started last it ran alone on one core at the end of the run while the
//! other waited. The rest keep path order, so a cold cache still writes each
//! project's pack as soon as its files are done. Results come back by index.

/// Indices of files of these `sizes`: those over `chunk` bytes (cut into
/// chunks) first, largest first, then the rest in their own order.
pub(super) fn first_large(sizes: &[u64], chunk: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] > chunk).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    order.extend((0..sizes.len()).filter(|&i| sizes[i] <= chunk));
    order
}

/// `f` of each index of `order` in parallel, started in that order; the
/// results by index (`order` holds each of `0..order.len()` once).
pub(super) fn in_order<R: Send>(order: Vec<usize>, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    let done = crate::scan::par_map(&order, |&i| f(i));
    let mut slots: Vec<Option<R>> = (0..order.len()).map(|_| None).collect();
    for (i, r) in order.into_iter().zip(done) {
        if let Some(s) = slots.get_mut(i) {
            *s = Some(r);
        }
    }
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_files_go_first_largest_first_and_results_come_back_by_index() {
        let sizes = [5, 90, 7, 200, 90, 1];
        let order = first_large(&sizes, 10);
        assert_eq!(order, vec![3, 1, 4, 0, 2, 5]);
        let started = std::sync::Mutex::new(Vec::new());
        let got = in_order(order, |i| {
            if let Ok(mut s) = started.lock() {
                s.push(i);
            }
            i * 10
        });
        assert_eq!(got, vec![0, 10, 20, 30, 40, 50]);
        assert_eq!(started.lock().map(|s| s.len()).unwrap_or(0), 6);
        assert_eq!(first_large(&[], 10), Vec::<usize>::new());
    }
}
