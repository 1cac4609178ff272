//! Shortening a text to a word budget where it still reads whole: at a
//! clause break or a word, never inside a quote, code or a run of Latin
//! letters inside CJK text, and with `…` where it was cut.
//!
//! Owns: clipping by words. Must not: choose what to clip (the gist does).

use crate::sentence::{is_cjk, word_count};

/// At most `max` words (CJK counted two characters a word), with `…` when cut.
pub(super) fn clip_words(text: &str, max: usize) -> String {
    let text = text.trim();
    if word_count(text) <= max {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for token in text.split_whitespace() {
        let w = word_count(token);
        if used + w > max {
            // Korean spaces its words: a word is kept whole or left out.
            if token.chars().any(is_cjk) && !is_hangul_word(token) && used < max {
                let room = (max - used) * 2;
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(cjk_head(token, room));
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(token);
        used += w;
    }
    format!("{}…", at_a_boundary(&out))
}

/// At most `room` characters of a CJK token, never inside a run of
/// other letters ("ro.debuggable" stays whole or goes), and back to its last
/// clause mark ("，", "、", "；") when that keeps three quarters of it.
fn cjk_head(token: &str, room: usize) -> &str {
    let end = token
        .char_indices()
        .nth(room)
        .map_or(token.len(), |(i, _)| i);
    let mut head = &token[..end];
    let cut_inside_word = |h: &str| {
        let before = h
            .chars()
            .next_back()
            .is_some_and(|c| !is_cjk(c) && c.is_alphanumeric());
        let after = token[h.len()..]
            .chars()
            .next()
            .is_some_and(|c| !is_cjk(c) && !c.is_whitespace());
        before && after
    };
    if cut_inside_word(head) {
        let start = head.rfind(|c: char| is_cjk(c)).map_or(0, |i| {
            i + head[i..].chars().next().map_or(0, char::len_utf8)
        });
        head = &head[..start];
    }
    // Never inside a quote it opened: "に「パスワード" is cut before "「".
    if let Some(open) = unclosed_quote(head) {
        head = &head[..open];
    }
    match head.rfind(['，', '、', '；', '：']) {
        Some(at) if at * 4 >= head.len() * 3 => &head[..at],
        _ => japanese_phrase_end(token, head.len()),
    }
}

/// Where `head` opens a CJK quote or bracket it does not close.
fn unclosed_quote(head: &str) -> Option<usize> {
    const PAIRS: &[(char, char)] = &[
        ('「', '」'),
        ('『', '』'),
        ('“', '”'),
        ('（', '）'),
        ('《', '》'),
        ('【', '】'),
    ];
    PAIRS
        .iter()
        .filter_map(|&(open, close)| {
            let at = head.rfind(open)?;
            (!head[at..].contains(close)).then_some(at)
        })
        .min()
}

/// A Korean word: Hangul, with no Han or kana to cut between.
fn is_hangul_word(token: &str) -> bool {
    use crate::sentence::is_hangul;
    token.chars().any(is_hangul) && !token.chars().any(|c| is_cjk(c) && !is_hangul(c))
}

fn is_hiragana(c: char) -> bool {
    ('\u{3041}'..='\u{309F}').contains(&c)
}

/// Japanese writes no spaces: a cut inside a run of hiragana lands inside
/// a word or an ending ("作り直していることで|す"). The cut goes on to the
/// end of that run when it is a few characters away ("…ことです"), else back
/// to the end of the last phrase, a case particle right after a noun written
/// in kanji, katakana or Latin letters ("データベースを").
fn japanese_phrase_end(token: &str, head_len: usize) -> &str {
    const PARTICLES: &[char] = &['を', 'が', 'は', 'に', 'で', 'と', 'へ', 'も', 'の'];
    const RUN_TAIL: usize = 4;
    let (head, rest) = token.split_at(head_len);
    let inside_kana = head.chars().next_back().is_some_and(is_hiragana)
        && rest.chars().next().is_some_and(is_hiragana);
    if !inside_kana {
        return head;
    }
    let tail: usize = rest
        .chars()
        .take_while(|c| is_hiragana(*c))
        .map(char::len_utf8)
        .sum();
    if rest[..tail].chars().count() <= RUN_TAIL {
        return &token[..head_len + tail];
    }
    let mut end = None;
    let mut before: Option<char> = None;
    for (i, c) in head.char_indices() {
        if PARTICLES.contains(&c) && before.is_some_and(|b| !is_hiragana(b) && b.is_alphanumeric())
        {
            end = Some(i + c.len_utf8());
        }
        before = Some(c);
    }
    end.map_or(head, |at| &head[..at])
}

/// A clipped text ended where it reads as cut on purpose: at its last clause
/// break when that keeps most of it, else without a dangling "the", "of" or
/// "which".
fn at_a_boundary(clipped: &str) -> &str {
    const DANGLING: &[&str] = &[
        "the", "a", "an", "of", "to", "and", "or", "which", "that", "is", "are", "in", "for",
        "with", "on", "at", "by", "from", "as", "but", "when", "while", "if", "because", "so",
        "then", "into", "after", "before", "than", "its", "their", "your", "our", "his", "her",
    ];
    // Never inside a quote, parentheses or code: `prints "Hello, world!"`.
    let outside = |at: usize| {
        let head = &clipped[..at];
        let count = |c: char| head.matches(c).count();
        count('"') % 2 == 0
            && count('`') % 2 == 0
            && count('(') == count(')')
            && count('“') == count('”')
    };
    let last_break = |breaks: &[&str]| {
        breaks
            .iter()
            .flat_map(|b| clipped.match_indices(b).map(|(at, _)| at))
            .filter(|&at| outside(at))
            .max()
            .filter(|&at| at * 10 >= clipped.len() * 6)
    };
    // A mark ends a clause for sure; a conjunction may join two words
    // ("back and reload"), so it is the break only when no mark is: "…
    // (1.1 GB) and keeps node_modules with dev" ends before "and".
    let clause = last_break(&[
        ", ", "; ", ": ", " — ", " – ", " - ", "、", "，", "；", "。",
    ])
    .or_else(|| last_break(&[" and ", " but ", " which ", " because ", " while ", " so "]));
    let mut out = match clause {
        Some(at) => &clipped[..at],
        None => clipped,
    };
    // A cut inside parentheses ("…on two counts (no file + the") ends
    // before them, when that keeps half the text.
    for (open, close) in [('(', ')'), ('（', '）'), ('[', ']'), ('{', '}')] {
        if out.matches(open).count() > out.matches(close).count()
            && let Some(at) = out.rfind(open).filter(|&at| at * 2 >= clipped.len())
        {
            out = &out[..at];
        }
    }
    // A cut inside a quote ("… with \"order") ends before the word it opens.
    if out.matches('"').count() % 2 == 1
        && let Some(at) = out.rfind('"').map(|q| out[..q].rfind(' ').unwrap_or(q))
        && at * 2 >= clipped.len()
    {
        out = &out[..at];
    }
    out = out.trim_end();
    while let Some((head, last)) = out.rsplit_once(' ') {
        if !DANGLING.contains(&last.to_lowercase().as_str()) {
            break;
        }
        out = head;
    }
    out.trim_end_matches([',', ';', ':', '.', ' '])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::gist::end_sentence;

    /// Cut inside a parenthesis (any kind, any language), a brace or a
    /// quote, the text ends before it; one closed before the cut stays.
    #[test]
    fn a_cut_inside_parentheses_ends_before_them() {
        for (open, close) in [("(", ")"), ("（", "）"), ("[", "]")] {
            for head in [
                "that command would have failed on two counts for this reason",
                "la commande aurait échoué pour deux raisons dans ce dossier",
            ] {
                let text = format!(
                    "{head} {open}no file plus the redirect issue in PowerShell{close} here"
                );
                let clipped = clip_words(&text, word_count(head) + 3);
                assert!(!clipped.contains(open), "{clipped}");
                assert!(clipped.starts_with(head), "{clipped}");
            }
        }
        // Quotes and braces too: JSON in an outcome is never cut open.
        for tail in [
            "{\"error\":\"order not found\"} on every miss",
            "\"order not found\" on every miss",
        ] {
            let text = format!(
                "getOrder throws NotFoundError and the error middleware maps it to a 404 with {tail}"
            );
            let clipped = end_sentence(&clip_words(&text, 15));
            assert_eq!(
                clipped, "getOrder throws NotFoundError and the error middleware maps it to a 404.",
                "{text}"
            );
        }
        let closed = "the tests (all 42) pass on the new parser and the old one too";
        assert!(clip_words(closed, 8).contains("(all 42)"));
    }

    #[test]
    fn cjk_requests_are_clipped_by_characters() {
        let long = "把这个大纲写入到飞书文档下面重新起一个文件并且检查格式是否正确然后把整个大纲渲染出来给我看看有没有遗漏的内容";
        let clipped = clip_words(long, 10);
        assert_eq!(clipped.chars().count(), 21);
        assert!(clipped.ends_with('…'));
        // Cut inside a CJK run, the words before it keep their space.
        let mixed = "请用 adb root权限进入设备然后把整个系统日志导出来给我看看有没有异常的内容";
        assert!(
            clip_words(mixed, 6).starts_with("请用 adb root权限"),
            "{}",
            clip_words(mixed, 6)
        );
    }

    /// Japanese, clipped at every budget, ends after a phrase (a particle
    /// after a noun), at a clause mark, or between kanji and katakana,
    /// never inside a run of hiragana ("…ことで|す", "…しているの|で").
    #[test]
    fn japanese_is_never_cut_inside_a_run_of_hiragana() {
        let texts = [
            "原因は conftest.py の db フィクスチャが scope=\"function\" で毎回データベースを作り直していることです。",
            "このプロジェクトでは設定ファイルをユーザーごとに共有しているので、権限の変更が必要です。",
            "ログイン画面のリダイレクトが無限ループしていたのでコールバックURLの判定を修正しました。",
            "テストが失敗していた理由はタイムゾーンの設定がサーバーとローカルで異なっていたためです。",
        ];
        for text in texts {
            for max in 4..word_count(text) {
                let clipped = clip_words(text, max);
                let head = clipped.trim_end_matches('…');
                let rest = &text[head.len()..];
                let (last, next) = (head.chars().next_back(), rest.chars().next());
                let inside = last.is_some_and(is_hiragana) && next.is_some_and(is_hiragana);
                let after_noun = {
                    let mut tail = head.chars().rev();
                    let (p, b) = (tail.next(), tail.next());
                    p.is_some_and(|p| "をがはにでとへもの".contains(p))
                        && b.is_some_and(|b| !is_hiragana(b))
                };
                assert!(!inside || after_noun, "{max}: {clipped}");
            }
        }
    }

    #[test]
    fn a_clipped_outcome_ends_at_a_clause_or_a_word_never_inside_a_quote_or_on_a_dangling_word() {
        let long = "The login redirect no longer loops: redirect.ts now ignores the callback URL when it points back at the login page itself";
        let sentence = end_sentence(&clip_words(long, 12));
        assert_eq!(
            sentence,
            "The login redirect no longer loops: redirect.ts now ignores the callback URL."
        );
        let quoted = "I added hello.py, a hello world script that prints \"Hello, world!\" when it runs from the shell";
        let sentence = end_sentence(&clip_words(quoted, 12));
        assert!(
            !sentence.contains("\"Hello.") && !sentence.ends_with("when."),
            "{sentence}"
        );
        assert!(!sentence.contains("…."), "{sentence}");
    }

    /// The class: a cut inside the second half of a clause joined by "and",
    /// "but", "which", "because", "while" or "so" ("… and keeps node_modules
    /// with dev|dependencies") ends before the conjunction when no comma or
    /// other mark is late enough to end at, so the outcome never ends in
    /// half a phrase; a join too early to keep most of the text is not cut at.
    #[test]
    fn a_cut_inside_a_joined_clause_ends_before_its_conjunction() {
        let head = "Most of the image is the build toolchain built from node:22 (1.1 GB)";
        for join in ["and", "but", "which", "because", "while", "so"] {
            let text = format!("{head} {join} keeps node_modules with dev dependencies (700 MB)");
            let clipped = clip_words(&text, word_count(head) + 5);
            assert_eq!(end_sentence(&clipped), format!("{head}."), "{text}");
        }
        let early =
            "Upgraded react and moved every component of the dashboard to the new hooks API";
        assert!(clip_words(early, 10).starts_with("Upgraded react and moved"));
    }

    #[test]
    fn a_cjk_clip_never_cuts_inside_a_latin_word_and_prefers_a_late_clause_mark() {
        let request =
            "帮我在adb root之后重新挂载system分区，然后把build.prop里的ro.debuggable改成1再重启";
        let clipped = clip_words(request, 12);
        assert!(!clipped.contains("ro.d…"), "{clipped}");
        assert!(
            clipped.starts_with("帮我在adb root之后重新挂载system分区"),
            "{clipped}"
        );
        assert!(clipped.ends_with('…'), "{clipped}");
    }

    /// Korean spaces its words (eojeol), so a clip at any budget keeps each
    /// word whole: "…오류를 반환합니다" never ends "…반환".
    #[test]
    fn korean_is_never_cut_inside_a_word() {
        let text = "가입 전에 이메일로 기존 사용자를 조회하고 있으면 이미 가입된 이메일이라는 오류를 반환합니다";
        let words: Vec<&str> = text.split_whitespace().collect();
        for max in 2..crate::sentence::word_count(text) {
            let clipped = clip_words(text, max);
            let kept = clipped.trim_end_matches('…');
            for word in kept.split_whitespace() {
                assert!(words.contains(&word), "{max}: {clipped}");
            }
        }
    }

    /// The class: CJK text clipped at any budget, its clauses joined by
    /// `；`, `，`, `、` and quoting with `「」`, `“”`, `《》`: the cut never
    /// leaves a quote open, and ends at the last clause mark when that
    /// keeps most of what was cut.
    #[test]
    fn a_cjk_clip_never_leaves_a_quote_open_and_ends_at_a_clause() {
        let texts = [
            "ログイン画面のエラーメッセージを日本語化し、i18n/ja.json に「パスワードが正しくありません」を追加しました。さらにボタンの背景色を濃くしました。",
            "已将登录页面的错误提示改为中文，并在 i18n/zh.json 中新增了“密码不正确”的文案；同时把按钮背景色从 #2563eb 调整为 #1d4ed8，整体颜色更深一些。",
            "我读完了《深入理解计算机系统》的第三章，并整理了笔记；接下来会继续看第四章的内容并补充例子。",
        ];
        let pairs = [('「', '」'), ('“', '”'), ('《', '》')];
        for text in texts {
            for max in 6..crate::sentence::word_count(text) {
                let clipped = clip_words(text, max);
                let kept = clipped.trim_end_matches('…');
                for (open, close) in pairs {
                    assert_eq!(
                        kept.matches(open).count(),
                        kept.matches(close).count(),
                        "{max}: {clipped}"
                    );
                }
            }
        }
        let clipped = clip_words(texts[1], 24);
        assert_eq!(
            clipped,
            "已将登录页面的错误提示改为中文，并在 i18n/zh.json 中新增了“密码不正确”的文案…"
        );
        let clipped = clip_words(texts[0], 16);
        assert_eq!(clipped, "ログイン画面のエラーメッセージを日本語化し…");
    }
}
