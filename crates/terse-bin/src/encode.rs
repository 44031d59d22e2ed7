//! `terse encode`: JSON to TOON.

use crate::error::CliError;
use crate::input;
use std::path::PathBuf;
use terse_toon::{Delimiter, EncodeOptions};
use tower_terse::{Format, Settings};

/// Arguments of `terse encode`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// JSON file to read; standard input when absent or `-`.
    pub file: Option<PathBuf>,
    /// Delimiter for inline arrays and table rows.
    #[arg(long, value_enum, default_value_t = DelimiterArg::Comma)]
    pub delimiter: DelimiterArg,
    /// Spaces per indentation level.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=16))]
    pub indent: u8,
}

/// The delimiter as written on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DelimiterArg {
    /// `,`
    Comma,
    /// A tab character.
    Tab,
    /// `|`
    Pipe,
}

impl From<DelimiterArg> for Delimiter {
    fn from(arg: DelimiterArg) -> Self {
        match arg {
            DelimiterArg::Comma => Delimiter::Comma,
            DelimiterArg::Tab => Delimiter::Tab,
            DelimiterArg::Pipe => Delimiter::Pipe,
        }
    }
}

/// Reads the JSON input and returns it as TOON text: the layer's rendering
/// with the smart fallback off, so the same JSON and options give the
/// same bytes as the layer, the gateway and the MCP layer serve.
pub fn run(args: &Args) -> Result<String, CliError> {
    let json = input::read_json_text(args.file.as_ref())?;
    let options = EncodeOptions::new()
        .with_delimiter(args.delimiter.into())
        .with_indent_size(usize::from(args.indent));
    let settings = Settings::new().smart_fallback(false).toon_options(options);
    let (text, _) = tower_terse::format::render_json_with(&json, Format::Toon, &settings)?;
    Ok(text)
}
