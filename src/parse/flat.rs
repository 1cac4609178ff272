//! The frontmatter memsync writes, read without a YAML parser: one
//! `key: value` per line, each value JSON-quoted text, an integer, a
//! boolean, `null` or `[]`. That is nearly every artifact a cold sync
//! reads, and a YAML parse was a fifth of its CPU. Anything else (a
//! comment, a list, a plain string, a repeated key, a CR) is left to the
//! YAML parser, so what this returns is what YAML would.
//!
//! Owns: that one shape. Must not: guess at any other.

use serde_yaml::{Mapping, Number, Value};

/// The mapping of a frontmatter in memsync's own flat shape; `None` for
/// any other, which the YAML parser reads.
pub(super) fn read(yaml: &str) -> Option<Mapping> {
    if yaml.contains('\r') {
        return None;
    }
    let mut map = Mapping::new();
    for line in yaml.lines() {
        let (key, value) = line.split_once(": ")?;
        let key_ok = key.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !key_ok {
            return None;
        }
        let value = scalar(value)?;
        if map.insert(Value::String(key.to_string()), value).is_some() {
            // YAML refuses a repeated key; its parser says how.
            return None;
        }
    }
    Some(map)
}

/// One value of the flat shape.
fn scalar(text: &str) -> Option<Value> {
    match text {
        "null" => return Some(Value::Null),
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "[]" => return Some(Value::Sequence(Vec::new())),
        _ => {}
    }
    if text.starts_with('"') {
        // JSON's escapes mean in YAML what they mean in JSON; JSON refuses a
        // raw control character, and YAML's own escapes (`\x41`, `\e`) are
        // left to YAML.
        return serde_json::from_str::<String>(text).ok().map(Value::String);
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    let plain_integer = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if plain_integer {
        return text
            .parse::<i64>()
            .ok()
            .map(|n| Value::Number(Number::from(n)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Option<Mapping> {
        match serde_yaml::from_str::<Value>(text).ok()? {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    /// Whatever the flat reader accepts, YAML reads the same; what it
    /// declines, it declines whole.
    #[test]
    fn the_flat_reader_agrees_with_yaml_on_everything_it_accepts() {
        let values = [
            "\"plain text\"",
            "\"quote \\\" and backslash \\\\ and \\n newline \\t tab\"",
            "\"unicode \\u00e9 é 漢字 🙂\"",
            "\"slash \\/ escaped\"",
            "\"true\"",
            "\"123\"",
            "\"\"",
            "\"# not a comment\"",
            "\"key: value\"",
            "null",
            "true",
            "false",
            "[]",
            "0",
            "42",
            "-7",
            "9223372036854775807",
            // Declined: YAML's own forms, which its parser reads.
            "007",
            "1.5",
            "1e3",
            ".inf",
            "~",
            "yes",
            "plain words",
            "[a, b]",
            "{}",
            "'single'",
            "\"\\x41 yaml escape\"",
            "\"tab\there\"",
            "99999999999999999999",
            "\"unclosed",
            "\"a\" # comment",
            "&anchor \"x\"",
        ];
        for v in values {
            let text = format!("kind: \"summary\"\nvalue: {v}\nrevision: 3\n");
            if let Some(flat) = read(&text) {
                assert_eq!(Some(flat), yaml(&text), "{v}");
            }
        }
        for accepted in ["\"plain text\"", "null", "true", "[]", "-7", "\"\\u00e9\""] {
            let text = format!("kind: \"summary\"\nvalue: {accepted}\n");
            assert!(read(&text).is_some(), "{accepted}");
        }
        for declined in [
            "kind: \"a\"\nkind: \"b\"\n",
            "kind: \"a\"\n# a comment\n",
            "kind: \"a\"\r\n",
            "Kind: \"a\"\n",
            "kind: \"a\"\n\n",
            "tags:\n  - a\n",
            "kind:\"a\"\n",
            "kind: 1.0\n",
        ] {
            assert_eq!(read(declined), None, "{declined:?}");
        }
    }

    /// A frontmatter memsync wrote takes the flat path.
    #[test]
    fn memsyncs_own_frontmatter_is_read_flat() {
        let text = "kind: \"manifest\"\nagent_id: \"default\"\nsession_id: \"gen-1\"\nsession_key: null\nmemory_md_refs: []\nrevision: 1\nprivate: false\ncontent_sha256: \"ab12\"\n";
        let flat = read(text).expect("flat");
        assert_eq!(Some(flat), yaml(text));
    }
}
