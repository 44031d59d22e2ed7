//! Diary entries, one per day.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tower_terse::CompactLine;

use crate::store::{Col, Record};

/// A diary entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, CompactLine)]
#[compact(
    noun = "diary entry",
    plural = "diary entries",
    line = "{date} {mood} \"{text|trunc(30)}\""
)]
pub struct DiaryEntry {
    /// UUID.
    pub id: String,
    /// The day it is about, `YYYY-MM-DD`.
    pub date: String,
    /// Mood as an emoji.
    pub mood: String,
    /// Mood from 1 (awful) to 5 (great).
    pub mood_score: i64,
    /// Energy from 1 to 5.
    pub energy: i64,
    /// What happened.
    pub text: String,
    /// Words in the text.
    pub word_count: i64,
    /// Tags.
    pub tags: Vec<String>,
    /// `{"conditions","temperature_c","humidity_pct"}`.
    pub weather: Option<Value>,
    /// `{"place_name","locality","country","latitude","longitude"}`.
    pub location: Option<Value>,
    /// Hours slept the night before.
    pub sleep_hours: Option<f64>,
    /// `[{"filename","width","height"}]`.
    pub photos: Value,
    /// The writing prompt answered, if any.
    pub prompt: Option<String>,
    /// Whether it is starred.
    pub starred: bool,
    /// Whether it is hidden behind the app lock.
    pub is_private: bool,
    /// The writer's time zone.
    pub time_zone: String,
    /// The device it was written on.
    pub device: String,
    /// Seconds spent writing.
    pub editing_seconds: i64,
    /// When it was created.
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// When it was deleted, if it was.
    pub deleted_at: Option<String>,
}

impl Record for DiaryEntry {
    const TABLE: &'static str = "diary";
    const KIND: &'static str = "diary entry";
    const ORDER_BY: &'static str = "date DESC, id";
    const COLUMNS: &'static [(&'static str, Col)] = &[
        ("id", Col::Text),
        ("date", Col::Text),
        ("mood", Col::Text),
        ("mood_score", Col::Int),
        ("energy", Col::Int),
        ("text", Col::Text),
        ("word_count", Col::Int),
        ("tags", Col::Json),
        ("weather", Col::Json),
        ("location", Col::Json),
        ("sleep_hours", Col::Real),
        ("photos", Col::Json),
        ("prompt", Col::Text),
        ("starred", Col::Bool),
        ("is_private", Col::Bool),
        ("time_zone", Col::Text),
        ("device", Col::Text),
        ("editing_seconds", Col::Int),
        ("created_at", Col::Text),
        ("updated_at", Col::Text),
        ("deleted_at", Col::Text),
    ];
}
