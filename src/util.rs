//! Small helpers shared by several stages.

/// The candidate nearest to `word` by edit distance, if it is close enough
/// to be a likely typo (at most a third of the word's length, and at least 1).
pub fn nearest<'a>(word: &str, candidates: &'a [String]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d <= limit && c.as_str() != word)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.as_str())
}

/// Edit distance between two strings (by characters): insertions,
/// deletions, substitutions and swaps of two neighbours each cost 1 (the
/// "optimal string alignment" distance), so `lisst` is one edit from `lists`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Rows i-2, i-1 and i of the distance table.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Run `f`, first putting a new segment under the native stack when little
/// of it is left.  The recursive walks over terms and syntax trees
/// (compiling a clause, printing a term, a `Value`'s `Debug` and
/// `Display`, building, comparing, cloning and checking a proof's terms)
/// call themselves through this, so that a term a hundred
/// thousand levels deep is handled on any thread, not only on the binary's
/// large-stack one (a library user's thread has 2 MB, or 8 MB for a main
/// thread).  The check costs a comparison of the stack pointer with a
/// thread-local limit.
#[inline(always)]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    /// Stack that a step of a walk may use before it checks again.
    const RED_ZONE: usize = 128 * 1024;
    /// The size of each new segment.
    const SEGMENT: usize = 4 * 1024 * 1024;
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos() {
        let c = vec!["solitaire".to_string(), "census".to_string()];
        assert_eq!(nearest("solitare", &c), Some("solitaire"));
        assert_eq!(nearest("xyz", &c), None);
        assert_eq!(nearest("cesnus", &c), Some("census"));
        assert_eq!(edit_distance("lisst", "lists"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
