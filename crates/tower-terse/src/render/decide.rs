//! The TOON-or-JSON rule (the smart fallback) as the rendering core applies
//! it: every path that may serve TOON asks [`toon_or_json`], which asks
//! [`tokens::choose`], so one document gets one answer everywhere.

use crate::tokens::{self, Choice, Counting};

use super::settings::RenderSettings;

impl RenderSettings {
    /// How `X-Token-Count` and the smart fallback count, for these settings.
    pub(crate) fn counting(&self) -> Counting {
        #[cfg(feature = "exact-tokens")]
        if self.exact() {
            return Counting::Exact;
        }
        Counting::Estimate
    }
}

/// The cheaper of two renderings of one document, counted as the settings
/// count. A tie goes to JSON, which every client reads.
pub(crate) fn toon_or_json(settings: &RenderSettings, json: &str, toon: &str) -> Choice {
    tokens::choose(json, toon, settings.counting())
}

/// [`toon_or_json`], unless the estimates leave a near tie whose exact
/// counts would take more than `count_here` work ([`exact_count_work`]):
/// then its estimates, and the tie is for [`tokens::settle_weighed`]
/// elsewhere.
///
/// [`exact_count_work`]: super::working::exact_count_work
pub(crate) fn toon_or_json_within(
    settings: &RenderSettings,
    json: &str,
    toon: &str,
    count_here: usize,
) -> Result<Choice, tokens::Weighed> {
    let work = super::working::exact_count_work(json.len().saturating_add(toon.len()));
    if settings.counting() == Counting::Estimate && work > count_here {
        return tokens::weigh(json, toon);
    }
    Ok(toon_or_json(settings, json, toon))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::settings::test_settings as settings;
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
