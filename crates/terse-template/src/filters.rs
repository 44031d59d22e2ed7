//! The filter table: names and the argument each takes.

use crate::ast::FilterKind;

/// Every filter name, in the order error messages list them.
pub const FILTER_NAMES: &[&str] = &[
    "time", "date", "ago", "bytes", "short", "trunc", "upper", "lower", "join", "default", "flag",
];

/// The argument a filter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterArg {
    /// No argument: `upper`.
    None,
    /// A whole number: `trunc(40)`.
    Count,
    /// Any text: `join(, )`, `default(n/a)`, `flag(🔁)`.
    Text,
}

/// The argument `name` takes, or `None` when no filter has that name.
pub fn filter_arg(name: &str) -> Option<FilterArg> {
    Some(match name {
        "time" | "date" | "ago" | "bytes" | "short" | "upper" | "lower" => FilterArg::None,
        "trunc" => FilterArg::Count,
        "join" | "default" | "flag" => FilterArg::Text,
        _ => return None,
    })
}

/// Builds the filter from its name and (raw) argument; the error is the
/// message to show, without position.
pub(crate) fn build(name: &str, arg: Option<String>) -> Result<FilterKind, String> {
    let Some(kind) = filter_arg(name) else {
        let hint = match crate::closest(name, FILTER_NAMES.iter().copied()) {
            Some(near) => format!("did you mean `{near}`?"),
            None => format!("known filters: {}", FILTER_NAMES.join(", ")),
        };
        return Err(format!("unknown filter `{name}`; {hint}"));
    };
    match (kind, arg) {
        (FilterArg::None, None) => Ok(match name {
            "time" => FilterKind::Time,
            "date" => FilterKind::Date,
            "ago" => FilterKind::Ago,
            "bytes" => FilterKind::Bytes,
            "short" => FilterKind::Short,
            "upper" => FilterKind::Upper,
            _ => FilterKind::Lower,
        }),
        (FilterArg::None, Some(_)) => Err(format!("filter `{name}` takes no argument")),
        (FilterArg::Count, None) => Err(format!(
            "filter `{name}` needs a number of characters, as in `{name}(40)`"
        )),
        (FilterArg::Count, Some(arg)) => match arg.trim().parse::<usize>() {
            Ok(n) => Ok(FilterKind::Trunc(n)),
            Err(_) => Err(format!(
                "filter `{name}` needs a whole number of characters, as in `{name}(40)`, not `{arg}`"
            )),
        },
        (FilterArg::Text, None) => Err(format!(
            "filter `{name}` needs an argument, as in `{name}({})`",
            match name {
                "join" => ", ",
                "default" => "none",
                _ => "yes",
            }
        )),
        (FilterArg::Text, Some(arg)) => Ok(match name {
            "join" => FilterKind::Join(arg),
            "default" => FilterKind::Default(arg),
            _ => FilterKind::Flag(arg),
        }),
    }
}
