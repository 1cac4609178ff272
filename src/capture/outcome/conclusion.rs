//! The closing section a long answer names as its conclusion (`## 結論`,
//! `**Bottom line:**`, `### Fazit`): what the agent itself says came of the
//! work, after the description and the options that led to it.
//!
//! Owns: recognising that section. Must not: choose between answers.

/// Words that title a conclusion, in the languages sessions are held in.
const TITLES: &[&str] = &[
    "conclusion",
    "in conclusion",
    "conclusions",
    "tl;dr",
    "tldr",
    "bottom line",
    "verdict",
    "recommendation",
    "my recommendation",
    "結論",
    "结论",
    "總結",
    "总结",
    "小結",
    "小结",
    "まとめ",
    "결론",
    "요약",
    "итог",
    "итоги",
    "вывод",
    "выводы",
    "fazit",
    "conclusión",
    "conclusão",
    "conclusione",
    "en résumé",
    "kết luận",
    "conclusie",
];

/// The text after the answer's last heading that titles a conclusion, when
/// other sections came before it; `None` otherwise.
pub(super) fn conclusion(report: &str, is_heading: fn(&str) -> bool) -> Option<&str> {
    let mut at = 0;
    let mut headings = 0;
    let mut last = None;
    for line in report.split_inclusive('\n') {
        let t = line.trim();
        if is_heading(t) {
            if headings > 0 && is_title(t) {
                last = Some(at + line.len());
            }
            headings += 1;
        }
        at += line.len();
    }
    let rest = &report[last?..];
    (!rest.trim().is_empty()).then_some(rest)
}

/// Words that open a closing paragraph as its conclusion without a
/// heading ("TL;DR: three issues, …", "In short, …", "总之，…"), besides
/// the titles.
const INLINE: &[&str] = &[
    "summary",
    "in short",
    "in summary",
    "to summarize",
    "to sum up",
    "总之",
    "總之",
    "简而言之",
    "要するに",
    "en resumen",
    "kurz gesagt",
    "em resumo",
    "в итоге",
    "tóm lại",
];

/// What the last paragraph that opens with a conclusion's words says
/// after them ("…\n\nTL;DR: three issues, the token comparison first."),
/// when paragraphs came before it.
pub(super) fn closing_words(report: &str) -> Option<&str> {
    let mut paragraphs = report.split("\n\n").filter(|p| !p.trim().is_empty());
    paragraphs.next()?;
    paragraphs.filter_map(|p| past_opening(p.trim())).last()
}

/// A paragraph past its opening conclusion words and their mark.
fn past_opening(paragraph: &str) -> Option<&str> {
    let bare = paragraph.trim_start_matches(['*', '_']);
    let at = bare.find([':', '：', ',', '，', '—'])?;
    let head = bare[..at]
        .trim_end_matches(['*', '_'])
        .trim()
        .to_lowercase();
    if !TITLES.contains(&head.as_str()) && !INLINE.contains(&head.as_str()) {
        return None;
    }
    let mark = bare[at..].chars().next().map_or(1, char::len_utf8);
    let rest = bare[at + mark..].trim_start_matches(['*', '_', ' ']);
    // "요약:" over a list is a label, not words that conclude.
    let said = rest.lines().next().is_some_and(|l| !l.trim().is_empty());
    said.then_some(rest)
}

/// Whether a heading's words are a conclusion's title (`## 🏁 Conclusion`,
/// `**TL;DR:**`, `### 3. 結論`).
fn is_title(heading: &str) -> bool {
    let words = heading
        .trim_matches(|c: char| !c.is_alphanumeric() && c != ';')
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
        .trim_end_matches([':', '：'])
        .trim()
        .to_lowercase();
    TITLES.iter().any(|t| words == *t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(line: &str) -> bool {
        line.starts_with('#')
    }

    #[test]
    fn a_named_conclusion_after_other_sections_is_the_answer() {
        let report = "## 你的專案狀況\n\n- binary + lib\n\n## 推薦方案\n\n1. mdBook\n\n## 結論\n\n# 路線\n`cargo doc` → GitHub Pages\n";
        assert_eq!(
            conclusion(report, heading).map(str::trim),
            Some("# 路線\n`cargo doc` → GitHub Pages")
        );
        let english = "## What I found\n\nthree options\n\n## 🏁 Bottom line:\n\nUse mdBook.";
        assert_eq!(
            conclusion(english, heading).map(str::trim),
            Some("Use mdBook.")
        );
    }

    /// The class: a closing paragraph opened by a conclusion's words, not
    /// a heading, in any language and markup; the answer's conclusion is
    /// what follows them. A first paragraph so opened is the answer as it is.
    #[test]
    fn a_closing_paragraph_opened_by_conclusion_words_is_the_conclusion() {
        let said = "three issues, the token comparison is the most urgent.";
        for opening in [
            "TL;DR: ",
            "**TL;DR:** ",
            "In short, ",
            "Bottom line: ",
            "总之，",
            "结论：",
            "En resumen, ",
            "Fazit: ",
        ] {
            for before in ["I went through the login flow.", "I went.\n\nI came back."] {
                let report = format!("{before}\n\n{opening}{said}");
                assert_eq!(closing_words(&report), Some(said), "{report:?}");
            }
            assert_eq!(closing_words(&format!("{opening}{said}")), None);
        }
        for report in [
            "I went through the login flow.\n\nIn the reset flow, the token leaks.",
            "Done.\n\nShort: yes",
            "Created.\n\n요약:\n- 총 태스크 수: 65\n\n형식 검증:\n- ok",
        ] {
            assert_eq!(closing_words(report), None, "{report:?}");
        }
    }

    #[test]
    fn other_closing_sections_and_a_lone_conclusion_are_left_alone() {
        for report in [
            "## Changes\n\n- a\n\n## Next steps\n\nrun it",
            "## Conclusion\n\nall good",
            "## Findings\n\nx\n\n## Conclusion\n\n",
            "## Summary of changes\n\n- a\n\n## Testing\n\nok",
        ] {
            assert_eq!(conclusion(report, heading), None, "{report}");
        }
    }
}
