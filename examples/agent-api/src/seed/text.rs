//! Word lists for the seed data, in English and Spanish.

/// Given and family names, Spanish.
pub const ES_FIRST: &[&str] = &[
    "Juan",
    "María",
    "Carlos",
    "Lucía",
    "Sofía",
    "Diego",
    "Ana",
    "Pablo",
    "Elena",
    "Javier",
    "Carmen",
    "Miguel",
    "Laura",
    "Alejandro",
    "Isabel",
    "Marta",
    "Raúl",
    "Nuria",
    "Andrés",
    "Paula",
    "Íñigo",
];
/// Family names, Spanish.
pub const ES_LAST: &[&str] = &[
    "García",
    "Martínez",
    "López",
    "Sánchez",
    "Pérez",
    "Gómez",
    "Fernández",
    "Ruiz",
    "Díaz",
    "Moreno",
    "Muñoz",
    "Álvarez",
    "Romero",
    "Navarro",
    "Torres",
    "Ibáñez",
];
/// Given names, English and others.
pub const EN_FIRST: &[&str] = &[
    "James",
    "Emma",
    "Oliver",
    "Charlotte",
    "Liam",
    "Amelia",
    "Noah",
    "Olivia",
    "Ethan",
    "Grace",
    "Priya",
    "Wei",
    "Yuki",
    "Fatima",
    "Tom",
    "Hannah",
    "Kwame",
    "Zoe",
];
/// Family names, English and others.
pub const EN_LAST: &[&str] = &[
    "Smith", "Johnson", "Brown", "Taylor", "Wilson", "Clarke", "Patel", "Nguyen", "Chen",
    "O'Brien", "Murphy", "Kowalski", "Okafor", "Tanaka",
];
/// Employers, with their mail domains.
pub const COMPANIES: &[(&str, &str)] = &[
    ("Acme Corp", "acme.com"),
    ("Globex", "globex.io"),
    ("Nimbus Labs", "nimbuslabs.dev"),
    ("Telefónica", "telefonica.es"),
    ("Iberdrola", "iberdrola.es"),
    ("Banco Sabadell", "bancsabadell.com"),
    ("Stripe", "stripe.com"),
    ("Hospital La Paz", "salud.madrid.org"),
    ("Universidad de Sevilla", "us.es"),
    ("Freelance", "gmail.com"),
    ("Umbrella Health", "umbrella.health"),
    ("Shopify", "shopify.com"),
];
/// Job titles.
pub const JOBS: &[&str] = &[
    "Product Manager",
    "Ingeniera de software",
    "CTO",
    "Budget analyst",
    "Diseñador UX",
    "Data scientist",
    "Account executive",
    "Abogada",
    "Médico de familia",
    "Profesor titular",
    "Recruiter",
    "Founder",
    "Jefa de proyecto",
    "Staff engineer",
];
/// Cities.
pub const CITIES: &[(&str, &str, &str)] = &[
    ("Madrid", "28013", "ES"),
    ("Barcelona", "08002", "ES"),
    ("Sevilla", "41004", "ES"),
    ("Valencia", "46002", "ES"),
    ("London", "EC1V 9HX", "GB"),
    ("Dublin", "D02 X285", "IE"),
    ("Berlin", "10115", "DE"),
];
/// Streets.
pub const STREETS: &[&str] = &[
    "Calle de Alcalá 42",
    "Carrer de Mallorca 120",
    "Avenida de la Constitución 7",
    "221B Baker Street",
    "Grafton Street 15",
    "Calle Colón 3",
    "Friedrichstraße 68",
];

/// Mood emoji with their score.
pub const MOODS: &[(&str, i64)] = &[
    ("😄", 5),
    ("🥳", 5),
    ("😊", 4),
    ("🙂", 4),
    ("😐", 3),
    ("😴", 2),
    ("😔", 2),
    ("😤", 2),
    ("🤒", 1),
];

/// Diary sentences: what the day was about.
pub const DIARY_OPENINGS: &[&str] = &[
    "Great day at the office, the demo went better than expected.",
    "Día tranquilo en casa, por fin terminé el libro.",
    "Long meetings all morning; the budget review ate the afternoon.",
    "Salí a correr por el Retiro antes del trabajo 🏃.",
    "Couldn't sleep well, felt slow all day.",
    "Comida con mamá y la abuela, paella y sobremesa larga.",
    "Shipped the new search feature to production 🚀.",
    "Me dolía la cabeza y me quedé en la cama casi todo el día.",
    "Rainy Sunday: pancakes, a movie and an early night.",
    "Entrevista con una candidata muy buena para el equipo.",
    "Argument with the landlord about the heating again.",
    "Clase de yoga y cena con amigos en Lavapiés.",
    "Spent the evening planning the trip to Asturias.",
    "Reunión difícil con el cliente, pero acabamos con un plan.",
];
/// Diary sentences: the middle of the day.
pub const DIARY_MIDDLES: &[&str] = &[
    "Lunch was a quick salad at my desk, which I regret.",
    "Por la tarde llamé a papá; está mejor de la rodilla.",
    "The train was late again, so I read on the platform.",
    "Hice la compra y preparé lentejas para toda la semana.",
    "María sent the numbers and they finally add up.",
    "Paseo largo con Lucía hablando del viaje.",
    "Too much coffee, not enough water.",
    "Por fin arreglé la bici.",
];
/// Places diary entries are written at: name, locality, country, latitude, longitude.
pub const PLACES: &[(&str, &str, &str, f64, f64)] = &[
    ("Home", "Madrid", "Spain", 40.4115, -3.7036),
    ("Oficina", "Madrid", "Spain", 40.4531, -3.6883),
    ("Café Central", "Madrid", "Spain", 40.4142, -3.7010),
    ("Casa de mamá", "Sevilla", "Spain", 37.3826, -5.9963),
    (
        "Hotel Avenida Palace",
        "Lisboa",
        "Portugal",
        38.7155,
        -9.1413,
    ),
];

/// Diary sentences: how it ended.
pub const DIARY_CLOSINGS: &[&str] = &[
    "Tomorrow: finish the slides.",
    "Mañana toca gimnasio.",
    "Grateful for the small things.",
    "Necesito dormir más.",
    "Call Lucía about the weekend.",
    "",
    "Feeling hopeful about next week.",
    "Hay que preparar el presupuesto del viaje.",
];
/// Weather.
pub const WEATHER: &[&str] = &[
    "sunny",
    "cloudy",
    "rain",
    "soleado ☀️",
    "nublado",
    "windy",
    "lluvia 🌧️",
];

/// Words for tags.
pub const TAGS: &[&str] = &[
    "work",
    "personal",
    "ideas",
    "viaje",
    "finanzas",
    "recetas",
    "health",
    "family",
    "reading",
    "budget",
    "proyecto-atlas",
    "casa",
];

/// Strips Spanish accents for addresses (`Íñigo` -> `inigo`).
pub fn ascii_lower(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            let c = match c {
                'á' | 'Á' => 'a',
                'é' | 'É' => 'e',
                'í' | 'Í' => 'i',
                'ó' | 'Ó' => 'o',
                'ú' | 'Ú' | 'ü' => 'u',
                'ñ' | 'Ñ' => 'n',
                '\'' | ' ' => return None,
                c => c.to_ascii_lowercase(),
            };
            Some(c)
        })
        .collect()
}

/// The number of words in `text`.
pub fn word_count(text: &str) -> i64 {
    i64::try_from(text.split_whitespace().count()).unwrap_or(0)
}
