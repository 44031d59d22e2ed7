//! Two measurements taken turn about, so both see the same machine.
//!
//! Criterion measures one benchmark after the other; on a shared machine the
//! load can change between them, and their ratio moves with it. Here the two
//! run in short alternating rounds, each round gives its own ratio, and the
//! median of those is reported with its spread.

use std::time::{Duration, Instant};

/// The ratio of `b`'s time to `a`'s (above 1: `a` is faster), per round.
#[derive(Debug)]
pub struct Paired {
    ratios: Vec<f64>,
}

impl Paired {
    /// Runs `rounds` rounds; in each, `a` and `b` run once each (a batch
    /// of work long enough to time), in an order that alternates from round
    /// to round.
    pub fn measure(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Paired {
        let time = |f: &mut dyn FnMut()| -> Duration {
            let start = Instant::now();
            f();
            start.elapsed()
        };
        let mut ratios = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let (ta, tb) = if round % 2 == 0 {
                let ta = time(&mut a);
                (ta, time(&mut b))
            } else {
                let tb = time(&mut b);
                (time(&mut a), tb)
            };
            ratios.push(tb.as_secs_f64() / ta.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        Paired { ratios }
    }

    /// The ratio at quantile `q` (0.5: the median) of the rounds.
    pub fn quantile(&self, q: f64) -> f64 {
        let last = self.ratios.len().saturating_sub(1);
        self.ratios[((last as f64) * q).round() as usize]
    }
}

impl std::fmt::Display for Paired {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {:.2}x over {} alternating rounds (middle half {:.2}x to {:.2}x)",
            self.quantile(0.5),
            self.ratios.len(),
            self.quantile(0.25),
            self.quantile(0.75)
        )
    }
}
