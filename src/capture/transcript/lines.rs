//! A session file read a line at a time with a cap on each line, so reading a
//! 200 MB transcript, or one with a 100 MB line, holds one bounded line.
//!
//! Owns: splitting bytes into (lossy UTF-8) lines and cutting long ones.
//! Must not: interpret a line.

use std::io::BufRead;

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

    /// One line's bytes, up to the cap; the rest up to the newline is
    /// consumed and counted. `None` at the end.
    fn next_bytes(&mut self) -> std::io::Result<Option<(Vec<u8>, usize)>> {
        let mut kept = Vec::new();
        let mut total = 0;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((total > 0).then_some((kept, total)));
            }
            let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], i + 1),
                None => (buf, buf.len()),
            };
            let room = self.cap.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            total += chunk.len();
            let ended = done > chunk.len();
            self.reader.consume(done);
            if ended {
                return Ok(Some((kept, total)));
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
            Ok(Some((bytes, total))) => {
                self.line += 1;
                let mut line = String::from_utf8_lossy(&bytes).into_owned();
                if line.ends_with('\r') {
                    line.pop();
                }
                if total > bytes.len() {
                    self.cut.push(CutLine {
                        line: self.line,
                        bytes: total,
                    });
                    line.push_str(&format!(
                        " [… {} bytes cut by memsync]",
                        total - bytes.len()
                    ));
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
