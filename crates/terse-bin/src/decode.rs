//! `terse decode`: TOON to compact JSON.

use crate::error::CliError;
use crate::input;
use std::path::PathBuf;
use terse_toon::DecodeOptions;

/// Arguments of `terse decode`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// TOON file to read; standard input when absent or `-`.
    pub file: Option<PathBuf>,
    /// Spaces per indentation level.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=16))]
    pub indent: u8,
    /// Accept documents whose array lengths, row widths or indentation do not
    /// match (strict checking is the default).
    #[arg(long)]
    pub lenient: bool,
}

/// Reads the TOON input and returns it as compact JSON text.
pub fn run(args: &Args) -> Result<String, CliError> {
    let bytes = input::read_bytes(args.file.as_deref())?;
    let options = DecodeOptions::new()
        .with_indent_size(usize::from(args.indent))
        .with_strict(!args.lenient);
    let value = terse_toon::decode_slice(&bytes, &options).map_err(CliError::Toon)?;
    Ok(serde_json::to_string(&value)?)
}
