use tower_terse::CompactLine;

#[derive(CompactLine)]
#[compact(noun = "note", line = "{title}")]
struct Note {
    id: u32,
    title: String,
}

fn main() {}
