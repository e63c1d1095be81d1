//! The order `stats` censuses files in. Files cut into parallel chunks come
//! first, largest first: such a file ends in a sequential chunk merge and
//! settle (about 60 ms for the generated home's 320 MB transcript), and
//! started last it ran alone on one core at the end of the run while the
//! other waited. The rest keep path order, so a cold cache still writes each
//! project's pack as soon as its files are done (`scan::par_map_in` runs them
//! in this order and returns the results in the files' own).

/// Indices of files of these `sizes`: those over `chunk` bytes (cut into
/// chunks) first, largest first, then the rest in their own order.
pub(super) fn first_large(sizes: &[u64], chunk: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).filter(|&i| sizes[i] > chunk).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    order.extend((0..sizes.len()).filter(|&i| sizes[i] <= chunk));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_files_go_first_largest_first_then_the_rest_in_order() {
        let sizes = [5, 90, 7, 200, 90, 1];
        assert_eq!(first_large(&sizes, 10), vec![3, 1, 4, 0, 2, 5]);
        assert_eq!(first_large(&sizes, 1_000), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(first_large(&[], 10), Vec::<usize>::new());
    }
}
