//! Parse stage: split a markdown file into frontmatter and body, parse the YAML,
//! and extract Obsidian wikilinks from the body.
//!
//! Owns: turning text into a `Document`. Must not: judge the contents (that is
//! `validate`), or touch the filesystem or the index.

mod flat;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag};
use serde_yaml::Mapping;

/// Frontmatter larger than this is refused before YAML parsing.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// A markdown file split at its frontmatter.
#[derive(Debug, Clone)]
pub struct Document<'a> {
    pub frontmatter: Mapping,
    pub body: &'a str,
}

/// Why a file could not be split or its frontmatter parsed. Each maps to a problem rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("no frontmatter: the first line is not `---`")]
    Missing,
    #[error("frontmatter is not closed by a `---` line")]
    Unterminated,
    #[error("frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes")]
    TooLarge,
    #[error("frontmatter YAML: {0}")]
    Yaml(String),
    #[error("frontmatter is not a mapping of keys to values")]
    NotMapping,
}

impl ParseError {
    pub fn rule(&self) -> &'static str {
        match self {
            ParseError::Missing => "frontmatter.missing",
            ParseError::Unterminated => "frontmatter.unterminated",
            ParseError::TooLarge => "frontmatter.too-large",
            ParseError::Yaml(_) => "frontmatter.yaml",
            ParseError::NotMapping => "frontmatter.not-mapping",
        }
    }
}

/// Splits at byte 0: the first line must be `---`, the frontmatter ends at the
/// next line that is exactly `---` (a trailing CR is tolerated on both).
/// Returns (yaml, body) where body is everything after the closing line.
pub fn split_frontmatter(text: &str) -> Result<(&str, &str), ParseError> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(ParseError::Missing)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n').trim_end_matches('\r');
        if bare == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok((yaml, body));
        }
        offset += line.len();
        if offset > MAX_FRONTMATTER_BYTES {
            return Err(ParseError::TooLarge);
        }
    }
    Err(ParseError::Unterminated)
}

/// Splits and parses the frontmatter into a YAML mapping.
pub fn parse_document(text: &str) -> Result<Document<'_>, ParseError> {
    let (yaml, body) = split_frontmatter(text)?;
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(ParseError::TooLarge);
    }
    if let Some(depth) = crate::contract::yaml_too_deep(yaml) {
        return Err(ParseError::Yaml(depth));
    }
    // memsync's own flat frontmatter needs no YAML parser.
    if let Some(frontmatter) = flat::read(yaml).filter(|m| !m.is_empty()) {
        return Ok(Document { frontmatter, body });
    }
    let value: serde_yaml::Value = if yaml.trim().is_empty() {
        serde_yaml::Value::Mapping(Mapping::new())
    } else {
        serde_yaml::from_str(yaml).map_err(|e| ParseError::Yaml(e.to_string()))?
    };
    match value {
        serde_yaml::Value::Mapping(frontmatter) => Ok(Document { frontmatter, body }),
        _ => Err(ParseError::NotMapping),
    }
}

/// One `[[target]]` or `[[target|label]]` in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wikilink {
    pub target: String,
    pub label: Option<String>,
}

/// `text` with the target of every `[[target|label]]` (the part before a
/// `|` or `#`) replaced by `f(target)`, every other byte kept. A plain scan,
/// code spans included: for comparing texts whose links were rewritten
/// (Obsidian's link updates), not for reading links.
pub fn map_wikilink_targets(text: &str, f: impl Fn(&str) -> String) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        out.push_str(&rest[..open + 2]);
        rest = &rest[open + 2..];
        let Some(close) = rest.find("]]") else {
            break;
        };
        let link = &rest[..close];
        let (target, tail) = link.split_at(link.find(['|', '#']).unwrap_or(link.len()));
        out.push_str(&f(target));
        out.push_str(tail);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Extracts wikilinks with pulldown-cmark, so links in code spans and code blocks
/// are not counted.
pub fn extract_wikilinks(body: &str) -> Vec<Wikilink> {
    // A cheap pre-check: most transcript bodies carry no wikilink at all.
    if !body.contains("[[") {
        return Vec::new();
    }
    let mut links = Vec::new();
    let mut open: Option<(String, bool, String)> = None;
    for event in Parser::new_ext(body, Options::ENABLE_WIKILINKS) {
        match event {
            Event::Start(Tag::Link {
                link_type: LinkType::WikiLink { has_pothole },
                dest_url,
                ..
            }) => open = Some((dest_url.into_string(), has_pothole, String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, label)) = open.as_mut() {
                    label.push_str(&t);
                }
            }
            Event::End(pulldown_cmark::TagEnd::Link) => {
                // Obsidian links never span lines or nest (a code span can hide
                // a `]]` from the parser); such a "target" is prose, not a link.
                if let Some((target, has_pothole, label)) = open.take()
                    && !target.contains(['\n', '\r'])
                    && !target.contains("[[")
                    && !target.contains("]]")
                {
                    links.push(Wikilink {
                        target,
                        label: has_pothole.then_some(label),
                    });
                }
            }
            _ => {}
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_frontmatter_from_byte_zero() {
        let (yaml, body) = split_frontmatter("---\nkind: \"summary\"\n---\nBody\n").unwrap();
        assert_eq!(yaml, "kind: \"summary\"\n");
        assert_eq!(body, "Body\n");
        assert_eq!(split_frontmatter("\n---\n---\n"), Err(ParseError::Missing));
        assert_eq!(
            split_frontmatter("---\na: 1\n"),
            Err(ParseError::Unterminated)
        );
    }

    #[test]
    fn wikilinks_in_code_are_ignored() {
        let links = extract_wikilinks(
            "see [[memory/a.md|summary]] and `[[memory/b.md]]`\n\n```\n[[c]]\n```\n",
        );
        assert_eq!(
            links,
            vec![Wikilink {
                target: "memory/a.md".into(),
                label: Some("summary".into())
            }]
        );
    }
}
