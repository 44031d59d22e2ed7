//! Seed calendar events: recurring series and one-off events around [`BASE`](super::BASE).

use serde_json::{Value, json};

use super::contacts::Person;
use super::{Rng, at, at_minutes};
use crate::events::Event;

/// A recurring series of events.
struct Series {
    title: &'static str,
    location: Option<&'static str>,
    days: &'static [&'static str],
    /// Minutes after midnight UTC.
    start: i64,
    minutes: i64,
    calendar: &'static str,
}

const fn series(
    title: &'static str,
    location: Option<&'static str>,
    days: &'static [&'static str],
    start: i64,
    minutes: i64,
    calendar: &'static str,
) -> Series {
    Series {
        title,
        location,
        days,
        start,
        minutes,
        calendar,
    }
}

const SERIES: &[Series] = &[
    series(
        "Standup",
        Some("Discord"),
        &["MO", "TU", "WE", "TH", "FR"],
        9 * 60,
        15,
        "Work",
    ),
    series(
        "1:1 con María",
        Some("Google Meet"),
        &["TH"],
        10 * 60,
        30,
        "Work",
    ),
    series(
        "Yoga",
        Some("Estudio Zen, Calle Pez 12"),
        &["TU", "TH"],
        19 * 60,
        60,
        "Personal",
    ),
    series(
        "Sprint planning",
        Some("Sala 3"),
        &["MO"],
        11 * 60,
        60,
        "Work",
    ),
    series("Gym 💪", None, &["MO", "WE", "FR"], 7 * 60, 60, "Personal"),
    series(
        "Cena familiar",
        Some("Casa de mamá"),
        &["SU"],
        20 * 60 + 30,
        120,
        "Familia",
    ),
    series("Retro", Some("Zoom"), &["FR"], 16 * 60, 45, "Work"),
    series(
        "Spanish class",
        Some("Zoom"),
        &["WE"],
        18 * 60,
        60,
        "Personal",
    ),
];

/// One-off events: title (with `{}` for a person), location, minutes, calendar.
const ONE_OFF: &[(&str, Option<&str>, i64, &str)] = &[
    ("Budget Q3 review", Some("Sala 3"), 60, "Work"),
    ("Lunch with {}", Some("Café Central"), 90, "Personal"),
    ("Dentist", Some("Clínica Dental Sonrisa"), 45, "Personal"),
    ("Design review", Some("Zoom"), 60, "Work"),
    ("Reunión de equipo", Some("Oficina — planta 4"), 60, "Work"),
    ("Cena con {}", Some("Casa Lucio"), 120, "Personal"),
    ("Call with investors", Some("Google Meet"), 45, "Work"),
    ("Entrevista: candidata backend", Some("Discord"), 60, "Work"),
    ("Product demo", Some("Auditorio"), 30, "Work"),
    (
        "Médico de cabecera",
        Some("Centro de Salud Lavapiés"),
        20,
        "Personal",
    ),
    ("Coffee with {}", None, 30, "Personal"),
    ("Board meeting", Some("Sala Consejo"), 120, "Work"),
    ("Padel 🎾 con {}", Some("Club Padel Norte"), 90, "Personal"),
    ("Presupuesto 2026: revisión", Some("Teams"), 60, "Work"),
    ("Haircut", Some("Barbería Malasaña"), 30, "Personal"),
    (
        "Workshop: prompt engineering",
        Some("Auditorio"),
        180,
        "Work",
    ),
    ("Llamada con el casero", None, 15, "Personal"),
    ("Onboarding {}", Some("Oficina — planta 4"), 120, "Work"),
];

/// All-day events: title, days from BASE, length in days.
const ALL_DAY: &[(&str, i64, i64)] = &[
    ("Cumpleaños de Lucía 🎂", 3, 1),
    ("Vacaciones en Asturias 🏖️", 17, 5),
    ("Día de Andalucía (festivo)", 10, 1),
    ("Offsite Lisboa", -9, 2),
    ("Mom's birthday 🎉", -14, 1),
];

fn weekday(days: i64) -> &'static str {
    // BASE is a Wednesday.
    ["WE", "TH", "FR", "SA", "SU", "MO", "TU"][days.rem_euclid(7) as usize]
}

fn reminders(rng: &mut Rng) -> Value {
    match rng.range(0, 3) {
        0 => json!([]),
        1 => json!([{"method": "popup", "minutes_before": 10}]),
        2 => {
            json!([{"method": "popup", "minutes_before": 30}, {"method": "email", "minutes_before": 1440}])
        }
        _ => json!([{"method": "popup", "minutes_before": 5}]),
    }
}

fn attendees(rng: &mut Rng, people: &[Person], max: i64) -> Value {
    let n = rng.range(0, max);
    let list: Vec<Value> = (0..n)
        .map(|_| {
            let p = rng.pick(people);
            let response = *rng.pick(&[
                "accepted",
                "accepted",
                "tentative",
                "declined",
                "needsAction",
            ]);
            json!({"name": p.name(), "email": p.email, "response": response})
        })
        .collect();
    json!(list)
}

fn custom_fields(rng: &mut Rng, location: Option<&str>) -> Value {
    match (rng.range(0, 5), location) {
        (0, Some("Zoom")) => {
            json!({"meeting_url": format!("https://zoom.us/j/{}", rng.range(100_000_000, 999_999_999))})
        }
        (0, Some("Google Meet")) => {
            json!({"meeting_url": format!("https://meet.google.com/{}-{}-{}", rng.hex(3), rng.hex(4), rng.hex(3))})
        }
        (1, _) => json!({"project": "Atlas", "billable": true}),
        (2, _) => json!({"color": *rng.pick(&["tomato", "sage", "grape", "banana"])}),
        _ => json!({}),
    }
}

struct Timing {
    start: String,
    end: String,
    created: String,
    updated: String,
}

fn timing(rng: &mut Rng, day: i64, start_min: i64, minutes: i64) -> Timing {
    let start = day * 1440 + start_min;
    // Events are planned ahead, and nothing was touched after BASE.
    let created =
        (start - rng.range(1, 30) * 1440).min(-rng.range(1, 3) * 1440) - rng.range(0, 600);
    let updated = if rng.chance(35) {
        rng.range(created, -60)
    } else {
        created
    };
    Timing {
        start: at_minutes(start).to_string(),
        end: at_minutes(start + minutes).to_string(),
        created: at_minutes(created).to_string(),
        updated: at_minutes(updated).to_string(),
    }
}

#[allow(clippy::too_many_arguments)]
fn event(
    rng: &mut Rng,
    people: &[Person],
    title: String,
    location: Option<&str>,
    t: Timing,
    all_day: bool,
    recurrence: Option<Value>,
    calendar: &str,
) -> Event {
    let source = *rng.pick(&["google", "google", "outlook", "ical", "local"]);
    let description = rng.chance(35).then(|| {
        (*rng.pick(&[
            "Agenda: status, blockers, next steps.",
            "Traer el portátil y los números del trimestre.",
            "Please review the doc beforehand.",
            "Confirmar asistencia antes del viernes.",
            "Notes: https://docs.example.com/d/8f3a",
        ]))
        .to_owned()
    });
    let synced_at = (source != "local").then(|| t.updated.clone());
    Event {
        id: rng.uuid(),
        title,
        description,
        location: location.map(str::to_owned),
        start_at: t.start,
        end_at: t.end,
        all_day,
        recurrence,
        status: (*rng.pick(&[
            "confirmed",
            "confirmed",
            "confirmed",
            "confirmed",
            "tentative",
            "cancelled",
        ]))
        .to_owned(),
        source: source.to_owned(),
        source_id: (source != "local").then(|| format!("{}_{}", rng.hex(26), rng.range(0, 9))),
        calendar_name: calendar.to_owned(),
        reminders: reminders(rng),
        attendees: attendees(rng, people, if calendar == "Work" { 5 } else { 2 }),
        custom_fields: custom_fields(rng, location),
        created_at: t.created,
        updated_at: t.updated,
        synced_at,
        deleted_at: None,
    }
}

/// About eighty events from three weeks before BASE to four weeks after.
pub fn events(rng: &mut Rng, people: &[Person]) -> Vec<Event> {
    let mut out = Vec::new();
    for &Series {
        title,
        location,
        days,
        start,
        minutes,
        calendar,
    } in SERIES
    {
        // The series' first occurrence: the first matching weekday three weeks before BASE.
        let first = (-21..-14)
            .find(|d| days.contains(&weekday(*d)))
            .unwrap_or(-21);
        let t = timing(rng, first, start, minutes);
        let until = rng.chance(30).then(|| at(rng.range(30, 90), 23, 59));
        let rule = json!({"freq": "weekly", "interval": 1, "by_day": days, "until": until});
        let mut e = event(
            rng,
            people,
            title.to_owned(),
            location,
            t,
            false,
            Some(rule),
            calendar,
        );
        e.status = "confirmed".to_owned();
        out.push(e);
    }
    for &(title, day, length) in ALL_DAY {
        let t = timing(rng, day, 0, length * 1440);
        let mut e = event(
            rng,
            people,
            title.to_owned(),
            None,
            t,
            true,
            None,
            "Personal",
        );
        e.attendees = json!([]);
        if title.contains("Cumpleaños") || title.contains("birthday") {
            e.recurrence =
                Some(json!({"freq": "yearly", "interval": 1, "by_day": [], "until": null}));
        }
        out.push(e);
    }
    for i in 0..67 {
        let &(title, location, minutes, calendar) = rng.pick(ONE_OFF);
        let title = title.replace("{}", &rng.pick(people).first);
        let mut day = rng.range(-21, 28);
        if calendar == "Work" && matches!(weekday(day), "SA" | "SU") {
            day += 2;
        }
        let start = rng.range(16, 38) * 30;
        let t = timing(rng, day, start, minutes);
        let mut e = event(rng, people, title, location, t, false, None, calendar);
        if i % 17 == 5 {
            e.deleted_at = Some(e.updated_at.clone());
        }
        out.push(e);
    }
    out
}
