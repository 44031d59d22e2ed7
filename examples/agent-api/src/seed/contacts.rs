//! Seed contacts, and the people every other resource refers to.

use serde_json::json;

use super::text::{
    CITIES, COMPANIES, EN_FIRST, EN_LAST, ES_FIRST, ES_LAST, JOBS, STREETS, TAGS, ascii_lower,
};
use super::{Rng, at, history};
use crate::contacts::Contact;

/// Someone in the user's life.
pub struct Person {
    /// Given name.
    pub first: String,
    /// Family name.
    pub last: String,
    /// Employer.
    pub company: &'static str,
    /// Work address.
    pub email: String,
}

impl Person {
    /// Given and family name.
    pub fn name(&self) -> String {
        format!("{} {}", self.first, self.last)
    }
}

const PEOPLE: usize = 45;

/// The people, Spanish and English names alternating.
pub fn people(rng: &mut Rng) -> Vec<Person> {
    (0..PEOPLE)
        .map(|i| {
            let (first, last) = if i % 5 < 3 {
                (
                    ES_FIRST[i % ES_FIRST.len()],
                    ES_LAST[(i * 7 + 3) % ES_LAST.len()],
                )
            } else {
                (
                    EN_FIRST[i % EN_FIRST.len()],
                    EN_LAST[(i * 5 + 1) % EN_LAST.len()],
                )
            };
            let (company, domain) = *rng.pick(COMPANIES);
            let email = format!("{}.{}@{domain}", ascii_lower(first), ascii_lower(last));
            Person {
                first: first.to_owned(),
                last: last.to_owned(),
                company,
                email,
            }
        })
        .collect()
}

/// One contact per person.
pub fn contacts(rng: &mut Rng, people: &[Person]) -> Vec<Contact> {
    people
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let age = rng.range(20, 900);
            let (created_at, updated_at) = history(rng, age);
            let freelance = p.company == "Freelance";
            let mut emails = vec![json!({"label": if freelance { "home" } else { "work" }, "address": p.email})];
            if rng.chance(30) {
                emails.push(json!({"label": "home", "address": format!("{}{}@gmail.com", ascii_lower(&p.first), rng.range(70, 99))}));
            }
            let mut phones = vec![json!({"label": "mobile", "number": format!("+34 6{:02} {:03} {:03}", rng.range(0, 99), rng.range(0, 999), rng.range(0, 999))})];
            if rng.chance(20) {
                phones.push(json!({"label": "work", "number": format!("+34 91 {:03} {:02} {:02}", rng.range(0, 999), rng.range(0, 99), rng.range(0, 99))}));
            }
            let (city, postal, country) = *rng.pick(CITIES);
            let address = rng
                .chance(40)
                .then(|| json!({"street": rng.pick(STREETS), "city": city, "postal_code": postal, "country": country}));
            let source = *rng.pick(&["google", "google", "icloud", "local"]);
            Contact {
                id: rng.uuid(),
                display_name: p.name(),
                first_name: p.first.clone(),
                last_name: Some(p.last.clone()),
                company: (!freelance).then(|| p.company.to_owned()),
                job_title: rng.chance(80).then(|| (*rng.pick(JOBS)).to_owned()),
                email: Some(p.email.clone()),
                emails: json!(emails),
                phones: json!(phones),
                address,
                birthday: rng
                    .chance(50)
                    .then(|| format!("{}-{:02}-{:02}", rng.range(1960, 2001), rng.range(1, 12), rng.range(1, 28))),
                notes: rng.chance(25).then(|| {
                    (*rng.pick(&[
                        "Met at the Madrid JS meetup.",
                        "Prefiere WhatsApp a llamadas.",
                        "Allergic to nuts — remember for dinners.",
                        "Compañero de la universidad.",
                        "Introduced by Juan; interested in Proyecto Atlas.",
                    ]))
                    .to_owned()
                }),
                tags: if rng.chance(50) { vec![(*rng.pick(TAGS)).to_owned()] } else { Vec::new() },
                avatar_url: rng
                    .chance(35)
                    .then(|| format!("https://avatars.example.com/{}.jpg", rng.hex(16))),
                favorite: i % 9 == 0,
                source: source.to_owned(),
                source_id: (source != "local").then(|| format!("people/c{}", rng.range(1_000_000, 9_999_999))),
                last_contacted_at: rng.chance(60).then(|| at(-rng.range(1, 60), rng.range(8, 20), rng.range(0, 59))),
                created_at,
                updated_at,
                deleted_at: (i % 23 == 22).then(|| at(-rng.range(1, 10), 12, 0)),
            }
        })
        .collect()
}
