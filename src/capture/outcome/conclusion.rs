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
