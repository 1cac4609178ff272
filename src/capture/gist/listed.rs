//! A request asked as a list of tasks ("A few things:\n- rename getUser
//! …\n- drop the lodash import\n- add a test"): the session's work is every
//! item, so the request names as many whole items as fit, and how many more
//! there are; its first item alone would name a third of it.
//!
//! Owns: joining a request's listed tasks, and saying any list (changes,
//! table rows) by as many whole items as fit and how many more. Must not:
//! choose where the ask starts (`ask_of` does) or read questions asked as a
//! list (the request's gist keeps those together already).

use super::{REQUEST_WORDS, ask_of, gist, prose_lines, unmarked};
use crate::sentence::word_count;

/// The request `first` (the gist of the list's first item, or of the label
/// with it) with the list's other items, when it is a list of tasks.
pub(super) fn listed_tasks(text: &str, first: &str) -> Option<String> {
    if first.ends_with(['?', '？']) {
        return None;
    }
    // A heading is a title or a section's label, never a task.
    let heading = |line: &str| line.starts_with('#');
    let listed = |line: &&str| unmarked(line) != *line && !heading(line);
    let mut lines = prose_lines(ask_of(text)).peekable();
    let opening = lines.next()?;
    if heading(opening) {
        // "# Feature: Dark mode\n## Requirements\n- …": the title names
        // the list under it, past a section label between them. Under a
        // bug report's label ("**Steps to reproduce**") the list is how to
        // see the bug, not what to do: the title alone is the request.
        let label = lines.next_if(|l| heading(l) || bold_label(l));
        if label.is_some_and(names_a_report_section) || !lines.peek().is_some_and(listed) {
            return None;
        }
    } else {
        // A label over the list ("A few things:", "待办：") took the list's
        // first item along as what it introduces.
        let mut labelled =
            || opening.ends_with([':', '：']) && lines.next().is_some_and(|l| listed(&l));
        if !(listed(&opening) || labelled()) {
            return None;
        }
    }
    let items: Vec<&str> = lines.take_while(listed).collect();
    if items.is_empty() || items.iter().any(|i| i.ends_with(['?', '？'])) {
        return None;
    }
    let last = items.len();
    let tasks: Vec<String> = std::iter::once(first.to_string())
        .chain(items.into_iter().map(gist))
        .enumerate()
        // A task's closing stop goes when another follows it.
        .map(|(n, task)| match n < last {
            true => task.trim_end_matches(['.', '。', ';', '；']).to_string(),
            false => task,
        })
        .collect();
    // The first item is the request however long it is.
    as_many_as_fit(&tasks, REQUEST_WORDS.max(word_count(first)), "; ")
}

/// A line that is only a label in bold ("**Steps to reproduce**",
/// "**Requirements:**").
fn bold_label(line: &str) -> bool {
    let inner = line.trim().trim_end_matches([':', '：']);
    inner.len() > 4
        && inner.starts_with("**")
        && inner.ends_with("**")
        && !inner[2..inner.len() - 2].contains("**")
}

/// A section label of a bug report (steps to reproduce, expected and
/// actual behaviour, environment), in the languages memsync reads.
fn names_a_report_section(label: &str) -> bool {
    const SECTIONS: &[&str] = &[
        "reproduc",
        "repro",
        "expected",
        "actual",
        "environment",
        "describe the bug",
        "复现",
        "重现",
        "復現",
        "再現",
        "재현",
        "reproduz",
        "reproduir",
        "reproduzier",
        "воспроизв",
        "відтвор",
        "期望",
        "预期",
        "実際",
        "기대",
    ];
    let label = label.to_lowercase();
    SECTIONS.iter().any(|s| label.contains(s))
}

/// An outcome in `words`: a list ("A; B; C; D", maybe "; and 2 more") too
/// long for them keeps as many whole items as fit and says how many more,
/// rather than stopping after an item as if there were no more; anything
/// else is clipped.
pub(super) fn within(outcome: &str, words: usize) -> String {
    use crate::capture::clip::clip_words;
    let items: Vec<&str> = outcome.split("; ").collect();
    if word_count(outcome) <= words || items.len() < 3 {
        return clip_words(outcome, words);
    }
    // "and 2 more" closing the list counts its two.
    let (named, more) = match items.split_last() {
        Some((last, named)) => match last
            .strip_prefix("and ")
            .and_then(|l| l.strip_suffix(" more"))
        {
            Some(n) => (named, n.parse::<usize>().unwrap_or(1)),
            None => (&items[..], 0),
        },
        None => return clip_words(outcome, words),
    };
    let named: Vec<String> = named.iter().map(|i| i.to_string()).collect();
    match as_many_as_fit(&named, words.saturating_sub(MORE_WORDS), "; ") {
        // All named items fit only when the count was what did not.
        Some(said) if said.contains(" more") || more == 0 => with_more(&said, more),
        _ => clip_words(outcome, words),
    }
}

/// Words "; and N more" takes after the items a long list is said by.
pub(super) const MORE_WORDS: usize = 3;

/// `said` with `more` items more counted in its closing "; and N more".
fn with_more(said: &str, more: usize) -> String {
    match said
        .rsplit_once("; and ")
        .and_then(|(head, n)| Some((head, n.strip_suffix(" more")?.parse::<usize>().ok()?)))
    {
        Some((head, n)) => format!("{head}; and {} more", n + more),
        None if more > 0 => format!("{said}; and {more} more"),
        None => said.to_string(),
    }
}

/// `items` joined by `sep`, as many whole ones as fit in `words`, and how
/// many more there are ("; and 4 more"): a list's first item alone would
/// name a part of it, and an item cut in the middle names nothing. Nothing
/// when not even the first fits.
pub(super) fn as_many_as_fit(items: &[String], words: usize, sep: &str) -> Option<String> {
    let shown = items
        .iter()
        .scan(0, |sum, i| {
            *sum += word_count(i);
            Some(*sum)
        })
        .take_while(|&sum| sum <= words)
        .count();
    if shown == 0 {
        return None;
    }
    let said = items[..shown].join(sep);
    Some(match items.len() - shown {
        0 => said,
        more => format!("{said}; and {more} more"),
    })
}

#[cfg(test)]
mod tests {
    use super::super::request_gist;

    /// The class: tasks asked as a list, under a label or not, with any list
    /// marker (a task list's boxes too) and in any language: the request names every task that fits,
    /// and how many more there are. Questions, long items and a list of one
    /// are not joined, and an item too long to fit is counted, not cut.
    #[test]
    fn tasks_asked_as_a_list_are_asked_together() {
        let tasks = [
            [
                "rename `getUser` to `fetchUser`",
                "drop the lodash import",
                "add a test for fetchUser",
            ],
            [
                "renomme getUser en fetchUser",
                "supprime l'import lodash",
                "ajoute un test",
            ],
            [
                "把 getUser 改名为 fetchUser",
                "删掉 lodash 的导入",
                "加一个测试",
            ],
        ];
        for [one, two, three] in tasks {
            let plain = |t: &str| t.replace('`', "");
            let want = format!("{}; {}; {}", plain(one), plain(two), plain(three));
            for label in ["", "A few things:\n", "待办：\n", "Por favor:\n\n"] {
                for marker in ["- ", "* ", "1. ", "• ", "- [ ] ", "* [x] ", "☐ "] {
                    let text = format!("{label}{marker}{one}\n{marker}{two}\n{marker}{three}");
                    let got = request_gist(&text);
                    assert!(got.ends_with(&want), "{text:?} -> {got:?}");
                    let label = label.trim();
                    assert!(got.starts_with(label), "{text:?} -> {got:?}");
                }
            }
        }
        // More than fit: whole items, then how many are left.
        let many: String = (1..=8)
            .map(|n| format!("- update the handler for route number {n}\n"))
            .collect();
        let got = request_gist(&many);
        assert!(
            got.contains("route number 2") && got.ends_with("; and 5 more"),
            "{got:?}"
        );
        let long = "- Move the retry loop into its own module so that it can be tested alone\n- Add jitter to the retry loop so that clients do not all retry at once";
        assert!(
            request_gist(long).ends_with("tested alone; and 1 more"),
            "{long:?}"
        );
        for text in [
            "- is the cache thread-safe?\n- drop the mutex",
            "A few things:\n- rename getUser to fetchUser",
            "Current state: everything builds\n- drop the mutex",
        ] {
            let got = request_gist(text);
            assert!(!got.contains(';'), "{text:?} -> {got:?}");
        }
    }

    /// The class: a numbered list that lost its line breaks (pasted from a
    /// page or a one-line form: "OBJECTIFS :1. Analyse … `index.astro`.2.
    /// Repère …3. Vérifie …"), in any language, with `1.` or `1)`, after a
    /// colon, a stop or a code span: its tasks are asked together, as on
    /// their lines. Numbers that are no list ("version 2. Then", out of
    /// order, two items) leave the line as it was.
    #[test]
    fn a_numbered_list_that_lost_its_line_breaks_is_read_as_a_list() {
        let tasks = [
            [
                "Analyse le fichier `index.astro`",
                "supprime le lien mort",
                "ajoute la balise canonique",
            ],
            [
                "check `src/index.ts`",
                "remove the dead link",
                "add a canonical tag",
            ],
            [
                "检查 `index.astro` 文件",
                "删除失效链接",
                "添加 canonical 标签",
            ],
        ];
        for [one, two, three] in tasks {
            let want = [one, two, three].map(|t| t.replace('`', "")).join("; ");
            for label in ["OBJECTIFS :", "Tasks:", "任务：", ""] {
                for (n1, n2, n3) in [("1. ", "2. ", "3. "), ("1) ", "2) ", "3) ")] {
                    for stop in [".", ". ", ";"] {
                        let text = format!("{label}{n1}{one}{stop}{n2}{two}{stop}{n3}{three}.");
                        let got = request_gist(&text);
                        let got = got.trim_end_matches('.');
                        assert!(got.ends_with(&want), "{text:?} -> {got:?}");
                    }
                }
            }
        }
        for text in [
            "Upgrade to version 2. Then run the tests again and fix what breaks.",
            "Read chapter 3. 1. is wrong. 2. is fine.",
            "Steps:1. build the image.2. push it.",
        ] {
            let got = request_gist(text);
            assert!(!got.contains(';'), "{text:?} -> {got:?}");
        }
    }

    /// The class: a spec pasted as markdown, a title heading over the list
    /// of what it wants (a section label between them or not, other
    /// sections after), in any language: the request is the title and the
    /// items of that list; no heading is an item.
    #[test]
    fn a_titled_spec_asks_for_the_items_under_its_title() {
        let items = "- a toggle in the header\n- persist the choice\n- respect the system theme";
        let want = "a toggle in the header; persist the choice; respect the system theme";
        for title in [
            "# Feature: Dark mode",
            "## Dark mode",
            "# Funcionalidad: modo oscuro",
            "# 功能：深色模式",
        ] {
            for label in ["", "## Requirements\n", "### 要求\n\n"] {
                let spec =
                    format!("{title}\n\n{label}{items}\n\n## Acceptance\n- no flash on load");
                let got = request_gist(&spec);
                let name = title.trim_start_matches('#').trim();
                assert_eq!(got, format!("{name}; {want}"), "{spec:?}");
            }
        }
    }

    /// The class: a bug report pasted as markdown, a title heading over a
    /// report section's label (steps to reproduce, expected, actual; a
    /// heading or a bold line, in any language) and its list: the request
    /// is the title, the steps to see the bug are not tasks. A spec's label
    /// in bold keeps its list.
    #[test]
    fn a_bug_reports_title_is_the_request_not_its_steps_to_reproduce() {
        let steps = "1. Clear localStorage\n2. Open /settings\n3. Click Save";
        for title in [
            "## Bug: settings page crashes when theme is unset",
            "# Settings page crashes when the theme is unset",
            "### 设置页在主题未设置时崩溃",
            "# Страница настроек падает без темы",
        ] {
            for label in [
                "**Steps to reproduce**",
                "### To Reproduce",
                "**Repro:**",
                "## 复现步骤",
                "**Шаги воспроизведения**",
                "**Expected behavior**",
            ] {
                let report = format!(
                    "{title}\n\n{label}\n{steps}\n\n**Actual** TypeError: Cannot read properties of undefined"
                );
                let got = request_gist(&report);
                let name = title.trim_start_matches('#').trim();
                assert_eq!(got, name, "{report:?}");
            }
        }
        let spec = "# Feature: Dark mode\n\n**Requirements**\n- a toggle in the header\n- persist the choice";
        assert_eq!(
            request_gist(spec),
            "Feature: Dark mode; a toggle in the header; persist the choice"
        );
    }

    /// The class: an outcome said as a list of items too long for the
    /// sentence's room (changes, findings, steps; a list that already ends
    /// "; and 2 more"): it keeps as many whole items as fit and counts the
    /// rest, never stopping after an item as if there were no more. A
    /// list that fits, and a sentence of two clauses, are as they were.
    #[test]
    fn a_list_too_long_for_the_sentence_counts_what_it_leaves_out() {
        use super::within;
        let items = [
            "The JWT secret falls back to dev when JWT_SECRET is unset",
            "Passwords are compared with == instead of a constant-time check",
            "Reset tokens never expire",
            "Login errors tell whether the account exists",
        ];
        let list = items.join("; ");
        assert_eq!(
            within(&list, 26),
            format!("{}; {}; and 2 more", items[0], items[1])
        );
        assert_eq!(within(&list, 15), format!("{}; and 3 more", items[0]));
        let counted = format!("{}; {}; and 4 more", items[0], items[1]);
        assert_eq!(within(&counted, 15), format!("{}; and 5 more", items[0]));
        assert_eq!(within(&list, 60), list);
        let clauses = "The flaky test was caused by a shared temp dir that every test wrote into; each test now gets its own directory";
        assert!(!within(clauses, 12).contains("more"));
    }
}
