//! The token estimator's error on each family of text when the weights are
//! fitted on all the other families (leave one family out), against exact
//! o200k_base counts.
//!
//! ```text
//! cargo run --release -p terse-tools --bin cross_family
//! ```
//!
//! Prints one line per family: how many texts it was validated on (whole
//! texts, pieces from about 20 tokens, one document past a megabyte), the
//! mean and the 95th percentile of the relative error, and the worst; then
//! the same over the texts of all families together, each measured with the
//! weights fitted without its family.

use terse_tools::families::{CrossFamily, cross_family};
use terse_tools::fit::{DEFAULT_RIDGE, mean_p95};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ridge = match std::env::args().nth(1).as_deref() {
        Some("--ridge") => std::env::args()
            .nth(2)
            .ok_or("--ridge needs a value")?
            .parse()?,
        Some(_) => return Err("usage: cross_family [--ridge X]".into()),
        None => DEFAULT_RIDGE,
    };
    println!(
        "{:<14} {:>6} {:>7} {:>7} {:>7}",
        "family", "texts", "mean", "p95", "worst"
    );
    let mut all = Vec::new();
    for CrossFamily { family, errors } in cross_family(ridge)? {
        line(family, &errors);
        all.extend(errors);
    }
    line("all families", &all);
    Ok(())
}

/// One line of the table: texts, mean, p95 and worst relative error.
fn line(label: &str, errors: &[f64]) {
    let (mean, p95) = mean_p95(errors);
    let worst = errors.iter().copied().fold(0.0, f64::max);
    println!(
        "{label:<14} {:>6} {:>6.2}% {:>6.2}% {:>6.2}%",
        errors.len(),
        mean * 100.0,
        p95 * 100.0,
        worst * 100.0
    );
}
