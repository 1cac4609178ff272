//! An answer laid out as titled sections after a one-paragraph opening
//! ("I'll take the two questions in turn." then `## Q1: yes, …`,
//! `## Q2: …`): the opening only introduces them, and the titles that say
//! something are what the answer concluded. The summary keeps the answer.
//!
//! A list whose items are paragraphs of their own is one list too.
//!
//! Owns: telling those layouts, outlining the sections and tightening the
//! list. Must not: choose between answers (the outcome does).

use crate::sentence::word_count;

/// Titles kept in an outline; the rest of a long answer stays in its summary.
const MAX_TITLES: usize = 4;

/// What the section titles of `report` say, when its opening is one short
/// paragraph (which only introduces them) and `#` sections follow it, two or
/// more titled with a claim (`Q1: yes, and more than today`) rather than a
/// label (`What changed`).
pub(super) fn outline(report: &str) -> Option<String> {
    let mut lines = report.lines().map(str::trim).skip_while(|l| l.is_empty());
    let opening: Vec<&str> = lines.by_ref().take_while(|l| !l.is_empty()).collect();
    let [opening] = opening.as_slice() else {
        return None;
    };
    if opening.starts_with('#') || opening.chars().count() > 200 {
        return None;
    }
    let first = lines.find(|l| !l.is_empty())?;
    let level = heading_level(first)?;
    // Titles that are labels (`Suggested order`) stay in the summary.
    let titles: Vec<&str> = std::iter::once(first)
        .chain(lines)
        .filter(|l| heading_level(l) == Some(level))
        .map(title)
        .filter(|t| says_something(t))
        .collect();
    if titles.len() < 2 {
        return None;
    }
    let kept: Vec<&str> = titles.into_iter().take(MAX_TITLES).collect();
    Some(kept.join("; "))
}

/// The number of `#` of an ATX heading.
fn heading_level(line: &str) -> Option<usize> {
    let level = line.chars().take_while(|&c| c == '#').count();
    (1..=6)
        .contains(&level)
        .then_some(level)
        .filter(|&l| line[l..].starts_with(' '))
}

/// A heading's words, without its marks and number (`## **Q1: yes**` →
/// `Q1: yes`, `## 2. Authenticate` → `Authenticate`): a number would read as
/// the end of a sentence once the titles are joined.
fn title(line: &str) -> &str {
    let words = line.trim_start_matches('#').trim().trim_matches('*').trim();
    let digits = words.bytes().take_while(u8::is_ascii_digit).count();
    match words[digits..].strip_prefix(['.', ')']) {
        Some(rest) if (1..=3).contains(&digits) && rest.starts_with(' ') => rest.trim_start(),
        _ => words,
    }
}

/// A title that states something: a clause after a label (`Q1: yes`), or
/// five words or more; not a label such as `What changed` or `Tests`.
fn says_something(title: &str) -> bool {
    let clause = title
        .split_once([':', '：'])
        .is_some_and(|(_, after)| !after.trim().is_empty());
    clause || word_count(title) >= 5
}

/// `report` with a loose list written tight: "I made three changes:\n\n1.
/// Moved the key.\n\n2. Added …" is one list of three under the line that
/// introduces it, not a line over one item. Paragraphs join when each opens
/// with an item of the same kind (numbered, or the same bullet).
pub(super) fn tight_lists(report: &str) -> std::borrow::Cow<'_, str> {
    let paras: Vec<&str> = report
        .split("\n\n")
        .map(|p| p.trim_matches('\n'))
        .filter(|p| !p.trim().is_empty())
        .collect();
    let kinds: Vec<Option<char>> = paras.iter().map(|p| item_kind(p)).collect();
    if !kinds.windows(2).any(|k| k[0].is_some() && k[0] == k[1]) {
        return report.into();
    }
    let mut tight = paras[0].to_string();
    for (i, para) in paras.iter().enumerate().skip(1) {
        let same = kinds[i].is_some() && kinds[i] == kinds[i - 1];
        tight.push_str(if same { "\n" } else { "\n\n" });
        tight.push_str(para);
    }
    tight.into()
}

/// The kind of list item `para` opens with: `1` for a numbered one, else
/// its bullet.
fn item_kind(para: &str) -> Option<char> {
    let line = para.trim_start();
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) && [". ", ") "].iter().any(|m| line[digits..].starts_with(m)) {
        return Some('1');
    }
    let bullet = line.chars().next()?;
    (['-', '*', '•'].contains(&bullet) && line[bullet.len_utf8()..].starts_with(' '))
        .then_some(bullet)
}

#[cfg(test)]
mod tests {
    use super::{outline, tight_lists};

    /// The class: an opening paragraph, then two or more sections whose
    /// titles state their answers; in any language and heading level.
    #[test]
    fn numbered_titles_are_outlined_without_their_numbers() {
        let answer = "It failed twice. Here's the working version.\n\n## 1. Create token.txt with your new token\nsteps\n\n## 2) Authenticate with the PowerShell syntax\nmore";
        assert_eq!(
            outline(answer).as_deref(),
            Some("Create token.txt with your new token; Authenticate with the PowerShell syntax")
        );
    }

    #[test]
    fn titled_sections_after_an_opening_are_outlined_and_labels_are_not() {
        let answers = [
            (
                "I'll answer the two questions separately.",
                [
                    "Q1: yes, and more than today",
                    "Q2: the hook exists, with a trap",
                ],
            ),
            (
                "兩題分開答,第二題我認為方向對,但有一個陷阱在程式碼裡等著。",
                [
                    "Q1:會,而且結構上比今天更多",
                    "Q2:機制存在、可以改指向,但有個陷阱",
                ],
            ),
            (
                "Je réponds aux deux points.",
                [
                    "Point 1 : oui, la limite reste",
                    "Point 2 : non, le cache suffit",
                ],
            ),
        ];
        for (opening, [a, b]) in answers {
            for marks in ["##", "###", "#"] {
                let report = format!(
                    "{opening}\n\n{marks} {a}\n\nBody one.\n\n{marks} **{b}**\n\nBody two.\n"
                );
                let got = outline(&report).expect(&report);
                assert!(got.contains(a) && got.contains(b), "{got}");
                assert!(!got.contains("Suggested"), "a label is left out: {got}");
                assert!(
                    !got.contains(opening.trim_end_matches(['。', '.'])),
                    "{got}"
                );
            }
        }
        let labels = "Done: the retry is in place.\n\n## What changed\n\n- a\n\n## Tests\n\n- b\n";
        assert_eq!(outline(labels), None, "labels say nothing");
        let one = "Here is the answer.\n\n## Q1: yes, it holds\n\nBody.\n\n## Next steps\n";
        assert_eq!(outline(one), None, "one section is not a layout");
        let long_opening = format!(
            "{}\n\n## A: yes it does\n\n## B: no it does not\n",
            "word ".repeat(60)
        );
        assert_eq!(
            outline(&long_opening),
            None,
            "a long opening is the answer itself"
        );
        let headed = "## Q1: yes\n\n## Q2: no\n";
        assert_eq!(outline(headed), None, "no opening");
    }

    /// The class: a list whose items are paragraphs of their own, numbered
    /// or bulleted, is read as one list; paragraphs of prose between, and
    /// items of different kinds, stay apart.
    #[test]
    fn a_loose_list_is_read_as_one() {
        let items = [
            "Moved the API key to `.env`.",
            "Added `dotenv` loading.",
            "Updated the README.",
        ];
        for marker in ["1. ", "- ", "* ", "• "] {
            let list: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(n, i)| match marker {
                    "1. " => format!("{}. {i}", n + 1),
                    _ => format!("{marker}{i}"),
                })
                .collect();
            let loose = format!("I made three changes:\n\n{}", list.join("\n\n"));
            let tight = format!("I made three changes:\n\n{}", list.join("\n"));
            assert_eq!(tight_lists(&loose), tight, "{marker:?}");
            assert_eq!(tight_lists(&tight), tight, "{marker:?}");
        }
        for apart in [
            "1. First step.\n\nThen some prose.\n\n2. Second step.",
            "- a bullet\n\n1. a number",
            "- a bullet\n\n* another kind",
        ] {
            assert_eq!(tight_lists(apart), apart);
        }
    }
}
