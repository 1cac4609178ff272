//! A session file read a line at a time with a cap on each line, so reading a
//! 200 MB transcript, or one with a 100 MB line, holds one bounded line.
//! A JSON line over the cap keeps its shape: the long string it was cut in
//! is shortened (its start, a marker, its end) and the keys after it stay,
//! so the line still parses and its harness is still recognised.
//!
//! Owns: splitting bytes into (lossy UTF-8) lines and cutting long ones.
//! Must not: interpret a line.

use std::io::BufRead;
use std::path::Path;

/// The last line of a JSONL file as JSON, read from its tail alone, with the
/// file open read-only; `None` when the file does not end with a whole line.
pub fn last_event(path: &Path) -> Option<(std::fs::File, serde_json::Value)> {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL: u64 = 256 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL))).ok()?;
    (&mut file).take(TAIL).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    if !text.ends_with('\n') {
        return None;
    }
    let last = text.trim_end().rsplit('\n').next()?;
    let event = serde_json::from_str(last).ok()?;
    Some((file, event))
}

/// A line cut to the cap: where it was and how long it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutLine {
    /// 1-based.
    pub line: usize,
    pub bytes: usize,
}

/// Lines of `reader`, each at most `cap` bytes (a longer one is cut there and
/// ends with a marker), without their line ends. The first read error ends
/// the lines and is kept in [`LineReader::error`].
pub struct LineReader<R> {
    reader: R,
    cap: usize,
    line: usize,
    pub cut: Vec<CutLine>,
    pub error: Option<std::io::Error>,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(reader: R, cap: usize) -> LineReader<R> {
        LineReader {
            reader,
            cap,
            line: 0,
            cut: Vec::new(),
            error: None,
        }
    }

    /// One line's bytes, up to the cap, and the last [`TAIL`] bytes of a
    /// longer one; the rest up to the newline is consumed and counted.
    /// `None` at the end.
    fn next_bytes(&mut self) -> std::io::Result<Option<RawLine>> {
        let mut kept = Vec::new();
        let mut tail: Vec<u8> = Vec::new();
        let mut total = 0;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((total > 0).then_some(RawLine { kept, tail, total }));
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], i + 1),
                None => (buf, buf.len()),
            };
            let room = self.cap.saturating_sub(kept.len());
            let taken = chunk.len().min(room);
            kept.extend_from_slice(&chunk[..taken]);
            tail.extend_from_slice(&chunk[taken..]);
            if tail.len() > 2 * TAIL {
                tail.drain(..tail.len() - TAIL);
            }
            total += chunk.len();
            let ended = done > chunk.len();
            self.reader.consume(done);
            if ended {
                if tail.len() > TAIL {
                    tail.drain(..tail.len() - TAIL);
                }
                return Ok(Some(RawLine { kept, tail, total }));
            }
        }
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if self.error.is_some() {
            return None;
        }
        match self.next_bytes() {
            Ok(Some(RawLine {
                kept: bytes,
                tail,
                total,
            })) => {
                self.line += 1;
                if total > bytes.len() {
                    self.cut.push(CutLine {
                        line: self.line,
                        bytes: total,
                    });
                    let marker = format!(
                        " [… {} bytes cut by memsync] ",
                        total - bytes.len() - tail.len()
                    );
                    if let Some(json) = json_spliced(&bytes, &tail, &marker) {
                        return Some(json);
                    }
                    let mut line = String::from_utf8_lossy(&bytes).into_owned();
                    line.push_str(&format!(
                        " [… {} bytes cut by memsync]",
                        total - bytes.len()
                    ));
                    return Some(line);
                }
                let mut line = String::from_utf8_lossy(&bytes).into_owned();
                if line.ends_with('\r') {
                    line.pop();
                }
                Some(line)
            }
            Ok(None) => None,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// One line as read: its first `cap` bytes, the end of a longer one, and
/// its whole length.
struct RawLine {
    kept: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
}

/// The end of a cut line kept, to close a JSON line's long string and keep
/// the keys that follow it.
const TAIL: usize = 64 * 1024;

/// A JSON object line cut inside a string, put back together as valid JSON:
/// `head` up to where its open string was cut, `marker` in the string, then
/// the end of the line from a point inside that string. `None` when the
/// line is no JSON object or no such point is found.
fn json_spliced(head: &[u8], tail: &[u8], marker: &str) -> Option<String> {
    if head.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let head = String::from_utf8_lossy(head);
    let cut = open_string_end(&head)?;
    let tail = String::from_utf8_lossy(tail);
    let tail = tail.trim_end_matches('\r');
    // The tail begins somewhere in the long string: try the first places
    // that cannot be inside an escape, until the whole parses.
    let starts = tail
        .char_indices()
        .filter(|(i, c)| *c != '\\' && !tail[..*i].ends_with('\\'))
        .map(|(i, _)| i)
        .take(16);
    for at in starts {
        let candidate = format!("{}{marker}{}", &head[..cut], &tail[at..]);
        if serde_json::from_str::<serde::de::IgnoredAny>(&candidate).is_ok() {
            return Some(candidate);
        }
    }
    None
}

/// Where the text of `head` can be cut inside the string it ends in (not in
/// the middle of an escape), if it ends inside a string.
fn open_string_end(head: &str) -> Option<usize> {
    let (mut in_string, mut escaped) = (false, false);
    let mut last_safe = None;
    for (i, c) in head.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
                continue;
            } else if c == '"' {
                in_string = false;
                continue;
            }
            if !escaped {
                last_safe = Some(i + c.len_utf8());
            }
        } else if c == '"' {
            in_string = true;
            last_safe = Some(i + 1);
        }
    }
    // Keep clear of a \uXXXX escape cut short.
    let end = last_safe?;
    let end = head[..end]
        .rfind("\\u")
        .filter(|u| end - u < 6)
        .unwrap_or(end);
    in_string.then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &str, cap: usize) -> (Vec<String>, Vec<CutLine>) {
        let mut r = LineReader::new(input.as_bytes(), cap);
        let out: Vec<String> = r.by_ref().collect();
        (out, r.cut)
    }

    #[test]
    fn splits_lines_like_str_lines() {
        let text = "a\r\nbb\n\nccc";
        assert_eq!(lines(text, 100).0, text.lines().collect::<Vec<_>>());
        assert_eq!(lines("x\n", 100).0, vec!["x"]);
    }

    #[test]
    fn a_json_line_over_the_cap_keeps_its_shape_and_the_keys_after_the_long_string() {
        let long = "z".repeat(200_000);
        let line = format!(
            "{{\"type\":\"user\",\"message\":{{\"content\":\"{long}\"}},\"sessionId\":\"abc\"}}"
        );
        let (out, cut) = lines(&format!("{line}\nnext\n"), 1000);
        let v: serde_json::Value = serde_json::from_str(&out[0]).expect(&out[0][..200]);
        assert_eq!(v["sessionId"], "abc");
        assert_eq!(v["type"], "user");
        let content = v["message"]["content"].as_str().unwrap();
        assert!(
            content.contains("bytes cut by memsync"),
            "{}",
            &content[..100]
        );
        assert!(out[0].len() < 1000 + TAIL + 100);
        assert_eq!(out[1], "next");
        assert_eq!(cut.len(), 1);
    }

    #[test]
    fn a_line_over_the_cap_is_cut_with_a_marker_and_the_next_line_is_whole() {
        let long = "y".repeat(10_000);
        let (out, cut) = lines(&format!("short\n{long}\nafter\n"), 100);
        assert_eq!(out[0], "short");
        assert!(out[1].starts_with(&"y".repeat(100)));
        assert!(
            out[1].ends_with("[… 9900 bytes cut by memsync]"),
            "{}",
            out[1]
        );
        assert_eq!(out[2], "after");
        assert_eq!(
            cut,
            vec![CutLine {
                line: 2,
                bytes: 10_000
            }]
        );
    }
}
