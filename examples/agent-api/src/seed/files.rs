//! Seed files in the drive.

use super::{Rng, history};
use crate::files::File;

/// Name, folder, kind, mime, smallest and largest size.
const FILES: &[(&str, &str, &str, &str, i64, i64)] = &[
    (
        "report.pdf",
        "/Work/Reports",
        "pdf",
        "application/pdf",
        200_000,
        4_000_000,
    ),
    (
        "Budget_Q3_2026.xlsx",
        "/Work/Finance",
        "spreadsheet",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        40_000,
        400_000,
    ),
    (
        "Contrato alquiler.pdf",
        "/Personal/Casa",
        "pdf",
        "application/pdf",
        300_000,
        1_200_000,
    ),
    (
        "IMG_2041.jpg",
        "/Photos/2026/02",
        "image",
        "image/jpeg",
        1_500_000,
        6_000_000,
    ),
    (
        "Pitch deck v7.pptx",
        "/Work/Atlas",
        "presentation",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        3_000_000,
        25_000_000,
    ),
    (
        "notas-reunion.md",
        "/Work/Notes",
        "text",
        "text/markdown",
        1_000,
        12_000,
    ),
    (
        "backup-2026-01.zip",
        "/Backups",
        "archive",
        "application/zip",
        200_000_000,
        900_000_000,
    ),
    (
        "voice-memo-0211.m4a",
        "/Audio",
        "audio",
        "audio/mp4",
        400_000,
        5_000_000,
    ),
    (
        "Presupuesto reforma cocina.pdf",
        "/Personal/Casa",
        "pdf",
        "application/pdf",
        100_000,
        600_000,
    ),
    (
        "boda-video.mp4",
        "/Videos",
        "video",
        "video/mp4",
        300_000_000,
        2_000_000_000,
    ),
    (
        "CV_2026.docx",
        "/Personal",
        "document",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        30_000,
        120_000,
    ),
    (
        "Factura_Endesa_enero.pdf",
        "/Personal/Facturas",
        "pdf",
        "application/pdf",
        50_000,
        200_000,
    ),
    (
        "roadmap.png",
        "/Work/Atlas",
        "image",
        "image/png",
        200_000,
        2_000_000,
    ),
];

/// Fifty files.
pub fn files(rng: &mut Rng) -> Vec<File> {
    (0..50)
        .map(|i| {
            let &(name, folder, kind, mime, lo, hi) = if i < FILES.len() {
                &FILES[i]
            } else {
                rng.pick(FILES)
            };
            let name = if i < FILES.len() {
                name.to_owned()
            } else {
                match name.rsplit_once('.') {
                    Some((stem, ext)) => format!("{stem} ({}).{ext}", i / FILES.len()),
                    None => name.to_owned(),
                }
            };
            let age = rng.range(0, 200);
            let (created_at, updated_at) = history(rng, age);
            let last_opened_at = rng.chance(60).then(|| updated_at.clone());
            File {
                id: rng.uuid(),
                path: format!("{folder}/{name}"),
                name,
                kind: kind.to_owned(),
                mime: mime.to_owned(),
                size_bytes: rng.range(lo, hi),
                checksum_sha256: rng.hex(64),
                owner_email: "alex.romero@gmail.com".to_owned(),
                shared: rng.chance(25),
                starred: rng.chance(12),
                parent_id: Some(rng.uuid()),
                version: rng.range(1, 9),
                tags: if rng.chance(30) {
                    vec![
                        folder
                            .trim_start_matches('/')
                            .split('/')
                            .next()
                            .unwrap_or("")
                            .to_lowercase(),
                    ]
                } else {
                    Vec::new()
                },
                thumbnail_url: matches!(kind, "image" | "pdf" | "presentation" | "video")
                    .then(|| format!("https://drive.example.com/thumb/{}.png", rng.hex(12))),
                last_opened_at,
                created_at,
                updated_at,
                deleted_at: (i % 17 == 16).then(|| super::at(-2, 10, 0)),
            }
        })
        .collect()
}
