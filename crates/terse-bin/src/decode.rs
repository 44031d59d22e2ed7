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
    /// Spaces per indentation level; by default, those of the first
    /// indented line (2 when no line is indented).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=16))]
    pub indent: Option<u8>,
    /// Accept documents whose array lengths, row widths or indentation do not
    /// match (strict checking is the default).
    #[arg(long)]
    pub lenient: bool,
}

/// Reads the TOON input and returns it as compact JSON text.
pub fn run(args: &Args) -> Result<String, CliError> {
    let bytes = input::read_bytes(args.file.as_deref())?;
    let indent = match args.indent {
        Some(indent) => usize::from(indent),
        None => detect_indent(&bytes).unwrap_or(2),
    };
    let options = DecodeOptions::new()
        .with_indent_size(indent)
        .with_strict(!args.lenient);
    let value = terse_toon::decode_slice(&bytes, &options).map_err(CliError::Toon)?;
    Ok(serde_json::to_string(&value)?)
}

/// The indent of a TOON document: the spaces before its first indented
/// line, which in a well-formed document is one level deep (every block
/// opens one level below the line that opens it). Lines of nothing but
/// whitespace are passed over; `None` when no line is indented.
///
/// Whatever `terse encode --indent N` wrote decodes with the `N` found
/// here; a document indented inconsistently still fails strict decoding,
/// at the line that breaks the pattern.
fn detect_indent(toon: &[u8]) -> Option<usize> {
    toon.split(|&byte| byte == b'\n')
        .filter(|line| line.iter().any(|byte| !byte.is_ascii_whitespace()))
        .map(|line| line.iter().take_while(|&&byte| byte == b' ').count())
        .find(|&spaces| spaces > 0)
}

#[cfg(test)]
mod tests {
    use super::detect_indent;

    #[test]
    fn the_first_indented_line_sets_the_indent() {
        assert_eq!(detect_indent(b"a: 1\nb: 2"), None);
        assert_eq!(detect_indent(b"a:\n   b:\n      c: 1\n"), Some(3));
        assert_eq!(detect_indent(b"a:\n \t \n\n    b: 1\n"), Some(4));
        assert_eq!(detect_indent(b"[2]:\r\n - 1\r\n - 2\r\n"), Some(1));
        // A tab-indented line counts no spaces; strict decoding refuses it.
        assert_eq!(detect_indent(b"a:\n\tb: 1\n"), None);
    }
}
