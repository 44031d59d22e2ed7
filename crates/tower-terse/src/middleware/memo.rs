//! [`Memo`]: a bounded table of finished rewrites, keyed by what they read.
//!
//! Set-associative: a key's hash picks one set of [`WAYS`] entries, and
//! the least recently used of them makes room. There are no chains, so a
//! lookup compares at most [`WAYS`] inputs whatever the hash does: bodies
//! made to share a hash cost a few comparisons, never a walk. The hash only
//! picks the set and skips most comparisons; every hit compares the key
//! and the whole input, so a collision can never answer with another
//! input's value.
//!
//! The bytes held (each input, its value and its key, as the caller counts
//! them) never pass the bound the table is made with; an entry larger than
//! a sixteenth of it is not kept. With a [`MemoryBudget`], each entry also
//! holds its bytes against the budget, taken only when they fit without
//! refusing anyone, and given back on demand ([`Yield`]): under memory
//! pressure the memo gives way before any rewrite does.

use std::hash::{BuildHasher, Hash, Hasher, RandomState};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use bytes::Bytes;
use http::HeaderMap;
use http::header::{AUTHORIZATION, COOKIE, HeaderName, PROXY_AUTHORIZATION};

use crate::budget::{MemoryBudget, Reservation, Yield};

/// Entries per set: the most inputs a lookup compares.
pub(crate) const WAYS: usize = 4;

/// The entry size the number of sets is laid out for: a table of `bytes`
/// has about `bytes / TYPICAL_ENTRY` entries' room.
const TYPICAL_ENTRY: usize = 16 << 10;

/// The most sets a table has, whatever its size.
const MAX_SETS: usize = 1 << 16;

/// The bytes of the input the hash reads at each of its places.
const SPAN: usize = 32;

/// The request headers a partition is a hash of ([`Memo::partition`]).
pub(crate) const CREDENTIALS: [HeaderName; 3] = [AUTHORIZATION, PROXY_AUTHORIZATION, COOKIE];

/// The keyed hash of `headers`' authorization and cookies
/// ([`Memo::partition`]).
fn credentials_hash(seed: &RandomState, headers: &HeaderMap) -> u64 {
    let mut hasher = seed.build_hasher();
    for name in CREDENTIALS {
        // Each value with its length and each header's count: no two
        // different sets of values hash the same input.
        let values = headers.get_all(&name);
        hasher.write_usize(values.iter().count());
        for value in values {
            hasher.write_usize(value.len());
            hasher.write(value.as_bytes());
        }
    }
    hasher.finish()
}

/// A bounded, set-associative table from a key and an input to a value.
pub(crate) struct Memo<K, V> {
    sets: Box<[Mutex<Set<K, V>>]>,
    /// The bound on the bytes held.
    limit: usize,
    held: AtomicUsize,
    /// Seeded per process: which set an input lands in cannot be known
    /// from outside. Keys the credentials' partition (SipHash).
    seed: RandomState,
    /// Keys the hash that picks an input's set ([`Memo::hash`]): foldhash's
    /// folded multiply, a tenth of SipHash's work on the same bytes. It
    /// needs no resistance to collisions: every hit compares the key and
    /// the whole input, and a set holds at most [`WAYS`] entries, so inputs
    /// made to share a hash cost a few comparisons and the set's room,
    /// never a wrong answer nor a walk. (The credentials' partition, which
    /// is compared as a hash, stays with SipHash.)
    span_seed: foldhash::fast::RandomState,
    /// The partition of a request with no credentials (most of them),
    /// hashed once rather than on every request.
    anonymous: u64,
    /// Where eviction for room looks next, round the sets.
    hand: AtomicUsize,
    budget: Option<MemoryBudget>,
}

struct Set<K, V> {
    entries: Vec<Entry<K, V>>,
    /// Ticks on every use, to find the least recently used entry.
    clock: u64,
}

struct Entry<K, V> {
    hash: u64,
    key: K,
    input: Bytes,
    value: V,
    size: usize,
    used: u64,
    /// The entry's bytes against the layer's budget, if there is one.
    _held: Option<Reservation>,
}

impl<K, V> std::fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("limit", &self.limit)
            .field("held", &self.held.load(Ordering::Relaxed))
            .field("sets", &self.sets.len())
            .finish()
    }
}

impl<K, V> Memo<K, V>
where
    K: Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// A table holding at most `limit` bytes, its entries held against
    /// `budget` too when there is one; `None` for a limit of 0 (no memo).
    pub(crate) fn new(limit: usize, budget: Option<MemoryBudget>) -> Option<Arc<Self>> {
        if limit == 0 {
            return None;
        }
        let sets = (limit / (WAYS * TYPICAL_ENTRY))
            .clamp(1, MAX_SETS)
            .next_power_of_two();
        let seed = RandomState::new();
        let anonymous = credentials_hash(&seed, &HeaderMap::new());
        let memo = Arc::new(Memo {
            sets: (0..sets)
                .map(|_| {
                    Mutex::new(Set {
                        entries: Vec::new(),
                        clock: 0,
                    })
                })
                .collect(),
            limit,
            held: AtomicUsize::new(0),
            seed,
            span_seed: foldhash::fast::RandomState::default(),
            anonymous,
            hand: AtomicUsize::new(0),
            budget: budget.clone(),
        });
        if let Some(budget) = budget {
            let weak: Weak<Self> = Arc::downgrade(&memo);
            budget.yield_to_reservations(weak);
        }
        Some(memo)
    }

    /// The bytes the table holds now.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// The partition of a request's credentials (`headers`' authorization
    /// and cookies) in this table: a hash keyed per process, so equal
    /// credentials land together and nothing about them can be read back.
    /// `present` says whether `headers` has any of [`CREDENTIALS`] (the
    /// caller's one pass over the names, a few standard ones compared as
    /// small integers, found it): a request without is the anonymous
    /// partition, hashed once.
    pub(crate) fn partition(&self, headers: &HeaderMap, present: bool) -> u64 {
        if !present {
            return self.anonymous;
        }
        credentials_hash(&self.seed, headers)
    }

    /// The hash of `key_part` and `input`: the input's length and a few
    /// spans of it (its start, its end and evenly spaced windows between),
    /// not all of it. It only picks a set; lookups compare inputs in full.
    pub(crate) fn hash(&self, key_part: impl Hash, input: &[u8]) -> u64 {
        let mut hasher = self.span_seed.build_hasher();
        key_part.hash(&mut hasher);
        let len = input.len();
        hasher.write_usize(len);
        if len <= 6 * SPAN {
            hasher.write(input);
        } else {
            // The six spans side by side, hashed in one call rather than
            // six (each call has its own setup and finish).
            let mut spans = [0u8; 6 * SPAN];
            let starts = [
                0,
                len / 5,
                len / 5 * 2,
                len / 5 * 3,
                len / 5 * 4,
                len - SPAN,
            ];
            for (span, at) in spans.chunks_exact_mut(SPAN).zip(starts) {
                span.copy_from_slice(&input[at..at + SPAN]);
            }
            hasher.write(&spans);
        }
        hasher.finish()
    }

    /// The value kept for `input` under the key `matches` accepts, if any.
    pub(crate) fn get(&self, hash: u64, input: &[u8], matches: impl Fn(&K) -> bool) -> Option<V> {
        let mut set = self.set(hash);
        set.clock += 1;
        let now = set.clock;
        let entry = set.entries.iter_mut().find(|entry| {
            entry.hash == hash && entry.input.len() == input.len() && matches(&entry.key)
                // The whole input, every time: the hash reads only spans.
                && entry.input[..] == *input
        })?;
        entry.used = now;
        Some(entry.value.clone())
    }

    /// Keeps `value` for `input` under `key`, counted as `size` bytes (the
    /// input, the value and the key); not kept when larger than a
    /// sixteenth of the table, nor when the budget has no room to spare.
    pub(crate) fn insert(&self, hash: u64, key: K, input: Bytes, value: V, size: usize) {
        if size > self.limit / 16 {
            return;
        }
        if !self.take_room(size) {
            return;
        }
        let held = match &self.budget {
            Some(budget) => match budget.try_reserve_spare(size) {
                Some(held) => Some(held),
                None => {
                    self.held.fetch_sub(size, Ordering::AcqRel);
                    return;
                }
            },
            None => None,
        };
        let mut set = self.set(hash);
        let exists = set
            .entries
            .iter()
            .any(|entry| entry.hash == hash && entry.key == key && entry.input == input);
        if exists {
            // Two misses raced to the same rewrite: one copy is enough.
            self.held.fetch_sub(size, Ordering::AcqRel);
            return;
        }
        if set.entries.len() >= WAYS {
            self.evict_from(&mut set);
        }
        set.clock += 1;
        let used = set.clock;
        set.entries.push(Entry {
            hash,
            key,
            input,
            value,
            size,
            used,
            _held: held,
        });
    }

    /// Adds `size` to the bytes held, evicting round the sets until it
    /// fits; `false` when it cannot.
    fn take_room(&self, size: usize) -> bool {
        // Every entry, and each set once more: enough to empty the table.
        for _ in 0..=self.sets.len() * (WAYS + 1) {
            let taken = self
                .held
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                    held.checked_add(size).filter(|&sum| sum <= self.limit)
                });
            if taken.is_ok() {
                return true;
            }
            self.evict_somewhere();
        }
        false
    }

    /// Evicts the least recently used entry of the next set round; how
    /// many bytes that gave back.
    fn evict_somewhere(&self) -> usize {
        let at = self.hand.fetch_add(1, Ordering::Relaxed) & (self.sets.len() - 1);
        let mut set = lock(&self.sets[at]);
        self.evict_from(&mut set)
    }

    /// Evicts the least recently used entry of `set`; its bytes.
    fn evict_from(&self, set: &mut Set<K, V>) -> usize {
        let Some(oldest) = (0..set.entries.len()).min_by_key(|&i| set.entries[i].used) else {
            return 0;
        };
        let entry = set.entries.swap_remove(oldest);
        self.held.fetch_sub(entry.size, Ordering::AcqRel);
        entry.size
    }

    fn set(&self, hash: u64) -> MutexGuard<'_, Set<K, V>> {
        // The low bits: with a keyed hash, as good as any.
        lock(&self.sets[(hash as usize) & (self.sets.len() - 1)])
    }
}

/// The set, even if a thread panicked holding it: each change to a set is
/// one push or one removal, never left half done.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<K, V> Yield for Memo<K, V>
where
    K: Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    fn give_back(&self, bytes: usize) -> usize {
        let mut given = 0;
        let mut empty_sets = 0;
        // Round the sets until enough is given or a full round finds nothing.
        while given < bytes && empty_sets < self.sets.len() {
            match self.evict_somewhere() {
                0 => empty_sets += 1,
                freed => {
                    given += freed;
                    empty_sets = 0;
                }
            }
        }
        given
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    type Table = Memo<u8, u32>;

    fn table(limit: usize) -> Arc<Table> {
        Memo::new(limit, None).expect("a table")
    }

    fn body(len: usize, fill: u8) -> Bytes {
        Bytes::from(vec![fill; len])
    }

    #[test]
    fn a_limit_of_zero_is_no_table() {
        assert!(Table::new(0, None).is_none());
    }

    #[test]
    fn an_entry_over_a_sixteenth_is_not_kept() {
        let memo = table(16 * 1000);
        let input = body(1001, 1);
        let hash = memo.hash(0u8, &input);
        memo.insert(hash, 0, input.clone(), 7, 1001);
        assert_eq!(memo.get(hash, &input, |_| true), None);
        assert_eq!(memo.held(), 0);
        memo.insert(hash, 0, input.clone(), 7, 1000);
        assert_eq!(memo.get(hash, &input, |_| true), Some(7));
        assert_eq!(memo.held(), 1000);
    }

    #[test]
    fn the_bytes_held_never_pass_the_limit() {
        let limit = 1 << 20;
        let memo = table(limit);
        for i in 0..10_000u32 {
            let input = Bytes::from(format!("{i:0>64}"));
            let hash = memo.hash(0u8, &input);
            let size = 100 + (i as usize * 37) % (limit / 16 - 100);
            memo.insert(hash, 0, input, i, size);
            assert!(memo.held() <= limit, "{} > {limit}", memo.held());
        }
        assert!(memo.held() > limit / 2, "the table is used");
    }

    #[test]
    fn a_hash_collision_never_answers_for_another_input() {
        let memo = table(1 << 20);
        let (a, b) = (body(100, b'a'), body(100, b'b'));
        // Both under the same hash, as bodies made to collide would be.
        memo.insert(1, 0, a.clone(), 1, 200);
        assert_eq!(memo.get(1, &b, |_| true), None);
        memo.insert(1, 0, b.clone(), 2, 200);
        assert_eq!(memo.get(1, &a, |_| true), Some(1));
        assert_eq!(memo.get(1, &b, |_| true), Some(2));
        // One byte in the middle, same length: another input.
        let mut c = a.to_vec();
        c[50] = b'c';
        assert_eq!(memo.get(1, &c, |_| true), None);
    }

    #[test]
    fn a_set_holds_at_most_its_ways() {
        let memo = table(1 << 20);
        for i in 0..(WAYS as u32 * 3) {
            memo.insert(9, 0, Bytes::from(i.to_string()), i, 10);
        }
        assert_eq!(memo.held(), WAYS * 10, "one set, full");
        // The most recent ones stay.
        let last = WAYS as u32 * 3 - 1;
        assert_eq!(
            memo.get(9, last.to_string().as_bytes(), |_| true),
            Some(last)
        );
        assert_eq!(memo.get(9, b"0", |_| true), None);
    }

    #[test]
    fn with_a_budget_entries_take_only_spare_room_and_give_it_back() {
        let budget = MemoryBudget::new(10_000);
        let memo: Arc<Table> = Memo::new(1 << 20, Some(budget.clone())).expect("a table");
        for i in 0..20u32 {
            let input = Bytes::from(format!("input {i}"));
            memo.insert(memo.hash(0u8, &input), 0, input, i, 1000);
        }
        assert_eq!(budget.in_use(), 10_000, "as much as there was room for");
        assert_eq!(memo.held(), 10_000);
        assert_eq!(budget.refused(), 0, "the memo's skips are not refusals");
        // A rewrite's reservation takes the memo's place rather than fail.
        let rewrite = budget.try_reserve(9_500).expect("the memo gave way");
        assert_eq!(budget.refused(), 0);
        assert!(memo.held() <= 500);
        drop(rewrite);
        drop(memo);
        assert_eq!(budget.in_use(), 0);
    }

    /// What the table should answer: a map of every input kept, each with
    /// its set and when it was last used, evicting as the table does.
    #[derive(Default)]
    struct Model {
        kept: HashMap<(u64, Vec<u8>), (u32, u64)>,
        clock: u64,
    }

    impl Model {
        fn set_of(&self, hash: u64, sets: usize) -> Vec<(u64, Vec<u8>)> {
            self.kept
                .keys()
                .filter(|(h, _)| (*h as usize) & (sets - 1) == (hash as usize) & (sets - 1))
                .cloned()
                .collect()
        }
    }

    proptest! {
        /// With room for every entry, the table answers as a map with a
        /// least-recently-used bound per set.
        #[test]
        fn the_table_answers_as_a_map_with_lru_sets(
            ops in prop::collection::vec((any::<bool>(), 0u64..8, 0u8..6, any::<u32>()), 1..200)
        ) {
            // Two sets of four: hashes 0..8 collide in pairs of sets.
            let memo = table(2 * WAYS * TYPICAL_ENTRY);
            let sets = memo.sets.len();
            prop_assert_eq!(sets, 2);
            let mut model = Model::default();
            for (insert, hash, input, value) in ops {
                let input = vec![input; 3];
                model.clock += 1;
                if insert {
                    let key = (hash, input.clone());
                    if let Some(kept) = model.kept.get(&key) {
                        // Already kept: left as it is (a racing duplicate).
                        let _ = kept;
                    } else {
                        let same_set = model.set_of(hash, sets);
                        if same_set.len() >= WAYS {
                            let oldest = same_set
                                .into_iter()
                                .min_by_key(|k| model.kept[k].1)
                                .expect("a full set");
                            model.kept.remove(&oldest);
                        }
                        model.kept.insert(key, (value, model.clock));
                    }
                    memo.insert(hash, 0, Bytes::from(input), value, 10);
                } else {
                    let want = model.kept.get_mut(&(hash, input.clone())).map(|kept| {
                        kept.1 = model.clock;
                        kept.0
                    });
                    prop_assert_eq!(memo.get(hash, &input, |_| true), want);
                }
            }
        }
    }
}
