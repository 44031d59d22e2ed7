//! The TOON-or-JSON rule (the smart fallback) as the rendering core applies
//! it: every path that may serve TOON asks [`toon_or_json`], which asks
//! [`tokens::choose`], so one document gets one answer everywhere.

use crate::tokens::{self, Choice, Counting};

use super::Settings;

impl Settings<'_> {
    /// How `X-Token-Count` and the smart fallback count, for these settings.
    pub(crate) fn counting(&self) -> Counting {
        #[cfg(feature = "exact-tokens")]
        if self.exact_tokens {
            return Counting::Exact;
        }
        Counting::Estimate
    }
}

/// The cheaper of two renderings of one document, counted as the settings
/// count. A tie goes to JSON, which every client reads.
pub(crate) fn toon_or_json(settings: &Settings<'_>, json: &str, toon: &str) -> Choice {
    tokens::choose(json, toon, settings.counting())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::test_settings as settings;
    use crate::toon::EncodeOptions;
    use tokens::Served;

    #[test]
    fn toon_wins_only_with_fewer_tokens() {
        let options = EncodeOptions::default();
        let settings = settings(&options);
        let rows = r#"[{"id":1,"name":"Ada"},{"id":2,"name":"Linus"},{"id":3,"name":"Grace"}]"#;
        let toon = "[3]{id,name}:\n  1,Ada\n  2,Linus\n  3,Grace";
        assert_eq!(toon_or_json(&settings, rows, toon).served, Served::Toon);
        // A tie goes to JSON.
        assert_eq!(toon_or_json(&settings, "[1]", "[1]").served, Served::Json);
        // A costlier TOON is refused.
        assert_eq!(toon_or_json(&settings, "1", "[1]: 1").served, Served::Json);
    }
}
