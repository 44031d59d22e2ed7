//! The `terse` command.

fn main() {}
