//! Deterministic seed data: the same few hundred records on every first start.
//!
//! Every timestamp is an offset from [`BASE`], and every choice comes from
//! one fixed-seed [`Rng`], so two fresh databases hold identical data and the
//! figures measured on one hold for the other.

mod contacts;
mod diary;
mod emails;
mod events;
mod files;
mod notes;
mod text;

use rusqlite::Connection;
use tower_terse::Timestamp;

use crate::db_error::DbError;
use crate::store;

/// The instant the seed data is written around: "now" for the seed.
pub const BASE: &str = "2026-02-18T00:00:00Z";

const SEED: u64 = 0x7e25_e5ee_d0a9_1da7;

/// A small deterministic generator (SplitMix64): fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    /// A generator with this seed.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo).unsigned_abs() + 1;
        lo + i64::try_from(self.next_u64() % span).unwrap_or(0)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One item of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        let i = self.next_u64() % items.len() as u64;
        &items[usize::try_from(i).unwrap_or(0)]
    }

    /// A copy of one item of a non-empty slice.
    pub fn choose<T: Copy>(&mut self, items: &[T]) -> T {
        *self.pick(items)
    }

    /// `n` hex digits.
    pub fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[(self.next_u64() % 16) as usize]))
            .collect()
    }

    /// A version-4-shaped UUID.
    pub fn uuid(&mut self) -> String {
        let variant = char::from(b"89ab"[(self.next_u64() % 4) as usize]);
        format!(
            "{}-{}-4{}-{variant}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.hex(3),
            self.hex(12)
        )
    }
}

/// [`BASE`] moved by `minutes`.
pub fn at_minutes(minutes: i64) -> Timestamp {
    let base = Timestamp::parse(BASE).unwrap_or(Timestamp::from_unix_micros(0));
    base.add_micros(minutes * 60_000_000)
}

/// [`BASE`] moved by `days`, at `hour:minute` UTC, as RFC 3339.
pub fn at(days: i64, hour: i64, minute: i64) -> String {
    at_minutes(days * 1440 + hour * 60 + minute).to_string()
}

/// The date part of [`at`].
pub fn date(days: i64) -> String {
    at(days, 0, 0)[..10].to_owned()
}

/// Creation, last change and sync stamps for a record made `days_ago` days before [`BASE`].
pub fn history(rng: &mut Rng, days_ago: i64) -> (String, String) {
    let created = -days_ago * 1440 - rng.range(0, 1439);
    let updated = if rng.chance(40) {
        rng.range(created, -1)
    } else {
        created
    };
    (
        at_minutes(created).to_string(),
        at_minutes(updated).to_string(),
    )
}

/// Fills an empty database.
pub fn fill(conn: &Connection) -> Result<(), DbError> {
    let mut rng = Rng::new(SEED);
    let tx = conn.unchecked_transaction()?;
    let people = contacts::people(&mut rng);
    for c in contacts::contacts(&mut rng, &people) {
        store::save(&tx, &c)?;
    }
    for e in events::events(&mut rng, &people) {
        store::save(&tx, &e)?;
    }
    for e in emails::emails(&mut rng, &people) {
        store::save(&tx, &e)?;
    }
    for n in notes::notes(&mut rng, &people) {
        store::save(&tx, &n)?;
    }
    for f in files::files(&mut rng) {
        store::save(&tx, &f)?;
    }
    for d in diary::entries(&mut rng) {
        store::save(&tx, &d)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_fixed() {
        let mut a = Rng::new(1);
        let mut b = Rng::new(1);
        assert_eq!(a.next_u64(), b.next_u64());
        assert_eq!(a.uuid().len(), 36);
        assert_eq!(at(1, 9, 30), "2026-02-19T09:30:00Z");
        assert_eq!(date(-1), "2026-02-17");
    }
}
