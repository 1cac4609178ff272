//! A request whose ask comes last, after what it is about: a paste told
//! first and a short ask pointing back at it ("# Export feature\n## Goal
//! …\n\nImplement this.", "My boss sent this:\n> The invoice PDF shows the
//! wrong VAT rate …\n\nCan you look?"), or one run-on sentence that tells
//! the problem at length and asks at its end. The ask names nothing, or is
//! past the request's words, and the opening names the subject, so the
//! request is both: "Export feature … Implement this.".
//!
//! Owns: telling such a request. Must not: read fenced pastes (the
//! transcript's `after_paste` tells an error's line and the ask after it)
//! or an ask that says its point (`stated_task` finds it).

use super::{REQUEST_WORDS, first_sentence, gist, past_preamble, prose_lines, unmarked};
use crate::capture::clip::clip_words;
use crate::capture::{remarks, ties};
use crate::sentence::word_count;

/// Words a closing ask stays within to point back rather than say its point.
const POINTING_BACK_WORDS: usize = 5;
/// Words (two CJK characters each) of an ask that leaves its object out.
const DROPPED_OBJECT_WORDS: usize = 8;

/// Words of paste before the ask that make it a paste, not a sentence or two.
const PASTE_WORDS: usize = 15;

/// Words of a line that presents the paste below it ("My boss sent this:").
const PRESENTING_WORDS: usize = 12;

/// "<the paste's first line> … <the ask>", when `text` ends in a short ask
/// pointing back at a paste that opens it.
pub(super) fn pointing_back(text: &str) -> Option<String> {
    let lines: Vec<&str> = prose_lines(past_preamble(text)).collect();
    let (&ask, pasted) = lines.split_last()?;
    let &opening = pasted.first()?;
    // An opening line that asks says the point itself.
    if opening.ends_with(['?', '？']) || remarks::opens_an_ask(opening) {
        return None;
    }
    if unmarked(ask) != ask
        || word_count(ask) > POINTING_BACK_WORDS
        || pasted.iter().map(|l| word_count(l)).sum::<usize>() < PASTE_WORDS
        || !points_back(ask)
    {
        return None;
    }
    let presents = opening.ends_with([':', '：']) && word_count(opening) <= PRESENTING_WORDS;
    // "### Describe the bug" over the bug: a template's label, not its title.
    let labelled = is_template_label(opening);
    let title = match presents || labelled {
        true => pasted.get(1).filter(|l| **l != ask)?,
        false => &opening,
    };
    let title = first_sentence(unmarked(title));
    if title.is_empty() {
        return None;
    }
    Some(told_with(&title, ask))
}

/// A heading an issue or bug template puts over what the person writes
/// ("### Describe the bug", "**Steps to reproduce**", "## 问题描述").
fn is_template_label(line: &str) -> bool {
    const LABELS: &[&str] = &[
        "describe the bug",
        "bug description",
        "bug report",
        "description",
        "summary",
        "problem",
        "the problem",
        "what happened",
        "what happened?",
        "current behavior",
        "current behaviour",
        "actual behavior",
        "actual behaviour",
        "steps to reproduce",
        "to reproduce",
        "expected behavior",
        "expected behaviour",
        "descripción",
        "descripción del error",
        "description du bug",
        "beschreibung",
        "descrição",
        "описание",
        "问题描述",
        "描述",
        "現象",
        "概要",
    ];
    let words = line
        .trim_start_matches(['#', '*', ' '])
        .trim_end_matches(['*', ':', '：', ' '])
        .to_lowercase();
    line.starts_with(['#', '*']) && LABELS.contains(&words.as_str())
}

/// A short ask after a sentence that tells the problem ("The search page is
/// slow with 50k products. Make it faster.", "测试在 CI 上失败。修一下。"):
/// it points back at the telling, so the request is both.
pub(super) fn asks_of_it(telling: &str, ask: &str) -> Option<String> {
    let tells = !telling.ends_with(['?', '？', ':', '：']) && !remarks::opens_an_ask(telling);
    // "It keeps timing out." points back as its subject, telling more.
    let question = ask.trim_end().ends_with(['?', '？']);
    // "Cámbialo …" opens with its object joined on, not a subject.
    let opening = opening_word(ask);
    let bare = opening.trim_end_matches(|c: char| !c.is_alphanumeric());
    let subject_back = points_back(&opening) && !is_clitic_ask(&bare.to_lowercase());
    let short_ask = (word_count(ask) <= POINTING_BACK_WORDS.max(cjk_limit(ask))
        && points_back(ask)
        && (question || !subject_back))
        || leaves_its_object_to(telling, ask);
    (tells && short_ask).then(|| {
        let ask = ask.trim_end_matches(['.', '。']);
        let gap = match telling.ends_with(['。', '！', '？']) {
            true => "",
            false => " ",
        };
        match word_count(telling) + word_count(ask) <= REQUEST_WORDS {
            true => format!("{telling}{gap}{ask}"),
            false => told_with(telling, ask),
        }
    })
}

/// The word limit of a short ask in CJK, which spends more characters on
/// an ask's politeness ("…してください", "…주세요").
fn cjk_limit(ask: &str) -> usize {
    match ask.chars().next().is_some_and(crate::sentence::is_cjk) {
        true => DROPPED_OBJECT_WORDS,
        false => 0,
    }
}

/// A sentence's first word as its subject; in CJK, which writes no spaces,
/// its first two characters ("这个很慢"), unless the sentence marks what
/// opens it as the object of an ask ("これを直して", "把这个改一下").
fn opening_word(sentence: &str) -> String {
    const ASKED: &[&str] = &["を", "把", "帮", "幫", "请", "請", "一下", "て", "을", "를"];
    let word = sentence.split_whitespace().next().unwrap_or_default();
    match word.chars().next().is_some_and(crate::sentence::is_cjk) {
        true if ASKED.iter().any(|m| sentence.contains(m)) => String::new(),
        true => word.chars().take(2).collect(),
        false => word.to_string(),
    }
}

/// "<subject> … <ask>": the ask is the point, so the subject gives way to
/// it when both are long, down to six words.
fn told_with(subject: &str, ask: &str) -> String {
    let room = REQUEST_WORDS.saturating_sub(word_count(ask) + 1).max(6);
    let subject = clip_words(subject, room);
    let gap = if subject.ends_with('…') {
        " "
    } else {
        " … "
    };
    format!("{subject}{gap}{ask}")
}

/// Words of telling before an ask inside one long sentence that make it a
/// run-on ("so the thing is when a user signs up … so can you make it link
/// the accounts by email").
const RUN_ON_WORDS: usize = 8;

/// A run-on sentence longer than a request, with its ask inside: "<its
/// opening words> … <the ask>", so the clip keeps the ask rather than the
/// first 22 words of telling.
pub(super) fn ask_inside(sentence: &str) -> Option<String> {
    if word_count(sentence) <= REQUEST_WORDS {
        return None;
    }
    if let Some(around) = around_an_aside(sentence) {
        return Some(around);
    }
    // Words start after a space; in CJK, which writes none, an ask may start
    // at any character ("…关联起来请你帮我改成…"), said as asks open, or past
    // the clause that gives its reason ("…作られてしまうので、…してください").
    let cjk = crate::sentence::is_cjk;
    let at = sentence.char_indices().find_map(|(i, c)| {
        let (head, rest) = sentence.split_at(i);
        let before = head.chars().next_back()?;
        // A CJK comma ends a clause as a space ends a word.
        let asks = match cjk(c) && cjk(before) || ['、', '，', '；'].contains(&before) {
            true => {
                let reason = ["ので", "から", "けど", "ため", "、"];
                remarks::asks_first(rest)
                    || (reason.iter().any(|r| head.ends_with(r)) && remarks::opens_an_ask(rest))
            }
            false => !c.is_whitespace() && before.is_whitespace() && remarks::opens_an_ask(rest),
        };
        (asks && word_count(head) >= RUN_ON_WORDS - 1).then_some(i)
    })?;
    let ask = gist(&sentence[at..]);
    if word_count(&ask) + 1 + 6 > REQUEST_WORDS {
        return Some(ask);
    }
    let mut head = sentence[..at].trim_end().trim_end_matches([',', '，']);
    while let Some((before, last)) = head.rsplit_once(' ') {
        if !["so", "and", "but", "then", "now"].contains(&last.to_lowercase().as_str()) {
            break;
        }
        head = before.trim_end_matches([',', '，']);
    }
    Some(told_with(&ties::past_ties(head.to_string()), &ask))
}

/// "Look at the files in my Downloads folder, which has a mess of PDFs,
/// images and installers, and rename them by date": the clause between
/// commas tells what the subject is, and the ask goes on after it. Said
/// as "<the opening> … <the rest of the ask>", in the languages whose
/// clauses open so.
fn around_an_aside(sentence: &str) -> Option<String> {
    const ASIDES: &[(&str, &str)] = &[
        (", which ", ", and "),
        (", who ", ", and "),
        (", where ", ", and "),
        (", que ", ", y "),
        (", donde ", ", y "),
        (", qui ", ", et "),
        (", où ", ", et "),
        (", que ", ", e "),
        (", onde ", ", e "),
    ];
    ASIDES.iter().find_map(|(opens, goes_on)| {
        let aside = sentence.find(opens)?;
        let rest = aside + sentence[aside..].rfind(goes_on)?;
        let ask = sentence[rest + 2..].trim();
        (word_count(ask) >= 3 && word_count(&sentence[..aside]) >= 3)
            .then(|| told_with(&sentence[..aside], ask))
    })
}

/// An ask that points back at what came before it ("Implement this.", "Can
/// you look?", "Thoughts?", "上面的帮我实现一下", "これを直して").
fn points_back(ask: &str) -> bool {
    const WORDS: &[&str] = &[
        "this",
        "that",
        "it",
        "above",
        "these",
        "those",
        "look",
        "check",
        "thoughts",
        "ideas",
        "ceci",
        "cela",
        "ça",
        "ci-dessus",
        "esto",
        "eso",
        "arriba",
        "isso",
        "isto",
        "acima",
        "das",
        "dies",
        "oben",
        "dit",
        "hierboven",
        "это",
        "этот",
        "выше",
    ];
    const CJK: &[&str] = &[
        "这", "這", "上面", "以上", "上述", "它", "これ", "この", "それ", "上記", "이것", "이거",
        "위의",
    ];
    let lower = ask.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .any(|w| WORDS.contains(&w) || is_clitic_ask(w))
        || CJK.iter().any(|w| lower.contains(w))
}

/// `asked`, the ask found in `text` past what it presents ("Steps to
/// reproduce:\n1. …\n\nThe page crashes with a TypeError. Please fix."),
/// from the sentence before it when it points back at that telling.
pub(super) fn with_its_telling<'a>(text: &'a str, asked: &'a str) -> &'a str {
    let at = text.len() - asked.len();
    let Some(before) = crate::capture::brief::sentence_starts(text)
        .take_while(|&s| s < at)
        .last()
    else {
        return asked;
    };
    // Only a telling on the ask's own line: a paragraph before it is told
    // at length, and the ask closing it stands alone.
    if text[before..at].contains('\n') {
        return asked;
    }
    let telling = text[before..at].trim();
    let ask = asked.lines().next().unwrap_or_default();
    let ask = &ask[..crate::sentence::first_sentence_end(ask)];
    // "Please fix." names nothing but what was told before it.
    let bare = super::names_nothing(ask) && !telling.ends_with(['?', '？', ':', '：']);
    match bare || asks_of_it(telling, ask).is_some() {
        true => &text[before..],
        false => asked,
    }
}

/// Chinese, Japanese and Korean leave out the object an ask is about ("请
/// 改成中文", "日本語に直してください", "한국어로 바꿔 주세요" after the
/// sentence that tells what): a short ask in the telling's script.
fn leaves_its_object_to(telling: &str, ask: &str) -> bool {
    let cjk = |t: &str| t.chars().next().is_some_and(crate::sentence::is_cjk);
    cjk(ask)
        && cjk(telling)
        && remarks::opens_an_ask(ask)
        && word_count(ask) <= DROPPED_OBJECT_WORDS
}

/// An imperative with its object joined on ("cámbialo", "arréglala",
/// "corrija-o"), or an object pronoun before the verb ("tu peux le
/// corriger", "lo cambias"): Spanish, Portuguese, French and Italian point
/// back this way.
fn is_clitic_ask(word: &str) -> bool {
    const PRONOUNS: &[&str] = &["le", "la", "les", "lo", "los", "las", "li", "l'"];
    let accented = word.contains(['á', 'é', 'í', 'ó', 'ú']);
    let joined = ["lo", "la", "los", "las"]
        .iter()
        .any(|p| word.len() > p.len() + 2 && word.ends_with(p));
    let hyphened = ["-o", "-a", "-lo", "-la", "-los", "-las"]
        .iter()
        .any(|p| word.ends_with(p));
    PRONOUNS.contains(&word) || (accented && joined) || hyphened
}

#[cfg(test)]
mod tests {
    use super::super::request_gist;

    /// The class: a paste the person presents under a label (steps to
    /// reproduce, logs, what they tried) and, after it, the problem told
    /// and an ask that names nothing else ("Please fix.", "Any ideas?",
    /// "What's wrong?"): the request is the telling with its ask, not the
    /// label over the paste.
    #[test]
    fn a_bare_ask_after_a_presented_paste_keeps_the_problem_told_before_it() {
        for label in [
            "Steps to reproduce:\n1. Clear localStorage\n2. Open /settings",
            "Logs:\n- GET /settings 500\n- GET /api/theme 404",
            "What I tried:\n- clearing the cache\n- a fresh install",
        ] {
            for ask in [
                "Please fix.",
                "Any ideas?",
                "What's wrong?",
                "Can you fix it?",
            ] {
                let text = format!("{label}\n\nThe settings page still crashes on load. {ask}");
                let got = request_gist(&text);
                assert!(got.contains("still crashes on load"), "{text:?} -> {got:?}");
            }
        }
    }

    /// The class: one run-on sentence, longer than a request, that tells
    /// the problem and asks at its end ("… so can you make it link the
    /// accounts by email", "… et pouvez-vous …", "… kannst du …"): the
    /// request is its opening words and the ask, within 22 words; so is
    /// one whose ask goes on past a clause between commas (", which …,
    /// and rename them …"). A long sentence that asks first, or asks
    /// nothing, is clipped as before.
    #[test]
    fn the_ask_at_the_end_of_a_run_on_sentence_is_kept() {
        for (telling, ask) in [
            (
                "so the thing is when a user signs up with google and then later tries to log in with email and password using the same address the app creates a second account instead of linking them",
                "so can you make it link the accounts by email",
            ),
            (
                "quand un client paie avec une carte refusée puis réessaie avec une autre carte la commande reste bloquée en attente et le stock reste réservé pour toujours",
                "pouvez-vous libérer le stock après un échec",
            ),
            (
                "wenn ein Nutzer sich mit Google anmeldet und später mit E-Mail und Passwort einloggt legt die App ein zweites Konto an statt die beiden zu verknüpfen",
                "kannst du die Konten per E-Mail verknüpfen",
            ),
            (
                "Tengo una aplicación en React que funciona bien en desarrollo pero cuando hago el build de producción las rutas dan 404 al recargar la página,",
                "¿me ayudas a arreglarlo?",
            ),
            (
                "Meu app em React funciona bem em desenvolvimento mas quando faço o build de produção as rotas dão 404 ao recarregar a página,",
                "você pode me ajudar a corrigir isso?",
            ),
        ] {
            let text = format!("{telling} {ask}");
            let got = request_gist(&text);
            let last: Vec<&str> = ask.split_whitespace().rev().take(3).collect();
            assert!(last.iter().all(|w| got.contains(w)), "{text:?} -> {got:?}");
            let first: String = telling
                .split_whitespace()
                .skip(4)
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            assert!(got.contains(&first), "{text:?} -> {got:?}");
            assert!(crate::sentence::word_count(&got) <= 22, "{got:?}");
        }
        // CJK writes no spaces: the ask starts where its words do.
        for (telling, ask) in [
            (
                "我们的网站在用户用谷歌登录之后再用邮箱和密码登录的时候会创建第二个账号而不是把两个账号关联起来",
                "请你帮我改成按邮箱关联账号",
            ),
            (
                "客户用被拒的卡付款然后换另一张卡重试的时候订单一直卡在待处理而且库存永远被占用",
                "麻烦把失败后的库存释放掉",
            ),
            (
                "ユーザーがGoogleでログインした後にメールとパスワードでログインすると二つ目のアカウントが作られてしまうので、",
                "メールでアカウントを紐付けるようにしてください",
            ),
            (
                "我这个项目里面有很多旧的图片和没用的脚本，都是之前几个版本留下来的，现在仓库特别大，",
                "帮我把没用的文件找出来删掉",
            ),
        ] {
            let text = format!("{telling}{ask}。");
            let got = request_gist(&text);
            let opening: String = telling.chars().take(6).collect();
            assert!(
                got.starts_with(&opening) && got.contains(ask),
                "{text:?} -> {got:?}"
            );
            assert!(crate::sentence::word_count(&got) <= 22, "{got:?}");
        }
        // The clause between commas that tells what the subject is.
        for (told, opening, ask) in [
            (
                "Look at all the files in my Downloads folder, which has a mess of PDFs, images and installers from the last three years, and rename them by date and sort them into folders by year.",
                "Look at all the files in my Downloads folder",
                "and rename them by date and sort them into folders by year",
            ),
            (
                "Revisa las fotos de la carpeta del viaje, donde hay cientos de imágenes repetidas de distintos móviles y cámaras, y borra las duplicadas dejando la de mejor calidad.",
                "Revisa las fotos de la carpeta del viaje",
                "y borra las duplicadas",
            ),
        ] {
            let got = request_gist(told);
            assert!(
                got.contains(opening) && got.contains(ask),
                "{told:?} -> {got:?}"
            );
            assert!(crate::sentence::word_count(&got) <= 22, "{got:?}");
        }
        let asks_first = "can you make the importer skip rows whose date column is empty or malformed instead of failing the whole file and then log how many rows it skipped";
        assert!(request_gist(asks_first).starts_with("make the importer skip rows"));
    }

    /// The class: a paste (a brief in sections, a quoted message, a ticket's
    /// text, maybe presented by a line) and then a short ask pointing back at
    /// it, in any language: the request is the paste's first line and the
    /// ask. An ask that says its point, a paste that opens with the ask, or
    /// a sentence or two before the ask are read as before.
    #[test]
    fn a_short_ask_pointing_back_at_a_paste_is_told_with_the_pastes_first_line() {
        let pastes = [
            (
                "# Export feature\n\n## Goal\nUsers can export their orders as CSV.\n\n## Requirements\n- one row per order\n- columns: id, date, total, status",
                "Export feature",
            ),
            (
                "My boss sent this:\n> The invoice PDF shows the wrong VAT rate for Austrian customers.\n> Can we get it fixed before Friday?",
                "The invoice PDF shows the wrong VAT rate for Austrian customers.",
            ),
            (
                "Checkout button stays disabled after a failed payment. Steps: add an item, pay with a declined card, close the error dialog, and the button never comes back.",
                "Checkout button stays disabled after a failed payment.",
            ),
            // An issue template's label is not the paste's title.
            (
                "### Describe the bug\nThe checkout button is misaligned on mobile.\n\n### Steps to reproduce\n1. Open the shop on a phone\n2. Look at the checkout button",
                "The checkout button is misaligned on mobile.",
            ),
            (
                "**Expected behavior**\nThe icon and the label are centered in the button on every screen width.",
                "The icon and the label are centered in the button on every screen width.",
            ),
            (
                "客户反馈：\n导出的发票里奥地利客户的增值税率错了，应该是百分之二十而不是十九，请在周五之前修好，另外也要检查一下德国和瑞士客户的税率是否正确，以及发票模板里的税号格式",
                "导出的发票里奥地利客户的增值税率错了，应该是百分之二十而不是十九，请在周五之前修好，另外也要检查一下德国和瑞士客户的税率是否正确，以及发票模板里的税号格式",
            ),
        ];
        let asks = [
            "Implement this.",
            "Can you look?",
            "Thoughts?",
            "上面的帮我实现一下",
            "これを直してください。",
            "Peux-tu corriger ça ?",
            "Kannst du das beheben?",
        ];
        for (paste, first) in pastes {
            for ask in asks {
                let text = format!("{paste}\n\n{ask}");
                let got = request_gist(&text);
                assert!(got.ends_with(&format!(" {ask}")), "{text:?} -> {got:?}");
                // Whole, or clipped to leave the ask its room.
                let head = got.trim_end_matches(ask).trim_end().trim_end_matches(" …");
                let head = head.trim_end_matches('…');
                assert!(
                    first.starts_with(head) && !head.is_empty(),
                    "{text:?} -> {got:?}"
                );
                assert!(crate::sentence::word_count(&got) <= 22, "{got:?}");
                if crate::sentence::word_count(first) < 12 {
                    assert_eq!(got, format!("{first} … {ask}"));
                }
            }
        }
        for text in [
            // The ask says its point.
            "# Export feature\n\n## Goal\nUsers can export their orders as CSV.\n\nAdd a CSV export with a date filter and a BOM for Excel to the orders page.",
            // The paste opens with the ask.
            "Please fix the VAT rate for Austrian customers on the invoice PDF; it shows nineteen percent instead of twenty.\n\nThanks, do it.",
            // Not a paste: a sentence before the ask.
            "The checkout button stays disabled.\n\nFix it.",
        ] {
            assert!(
                !request_gist(text).contains(" … "),
                "{text:?} -> {:?}",
                request_gist(text)
            );
        }
    }

    /// The class: a sentence that tells the problem, then a short ask that
    /// points back at it, on the same line or the next, in any language:
    /// the request is both. A telling too long to fit gives way to the ask;
    /// a sentence after it that asks nothing is not taken along.
    #[test]
    fn a_short_ask_after_the_problem_it_points_back_at_is_kept_with_it() {
        for (telling, ask) in [
            (
                "The search page is slow with 50k products.",
                "Make it faster.",
            ),
            ("The tests fail on CI since yesterday.", "Can you look?"),
            (
                "La página de búsqueda es lenta con 50k productos.",
                "Arregla esto.",
            ),
            (
                "La page de recherche est lente avec 50k produits.",
                "Regarde ça.",
            ),
            (
                "Die Suchseite ist mit 50k Produkten langsam.",
                "Schau dir das an.",
            ),
            (
                "A página de busca está lenta com 50k produtos.",
                "Corrige isso.",
            ),
            ("Страница поиска тормозит на 50k товаров.", "Исправь это."),
            ("搜索页面在五万个商品时很慢。", "帮我优化一下这个。"),
            ("検索ページが5万件の商品で遅い。", "これを直して。"),
            // An object joined on, or before the verb.
            (
                "El mensaje de error del login sigue en inglés.",
                "Cámbialo a español, por favor.",
            ),
            (
                "Le bouton d'export ne fait rien sur Safari.",
                "Tu peux le corriger ?",
            ),
            (
                "A página de busca está lenta com 50k produtos.",
                "Corrija-o.",
            ),
            // An ask that leaves its object out, as CJK asks do.
            ("登录页面的报错信息还是英文的。", "请改成中文。"),
            (
                "ログイン画面のエラーメッセージがまだ英語です。",
                "日本語に直してください。",
            ),
            ("회원가입할 때 이메일 중복 체크가 안 돼요.", "고쳐주세요."),
            // A telling longer than a lead-in, the ask asked politely.
            (
                "The error message for a wrong password on the login page is still in English.",
                "Please change it to Korean.",
            ),
        ] {
            for text in [
                format!("{telling} {ask}"),
                format!("{telling}\n{ask}"),
                format!("{telling}\n\n{ask}"),
            ] {
                let got = request_gist(&text);
                let ask = ask.trim_end_matches(['.', '。']);
                let opening: String = telling.chars().take(6).collect();
                assert!(
                    got.starts_with(&opening) && got.contains(ask),
                    "{text:?} -> {got:?}"
                );
            }
        }
        let long = "When a customer pays with a declined card and then retries with another card the order stays pending and the stock stays reserved for ever.";
        let got = request_gist(&format!("{long} Fix it."));
        assert!(
            got.ends_with("Fix it") && got.starts_with("When a customer"),
            "{got:?}"
        );
        for more in [
            "I tried adding an index yesterday.",
            "It keeps timing out.",
            "这个很慢。",
        ] {
            let text = format!("The search page is slow with 50k products. {more}");
            let got = request_gist(&text);
            assert!(
                !got.contains(more.trim_end_matches(['.', '。'])),
                "{text:?} -> {got:?}"
            );
        }
    }
}
