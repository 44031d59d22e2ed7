//! The table (docs/tokens.md) of what token estimators without a tokenizer reach on
//! the validation families is what `estimator_bounds` computes.

use terse_tools::bounds::{bounds, markdown};
use terse_tools::families::documentation;
use terse_tools::fit::DEFAULT_RIDGE;

#[test]
fn the_readme_table_is_what_the_models_reach() {
    let table = markdown(&bounds(DEFAULT_RIDGE));
    println!("{table}");
    let readme = documentation();
    let (_, after) = readme
        .split_once("<!-- estimator_bounds -->\n")
        .expect("the README or a docs/ page marks the table's start");
    let (quoted, _) = after
        .split_once("<!-- /estimator_bounds -->")
        .expect("the README marks the table's end");
    assert_eq!(
        quoted, table,
        "the README's table differs from `cargo run --release -p terse-tools --bin estimator_bounds`"
    );
}
