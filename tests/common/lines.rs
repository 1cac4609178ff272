//! Numbered lines that writers append to a projection, and the count that
//! proves none was lost, doubled or torn.

/// `- {tag} line {i}`, the line writers in these tests append.
pub fn numbered(tag: &str, i: usize) -> String {
    format!("- {tag} line {i}\n")
}

/// What became of lines `0..total` tagged `tag` in `text`.
#[derive(Debug, Default)]
pub struct LineCount {
    pub lost: Vec<usize>,
    pub doubled: Vec<usize>,
    /// Lines starting like one of ours that do not end in a number.
    pub torn: Vec<String>,
}

impl LineCount {
    pub fn of(text: &str, tag: &str, total: usize) -> LineCount {
        let prefix = format!("- {tag} line ");
        let mut seen = vec![0usize; total];
        let mut count = LineCount::default();
        for line in text.lines() {
            let Some(n) = line.strip_prefix(&prefix) else {
                continue;
            };
            match n.parse::<usize>() {
                Ok(n) if n < total => seen[n] += 1,
                _ => count.torn.push(line.to_string()),
            }
        }
        count.lost = (0..total).filter(|&i| seen[i] == 0).collect();
        count.doubled = (0..total).filter(|&i| seen[i] > 1).collect();
        count
    }

    pub fn is_whole(&self) -> bool {
        self.lost.is_empty() && self.doubled.is_empty() && self.torn.is_empty()
    }

    /// One line for an assertion message.
    pub fn summary(&self, total: usize) -> String {
        format!(
            "{} of {total} lines lost (first {:?}), {} doubled, {} torn (first {:?})",
            self.lost.len(),
            self.lost.first(),
            self.doubled.len(),
            self.torn.len(),
            self.torn.first()
        )
    }
}
