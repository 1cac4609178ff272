//! The sanitizer's rules, in the order they run: shapes first (a provider's
//! prefix is certain), then contexts (a key name, a command line, prose),
//! whose values [`super::values`] judges.

use std::sync::LazyLock;

use regex::Regex;

/// Which values a context rule takes (the shape rules take every match).
#[derive(Debug, Clone, Copy)]
pub(super) enum Accept {
    /// `key = value`: a secret unless it is code, a placeholder or a count.
    Assignment,
    /// A key named in another language (`密码：…`, `пароль …`): an ASCII
    /// value; without a separator only a random-looking one.
    ForeignKey,
    /// A value after "password is" in prose: random-looking only.
    Prose,
    /// The password of `user / password` after "credentials:".
    Paired,
    /// Four groups of four letters alone on a line, unless they read as English.
    AppPassword,
    /// A command line or connection string: anything but a placeholder.
    NotPlaceholder,
    /// A word beside an e-mail address on a line of its own (a chat message
    /// giving a mailbox's credentials): mixed case and a digit.
    MailPassword,
    /// A URL path segment: random-looking mixed case and digits, not words.
    UrlKey,
    /// A quoted value after "the password is": a passphrase of three words
    /// or more, or one that looks random.
    Passphrase,
}

/// A rule: a pattern and the kind it redacts. `value_group` names the capture
/// group that holds the secret (the rest of the match is kept); `None`
/// redacts the whole match.
pub(super) struct Rule {
    pub kind: &'static str,
    pub pattern: Regex,
    pub value_group: Option<usize>,
    pub accept: Accept,
}

fn shape(kind: &'static str, pattern: &str) -> Rule {
    context(kind, pattern, None, Accept::NotPlaceholder)
}

fn context(kind: &'static str, pattern: &str, value_group: Option<usize>, accept: Accept) -> Rule {
    Rule {
        kind,
        // The patterns are constants; a typo is caught by every test.
        pattern: Regex::new(pattern).expect("sanitizer pattern compiles"),
        value_group,
        accept,
    }
}

/// Key names whose value is a secret (matched case-insensitively, as the end of
/// a longer name too: `DB_PASSWORD`, `appSecret`, `client-secret`, `AccountKey`).
const SECRET_NAMES: &str = r"password|passwd|passphrase|secret|token|api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key|account[ _-]?key|(?:secret|signing|encryption|master|client|auth|app|license)[ _-]?key|credentials?";

/// The same in other languages and scripts: Chinese (simplified and
/// traditional), Japanese, Korean, Russian and Ukrainian, Spanish, French,
/// German, Portuguese, Italian, Polish, Dutch, Swedish, Finnish, Turkish,
/// Vietnamese, Arabic, Hebrew, Hindi.
const FOREIGN_SECRET_NAMES: &str = r"密码|密碼|口令|密钥|密鑰|秘钥|秘鑰|令牌|授权码|授權碼|パスワード|暗証番号|秘密鍵|トークン|api ?キー|アクセスキー|シークレットキー|シークレット|認証キー|秘密キー|비밀번호|암호|토큰|api ?키|액세스 ?키|시크릿 ?키|пароль|пароля|паролем|токен|ключ api|api[- ]ключ|contraseña|contrasena|clave|mot de passe|mdp|passwort|kennwort|senha|chiave api|hasło|haslo|wachtwoord|lösenord|salasana|şifre|sifre|parola|mật khẩu|كلمة المرور|كلمة السر|סיסמה|סיסמא|पासवर्ड";

/// Separators after a key: ASCII and full-width colon and equals, and the
/// copulas a sentence puts there ("密码是", "密码为", "パスワードは").
const FOREIGN_SEPARATOR: &str = r"[:：=＝]|是|为|為|は|が|는|은|:";

// Word boundaries are ASCII (`(?-u:\b)`): a key or token touching CJK text
// (`数据库password:`, `npm_…的`) still has its edge, and the regex engine
// keeps its fast automaton on non-ASCII text (a Unicode `\b` made one rule
// alone take 10 times a whole capture on a Japanese session).
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let mut rules = vec![
        // Whole PEM blocks; a block cut off before its END line is redacted to the end of its base64.
        shape(
            "private-key",
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s]*)",
        ),
        shape("private-key", r"(?-u:\b)AGE-SECRET-KEY-1[0-9A-Z]{50,}"),
        shape(
            "jwt",
            r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        ),
        // A key another tool already masked (`sk-ant…FYAA`, `ghp_12…9xYz`,
        // `AKIA****WXYZ`): what it left of the key is still the key's.
        shape(
            "masked-key",
            r"(?-u:\b)(?:sk-(?:ant-|proj-)?|gh[pousr]_|github_pat_|xox[abpr]-|AKIA|AIza|glpat-|hf_|npm_)[A-Za-z0-9_-]*(?:…|\.{3}|\*{3,})[A-Za-z0-9_-]{2,}",
        ),
        shape("anthropic-api-key", r"(?-u:\b)sk-ant-[A-Za-z0-9_-]{16,}"),
        // OpenAI, OpenRouter, DeepSeek, DashScope, Moonshot: `sk-…`.
        shape("api-key", r"(?-u:\b)sk-[A-Za-z0-9_-]{20,}"),
        shape(
            "stripe-key",
            r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        ),
        shape("stripe-key", r"(?-u:\b)whsec_[A-Za-z0-9]{24,}"),
        shape(
            "gitlab-token",
            r"(?-u:\b)gl(?:pat|dt|rt|ptt|cbt|rtr)-[A-Za-z0-9_-]{20,}",
        ),
        shape("npm-token", r"(?-u:\b)npm_[A-Za-z0-9]{36}(?-u:\b)"),
        shape("pypi-token", r"(?-u:\b)pypi-AgE[A-Za-z0-9_-]{50,}"),
        shape("google-api-key", r"(?-u:\b)AIza[0-9A-Za-z_-]{35}"),
        shape(
            "google-oauth",
            r"(?-u:\b)(?:ya29\.[A-Za-z0-9_-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,}|1//0[A-Za-z0-9_-]{40,})",
        ),
        shape("huggingface-token", r"(?-u:\b)hf_[A-Za-z0-9]{30,}"),
        shape(
            "sendgrid-key",
            r"(?-u:\b)SG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        ),
        shape("digitalocean-token", r"(?-u:\b)do[por]_v1_[a-f0-9]{64}"),
        shape(
            "aws-access-key",
            r"(?-u:\b)(?:AKIA|ASIA)[A-Z0-9]{16}(?-u:\b)",
        ),
        // Alibaba Cloud and Tencent Cloud access key ids.
        shape(
            "cloud-access-key",
            r"(?-u:\b)(?:LTAI[A-Za-z0-9]{12,24}|AKID[A-Za-z0-9]{32})(?-u:\b)",
        ),
        shape(
            "github-token",
            r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        ),
        shape(
            "slack-token",
            r"(?-u:\b)xox[abposre]-[A-Za-z0-9-]{10,}|(?-u:\b)xapp-\d-[A-Za-z0-9-]{20,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
        ),
        // xAI, Groq, Perplexity, Replicate, Tavily, NVIDIA, Fireworks.
        shape(
            "api-key",
            r"(?-u:\b)(?:xai-[A-Za-z0-9]{20,}|gsk_[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{20,}|r8_[A-Za-z0-9]{20,}|tvly-[A-Za-z0-9-]{20,}|nvapi-[A-Za-z0-9_-]{20,}|fw_[A-Za-z0-9]{20,})",
        ),
        // Zhipu (GLM): a 32-hex id, a dot, a 16-character secret.
        shape("api-key", r"(?-u:\b)[a-f0-9]{32}\.[A-Za-z0-9]{16}(?-u:\b)"),
        // Notion, Linear, Figma, Postman, Docker Hub, Sentry, Grafana, Shopify, Databricks, Vault, Mailgun.
        shape(
            "service-token",
            r"(?-u:\b)(?:ntn_[A-Za-z0-9]{30,}|secret_[A-Za-z0-9]{43}(?-u:\b)|lin_api_[A-Za-z0-9]{30,}|figd_[A-Za-z0-9_-]{30,}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|dckr_pat_[A-Za-z0-9_-]{20,}|sntry[su]_[A-Za-z0-9+/=_-]{30,}|gl(?:c|sa)_[A-Za-z0-9_+/=-]{30,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dapi[a-f0-9]{32}(?-u:\b)|hvs\.[A-Za-z0-9_-]{24,}|key-[a-f0-9]{32}(?-u:\b))",
        ),
        // Telegram and Discord bot tokens; Feishu/Lark tenant, user and app access tokens.
        shape("bot-token", r"(?-u:\b)\d{8,10}:AA[A-Za-z0-9_-]{30,}"),
        shape(
            "bot-token",
            r"(?-u:\b)[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        ),
        shape("feishu-token", r"(?-u:\b)[tua]-g1[0-9A-Za-z]{30,}"),
        // `postgres://user:password@host`: the user and host stay.
        context(
            "url-password",
            r"(?i)(?-u:\b)([a-z][a-z0-9+.-]*://[^\s:/@\x22'`]+:)([^\s@/\x22'`]+)(@)",
            Some(2),
            Accept::NotPlaceholder,
        ),
        // A key carried in a URL's path (`https://api.day.app/<device key>/…`,
        // webhook tokens): a random-looking segment; the rest stays.
        context(
            "url-key",
            r"(?i)(?-u:\b)(https?://[^\s/\x22'`<>]+(?:/[^\s/\x22'`<>?#]*)*?/)([A-Za-z0-9_-]{20,100})(?:[/?#\s\x22'`<>)]|$)",
            Some(2),
            Accept::UrlKey,
        ),
        context(
            "bearer",
            r"(?i)(?-u:\b)(bearer)(\s+)([A-Za-z0-9._~+/=-]{12,})",
            Some(3),
            Accept::NotPlaceholder,
        ),
        // Azure storage and Service Bus connection strings; `Pwd=` in ODBC ones.
        context(
            "connection-string",
            r"(?i)(?:(?-u:\b)(?:AccountKey|SharedAccessKey|SharedAccessSignature)|;\s*pwd|;\s*password)\s*=\s*([^;\s\x22'`]+)",
            Some(1),
            Accept::NotPlaceholder,
        ),
        // SQL: `CREATE USER … WITH PASSWORD '…'`, `IDENTIFIED BY '…'`.
        context(
            "password",
            r#"(?-u:\b)(?:(?i:with\s+(?:encrypted\s+|unencrypted\s+)?password|identified\s+(?:with\s+\w+\s+)?by)|PASSWORD)\s+('[^'\n]+'|"[^"\n]+")"#,
            Some(1),
            Accept::NotPlaceholder,
        ),
        // Command lines: `curl -u user:pass`, `mysql -pPASS`, `sshpass -p PASS`,
        // `docker login -p PASS`, `--password PASS`.
        context(
            "password",
            r#"(?-u:\b)(?:curl|wget|http|https)(?-u:\b)[^\n]*?\s(?:-u|--user)(?:\s+|=)['"]?[^\s:'"]+:([^\s'"@]+)"#,
            Some(1),
            Accept::NotPlaceholder,
        ),
        context(
            "password",
            r#"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mariadb|mysqlsh)(?-u:\b)[^\n]*?\s-p('[^'\n]+'|"[^"\n]+"|[^\s'"]+)"#,
            Some(1),
            Accept::NotPlaceholder,
        ),
        context(
            "password",
            r#"(?:sshpass\s+-p|login(?-u:\b)[^\n]*?\s-p|--password)(?:\s+|=)('[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)"#,
            Some(1),
            Accept::NotPlaceholder,
        ),
        // "the wifi password is "correct horse battery staple"": a quoted
        // passphrase, spaces and all.
        context(
            "password",
            r#"(?i)(?-u:\b)(?:password|passwd|passphrase|passcode)(?-u:\b)(?:[ \t]+(?:is|was)(?-u:\b))?[ \t]*[:：=]?[ \t]*["'“]([^"'“”\n]{4,100})["'”]"#,
            Some(1),
            Accept::Passphrase,
        ),
        // `password=…`, `API_KEY: …`, `"appSecret": "…"`, `app secret：…`; the key
        // is kept, and a value that is code is kept too.
        context(
            "assignment",
            &format!(
                r#"(?i)((?:(?-u:\b)[a-z0-9]+[ _-])?(?-u:\b)[a-z0-9_-]*?(?:{SECRET_NAMES}))(\*{{0,2}}["'`]?\*{{0,2}}[ \t\x{{3000}}]*(?:=|:|：|=>)[ \t\x{{3000}}]*)("[^"\n]*"|'[^'\n]*'|[^\s"',;)\]}}>]+)"#
            ),
            Some(3),
            Accept::Assignment,
        ),
        // `SSH密码：…`, `传密码 …`, `パスワードは …`, `пароль: …`, `mot de passe : …`.
        context(
            "password",
            &format!(
                r#"(?i)({FOREIGN_SECRET_NAMES})\**[ \t\x{{3000}}]*((?:{FOREIGN_SEPARATOR})?)\**[ \t\x{{3000}}]*[`'"「]?([!-~&&[^`'"」]]+)(\p{{L}})?"#
            ),
            Some(3),
            Accept::ForeignKey,
        ),
        // Prose: "the password is hunter2", "Login credentials: admin / s3cret",
        // "app password: abcd efgh ijkl mnop".
        context(
            "password",
            r#"(?i)(?-u:\b)(?:password|passwd|passphrase|passcode)(?-u:\b)(?:[ \t]+(?:is|was|are)(?-u:\b))?(?:[ \t]*[:：=][ \t]*|[ \t]+)[`'"]?([a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4}(?-u:\b)|[!-~&&[^`'"]]{4,})"#,
            Some(1),
            Accept::Prose,
        ),
        context(
            "password",
            r#"(?i)(?-u:\b)(?:credentials?|creds)(?-u:\b)\**[ \t]*(?:are|is|[:：=])\**[ \t]*[`'"]?[^\s/:,|`'"]+[`'"]?[ \t]*(?:/|:|,|\|)[ \t]*[`'"]?([^\s,;`'"]+)"#,
            Some(1),
            Accept::Paired,
        ),
        // "server login is admin / Pa55w0rd!Xy", "ssh user: root / toor123": a
        // user and password pair after a login word; the password half must
        // look like one (a digit, an inner capital or a symbol).
        context(
            "password",
            r#"(?i)(?-u:\b)(?:login|logins|log-in|sign-in|account|username|user|ssh)(?-u:\b)[^\n/]{0,24}?[ \t`'"][A-Za-z0-9._@+-]{2,40}[`'"]?[ \t]+/[ \t]+[`'"]?([^\s,;`'"/]+)(?:[^/]|$)"#,
            Some(1),
            Accept::Prose,
        ),
        // A mail app password alone on its line: four groups of four letters.
        context(
            "app-password",
            r"(?m)^[ \t]*([a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4})[ \t]*$",
            Some(1),
            Accept::AppPassword,
        ),
        // A mailbox's credentials sent as a chat line: the address, then its
        // (app) password, or the other way round.
        context(
            "app-password",
            r"(?m)^[ \t]*[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[ \t]+([a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4})[ \t]*$",
            Some(1),
            Accept::AppPassword,
        ),
        context(
            "app-password",
            r"(?m)^[ \t]*([a-z]{4} [a-z]{4} [a-z]{4} [a-z]{4})[ \t]+[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[ \t]*$",
            Some(1),
            Accept::AppPassword,
        ),
        context(
            "password",
            r"(?m)^[ \t]*[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[ \t]+([A-Za-z0-9!#$%&*+=?^_~.-]{8,64})[ \t]*$",
            Some(1),
            Accept::MailPassword,
        ),
        context(
            "password",
            r"(?m)^[ \t]*([A-Za-z0-9!#$%&*+=?^_~.-]{8,64})[ \t]+[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[ \t]*$",
            Some(1),
            Accept::MailPassword,
        ),
    ];
    rules.shrink_to_fit();
    rules
});
