//! serde's `rename_all` conventions, applied to field names as serde does.

/// The serialized name of `field` under `rule`, or `None` for a rule serde
/// does not know (serde reports that itself).
pub fn apply(rule: &str, field: &str) -> Option<String> {
    Some(match rule {
        "lowercase" | "snake_case" => field.to_owned(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => field.to_ascii_uppercase(),
        "PascalCase" => pascal(field),
        "camelCase" => {
            let pascal = pascal(field);
            let mut chars = pascal.chars();
            match chars.next() {
                Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                None => String::new(),
            }
        }
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.to_ascii_uppercase().replace('_', "-"),
        _ => return None,
    })
}

fn pascal(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut capitalize = true;
    for c in field.chars() {
        if c == '_' {
            capitalize = true;
        } else if capitalize {
            out.push(c.to_ascii_uppercase());
            capitalize = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::apply;

    #[test]
    fn every_serde_convention() {
        let cases = [
            ("lowercase", "start_at"),
            ("UPPERCASE", "START_AT"),
            ("PascalCase", "StartAt"),
            ("camelCase", "startAt"),
            ("snake_case", "start_at"),
            ("SCREAMING_SNAKE_CASE", "START_AT"),
            ("kebab-case", "start-at"),
            ("SCREAMING-KEBAB-CASE", "START-AT"),
        ];
        for (rule, expected) in cases {
            assert_eq!(apply(rule, "start_at").as_deref(), Some(expected), "{rule}");
        }
        assert_eq!(apply("camelCase", "id").as_deref(), Some("id"));
        assert_eq!(apply("PascalCase", "id").as_deref(), Some("Id"));
        assert_eq!(apply("Title Case", "id"), None);
    }
}
