//! Problem lists written to stdout as they are read from the index. `check`
//! and the JSON reports of `sync` and `init` list every problem, and a
//! workspace with 100,000 invalid files has hundreds of thousands: held in
//! memory they cost gigabytes, streamed they cost a row.
//!
//! Owns: the streamed text and JSON layouts (byte for byte what
//! `serde_json::to_string_pretty` prints for the same object). Must not: hold
//! a list of problems.

use std::io::Write;

use serde_json::{Map, Value};

use super::render::problem_line;
use crate::error::{Error, Result, STDOUT};
use crate::store::Index;

fn io(e: std::io::Error) -> Error {
    Error::io(STDOUT, e)
}

/// `check`'s text: a line per problem, then the counts.
pub fn write_check_text(index: &Index, errors: usize, warnings: usize) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    index.each_problem(None, |p| writeln!(out, "{}", problem_line(&p)).map_err(io))?;
    writeln!(out, "{errors} errors, {warnings} warnings").map_err(io)?;
    out.flush().map_err(io)
}

/// `fields` as one pretty JSON object with every problem under `"problems"`,
/// keys in serde_json's (sorted) order.
pub fn write_json_with_problems(index: &Index, fields: Value) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    write_object(&mut out, index, fields)?;
    out.flush().map_err(io)
}

fn write_object(out: &mut impl Write, index: &Index, fields: Value) -> Result<()> {
    let mut fields: Map<String, Value> = match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    // A placeholder marks where the list goes in key order.
    fields.insert("problems".into(), Value::Null);
    let count = fields.len();
    out.write_all(b"{\n").map_err(io)?;
    for (i, (key, value)) in fields.into_iter().enumerate() {
        write!(out, "  {}: ", Value::String(key.clone())).map_err(io)?;
        if key == "problems" {
            write_list(out, index)?;
        } else {
            out.write_all(indented(&pretty(&value), 2).as_bytes())
                .map_err(io)?;
        }
        out.write_all(if i + 1 < count { b",\n" } else { b"\n" })
            .map_err(io)?;
    }
    out.write_all(b"}\n").map_err(io)
}

fn write_list(out: &mut impl Write, index: &Index) -> Result<()> {
    let mut first = true;
    out.write_all(b"[").map_err(io)?;
    index.each_problem(None, |p| {
        out.write_all(if first { b"\n    " } else { b",\n    " })
            .map_err(io)?;
        first = false;
        // Through a `Value`, so keys come in the same (sorted) order.
        let mut value = serde_json::to_value(&p).unwrap_or_default();
        crate::search::for_machines(&mut value);
        out.write_all(indented(&pretty(&value), 4).as_bytes())
            .map_err(io)
    })?;
    out.write_all(if first { b"]" } else { b"\n  ]" })
        .map_err(io)
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Every line after the first moved right by `by` spaces, as a nested value.
fn indented(text: &str, by: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(by)))
}

/// The problems a sync's text report shows; the rest are `check`'s.
pub(super) fn first_problems(
    index: &crate::store::Index,
) -> crate::error::Result<Vec<crate::validate::Problem>> {
    let mut first = Vec::new();
    index.each_problem(Some(super::render::SYNC_PROBLEM_LINES), |p| {
        first.push(p);
        Ok(())
    })?;
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Problem, Severity};

    fn index_with(problems: &[Problem]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = Index::open(&dir.path().join("index.db")).expect("open");
        index
            .batch(|b| b.insert_problems(crate::store::Phase::Scan, None, problems))
            .expect("insert");
        (dir, index)
    }

    fn streamed(index: &Index, fields: Value) -> String {
        let mut out = Vec::new();
        write_object(&mut out, index, fields).expect("write");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn the_streamed_json_is_what_serde_json_prints_for_the_whole_object() {
        let problems = [
            Problem {
                path: "memory/a.md".into(),
                severity: Severity::Error,
                rule: "checksum.mismatch".into(),
                reason: "a \"quoted\" reason\nover two lines".into(),
            },
            Problem {
                path: "memory/b.md".into(),
                severity: Severity::Warning,
                rule: "sentence.floor".into(),
                reason: "low signal".into(),
            },
        ];
        let fields =
            serde_json::json!({ "report": { "errors": 1, "nested": [1, 2] }, "workspace": "/w" });
        for list in [&problems[..], &[]] {
            let (_dir, index) = index_with(list);
            let mut whole = fields.clone();
            whole["problems"] = serde_json::to_value(list).expect("value");
            let expected = format!("{}\n", serde_json::to_string_pretty(&whole).expect("json"));
            assert_eq!(streamed(&index, fields.clone()), expected);
        }
    }
}
