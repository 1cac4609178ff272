//! Where memsync's block sits in a file a person also writes: found by its
//! begin and end lines, replaced or appended, taken out, every other byte
//! kept. Pure text; the same rule for every file memsync keeps a block in
//! (MEMORY.md, `.gitignore`, a harness's instructions file).

/// The byte range of a block between a line starting with `begin` and a line
/// that is `end`; the same rule for every file memsync manages a block in.
pub fn block_range_with(text: &str, begin_prefix: &str, end_line: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut begin = None;
    for line in text.split_inclusive('\n') {
        if begin.is_none() && line.starts_with(begin_prefix) {
            begin = Some(offset);
        } else if begin.is_some() && line.trim_end() == end_line {
            return begin.map(|b| (b, offset + line.len()));
        }
        offset += line.len();
    }
    None
}

/// Replaces the block at `range`, or appends `block` after a blank line
/// when there is none; every other byte stays.
pub fn splice_with(existing: &str, block: &str, range: Option<(usize, usize)>) -> String {
    if let Some((b, e)) = range {
        return format!("{}{block}{}", &existing[..b], &existing[e..]);
    }
    let mut out = existing.to_string();
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(block);
    out
}

/// Takes out the block at `range`, with the blank line `splice_with` put
/// before a block it appended; every other byte stays.
pub fn unsplice(existing: &str, (b, e): (usize, usize)) -> String {
    let (mut head, tail) = (&existing[..b], &existing[e..]);
    if tail.is_empty()
        && let Some(h) = head.strip_suffix('\n')
        && h.ends_with('\n')
    {
        head = h;
    }
    format!("{head}{tail}")
}
