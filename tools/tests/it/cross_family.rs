//! The token estimator on text of a kind its weights never saw: for each
//! family, the weights are fitted on all the other families and the error
//! is measured on this one (whole texts, pieces from about 20 tokens, and a
//! document past a megabyte), against exact o200k_base counts.
//!
//! The goal is a mean of 3% and a p95 of 8% on every family; the
//! current model (pair features and byte classes) does not reach it on every
//! family (`cargo run --release -p terse-tools --bin cross_family` prints the
//! table). The bounds below hold what it reaches, so the error cannot grow
//! unnoticed while the model is improved towards the goal, and the README
//! quotes the figures over all families as this test computes them.

use terse_tools::families::{CrossFamily, FAMILIES, cross_family, samples};
use terse_tools::fit::{DEFAULT_RIDGE, mean_p95};

/// Mean error allowed on a family the fit never saw.
const MAX_MEAN: f64 = 0.12;
/// 95th-percentile error allowed on a family the fit never saw. The prose
/// family (seven languages, 32 texts) sits near it: its p95 is its
/// second-worst text, a short piece of Hindi or Arabic, which moves a point
/// or two whenever the other weights are refitted.
const MAX_P95: f64 = 0.32;
/// Mean error allowed over all families, each left out in turn.
const MAX_OVERALL_MEAN: f64 = 0.04;
/// 95th-percentile error allowed over all families, each left out in turn.
const MAX_OVERALL_P95: f64 = 0.10;

#[test]
fn leave_one_family_out_error_stays_within_its_bounds() {
    let all = samples();
    for family in FAMILIES {
        let n = all.iter().filter(|s| s.family == family).count();
        assert!(n >= 2, "family {family} has {n} texts");
    }
    let mut overall = Vec::new();
    let mut failures = Vec::new();
    for CrossFamily { family, errors } in cross_family(DEFAULT_RIDGE).expect("fit") {
        let (mean, p95) = mean_p95(&errors);
        println!(
            "{family:<14} {:>5} texts  mean {:>5.2}%  p95 {:>5.2}%",
            errors.len(),
            mean * 100.0,
            p95 * 100.0
        );
        if mean > MAX_MEAN || p95 > MAX_P95 {
            failures.push(format!("{family}: mean {mean:.4}, p95 {p95:.4}"));
        }
        overall.extend(errors);
    }
    let (mean, p95) = mean_p95(&overall);
    println!(
        "all families   {:>5} texts  mean {:>5.2}%  p95 {:>5.2}%",
        overall.len(),
        mean * 100.0,
        p95 * 100.0
    );
    let sentence = format!(
        "left out of the fit in turn: `cargo run --release -p terse-tools --bin cross_family`) \
         it is {:.1}% off on average ({:.1}% at p95)",
        mean * 100.0,
        p95 * 100.0
    );
    let readme = terse_tools::families::documentation();
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat(&readme).contains(&flat(&sentence)),
        "the README or a docs/ page should say: {sentence}"
    );
    assert!(failures.is_empty(), "over the bounds: {failures:?}");
    assert!(mean <= MAX_OVERALL_MEAN, "overall mean {mean:.4}");
    assert!(p95 <= MAX_OVERALL_P95, "overall p95 {p95:.4}");
}
