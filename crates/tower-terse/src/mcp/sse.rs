//! Server-sent events, split as they stream and rewritten one at a time.
//!
//! An event ends at an empty line; lines end with `\r\n`, `\n` or `\r`.
//! At most `limit` bytes of one event are held: an event that grows past
//! them is sent on as it comes, unchanged, up to its end.

/// Where an event ended, relative to the byte just seen.
enum Cut {
    No,
    /// The event ends with this byte.
    After,
    /// The event ended just before this byte (after a lone `\r`).
    Before,
}

/// Splits a byte stream into events.
#[derive(Debug, Clone)]
pub(crate) struct Splitter {
    held: Vec<u8>,
    limit: usize,
    /// Sending an over-limit event through up to its end.
    passing: bool,
    /// Bytes of the current line so far (0: at a line start).
    line_len: usize,
    /// The last byte was `\r` (a `\n` after it ends no further line).
    after_cr: bool,
    /// A `\r` ended an empty line: the event ends there, or with the `\n`
    /// that may follow.
    end_after_cr: bool,
}

impl Splitter {
    pub(crate) fn new(limit: usize) -> Self {
        Splitter {
            held: Vec::new(),
            limit,
            passing: false,
            line_len: 0,
            after_cr: false,
            end_after_cr: false,
        }
    }

    /// The bytes of the unfinished event held.
    pub(crate) fn held(&self) -> usize {
        self.held.len()
    }

    fn step(&mut self, byte: u8) -> Cut {
        let mut cut = Cut::No;
        if self.after_cr {
            self.after_cr = false;
            if byte == b'\n' {
                if self.end_after_cr {
                    self.end_after_cr = false;
                    return Cut::After;
                }
                return Cut::No;
            }
            if self.end_after_cr {
                self.end_after_cr = false;
                cut = Cut::Before;
            }
        }
        match byte {
            b'\r' => {
                self.end_after_cr = self.line_len == 0;
                self.line_len = 0;
                self.after_cr = true;
            }
            b'\n' => {
                let empty = self.line_len == 0;
                self.line_len = 0;
                if empty {
                    // After a cut at a lone `\r` this `\n` is an empty event
                    // of its own; sent unchanged either way.
                    return Cut::After;
                }
            }
            _ => self.line_len = self.line_len.saturating_add(1),
        }
        cut
    }

    /// Feeds `data`; complete events go through `rewrite` (`None` keeps an
    /// event as it is) and out, with everything that passes unchanged.
    pub(crate) fn feed(
        &mut self,
        data: &[u8],
        out: &mut Vec<u8>,
        rewrite: &mut impl FnMut(&[u8]) -> Option<Vec<u8>>,
    ) {
        let mut start = 0;
        for (i, &byte) in data.iter().enumerate() {
            let end = match self.step(byte) {
                Cut::No => continue,
                Cut::After => i + 1,
                Cut::Before => i,
            };
            self.finish_event(&data[start..end], out, rewrite);
            start = end;
        }
        let rest = &data[start..];
        if self.passing {
            out.extend_from_slice(rest);
        } else if self.held.len().saturating_add(rest.len()) > self.limit {
            out.append(&mut self.held);
            out.extend_from_slice(rest);
            self.passing = true;
        } else {
            self.held.extend_from_slice(rest);
        }
    }

    /// The stream ended: an event ended by a lone `\r` is complete; any
    /// other bytes held are an unfinished event, sent as they are.
    pub(crate) fn finish(
        &mut self,
        out: &mut Vec<u8>,
        rewrite: &mut impl FnMut(&[u8]) -> Option<Vec<u8>>,
    ) {
        if std::mem::take(&mut self.end_after_cr) {
            self.finish_event(&[], out, rewrite);
        }
        out.append(&mut self.held);
    }

    fn finish_event(
        &mut self,
        tail: &[u8],
        out: &mut Vec<u8>,
        rewrite: &mut impl FnMut(&[u8]) -> Option<Vec<u8>>,
    ) {
        if std::mem::take(&mut self.passing)
            || self.held.len().saturating_add(tail.len()) > self.limit
        {
            out.append(&mut self.held);
            out.extend_from_slice(tail);
            return;
        }
        let event: &[u8] = if self.held.is_empty() {
            tail
        } else {
            self.held.extend_from_slice(tail);
            &self.held
        };
        match rewrite(event) {
            Some(new) => out.extend_from_slice(&new),
            None => out.extend_from_slice(event),
        }
        self.held.clear();
    }
}

/// One line of an event: its text and its line ending.
fn lines(event: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = event;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.find(['\r', '\n']).unwrap_or(rest.len());
        let ending = if rest[end..].starts_with("\r\n") {
            2
        } else {
            usize::from(end < rest.len())
        };
        let (line, after) = rest.split_at(end);
        let (ending, after) = after.split_at(ending);
        rest = after;
        Some((line, ending))
    })
}

/// The value of a `data` field line.
fn data_value(line: &str) -> Option<&str> {
    let value = line.strip_prefix("data")?;
    if value.is_empty() {
        return Some("");
    }
    let value = value.strip_prefix(':')?;
    Some(value.strip_prefix(' ').unwrap_or(value))
}

/// An event with its data replaced by what `rewrite` makes of it; `None`
/// when it has no data, is not a `message` event, is not UTF-8, or
/// `rewrite` keeps the data. Every line but the data lines is kept as it is.
pub(crate) fn rewrite_event(
    event: &[u8],
    rewrite: impl FnOnce(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    let event = std::str::from_utf8(event).ok()?;
    let mut data: Option<String> = None;
    for (line, _) in lines(event) {
        if let Some(value) = line.strip_prefix("event") {
            let kind = value.strip_prefix(':').unwrap_or(value);
            if kind.strip_prefix(' ').unwrap_or(kind) != "message" {
                return None;
            }
        }
        if let Some(value) = data_value(line) {
            match &mut data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => data = Some(value.to_owned()),
            }
        }
    }
    let new = rewrite(&data?)?;
    let mut out = String::with_capacity(event.len() + new.len());
    let mut written = false;
    for (line, ending) in lines(event) {
        if data_value(line).is_none() {
            if line.is_empty() && ending.starts_with('\n') && out.ends_with('\r') {
                // A line ended by a lone `\r`, then data lines dropped, then
                // this empty line: side by side they would read as one
                // `\r\n` and the event would lose its end. `\r\n` ends
                // the line before as the `\r` did.
                out.push('\n');
            }
            out.push_str(line);
            out.push_str(ending);
            continue;
        }
        if std::mem::replace(&mut written, true) {
            continue;
        }
        let ending = if ending.is_empty() { "\n" } else { ending };
        for part in new.split('\n') {
            out.push_str("data: ");
            out.push_str(part);
            out.push_str(ending);
        }
    }
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `chunks`, marking each event the splitter hands over.
    fn split(chunks: &[&[u8]], limit: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
        let mut splitter = Splitter::new(limit);
        let mut out = Vec::new();
        let mut events = Vec::new();
        let mut seen = |event: &[u8]| {
            events.push(event.to_vec());
            None
        };
        for chunk in chunks {
            splitter.feed(chunk, &mut out, &mut seen);
        }
        splitter.finish(&mut out, &mut seen);
        (out, events)
    }

    #[test]
    fn events_end_at_empty_lines_with_any_line_ending() {
        let stream = b"id: 1\ndata: a\n\nid: 2\r\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n";
        let (out, events) = split(&[stream], 1024);
        assert_eq!(out, stream);
        assert_eq!(
            events,
            [
                b"id: 1\ndata: a\n\n".to_vec(),
                b"id: 2\r\ndata: b\r\n\r\n".to_vec(),
                b"data: c\r\r".to_vec(),
                b"data: d\n\n".to_vec(),
            ]
        );
    }

    #[test]
    fn events_split_across_chunks_byte_by_byte() {
        let stream = b"data: a\r\n\r\ndata: b\r\r\ndata: c\n\n";
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        let (out, events) = split(&chunks, 1024);
        assert_eq!(out, stream);
        assert_eq!(
            events,
            [
                b"data: a\r\n\r\n".to_vec(),
                b"data: b\r\r\n".to_vec(),
                b"data: c\n\n".to_vec()
            ]
        );
    }

    #[test]
    fn an_event_past_the_limit_passes_unchanged_and_the_next_is_seen() {
        let big = format!("data: {}\n\n", "x".repeat(100));
        let stream = format!("{big}data: small\n\n");
        for size in [1, 7, 50, stream.len()] {
            let chunks: Vec<&[u8]> = stream.as_bytes().chunks(size).collect();
            let (out, events) = split(&chunks, 32);
            assert_eq!(out, stream.as_bytes());
            assert_eq!(events, [b"data: small\n\n".to_vec()], "chunks of {size}");
        }
    }

    #[test]
    fn an_unfinished_event_goes_out_at_the_end() {
        let (out, events) = split(&[b"data: a\n\ndata: b\n"], 1024);
        assert_eq!(out, b"data: a\n\ndata: b\n");
        assert_eq!(events.len(), 1);
    }

    #[test]
    fn an_event_keeps_its_end_when_data_lines_between_line_endings_go() {
        // `a` ends with a lone `\r`; the data lines after it, ended by
        // `\n`, are dropped; the empty line ending the event stays one.
        let event = b"data: {}\rid: 1\rdata\ndata\n\n";
        let new = rewrite_event(event, |_| Some("X".to_owned())).unwrap();
        assert_eq!(new, b"data: X\rid: 1\r\n\n");
        let (out, events) = split(&[&new], 1024);
        assert_eq!(out, new);
        assert_eq!(events, [new], "still one event, ended where it was");
    }

    #[test]
    fn data_lines_are_replaced_and_the_rest_kept() {
        let event = b"id: 7\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\nretry: 5\r\n\r\n";
        let new = rewrite_event(event, |data| {
            assert_eq!(data, "{\"a\":\n1}");
            Some("X\nY".to_owned())
        })
        .unwrap();
        assert_eq!(
            std::str::from_utf8(&new).unwrap(),
            "id: 7\r\nevent: message\r\ndata: X\r\ndata: Y\r\nretry: 5\r\n\r\n"
        );
        assert!(rewrite_event(b"event: other\ndata: {}\n\n", |_| Some(String::new())).is_none());
        assert!(rewrite_event(b": comment\n\n", |_| Some(String::new())).is_none());
        assert!(rewrite_event(b"data: \xff\n\n", |_| Some(String::new())).is_none());
        assert_eq!(
            rewrite_event(b"data:x\n\n", |data| Some(format!("<{data}>"))).unwrap(),
            b"data: <x>\n\n"
        );
    }
}
