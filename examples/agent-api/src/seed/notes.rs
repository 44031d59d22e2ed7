//! Seed notes.

use serde_json::json;

use super::contacts::Person;
use super::text::{TAGS, word_count};
use super::{Rng, at, history};
use crate::notes::Note;

/// Title, body, tags.
const NOTES: &[(&str, &str, &[&str])] = &[
    (
        "Q3 budget draft",
        "## Q3 budget\n- Marketing: 42k (12% over)\n- Travel: 8k\n- Hiring: 2 backend roles\nAsk finance about the training line.",
        &["work", "budget"],
    ),
    (
        "Ideas para el viaje a Japón 🇯🇵",
        "Kioto en otoño, ryokan en Hakone, comprar JR Pass antes de salir. Presupuesto aprox. 3.500 €.",
        &["viaje", "ideas"],
    ),
    (
        "Groceries",
        "Milk, eggs, spinach, coffee beans, olive oil, tortillas.",
        &["casa"],
    ),
    (
        "Receta: tortilla de patatas",
        "5 huevos, 4 patatas, 1 cebolla. Pochar a fuego lento 25 min. Cuajar poco.",
        &["recetas"],
    ),
    (
        "Book list 📚",
        "- The Left Hand of Darkness\n- Cien años de soledad\n- Thinking in Systems\n- Patria",
        &["reading"],
    ),
    (
        "Reunión con el casero",
        "Temas: calefacción, subida del alquiler (IPC), pintar el salón. Pedir todo por escrito.",
        &["casa"],
    ),
    (
        "Proyecto Atlas — riesgos",
        "1. Dependencia del proveedor de mapas\n2. Equipo pequeño\n3. Fecha de marzo muy justa",
        &["work", "proyecto-atlas"],
    ),
    (
        "Gift ideas",
        "Lucía: ceramics class. Dad: Rioja gran reserva. Mom: the Sorolla exhibition catalogue.",
        &["family", "ideas"],
    ),
    (
        "Interview questions (backend)",
        "Walk me through a production incident. How would you design rate limiting? Rust ownership basics.",
        &["work"],
    ),
    (
        "Declaración de la renta",
        "Reunir: certificado de retenciones, recibos del alquiler, donativos. Plazo: abril–junio.",
        &["finanzas"],
    ),
    (
        "Running plan 🏃",
        "Mon 5k easy, Wed intervals 6×400, Sat long run 12k. Race: Madrid half, April.",
        &["health"],
    ),
    (
        "Meeting notes: design review",
        "Keep the sidebar. Drop the modal. Onboarding copy needs work — ask Emma. Figma: https://figma.com/file/k2Lx9",
        &["work"],
    ),
];

const CHECKLIST: &[&str] = &[
    "Leche",
    "Huevos",
    "Café",
    "Aceite de oliva",
    "Pan",
    "Tomates",
    "Yogur",
];

/// Fifty notes, a few pinned, a few with checklists or attachments.
pub fn notes(rng: &mut Rng, people: &[Person]) -> Vec<Note> {
    (0..50)
        .map(|i| {
            let &(title, body, tags) = rng.pick(NOTES);
            let age = rng.range(0, 120);
            // Later notes reuse a subject, dated as people date repeated notes.
            let title = if i < NOTES.len() { NOTES[i].0.to_owned() } else { format!("{title} · {}", super::date(-age)) };
            let body = if i < NOTES.len() { NOTES[i].1 } else { body };
            let tags = if i < NOTES.len() { NOTES[i].2 } else { tags };
            let mut tags: Vec<String> = tags.iter().map(|t| (*t).to_owned()).collect();
            if rng.chance(15) {
                tags.push((*rng.pick(TAGS)).to_owned());
                tags.dedup();
            }
            let (created_at, updated_at) = history(rng, age);
            let checklist = (title.starts_with("Groceries") || rng.chance(8)).then(|| {
                let items: Vec<_> = (0..rng.range(2, 5))
                    .map(|_| json!({"text": rng.pick(CHECKLIST), "done": rng.chance(40)}))
                    .collect();
                json!(items)
            });
            Note {
                id: rng.uuid(),
                title,
                body: body.to_owned(),
                excerpt: excerpt(body),
                language: language(body).to_owned(),
                tags,
                pinned: i % 7 == 0,
                archived: i % 11 == 10,
                color: rng.chance(30).then(|| (*rng.pick(&["yellow", "blue", "green", "pink"])).to_owned()),
                folder: rng.chance(60).then(|| (*rng.pick(&["Work", "Personal", "Viajes", "Archive"])).to_owned()),
                checklist,
                attachments: rng
                    .chance(10)
                    .then(|| json!([{"filename": "pizarra.jpg", "mime": "image/jpeg", "size_bytes": rng.range(200_000, 3_000_000)}])),
                word_count: word_count(body),
                source: (*rng.pick(&["app", "app", "web", "voice", "import"])).to_owned(),
                shared_with: if rng.chance(15) { vec![rng.pick(people).email.clone()] } else { Vec::new() },
                reminder_at: rng.chance(10).then(|| at(rng.range(1, 14), 9, 0)),
                links: body.split_whitespace().filter(|w| w.starts_with("https://")).map(str::to_owned).collect(),
                revision: rng.range(1, 40),
                last_edited_by: "alex.romero@gmail.com".to_owned(),
                device: (*rng.pick(&["iPhone 15", "MacBook Air", "web", "Pixel 8"])).to_owned(),
                encrypted: rng.chance(5),
                sync_state: (*rng.pick(&["synced", "synced", "synced", "synced", "pending", "conflict"])).to_owned(),
                created_at,
                updated_at,
                deleted_at: (i % 19 == 18).then(|| at(-1, 18, 30)),
            }
        })
        .collect()
}

/// `es` when the text reads as Spanish, else `en`.
fn language(text: &str) -> &'static str {
    let spanish = text.chars().any(|c| "áéíóúñ¿¡".contains(c))
        || [" de ", " la ", " el ", " con ", " para "]
            .iter()
            .any(|w| text.contains(w));
    if spanish { "es" } else { "en" }
}

/// The first 80 characters of `body` on one line, as list views show it.
fn excerpt(body: &str) -> String {
    let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.chars()
        .take(80)
        .collect::<String>()
        .trim_end()
        .to_owned()
}
