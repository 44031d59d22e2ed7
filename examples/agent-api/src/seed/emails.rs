//! Seed emails: threads with people, notifications from services, a little spam.

use serde_json::{Value, json};

use super::contacts::Person;
use super::{Rng, at_minutes};
use crate::emails::Email;

/// Mail from people: subject, body.
const PERSONAL: &[(&str, &str)] = &[
    (
        "Budget Q3",
        "Hi! Attached is the Q3 budget with the changes we discussed. Marketing is 12% over; can we talk on Thursday?",
    ),
    (
        "Presupuesto 2026",
        "Hola, te paso el presupuesto actualizado. He recortado viajes y añadido la partida de formación.",
    ),
    (
        "Cena el sábado?",
        "¿Te apetece cenar el sábado en Casa Lucio? Reservo para las 21:30 si me dices algo antes del jueves.",
    ),
    (
        "Contract renewal",
        "Please find the renewal contract attached. Legal signed off on clause 7; we need your signature by Friday.",
    ),
    (
        "Fotos de la boda 📸",
        "¡Por fin! Aquí tienes las fotos de la boda. Hay algunas preciosas de la abuela bailando.",
    ),
    (
        "Design review notes",
        "Summary: keep the sidebar, drop the modal, rethink onboarding copy. Next review in two weeks.",
    ),
    (
        "Entrevista con Laura",
        "La candidata de backend encaja muy bien. Propongo pasar a la entrevista técnica la semana que viene.",
    ),
    (
        "Weekly report",
        "Shipped: search v2, faster sync. In progress: compact lists. Blocked: none. Hiring: 2 offers out.",
    ),
    (
        "Proyecto Atlas — siguiente fase",
        "Os resumo la reunión: fase 2 arranca el 1 de marzo, presupuesto aprobado, falta cerrar el equipo.",
    ),
    (
        "Trip to Asturias",
        "I booked the cottage near Llanes for the 7th to the 12th. Can you sort out the car?",
    ),
    (
        "Factura pendiente",
        "Hola, la factura 2026-014 sigue pendiente de pago. ¿Puedes revisarlo con contabilidad?",
    ),
    (
        "Invitation: Board meeting",
        "You are invited to the board meeting. Agenda: results, budget, hiring plan, any other business.",
    ),
];

/// Mail from services: sender, address, subject, body, category.
const SERVICES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "GitHub",
        "noreply@github.com",
        "[terse] CI failed on main",
        "The workflow run failed: 1 job failed, 4 passed.",
        "updates",
    ),
    (
        "Iberia",
        "confirmacion@iberia.es",
        "Tu tarjeta de embarque: MAD → OVD",
        "Vuelo IB0432, puerta J52, embarque 08:15. ¡Buen viaje!",
        "updates",
    ),
    (
        "Amazon.es",
        "pedidos@amazon.es",
        "Tu pedido ha sido enviado",
        "Tu pedido #402-9918 llegará el jueves. Sigue tu paquete en la app.",
        "updates",
    ),
    (
        "Notion",
        "team@makenotion.com",
        "What's new in February",
        "New: AI meeting notes, faster databases, and calendar sync.",
        "promotions",
    ),
    (
        "Banco Sabadell",
        "avisos@bancsabadell.com",
        "Cargo en tu tarjeta: 64,90 €",
        "Se ha realizado un cargo de 64,90 € en MERCADONA. Si no lo reconoces, llámanos.",
        "updates",
    ),
    (
        "Endesa",
        "facturas@endesa.es",
        "Tu factura de la luz de enero",
        "Importe: 78,45 €. Se cargará en tu cuenta el día 20.",
        "updates",
    ),
    (
        "LinkedIn",
        "messages-noreply@linkedin.com",
        "You appeared in 14 searches this week",
        "See who's looking at your profile and grow your network.",
        "social",
    ),
    (
        "Medium Daily Digest",
        "noreply@medium.com",
        "Rust for LLM tooling: a field guide",
        "Today's highlights: Rust for LLM tooling, why TOON saves tokens, and more.",
        "promotions",
    ),
];

const SPAM: &[(&str, &str, &str)] = &[
    (
        "Premio",
        "winner@lucky-prize.biz",
        "¡Has ganado un iPhone 17! 🎁",
    ),
    (
        "Crypto Alerts",
        "alerts@moonshot.io",
        "This coin will 100x by Friday 🚀",
    ),
];

fn attachment(rng: &mut Rng, subject: &str) -> Value {
    let lower = subject.to_lowercase();
    let (name, mime, size) = if lower.contains("budget") || lower.contains("presupuesto") {
        (
            "Budget_Q3_2026.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            rng.range(40_000, 400_000),
        )
    } else if lower.contains("fotos") {
        (
            "IMG_2041.jpg",
            "image/jpeg",
            rng.range(1_500_000, 6_000_000),
        )
    } else if lower.contains("factura") || lower.contains("contract") {
        (
            "documento.pdf",
            "application/pdf",
            rng.range(80_000, 900_000),
        )
    } else {
        (
            "notes.docx",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            rng.range(20_000, 200_000),
        )
    };
    json!([{"filename": name, "mime": mime, "size_bytes": size}])
}

struct Draft {
    from_name: String,
    from_address: String,
    subject: String,
    body: String,
    folder: &'static str,
    category: Option<&'static str>,
    headers: Option<Value>,
}

fn draft(rng: &mut Rng, people: &[Person], i: usize) -> Draft {
    match i % 10 {
        0..=5 => {
            let p = rng.pick(people);
            let &(subject, body) = rng.pick(PERSONAL);
            let subject = if rng.chance(30) {
                format!("Re: {subject}")
            } else {
                subject.to_owned()
            };
            Draft {
                from_name: p.first.clone(),
                from_address: p.email.clone(),
                subject,
                body: body.to_owned(),
                folder: rng.choose(&["INBOX", "INBOX", "INBOX", "Archive"]),
                category: Some("primary"),
                headers: None,
            }
        }
        6..=8 => {
            let &(name, address, subject, body, category) = rng.pick(SERVICES);
            Draft {
                from_name: name.to_owned(),
                from_address: address.to_owned(),
                subject: subject.to_owned(),
                body: body.to_owned(),
                folder: rng.choose(&["INBOX", "Archive"]),
                category: Some(category),
                headers: Some(json!({
                    "List-Unsubscribe": format!("<mailto:unsubscribe@{}>", address.split('@').nth(1).unwrap_or("example.com")),
                    "X-Mailer": "Amazon SES",
                })),
            }
        }
        _ if i % 20 == 9 => {
            let &(name, address, subject) = rng.pick(SPAM);
            Draft {
                from_name: name.to_owned(),
                from_address: address.to_owned(),
                subject: subject.to_owned(),
                body: "Haz clic aquí para reclamar tu premio antes de 24 horas.".to_owned(),
                folder: "Spam",
                category: None,
                headers: Some(json!({"X-Spam-Flag": "YES"})),
            }
        }
        _ => {
            let p = rng.pick(people);
            let &(subject, body) = rng.pick(PERSONAL);
            Draft {
                from_name: "Me".to_owned(),
                from_address: "alex.romero@gmail.com".to_owned(),
                subject: format!("Re: {subject}"),
                body: format!("Hi {}, {body}", p.first),
                folder: rng.choose(&["Sent", "Sent", "Drafts"]),
                category: None,
                headers: None,
            }
        }
    }
}

/// Ninety emails over the month before BASE.
pub fn emails(rng: &mut Rng, people: &[Person]) -> Vec<Email> {
    let mut out: Vec<Email> = Vec::new();
    for i in 0..90 {
        let d = draft(rng, people, i);
        let received = -rng.range(0, 30 * 1440);
        let received_at = at_minutes(received).to_string();
        let is_reply = d.subject.starts_with("Re: ");
        let parent = if is_reply {
            out.iter().rev().find(|e| d.subject.ends_with(&e.subject))
        } else {
            None
        };
        let thread_id = parent.map_or_else(|| rng.hex(16), |p| p.thread_id.clone());
        let in_reply_to = parent.map(|p| p.message_id.clone());
        let references = parent.map(|p| json!([p.message_id]));
        let has_attachments = d.folder != "Spam" && rng.chance(30);
        let provider = *rng.pick(&["gmail", "gmail", "outlook", "imap"]);
        let sent = d.folder == "Sent" || d.folder == "Drafts";
        let to = if sent {
            json!([rng.pick(people).email])
        } else {
            json!(["alex.romero@gmail.com"])
        };
        let cc = (d.category == Some("primary") && rng.chance(25))
            .then(|| json!([rng.pick(people).email]));
        let updated = if rng.chance(30) {
            rng.range(received, 0)
        } else {
            received
        };
        let snippet: String = d.body.chars().take(60).collect();
        out.push(Email {
            id: rng.uuid(),
            message_id: format!(
                "<{}@{}>",
                rng.hex(20),
                d.from_address.split('@').nth(1).unwrap_or("mail")
            ),
            thread_id,
            in_reply_to,
            references,
            from_name: d.from_name,
            from_address: d.from_address,
            to,
            cc,
            bcc: (sent && rng.chance(15)).then(|| json!(["archivo@alexromero.es"])),
            reply_to: d
                .headers
                .as_ref()
                .and(rng.chance(30).then(|| "support@example.com".to_owned())),
            attachments: has_attachments.then(|| attachment(rng, &d.subject)),
            subject: d.subject,
            snippet,
            body_html: rng.chance(20).then(|| format!("<p>{}</p>", d.body)),
            body_text: d.body,
            folder: d.folder.to_owned(),
            labels: match d.folder {
                "INBOX" if rng.chance(20) => json!(["INBOX", "IMPORTANT"]),
                "INBOX" => json!(["INBOX"]),
                "Spam" => json!(["SPAM"]),
                _ => json!([]),
            },
            is_read: sent || rng.chance(60),
            is_starred: rng.chance(10),
            is_draft: d.folder == "Drafts",
            is_important: rng.chance(15),
            has_attachments,
            headers: d.headers,
            size_bytes: rng.range(2_000, 60_000),
            received_at: received_at.clone(),
            sent_at: rng
                .chance(70)
                .then(|| at_minutes(received - rng.range(0, 3)).to_string()),
            snoozed_until: rng
                .chance(4)
                .then(|| at_minutes(rng.range(60, 4000)).to_string()),
            category: if provider == "gmail" {
                d.category.map(str::to_owned)
            } else {
                None
            },
            priority: rng.chance(5).then(|| "high".to_owned()),
            spam_score: (d.folder == "Spam").then(|| rng.range(60, 99) as f64 / 10.0),
            provider: provider.to_owned(),
            account_id: format!("acc_{provider}_01"),
            sync_token: (provider == "imap")
                .then(|| format!("uidvalidity=1;uid={}", rng.range(1000, 9999))),
            history_id: (provider == "gmail").then(|| rng.range(8_000_000, 9_000_000).to_string()),
            etag: (provider == "outlook").then(|| format!("W/\"{}\"", rng.hex(12))),
            created_at: received_at.clone(),
            updated_at: at_minutes(updated).to_string(),
            synced_at: (provider != "imap").then(|| at_minutes(updated + 1).to_string()),
            deleted_at: (i % 31 == 30).then(|| at_minutes(updated).to_string()),
        });
    }
    out
}
