//! "Did you mean" suggestions.

/// Edit distance between two strings, counted in characters: insertions,
/// deletions, substitutions and swaps of two neighbours each count 1 (swaps
/// count once because they are the most common typo: `titel` for `title`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The candidate closest to `name`, when it is close enough to be a likely typo
/// (at most a third of the name's length away, and at least 1 edit allowed).
pub fn closest<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("titel", "title"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3);
        assert_eq!(edit_distance("uper", "upper"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_picks_nearest_within_limit() {
        let names = ["title", "start_at", "location"];
        assert_eq!(closest("titel", names), Some("title"));
        assert_eq!(closest("start", names), None);
        assert_eq!(closest("locaton", names), Some("location"));
        assert_eq!(closest("zzz", names), None);
    }
}
