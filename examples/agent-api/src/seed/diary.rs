//! Seed diary entries, one a day for the forty days before BASE.

use serde_json::json;

use super::text::{
    DIARY_CLOSINGS, DIARY_MIDDLES, DIARY_OPENINGS, MOODS, PLACES, TAGS, WEATHER, word_count,
};
use super::{Rng, at, date};
use crate::diary::DiaryEntry;

/// Forty entries, the newest on the day before BASE.
pub fn entries(rng: &mut Rng) -> Vec<DiaryEntry> {
    (1..=40)
        .map(|days_ago| {
            let &(mood, mood_score) = rng.pick(MOODS);
            let opening = *rng.pick(DIARY_OPENINGS);
            let middle = *rng.pick(DIARY_MIDDLES);
            let closing = *rng.pick(DIARY_CLOSINGS);
            let text = format!("{opening} {middle} {closing}").trim_end().to_owned();
            let written = at(-days_ago, rng.range(21, 23), rng.range(0, 59));
            let edited = if rng.chance(15) {
                at(-days_ago + 1, 8, rng.range(0, 59))
            } else {
                written.clone()
            };
            DiaryEntry {
                id: rng.uuid(),
                date: date(-days_ago),
                mood: mood.to_owned(),
                mood_score,
                energy: (mood_score + rng.range(-1, 1)).clamp(1, 5),
                word_count: word_count(&text),
                text,
                tags: if rng.chance(40) {
                    vec![(*rng.pick(TAGS)).to_owned()]
                } else {
                    Vec::new()
                },
                weather: rng.chance(70).then(|| {
                    json!({
                        "conditions": rng.pick(WEATHER),
                        "temperature_c": rng.range(2, 19),
                        "humidity_pct": rng.range(35, 90),
                    })
                }),
                location: rng.chance(60).then(|| {
                    let &(place, locality, country, lat, lng) = rng.pick(PLACES);
                    json!({"place_name": place, "locality": locality, "country": country, "latitude": lat, "longitude": lng})
                }),
                sleep_hours: rng.chance(60).then(|| rng.range(45, 90) as f64 / 10.0),
                photos: if rng.chance(25) {
                    json!([{"filename": format!("IMG_{}.HEIC", rng.range(3000, 3999)), "width": 4032, "height": 3024}])
                } else {
                    json!([])
                },
                prompt: rng.chance(15).then(|| {
                    (*rng.pick(&["What made you smile today?", "¿Qué has aprendido hoy?", "One thing to let go of"])).to_owned()
                }),
                starred: rng.chance(10),
                is_private: rng.chance(20),
                time_zone: "Europe/Madrid".to_owned(),
                device: (*rng.pick(&["iPhone 15", "iPhone 15", "MacBook Air", "iPad mini"])).to_owned(),
                editing_seconds: rng.range(60, 1500),
                created_at: written,
                updated_at: edited,
                deleted_at: None,
            }
        })
        .collect()
}
