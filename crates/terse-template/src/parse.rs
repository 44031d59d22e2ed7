//! Template text to [`Ast`].
//!
//! Grammar (informal):
//!
//! ```text
//! template    = segment*
//! segment     = text | "{{" | "}}" | placeholder | group
//! group       = "{?" segment* "}"
//! placeholder = "{" ws path ws ("|" ws filter ws)* "}"
//! path        = name ("." name)*
//! filter      = name ("(" (quoted | raw) ")")?
//! quoted      = '"' (any char but '"' or '\', or '\"' or '\\')* '"'
//! raw         = any chars but ")", "{", "}"
//! ```
//!
//! Control characters are rejected everywhere: a template renders one line.

use crate::ast::{Ast, Filter, Placeholder, Segment};
use crate::error::ParseError;
use crate::filters;

/// The longest template [`parse`] accepts, in bytes (4 KiB). A line
/// template is a line of text with a few placeholders; the bound keeps the
/// work of checking one small and its error pointing at a place.
pub const MAX_TEMPLATE_BYTES: usize = 4096;

/// The deepest nesting of optional groups (`{? ... }`) [`parse`] accepts.
pub const MAX_NESTING: usize = 32;

/// Parses a template.
///
/// Work and memory are proportional to the template's length, and nothing
/// recurses per group: deep nesting costs no call stack.
///
/// ```
/// use terse_template::{MAX_NESTING, MAX_TEMPLATE_BYTES, parse};
///
/// let deep = "{?".repeat(MAX_NESTING + 1) + "{a}" + &" }".repeat(MAX_NESTING + 1);
/// let err = parse(&deep).unwrap_err();
/// assert_eq!(err.column(), 2 * MAX_NESTING + 1);
/// assert!(err.message().contains("nested more than 32 deep"), "{err}");
///
/// let long = "x".repeat(MAX_TEMPLATE_BYTES + 1);
/// assert_eq!(parse(&long).unwrap_err().column(), MAX_TEMPLATE_BYTES + 1);
/// ```
///
/// # Errors
///
/// A [`ParseError`] with the byte offset, column and reason of the first
/// problem found; a template longer than [`MAX_TEMPLATE_BYTES`] or with
/// groups nested deeper than [`MAX_NESTING`] is an error too.
pub fn parse(src: &str) -> Result<Ast, ParseError> {
    parse_all(src).map_err(|mut errors| errors.swap_remove(0))
}

/// Parses a template, reporting every problem found rather than the first:
/// after a bad placeholder the parser goes on after its `}`, after a stray
/// `}` or a control character after that character, so one pass over a
/// template names all that is wrong with it.
///
/// ```
/// use terse_template::parse_all;
///
/// let errors = parse_all("{title|uper} } {}\t{id").unwrap_err();
/// let columns: Vec<usize> = errors.iter().map(|e| e.column()).collect();
/// assert_eq!(columns, [8, 14, 16, 18, 19]);
/// assert!(errors[0].message().contains("did you mean `upper`"));
/// assert!(parse_all("{title} {? @{room}}").is_ok());
/// ```
///
/// # Errors
///
/// Every [`ParseError`] found, in the order of the template, at least one;
/// past [`MAX_TEMPLATE_BYTES`] or [`MAX_NESTING`] parsing stops there.
pub fn parse_all(src: &str) -> Result<Ast, Vec<ParseError>> {
    if src.len() > MAX_TEMPLATE_BYTES {
        // Point at the character that crosses the bound.
        let mut at = MAX_TEMPLATE_BYTES;
        while !src.is_char_boundary(at) {
            at -= 1;
        }
        let end = src[at..].chars().next().map_or(at, |c| at + c.len_utf8());
        return Err(vec![ParseError::new(
            src,
            at..end,
            format!(
                "the template is {} bytes long; templates are at most {MAX_TEMPLATE_BYTES} bytes",
                src.len()
            ),
        )]);
    }
    let mut parser = Parser {
        src,
        pos: 0,
        errors: Vec::new(),
    };
    let segments = parser.segments();
    if parser.errors.is_empty() {
        Ok(Ast { segments })
    } else {
        Err(parser.errors)
    }
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// What is wrong so far; the parse goes on past each.
    errors: Vec<ParseError>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_second(&self) -> Option<char> {
        let mut chars = self.src[self.pos..].chars();
        chars.next();
        chars.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn error(&self, start: usize, end: usize, message: impl Into<String>) -> ParseError {
        ParseError::new(self.src, start..end, message)
    }

    fn error_here(&self, message: impl Into<String>) -> ParseError {
        let end = self.peek().map_or(self.pos, |c| self.pos + c.len_utf8());
        self.error(self.pos, end, message)
    }

    fn skip_spaces(&mut self) {
        while self.peek() == Some(' ') {
            self.pos += 1;
        }
    }

    fn control_error(&self, c: char) -> ParseError {
        self.error_here(format!(
            "control character {} in the template; a template renders a single line",
            c.escape_default()
        ))
    }

    /// The template's segments. Open groups wait on a stack of their own,
    /// each with where its `{?` is and the segments before it. Errors go to
    /// `self.errors` and the parse goes on past them.
    fn segments(&mut self) -> Vec<Segment> {
        let mut open: Vec<(usize, Vec<Segment>)> = Vec::new();
        let mut segments = Vec::new();
        let mut text = String::new();
        loop {
            let Some(c) = self.peek() else {
                if let Some(&(start, _)) = open.last() {
                    let error = self.error(
                        start,
                        start + 2,
                        "optional group `{?` is never closed; end it with `}`",
                    );
                    self.errors.push(error);
                }
                break;
            };
            match c {
                '{' if self.peek_second() == Some('{') => {
                    self.pos += 2;
                    text.push('{');
                }
                '}' if self.peek_second() == Some('}') => {
                    self.pos += 2;
                    text.push('}');
                }
                '{' => {
                    flush(&mut text, &mut segments);
                    let start = self.pos;
                    if self.peek_second() == Some('?') {
                        if open.len() == MAX_NESTING {
                            // Nothing past it is read: the nesting stays
                            // bounded whatever follows.
                            let error = self.error(
                                start,
                                start + 2,
                                format!(
                                    "optional groups nested more than {MAX_NESTING} deep; \
                                     flatten the template"
                                ),
                            );
                            self.errors.push(error);
                            break;
                        }
                        self.pos += 2;
                        open.push((start, std::mem::take(&mut segments)));
                    } else {
                        self.pos += 1;
                        match self.placeholder(start) {
                            Ok(placeholder) => segments.push(Segment::Value(placeholder)),
                            Err(error) => {
                                self.errors.push(error);
                                self.skip_past_placeholder();
                            }
                        }
                    }
                }
                '}' => {
                    let Some((_, outer)) = open.pop() else {
                        let error =
                            self.error_here("unmatched `}`; write `}}` for a literal brace");
                        self.errors.push(error);
                        self.pos += 1;
                        continue;
                    };
                    self.pos += 1;
                    flush(&mut text, &mut segments);
                    let inner = std::mem::replace(&mut segments, outer);
                    segments.push(Segment::Optional(inner));
                }
                c if is_forbidden(c) => {
                    let error = self.control_error(c);
                    self.errors.push(error);
                    self.pos += c.len_utf8();
                }
                c => {
                    self.pos += c.len_utf8();
                    text.push(c);
                }
            }
        }
        flush(&mut text, &mut segments);
        segments
    }

    /// After a bad placeholder: on past its `}`, or to the end of the
    /// template, or to the next `{` when a new one starts first.
    fn skip_past_placeholder(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                '}' => {
                    self.pos += 1;
                    return;
                }
                '{' => return,
                c => self.pos += c.len_utf8(),
            }
        }
    }

    /// A placeholder whose `{` is at `open`; `self.pos` is just after it.
    fn placeholder(&mut self, open: usize) -> Result<Placeholder, ParseError> {
        self.skip_spaces();
        let path_start = self.pos;
        let mut path = Vec::new();
        loop {
            let name = self.name();
            if name.is_empty() {
                return Err(match self.peek() {
                    None => self.error(open, open + 1, "placeholder `{` is never closed"),
                    Some('}') if path.is_empty() => self.error(
                        open,
                        self.pos + 1,
                        "empty placeholder; name a field, as in `{id}`, or write `{{` for a literal brace",
                    ),
                    Some(c) if is_forbidden(c) => self.control_error(c),
                    Some(c) => self.error_here(format!("expected a field name, found `{c}`")),
                });
            }
            path.push(name.to_owned());
            if self.peek() == Some('.') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let span = path_start..self.pos;
        let mut filters = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    return Ok(Placeholder {
                        path,
                        span,
                        filters,
                    });
                }
                Some('|') => {
                    self.pos += 1;
                    self.skip_spaces();
                    filters.push(self.filter()?);
                }
                None => return Err(self.error(open, open + 1, "placeholder `{` is never closed")),
                Some(c) if is_forbidden(c) => return Err(self.control_error(c)),
                Some(c) => {
                    return Err(self.error_here(format!(
                        "expected `|` or `}}` after the field name, found `{c}`"
                    )));
                }
            }
        }
    }

    /// A name: a path segment or a filter name.
    fn name(&mut self) -> &str {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, '.' | '|' | '{' | '}' | '(' | ')' | ' ') || is_forbidden(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        &self.src[start..self.pos]
    }

    fn filter(&mut self) -> Result<Filter, ParseError> {
        let start = self.pos;
        let name = self.name().to_owned();
        if name.is_empty() {
            return Err(match self.peek() {
                Some(c) if is_forbidden(c) => self.control_error(c),
                Some(c) => {
                    self.error_here(format!("expected a filter name after `|`, found `{c}`"))
                }
                None => self.error_here("expected a filter name after `|`"),
            });
        }
        let name_end = self.pos;
        self.skip_spaces();
        let arg = if self.peek() == Some('(') {
            self.pos += 1;
            Some(self.argument()?)
        } else {
            None
        };
        let kind = filters::build(&name, arg).map_err(|message| {
            // Point at the name for unknown filters, at the whole call otherwise.
            let end = if filters::filter_arg(&name).is_none() {
                name_end
            } else {
                self.pos
            };
            self.error(start, end, message)
        })?;
        Ok(Filter {
            kind,
            span: start..self.pos,
        })
    }

    /// A filter argument; `self.pos` is just after `(`, and ends after `)`.
    fn argument(&mut self) -> Result<String, ParseError> {
        let open = self.pos - 1;
        let mut arg = String::new();
        if self.peek() == Some('"') {
            let quote = self.pos;
            self.pos += 1;
            loop {
                match self.bump() {
                    Some('"') => break,
                    Some('\\') => {
                        // The escape starts at the backslash; what follows
                        // may be any character, of any width.
                        let escape = self.pos - 1;
                        match self.bump() {
                            Some(c @ ('"' | '\\')) => arg.push(c),
                            _ => {
                                return Err(self.error(
                                    escape,
                                    self.pos,
                                    "only `\\\"` and `\\\\` escapes are allowed in a quoted argument",
                                ));
                            }
                        }
                    }
                    Some(c) if is_forbidden(c) => {
                        self.pos -= c.len_utf8();
                        return Err(self.control_error(c));
                    }
                    Some(c) => arg.push(c),
                    None => {
                        return Err(self.error(
                            quote,
                            quote + 1,
                            "quoted argument is never closed",
                        ));
                    }
                }
            }
            self.skip_spaces();
            if self.peek() != Some(')') {
                return Err(self.error_here("expected `)` after the quoted argument"));
            }
            self.pos += 1;
            return Ok(arg);
        }
        loop {
            match self.peek() {
                Some(')') => {
                    self.pos += 1;
                    return Ok(arg);
                }
                Some('{' | '}') | None => {
                    return Err(self.error(
                        open,
                        open + 1,
                        "filter argument `(` is never closed; quote an argument that holds braces or `)`",
                    ));
                }
                Some(c) if is_forbidden(c) => return Err(self.control_error(c)),
                Some(c) => {
                    self.pos += c.len_utf8();
                    arg.push(c);
                }
            }
        }
    }
}

fn flush(text: &mut String, segments: &mut Vec<Segment>) {
    if !text.is_empty() {
        segments.push(Segment::Text(std::mem::take(text)));
    }
}

/// Characters that would break the one-line promise: control characters and
/// the Unicode line and paragraph separators.
fn is_forbidden(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::FilterKind;

    fn value(path: &[&str], filters: Vec<FilterKind>) -> (Vec<String>, Vec<FilterKind>) {
        (path.iter().map(|s| s.to_string()).collect(), filters)
    }

    fn values(ast: &Ast) -> Vec<(Vec<String>, Vec<FilterKind>)> {
        ast.placeholders()
            .into_iter()
            .map(|p| {
                (
                    p.path.clone(),
                    p.filters.iter().map(|f| f.kind.clone()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn text_and_braces() {
        let ast = parse("a {{b}} c").unwrap();
        assert_eq!(ast.segments, vec![Segment::Text("a {b} c".into())]);
        assert_eq!(parse("").unwrap().segments, vec![]);
    }

    #[test]
    fn placeholders_paths_and_filters() {
        let ast = parse("{ start_at | time }-{a.b.0|trunc(3)|upper} {tags|join(, )}").unwrap();
        assert_eq!(
            values(&ast),
            vec![
                value(&["start_at"], vec![FilterKind::Time]),
                value(
                    &["a", "b", "0"],
                    vec![FilterKind::Trunc(3), FilterKind::Upper]
                ),
                value(&["tags"], vec![FilterKind::Join(", ".into())]),
            ]
        );
        let p = ast.placeholders()[0];
        assert_eq!(&"{ start_at | time }"[p.span.clone()], "start_at");
    }

    #[test]
    fn quoted_arguments() {
        let ast = parse(r#"{a|default("n/a (none)")|flag("say \"hi\" \\")}"#).unwrap();
        assert_eq!(
            values(&ast)[0].1,
            vec![
                FilterKind::Default("n/a (none)".into()),
                FilterKind::Flag("say \"hi\" \\".into())
            ]
        );
    }

    #[test]
    fn groups_nest_and_close_after_placeholder() {
        let ast = parse("{title}{? [{location}]}{? {r|flag(🔁)}}").unwrap();
        assert_eq!(ast.segments.len(), 3);
        let Segment::Optional(inner) = &ast.segments[1] else {
            panic!("expected a group")
        };
        assert_eq!(inner.len(), 3);
        let ast = parse("{?a{?b{c}}d}").unwrap();
        let Segment::Optional(outer) = &ast.segments[0] else {
            panic!("expected a group")
        };
        assert!(matches!(outer[1], Segment::Optional(_)));
        assert_eq!(outer[2], Segment::Text("d".into()));
    }

    fn err(src: &str) -> ParseError {
        parse(src).unwrap_err()
    }

    #[test]
    fn errors_say_where_and_why() {
        let e = err("ab {title");
        assert_eq!((e.offset(), e.column()), (3, 4));
        assert!(e.message().contains("never closed"), "{e}");

        let e = err("x }");
        assert_eq!(e.column(), 3);
        assert!(e.message().contains("`}}`"), "{e}");

        let e = err("{}");
        assert!(e.message().contains("empty placeholder"), "{e}");

        let e = err("é{a|uper}");
        assert_eq!((e.offset(), e.column()), (5, 5));
        assert_eq!(e.span(), 5..9);
        assert!(e.message().contains("did you mean `upper`"), "{e}");

        let e = err("{a|zzzzzz}");
        assert!(e.message().contains("known filters: time, date"), "{e}");

        let e = err("{a|trunc}");
        assert!(e.message().contains("trunc(40)"), "{e}");
        let e = err("{a|trunc(x)}");
        assert!(e.message().contains("whole number"), "{e}");
        let e = err("{a|upper(1)}");
        assert!(e.message().contains("takes no argument"), "{e}");
        let e = err("{a|join}");
        assert!(e.message().contains("needs an argument"), "{e}");
        let e = err("{a|default(x}");
        assert!(e.message().contains("`(` is never closed"), "{e}");
        let e = err("{? {a}");
        assert_eq!(e.column(), 1);
        assert!(e.message().contains("group"), "{e}");
        let e = err("{a b}");
        assert_eq!(e.column(), 4);
        let e = err("{a|}");
        assert!(e.message().contains("filter name"), "{e}");
        let e = err("{a|default(\"x)}");
        assert!(e.message().contains("quoted argument"), "{e}");
        let e = err("{a.}");
        assert!(e.message().contains("field name"), "{e}");
    }

    #[test]
    fn a_bad_escape_points_at_the_backslash_whatever_follows() {
        // Found by fuzzing: a multi-byte character after `\` once put the
        // error inside it.
        let e = err("{a|default(\"\\é\")}");
        assert_eq!(e.span(), 12..15);
        assert_eq!(e.column(), 13);
        assert!(e.message().contains("escapes"), "{e}");
        let e = err("{a|default(\"\\n\")}");
        assert_eq!(e.span(), 12..14);
        let e = err("{a|default(\"\\");
        assert_eq!(e.span(), 12..13);
    }

    #[test]
    fn control_characters_are_rejected() {
        let e = err("a\nb");
        assert_eq!(e.column(), 2);
        assert!(e.message().contains("\\n"), "{e}");
        assert!(err("{a|join(\t)}").message().contains("control"));
        assert!(err("a\u{2028}").message().contains("single line"));
    }

    #[test]
    fn nesting_is_bounded_without_recursion() {
        // `}}` is a literal brace, so closing braces stand apart.
        let nested = |depth: usize| "{?".repeat(depth) + "{a}" + &" }".repeat(depth);
        let ast = parse(&nested(MAX_NESTING)).unwrap();
        assert_eq!(ast.placeholders().len(), 1);
        let mut inner = &ast.segments;
        for _ in 0..MAX_NESTING {
            let Some(Segment::Optional(next)) = inner.first() else {
                panic!("expected a group first")
            };
            inner = next;
        }
        let e = err(&nested(MAX_NESTING + 1));
        assert_eq!((e.offset(), e.column()), (64, 65));
        assert_eq!(e.span(), 64..66);
        assert!(e.message().contains("more than 32 deep"), "{e}");
        // Siblings do not add up: only open groups count.
        let wide = "{?{a}}".repeat(MAX_NESTING * 4);
        assert_eq!(parse(&wide).unwrap().segments.len(), MAX_NESTING * 4);
        // Far past the bound, within the length bound: the same error.
        let e = err(&nested(1_000));
        assert_eq!(e.column(), 65);
        // 10 000 deep is past the length bound too, which is checked first.
        let e = err(&nested(10_000));
        assert!(e.message().contains("at most 4096 bytes"), "{e}");
        // An unclosed group reports the innermost one.
        let e = err("{?a{?b");
        assert_eq!(e.column(), 4);
    }

    #[test]
    fn length_is_bounded() {
        let e = err(&"a".repeat(MAX_TEMPLATE_BYTES + 1));
        assert_eq!(
            (e.offset(), e.column()),
            (MAX_TEMPLATE_BYTES, MAX_TEMPLATE_BYTES + 1)
        );
        assert!(e.message().contains("at most 4096 bytes"), "{e}");
        assert!(parse(&"a".repeat(MAX_TEMPLATE_BYTES)).is_ok());
        // A character across the bound: the error starts where it does.
        let text = "a".repeat(MAX_TEMPLATE_BYTES - 1) + "é";
        let e = err(&text);
        assert_eq!(e.span(), MAX_TEMPLATE_BYTES - 1..MAX_TEMPLATE_BYTES + 1);
        assert_eq!(e.column(), MAX_TEMPLATE_BYTES);
    }

    #[test]
    fn display_has_column_and_byte() {
        let e = err("{a|uper}");
        assert_eq!(
            e.to_string(),
            "template error at column 4 (byte 3): unknown filter `uper`; did you mean `upper`?"
        );
    }
}
