//! Greetings: "hi", "¡Hola!", "你好", with or without "how are you?", in
//! the languages sessions are held in. A message that only greets asks
//! nothing of the work, and a request is read past the greeting it opens
//! with and without the thanks it closes with.
//!
//! Owns: telling a greeting and where the words after it start, and the
//! courtesy a request ends with. Must not: choose the request (summarize
//! and the gist do).

/// "hi", "Hello Pi, nice to meet you!", "你好": an opener, not a request.
pub(super) fn is_greeting(text: &str) -> bool {
    const OPENERS: &[&str] = &[
        "hi",
        "hello",
        "hey",
        "hiya",
        "good morning",
        "good afternoon",
        "good evening",
        "good night",
        "goodnight",
        "yo",
        "hola",
        "bonjour",
        "salut",
        "ciao",
        "hallo",
        "olá",
        "ola",
        "привет",
        "здравствуйте",
        "你好",
        "您好",
        "嗨",
        "こんにちは",
        "こんばんは",
        "おはよう",
        "お疲れ様",
        "お疲れさま",
        "おつかれさま",
        "お世話になっております",
        "안녕",
        "수고하",
        "수고 많",
        "辛苦了",
        "早上好",
        "下午好",
        "晚上好",
        "guten morgen",
        "guten tag",
        "buenos días",
        "buenas tardes",
        "bom dia",
        "boa tarde",
        "buongiorno",
        "добрый день",
        "доброе утро",
        "xin chào",
        "chào bạn",
        "oi",
        "hej",
        "hoi",
        "moin",
        "servus",
        "ahoj",
        "cześć",
        "merhaba",
        "selam",
        "szia",
        "привіт",
        "вітаю",
        "γεια",
        "مرحبا",
        "שלום",
        "नमस्ते",
        "สวัสดี",
    ];
    // Spanish opens an exclamation with its mark: "¡Hola!".
    let lower = text.trim_start_matches(['¡', '¿']).to_lowercase();
    let opens = OPENERS.iter().any(|o| {
        lower.starts_with(o)
            && lower[o.len()..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || ",!~，！、。".contains(c) || !c.is_ascii())
    });
    let asks = text.contains(['?', '？']) && !HOW_ARE_YOU.iter().any(|h| lower.contains(h));
    opens && !asks && crate::sentence::word_count(text) <= 8
}

/// "How are you?" after a greeting, in the languages sessions are held in:
/// part of the greeting, not a question about the work.
const HOW_ARE_YOU: &[&str] = &[
    "how are you",
    "how's it going",
    "how is it going",
    "tudo bem",
    "tudo bom",
    "como vai",
    "como está",
    "como estás",
    "qué tal",
    "que tal",
    "ça va",
    "ca va",
    "comment ça va",
    "comment vas-tu",
    "comment allez-vous",
    "wie geht",
    "hoe gaat het",
    "как дела",
    "как ты",
    "как вы",
    "come stai",
    "come va",
    "你好吗",
    "你好嗎",
    "最近怎么样",
    "最近怎麼樣",
    "最近好吗",
    "元気",
    "お元気",
    "잘 지내",
    "khỏe không",
    "nasılsın",
    "jak się masz",
    "hur mår du",
    "hvordan har du det",
];

/// Wishes for the agent's well-being, not "hope you can fix …".
const WISHES: &[&str] = &[
    "hope you're doing",
    "hope you are doing",
    "hope you're well",
    "hope you are well",
    "hope you're good",
    "hope you're having",
    "hope you are having",
    "hope you had",
    "hope you have a",
    "hope this finds you",
    "hope all is well",
    "espero que estés",
    "espero que estes",
    "espero que esté",
    "espero que esteja",
    "espero que você esteja",
    "espero que tudo",
    "j'espère que tu vas",
    "j'espère que vous allez",
    "ich hoffe, es geht",
    "ich hoffe, dir geht",
    "ich hoffe es geht",
    "надеюсь, у тебя",
    "надеюсь, у вас",
    "надеюсь, всё",
    "希望你一切",
    "希望您一切",
    "お元気ですか",
    "잘 지내시죠",
];

/// A sentence that only wishes the agent well ("Hope you're doing well.",
/// "I hope this finds you well.", "Espero que estés bien.", "希望你一切都好。"):
/// courtesy before the ask, never the ask.
pub(super) fn is_pleasantry(sentence: &str) -> bool {
    let lower = spelled_out(&sentence.trim().to_lowercase());
    let lower = lower.strip_prefix("i ").unwrap_or(&lower);
    let short = crate::sentence::word_count(sentence) <= 10 && !lower.contains("help");
    short && (opens_with_a_wish(lower) || HOW_ARE_YOU.iter().any(|h| lower.starts_with(h)))
}

/// Whether a (lower-cased, spelled-out) sentence opens with a wish for the
/// agent's well-being.
fn opens_with_a_wish(lower: &str) -> bool {
    WISHES.iter().any(|w| lower.starts_with(w))
}

/// A run-on request past the wish it opens with: "hope ur good 🙂 so
/// basically the checkout crashes …" asks from "so basically …". The wish
/// ends at a mark, an emoji or a word that goes on ("so", "and", "but").
pub(super) fn past_wish(sentence: &str) -> &str {
    let lower = spelled_out(&sentence.to_lowercase());
    if !opens_with_a_wish(lower.strip_prefix("i ").unwrap_or(&lower)) {
        return sentence;
    }
    let ends = |c: char| {
        ",.!?;，。！？".contains(c)
            || (!c.is_alphanumeric() && !c.is_whitespace() && !"'’-".contains(c))
    };
    let mark = sentence.find(ends);
    // Found in the sentence as written (ASCII words, so at its own
    // boundaries), never in a lower-cased copy whose offsets may differ.
    let word = [" so ", " and ", " but "]
        .iter()
        .filter_map(|w| {
            (sentence.as_bytes().windows(w.len()))
                .position(|at| at.eq_ignore_ascii_case(w.as_bytes()))
        })
        .min();
    let Some(at) = [mark, word].into_iter().flatten().min() else {
        return sentence;
    };
    let rest = sentence[at..].trim_start_matches(|c: char| !c.is_alphanumeric());
    if crate::sentence::word_count(rest) >= 3 {
        rest
    } else {
        sentence
    }
}

/// Chat spellings as the words they stand for, for matching only: "ur" as
/// "you're", "u" as "you", "r" as "are".
fn spelled_out(lower: &str) -> String {
    let lower = lower.replace('’', "'");
    let words: Vec<&str> = lower
        .split(' ')
        .map(|w| match w {
            "ur" => "you're",
            "u" => "you",
            "r" => "are",
            other => other,
        })
        .collect();
    words.join(" ")
}

/// A sentence past its opening greeting: "hi, can you fix the typo" asks
/// "can you fix the typo". A greeting alone stays as it is, and so does one
/// whose rest is a pleasantry too ("Hello Pi, nice to meet you!").
pub(super) fn past_greeting(sentence: &str) -> &str {
    const PLEASANTRIES: &[&str] = &[
        "nice to meet",
        "nice to see",
        "good to see",
        "pleased to meet",
        "glad to",
        "hope you",
        "long time",
    ];
    let Some(at) = sentence.find([',', '!', '，', '！', '~']) else {
        return sentence;
    };
    let mark = sentence[at..].chars().next().map_or(1, char::len_utf8);
    // "hey claude!! …": the marks after a greeting are all its own.
    let rest = sentence[at + mark..].trim_start_matches(['!', '！', ',', '，', '~', ' ']);
    let pleasantry = {
        let lower = rest.to_lowercase().replace(['*', '_', '¿', '¡'], "");
        PLEASANTRIES
            .iter()
            .chain(HOW_ARE_YOU)
            .any(|p| lower.starts_with(p))
    };
    if is_greeting(&sentence[..at + mark]) && !pleasantry && crate::sentence::word_count(rest) >= 2
    {
        rest
    } else {
        sentence
    }
}

/// A request without the courtesy it closes with: ", thanks in advance!",
/// " pls and thx", "，谢谢", "。よろしくお願いします。", or a last sentence
/// of thanks ("Thanks so much, you're a lifesaver!!"). What is left asks;
/// a request that is only courtesy stays as it is.
pub(super) fn without_closing_thanks(request: &str) -> &str {
    // Longest first where one ends another ("thanks in advance", "thanks").
    const CLOSINGS: &[&str] = &[
        "thanks in advance",
        "thank you so much",
        "thanks so much",
        "thanks a lot",
        "please and thank you",
        "pls and thx",
        "pls and ty",
        "thank you",
        "thanks",
        "thx",
        "ty",
        "please",
        "pls",
        "plz",
        "merci d'avance",
        "merci beaucoup",
        "merci",
        "gracias de antemano",
        "muchas gracias",
        "gracias",
        "obrigado",
        "obrigada",
        "valeu",
        "danke im voraus",
        "danke schön",
        "danke",
        "спасибо заранее",
        "спасибо",
        "谢谢你",
        "谢谢",
        "謝謝",
        "多谢",
        "感谢",
        "よろしくお願いいたします",
        "よろしくお願いします",
        "ありがとうございます",
        "ありがとう",
        "감사합니다",
        "고마워",
    ];
    let mut rest = request.trim_end();
    loop {
        let bare = rest.trim_end_matches(|c: char| "!.。！~ :)".contains(c) || is_emoji(c));
        let lower = bare.to_lowercase();
        let closing = CLOSINGS.iter().find(|c| {
            lower.ends_with(*c) && {
                let before = &lower[..lower.len() - c.len()];
                let cjk = c.chars().next().is_some_and(crate::sentence::is_cjk);
                cjk || before.ends_with(|b: char| b.is_whitespace() || ",.;，。、".contains(b))
            }
        });
        // "… Thanks so much, you're a lifesaver!!": a last sentence of thanks.
        let last_sentence = super::brief::sentence_starts(bare)
            .last()
            .filter(|&at| at > 0 && super::outcome::is_thanks(&bare[at..]));
        let cut = match (closing, last_sentence) {
            // Cut as written where lower-casing kept every length (it may not: İ).
            (Some(c), _) if lower.len() == bare.len() => bare.len() - c.len(),
            (_, Some(at)) => at,
            _ => break,
        };
        let left =
            bare[..cut].trim_end_matches(|c: char| c.is_whitespace() || ",;，、".contains(c));
        if crate::sentence::word_count(left) < 2 {
            break;
        }
        rest = left;
    }
    rest
}

/// A pictograph or its modifier: "🙏", "😊", "🙂".
fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F)
}
