//! What a person says that asks nothing of the work alone: small talk with
//! the agent about itself (its model, its name, which agent it is), a bare
//! "carry on", venting, a scene set for the ask after it; and how an ask
//! opens. Told by structure across languages, so the request a sentence
//! names is the one the session's work followed. Greetings are in
//! `greetings`.
//!
//! Owns: telling those remarks. Must not: choose the request (summarize
//! does) or read a transcript.

/// A shell command typed as it is ("sudo dmidecode -t system | grep …",
/// "git status", "docker ps -a"): one line whose first word is a command
/// no sentence opens with, and whose rest reads as arguments (a flag, a
/// path, a pipe, or a few words), not as "cd into src and fix the tests".
pub(super) fn is_typed_command(text: &str) -> bool {
    const COMMANDS: &[&str] = &[
        "sudo",
        "git",
        "ls",
        "cd",
        "grep",
        "rg",
        "ps",
        "df",
        "du",
        "uname",
        "lsblk",
        "lscpu",
        "lsusb",
        "lspci",
        "dmidecode",
        "ifconfig",
        "ping",
        "curl",
        "wget",
        "ssh",
        "scp",
        "rsync",
        "docker",
        "kubectl",
        "systemctl",
        "journalctl",
        "apt",
        "apt-get",
        "yum",
        "dnf",
        "brew",
        "pip",
        "pip3",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "node",
        "python",
        "python3",
        "cargo",
        "rustc",
        "chmod",
        "chown",
        "mkdir",
        "rm",
        "mv",
        "cp",
        "pwd",
        "whoami",
        "nvidia-smi",
        "ollama",
        "openclaw",
        "gh",
        "crontab",
        "pkill",
        "tmux",
        "htop",
        "lsof",
        "netstat",
        "mvn",
        "gradle",
        "dotnet",
        "uv",
        "poetry",
        "conda",
        "terraform",
        "helm",
        "ffmpeg",
    ];
    let line = text.trim();
    let line = line.strip_prefix("$ ").unwrap_or(line);
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    let rest: Vec<&str> = words.collect();
    let arguments = rest.len() <= 3
        || rest
            .iter()
            .any(|w| w.starts_with('-') || w.contains('/') || ["|", "&&", ">", ">>"].contains(w));
    !line.contains('\n') && !line.ends_with(['?', '？']) && COMMANDS.contains(&first) && arguments
}

/// A question to the agent about itself ("what model are you?", "are you
/// there?"), how its time went ("how was your weekend?") or praise ("you're
/// the best"): small talk, not the work.
pub(super) fn is_small_talk(text: &str) -> bool {
    const ABOUT_YOU: &[&str] = &[
        "what model are you",
        "which model are you",
        "what model is this",
        "which model is this",
        "who are you",
        "what are you",
        "are you there",
        "are you awake",
        "how are you",
        "what can you do",
        "what's your name",
        "what is your name",
        "你是谁",
        "你是什么模型",
        // How the other's time went, and praise: social, whatever it names.
        "how was your weekend",
        "how was your day",
        "how was your week",
        "how's your day",
        "how is your day going",
        "how have you been",
        "how's it going",
        "what's up",
        "you're the best",
        "you are the best",
        "you're awesome",
        "you are awesome",
        "you're amazing",
        "you rock",
        "good bot",
        "你真棒",
        "你太棒了",
        "最高です",
        // The agent as if it were a person: its night, its feelings, its
        // whereabouts, in the languages sessions are held in.
        "how did you sleep",
        "did you sleep well",
        "how was your night",
        "did you miss me",
        "are you ok",
        "are you okay",
        "are you alive",
        "are you real",
        "are you human",
        "are you a robot",
        "do you have feelings",
        "what are you doing",
        "what are you up to",
        "do you remember me",
        "how old are you",
        "wer bist du",
        "bist du da",
        "qui es-tu",
        "tu es là",
        "quién eres",
        "estás ahí",
        "quem é você",
        "você está aí",
        "кто ты",
        "ты тут",
        "ты здесь",
        "你在吗",
        "你在嗎",
        "在吗",
        "在嗎",
        "你睡得好吗",
        "いる",
        "誰ですか",
        "누구야",
    ];
    let lower = text.to_lowercase();
    let lower = without_laughter(&lower).trim_start_matches(|c: char| !c.is_alphanumeric());
    ABOUT_YOU
        .iter()
        .any(|q| lower == *q || lower.ends_with(&format!(", {q}")))
}

/// A line without the laughter, emoji and marks it closes with ("how did
/// you sleep lol", "are you there?? 😂", "你在吗哈哈").
fn without_laughter(text: &str) -> &str {
    const LAUGHTER: &[&str] = &[
        "lol", "lmao", "haha", "hahaha", "hehe", "xd", "jaja", "mdr", "哈哈", "笑", "ㅋㅋ", "www",
    ];
    let mut rest = text.trim();
    loop {
        let trimmed = rest
            .trim_end_matches(|c: char| !c.is_alphanumeric())
            .trim_end();
        let laughed = LAUGHTER.iter().find_map(|l| {
            trimmed.strip_suffix(l).filter(|r| {
                r.is_empty() || r.ends_with(|c: char| !c.is_alphanumeric()) || !l.is_ascii()
            })
        });
        match laughed {
            Some(r) if r.len() < rest.len() => rest = r,
            _ if trimmed.len() < rest.len() => rest = trimmed,
            _ => return rest,
        }
    }
}

/// "continue our app", "let's keep going with the project": a request to
/// carry on that names nothing of the work (the next message usually does).
pub(super) fn only_carries_on(text: &str) -> bool {
    const CARRY_ON: &[&str] = &[
        "continue",
        "resume",
        "proceed",
        "carry",
        "keep",
        "going",
        "go",
        "on",
        "继续",
        "繼續",
        "続けて",
        "続けてください",
        "계속",
        "계속해",
        "계속해줘",
        "continúa",
        "sigue",
        "continua",
        "continuez",
        "weiter",
        "weitermachen",
        "продолжай",
        "продолжи",
        "продолжаем",
        "tiếp",
        "tục",
    ];
    const FILLER: &[&str] = &[
        "let's", "lets", "please", "pls", "ok", "okay", "so", "now", "our", "the", "my", "with",
        "working", "work", "app", "project", "task", "it", "this", "where", "we", "left", "off",
        "from", "you", "stopped", "and", "to", "again",
    ];
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| CARRY_ON.contains(&w.as_str()))
        && words
            .iter()
            .all(|w| CARRY_ON.contains(&w.as_str()) || FILLER.contains(&w.as_str()))
}

/// A short message to the agent about itself, in any language: a word for
/// "you" and a word for what the agent is (its model, its name, which agent,
/// its workspace, its version), and nothing of the work (no path, no file,
/// no code). "hi bạn dang dùng model nào v?", "你是哪个agent，你的workspace，
/// 你现在的模型", "c'est quoi ton modèle ?". The caller also asks that the
/// agent changed and ran nothing in answer: "can you bump the version?" is
/// work, and the agent's edits say so.
pub(super) fn asks_about_the_agent(text: &str) -> bool {
    const YOU: &[&str] = &[
        "you", "your", "yours", "u", "ur", "tu", "vous", "ton", "ta", "votre", "toi", "usted",
        "eres", "tú", "você", "voce", "seu", "sua", "du", "dein", "deine", "dir", "jij", "jouw",
        "ты", "вы", "тебя", "тебе", "твой", "твоя", "ваш", "ваша", "bạn", "mày", "cậu", "tuo",
        "tua", "sei",
    ];
    const YOU_CJK: &[&str] = &["你", "您", "あなた", "君", "너", "당신", "니가"];
    const SELF: &[&str] = &[
        "model",
        "modèle",
        "modele",
        "modelo",
        "modell",
        "модель",
        "llm",
        "agent",
        "agente",
        "агент",
        "name",
        "nom",
        "nombre",
        "nome",
        "имя",
        "tên",
        "workspace",
        "version",
        "versión",
        "versão",
        "identity",
    ];
    const SELF_CJK: &[&str] = &[
        "模型",
        "智能体",
        "名字",
        "工作区",
        "版本",
        "身份",
        "モデル",
        "エージェント",
        "名前",
        "バージョン",
        "모델",
        "에이전트",
        "이름",
        "버전",
    ];
    let text = text.trim();
    let names_work = text.contains(['`', '/', '\\', '\n'])
        || text.split_whitespace().any(|w| {
            let w = w.trim_end_matches(|c: char| !c.is_alphanumeric());
            w.split_once('.').is_some_and(|(a, b)| {
                !a.is_empty() && b.chars().next().is_some_and(char::is_alphanumeric)
            })
        });
    if names_work || crate::sentence::word_count(text) > 14 {
        return false;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() || crate::sentence::is_cjk(c))
        .filter(|w| !w.is_empty())
        .collect();
    let any = |list: &[&str], cjk: &[&str]| {
        words.iter().any(|w| list.contains(w)) || cjk.iter().any(|s| lower.contains(s))
    };
    any(YOU, YOU_CJK) && any(SELF, SELF_CJK)
}

/// A sentence that vents before the ask ("ugh this is so annoying, the
/// tests keep failing randomly.", "这个 bug 烦死了。"): how the person
/// feels about the problem, not what to do about it.
pub(super) fn complains(sentence: &str) -> bool {
    const VENTING: &[&str] = &[
        "so annoying",
        "really annoying",
        "is annoying",
        "frustrating",
        "driving me crazy",
        "drives me crazy",
        "driving me nuts",
        "sick of",
        "tired of",
        "fed up",
        "i hate",
        "sucks",
        "ugh",
        "argh",
        "wtf",
        "ffs",
        "nervig",
        "nervt",
        "molesto",
        "harto",
        "chiant",
        "marre",
        "бесит",
        "достало",
        "烦死",
        "好烦",
        "崩溃",
        "受不了",
        "うざい",
        "イライラ",
        "짜증",
    ];
    !sentence.trim_end().ends_with(['?', '？'])
        && crate::sentence::holds_phrase(&sentence.to_lowercase(), VENTING.iter().copied())
}

/// A first sentence that only sets the scene for the ask after it: what the
/// person has ("I have a folder of 300 scanned invoices.", "Tengo un CSV de
/// pedidos.", "У меня есть лог.", "我有一个文件夹。"), is in the middle of
/// ("We are migrating from Jest to Vitest.") or what to read first
/// ("look at the files in src/.", "Прочитай README."). It asks nothing of
/// the work alone: the next sentence says what to do with it.
pub(super) fn sets_the_scene(sentence: &str) -> bool {
    const OPENERS: &[&str] = &[
        // What the person has.
        "i have ",
        "i've got ",
        "i got ",
        "we have ",
        "we've got ",
        "there is ",
        "there's ",
        "there are ",
        "here is ",
        "here's ",
        "here are ",
        "j'ai ",
        "nous avons ",
        "il y a ",
        "voici ",
        "tengo ",
        "tenemos ",
        "hay ",
        "aquí está ",
        "aquí tienes ",
        "eu tenho ",
        "tenho ",
        "temos ",
        "ich habe ",
        "wir haben ",
        "es gibt ",
        "hier ist ",
        "ik heb ",
        "we hebben ",
        "у меня ",
        "у нас ",
        "вот ",
        "tôi có ",
        "mình có ",
        // What the person is in the middle of.
        "we are ",
        "we're ",
        "we use ",
        "we moved ",
        "we switched ",
        "we migrated ",
        "i'm working on ",
        "i am working on ",
        "i'm building ",
        "i am building ",
        "nous utilisons ",
        "estamos ",
        "wir nutzen ",
        // What to read first.
        "look at ",
        "have a look at ",
        "take a look at ",
        "read ",
        "go through ",
        "check out ",
        "regarde ",
        "lis ",
        "mira ",
        "lee ",
        "schau dir ",
        "lies ",
        "kijk naar ",
        "посмотри ",
        "прочитай ",
        "изучи ",
        "xem ",
    ];
    const OPENERS_CJK: &[&str] = &[
        "我有",
        "我们有",
        "我们正在",
        "我正在做",
        "这里有",
        "这是",
        "看一下",
        "看看",
        "先看",
        "阅读",
        "読んで",
    ];
    let lower = sentence.trim().to_lowercase();
    let asks = lower.ends_with(['?', '？', ':', '：']);
    !asks
        && (OPENERS.iter().any(|o| lower.starts_with(o))
            || OPENERS_CJK.iter().any(|o| lower.starts_with(o)))
}

/// Whether a sentence opens by asking for something, in the words people
/// ask with: "please …", "can you …", "I need you to …", "preciso que …",
/// "请…", "…してください" (at its end, as Japanese asks).
pub(super) fn opens_an_ask(sentence: &str) -> bool {
    // "¿Me ayudas …?": Spanish opens its questions with a mark.
    let lower = sentence
        .trim()
        .trim_start_matches(['¿', '¡'])
        .to_lowercase();
    asks_first(&lower)
        || [
            "してください",
            "して下さい",
            "お願いします",
            "주세요",
            "해줘",
            "해 줘",
        ]
        .iter()
        .any(|a| lower.trim_end_matches(['。', '.', '!', '！']).ends_with(a))
}

/// Whether a (lowercased) text starts with the words an ask opens with.
pub(super) fn asks_first(lower: &str) -> bool {
    const ASKS: &[&str] = &[
        "please ",
        "pls ",
        "plz ",
        "can you ",
        "can u ",
        "could you ",
        "could u ",
        "would you ",
        "i need you to ",
        "i want you to ",
        "i'd like you to ",
        "i would like you to ",
        "help me ",
        "preciso que ",
        "quero que ",
        "pode ",
        "poderia ",
        "por favor",
        "necesito que ",
        "quiero que ",
        "puedes ",
        "podrías ",
        "me ayudas ",
        "me puedes ",
        "me podrías ",
        "ayúdame ",
        "você pode ",
        "me ajuda ",
        "tu peux ",
        "aide-moi ",
        "hilf mir ",
        "je voudrais que ",
        "peux-tu ",
        "pouvez-vous ",
        "merci de ",
        "ich möchte, dass ",
        "kannst du ",
        "könntest du ",
        "bitte ",
        "можешь ",
        "нужно ",
        "помоги ",
        "пожалуйста",
        "bạn có thể ",
        "hãy ",
        "请",
        "帮我",
        "麻烦",
        "能不能",
        "可以帮",
        "你能",
        "부탁",
    ];
    ASKS.iter().any(|a| lower.starts_with(a))
}

#[cfg(test)]
mod tests {
    use super::is_small_talk;

    /// The class: a question to the agent as if it were a person (its
    /// night, its feelings, where it is, who it is), in any language, with
    /// laughter or emoji after it: small talk. A question about the work
    /// that opens the same way is not.
    #[test]
    fn questions_to_the_agent_as_a_person_are_small_talk() {
        for said in [
            "how did you sleep lol",
            "did you sleep well? 😂",
            "are you there??",
            "Are you OK haha",
            "hey, what are you doing",
            "bist du da?",
            "tu es là ?",
            "¿estás ahí?",
            "ты тут?",
            "你在吗哈哈",
            "在嗎？",
        ] {
            assert!(is_small_talk(said), "{said}");
        }
        for asked in [
            "how did you fix the login bug?",
            "what are you doing in src/pay.rs?",
            "are you sure the migration is safe?",
            "lol the build broke again, fix it",
        ] {
            assert!(!is_small_talk(asked), "{asked}");
        }
    }
}
