use tower_terse::CompactLine;

#[derive(CompactLine)]
#[compact(noun = "bits", line = "{id}")]
union Bits {
    id: u32,
    float: f32,
}

fn main() {}
