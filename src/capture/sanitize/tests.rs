//! The sanitizer's vectors: what each rule redacts, and text and code it must leave alone.

use super::*;

fn redacted(input: &str) -> String {
    sanitize(input).text
}

#[test]
fn each_kind_is_redacted() {
    let cases = [
        (
            "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
            "key [REDACTED:anthropic-api-key]",
        ),
        (
            "OPENAI sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234",
            "OPENAI [REDACTED:api-key]",
        ),
        (
            "aws AKIAIOSFODNN7EXAMPLE here",
            "aws [REDACTED:aws-access-key] here",
        ),
        (
            "AKIABNCSCJHQBZFQF3M6\nkjNlm0R0KG7kJ5KqhTo4ZCvaFK2THmNUQKie9mUf\n",
            "[REDACTED:aws-access-key]\n[REDACTED:aws-secret-key]",
        ),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED:secret]",
        ),
        (
            "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "gh [REDACTED:github-token]",
        ),
        (
            "gh github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789",
            "gh [REDACTED:github-token]",
        ),
        (
            "slack xoxb-123456789012-abcdefghij",
            "slack [REDACTED:slack-token]",
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt [REDACTED:jwt]",
        ),
        (
            "Authorization: Bearer abcDEF123456789.xyz",
            "Authorization: Bearer [REDACTED:bearer]",
        ),
        (
            "DB_PASSWORD=hunter2hunter2",
            "DB_PASSWORD=[REDACTED:password]",
        ),
        (
            "\"client_secret\": \"s3cr3t-value\"",
            "\"client_secret\": [REDACTED:secret]",
        ),
        (
            "{\"appId\": \"cli_a1b2\", \"appSecret\": \"ogOdad9lsRS5dUnJjkXRqyEo8Vet1jlG\"}",
            "{\"appId\": \"cli_a1b2\", \"appSecret\": [REDACTED:secret]}",
        ),
        (
            "app secret ：BpyShg7Sdxukz6MQ59uNMxbrqUqIjjEB",
            "app secret ：[REDACTED:secret]",
        ),
        (
            "export GITHUB_TOKEN=abc123def456",
            "export GITHUB_TOKEN=[REDACTED:token]",
        ),
        ("api_key: 'k-1234567890'", "api_key: [REDACTED:api-key]"),
        (
            "- **飞书 App Secret**: `BpyShg7Sdxukz6MQ59uNMxbrqUqIjjEB`",
            "- **飞书 App Secret**: [REDACTED:secret]",
        ),
        (
            "Stripe sk_live_cK8nkB6VRLetC6Psnc1OAPZn and rk_live_cK8nkB6VRLetC6Psnc1OAPZn",
            "Stripe [REDACTED:stripe-key] and [REDACTED:stripe-key]",
        ),
        (
            "mirror uses glpat-9CfNDxlexuamy4D9Ae2z ok",
            "mirror uses [REDACTED:gitlab-token] ok",
        ),
        (
            "CI：npm_q3C7qhuMk9zUGIAJsam9cDIPYSTGnAvqGCAk",
            "CI：[REDACTED:npm-token]",
        ),
        (
            "Maps 用 AIzaDgMHxHkt2NumGDbneu7Z_GymloP8M9tJCWi",
            "Maps 用 [REDACTED:google-api-key]",
        ),
        (
            "DATABASE_URL=postgres://orders_app:0NHLjxkoVVvpWbj8hk@db-7.internal:5432/orders",
            "DATABASE_URL=postgres://orders_app:[REDACTED:url-password]@db-7.internal:5432/orders",
        ),
        (
            "notify with curl https://api.day.app/Xk3mPq9LrT2vWb7NcY4sZa/Build%20done",
            "notify with curl https://api.day.app/[REDACTED:url-key]/Build%20done",
        ),
        (
            "hook: https://discord.com/api/webhooks/1234567890/aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z",
            "hook: https://discord.com/api/webhooks/1234567890/[REDACTED:url-key]",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA==\n-----END RSA PRIVATE KEY-----\nafter",
            "[REDACTED:private-key]\nafter",
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhkiG9w0B",
            "[REDACTED:private-key]",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(redacted(input), want, "input: {input}");
    }
}

#[test]
fn ordinary_text_and_code_are_left_alone() {
    let keep = [
        "sha256 3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea",
        "edit /home/ana/src/token.rs and src/password_reset.rs",
        "session gwar7autu3gbs32c in [[memory/2026-03-28T22-34-06.792Z--gwar7autu3gbs32c--summary.md|summary]]",
        "session_token: gwar7autu3gbs32c",
        "max_tokens: 4096",
        "the password is too weak, said the linter",
        "token: null and password=$DB_PASSWORD and secret: <your secret>",
        "commit a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0",
        "ask-anything is not a key, nor is task-1234567890123456789012",
        "token = resp.json()[\"access_token\"]",
        "access_token = resp.json()[\"tenant_access_token\"]",
        "api_key=os.getenv(\"GEMINI_API_KEY\")",
        "genai.configure(api_key=os.getenv('GEMINI_API_KEY'))",
        "GITHUB_TOKEN = os.environ.get('GITHUB_TOKEN')",
        "self._client = OpenAI(api_key=self._api_key)",
        "password_hash = bcrypt.hashpw(pw.encode(), bcrypt.gensalt())",
        "def login(username: str, password: str) -> bool:",
        "const token = await getToken();",
        "curl -H \"Authorization: bearer YOUR_GITHUB_TOKEN\" https://api.github.com/graphql",
        "see https://example.com/docs and git@github.com:owner/repo.git",
        "Release artifact sha256: e3934b5610a6cad4bb0a86e2c72ea9de9c38d2c0aa1556e8364e55968c43e8a3",
        "apps/app/src/client/components/AppInnerSidebar.tsx",
        "`[\"MY_TOKEN\", \"HOOK_SECRET\"]`",
        "secret_key = settings.SECRET_KEY",
        "Secret: The messages below were generated by the user",
    ];
    for input in keep {
        assert_eq!(redacted(input), input);
    }
}

#[test]
fn sanitizing_is_deterministic_and_idempotent() {
    let input =
        "a  \r\nDB_PASSWORD=hunter2hunter2\t\r\n\r\nsk-ant-api03-abcdefghijklmnopqrstuvwxyz\n\n\n";
    let once = sanitize(input);
    assert_eq!(once, sanitize(input));
    assert_eq!(
        once.text,
        "a\nDB_PASSWORD=[REDACTED:password]\n\n[REDACTED:anthropic-api-key]"
    );
    assert_eq!(sanitize(&once.text).text, once.text);
    assert_eq!(once.redactions.values().sum::<usize>(), 2);
}

#[test]
fn secrets_named_in_other_languages_or_by_context_are_redacted() {
    let cases = [
        ("SSH密码：Xk9#mQ2v", "SSH密码：[REDACTED:password]"),
        (
            "服务器 root 密码是 abc123456，记得改",
            "服务器 root 密码是 [REDACTED:password]，记得改",
        ),
        ("传密码 Tr0ub4dor&3 给我", "传密码 [REDACTED:password] 给我"),
        (
            "密码：admin 用户名：root",
            "密码：[REDACTED:password] 用户名：root",
        ),
        (
            "パスワードは hunter2hunter です",
            "パスワードは [REDACTED:password] です",
        ),
        ("비밀번호: qwerty1234", "비밀번호: [REDACTED:password]"),
        ("пароль: qwerty", "пароль: [REDACTED:password]"),
        (
            "contraseña: Sup3rS3creta",
            "contraseña: [REDACTED:password]",
        ),
        (
            "mot de passe : Azerty123!",
            "mot de passe : [REDACTED:password]",
        ),
        ("Passwort: Geheim2024", "Passwort: [REDACTED:password]"),
        (
            "ALTER USER app WITH PASSWORD 'Xr4!pq9z';",
            "ALTER USER app WITH PASSWORD [REDACTED:password];",
        ),
        (
            "CREATE USER 'bob'@'%' IDENTIFIED BY 's3cr3t!';",
            "CREATE USER 'bob'@'%' IDENTIFIED BY [REDACTED:password];",
        ),
        (
            "Login credentials: admin / Welcome2026",
            "Login credentials: admin / [REDACTED:password]",
        ),
        ("credentials: demo:demo", "credentials: [REDACTED:password]"),
        (
            "the password is hunter2 for now",
            "the password is [REDACTED:password] for now",
        ),
        (
            "Gmail app password:\nabcd efgh ijkl mnop\nthen restart",
            "Gmail app password:\n[REDACTED:app-password]\nthen restart",
        ),
        ("abcd efgh ijkl mnop", "[REDACTED:app-password]"),
        (
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;EndpointSuffix=core.windows.net",
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED:connection-string];EndpointSuffix=core.windows.net",
        ),
        (
            "Server=db;Database=shop;User Id=sa;Password=Passw0rd;",
            "Server=db;Database=shop;User Id=sa;Password=[REDACTED:connection-string];",
        ),
        (
            "curl -u alice:Wonder1and https://api.example.com",
            "curl -u alice:[REDACTED:password] https://api.example.com",
        ),
        (
            "mysql -uroot -pS3cretPass shop < dump.sql",
            "mysql -uroot -p[REDACTED:password] shop < dump.sql",
        ),
        (
            "sshpass -p 'rootpass' ssh root@10.0.0.2",
            "sshpass -p [REDACTED:password] ssh root@10.0.0.2",
        ),
        (
            "docker login -u bot -p dckrpass registry.local",
            "docker login -u bot -p [REDACTED:password] registry.local",
        ),
        (
            "tool --password=hunter run",
            "tool --password=[REDACTED:password] run",
        ),
        (
            "SECRET_KEY=\"django-insecure-x$9k@2!f\"",
            "SECRET_KEY=[REDACTED:secret]",
        ),
        (
            "DB_PASSWORD=x7&tail rest",
            "DB_PASSWORD=[REDACTED:password] rest",
        ),
        (
            "XAI_KEY xai-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ok",
            "XAI_KEY [REDACTED:api-key] ok",
        ),
        (
            "groq gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdef",
            "groq [REDACTED:api-key]",
        ),
        (
            "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 here",
            "bot [REDACTED:bot-token] here",
        ),
        (
            "- API Token: `t-g1043ymfT3KKNYRXB0ECAKVI2NA0ELXT2GUSHFFH`",
            "- API Token: `[REDACTED:feishu-token]`",
        ),
        (
            "\"t-g1043ymfT3KKNYRXB0ECAKVI2NA0ELXT2GUSHFFH\"",
            "\"[REDACTED:feishu-token]\"",
        ),
        (
            "数据库password: Abc12345x，发布用npm_q3C7qhuMk9zUGIAJsam9cDIPYSTGnAvqGCAk的令牌",
            "数据库password: [REDACTED:password]，发布用[REDACTED:npm-token]的令牌",
        ),
        (
            "url https://x.test/cb?token=AbC123xyz&page=2",
            "url https://x.test/cb?token=[REDACTED:token]&page=2",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(redacted(input), want, "input: {input}");
    }
}

#[test]
fn prose_and_code_around_secret_words_stay_in_any_language() {
    let keep = [
        "密码错误，请重试",
        "忘记密码 功能已经实现",
        "パスワードを変更してください",
        "пароль неверный",
        "la contraseña segura es importante",
        "the password is required",
        "password (optional) for the admin",
        "password: str = Field(...)",
        "make sure this runs",
        "トークン数: 4096",
        "docker run -u 1000:1000 image",
        "mysql -u root -p shop",
        "print(\"wrong password\")",
        "password_reset.rs and password-policy.md",
        "token=$TOKEN curl -u $USER:$PASS https://x.test",
        "credentials: see the vault",
        "password hashing with argon2id",
        "WITH PASSWORD $1",
    ];
    for input in keep {
        assert_eq!(redacted(input), input);
    }
}

#[test]
fn a_known_credential_is_redacted_wherever_it_recurs_without_its_key() {
    let session = "DB_PASSWORD=Hx7pQw2Lz9Vb!\nlater: PGPASSWORD in psql";
    let mut known = Known::default();
    known.learn(&sanitize(session));
    let elsewhere =
        sanitize("Login with `admin` / `Hx7pQw2Lz9Vb!` and run bcrypt.hash('Hx7pQw2Lz9Vb!')");
    assert!(
        elsewhere.text.contains("Hx7pQw2Lz9Vb"),
        "the rules alone keep it: {}",
        elsewhere.text
    );
    let redacted = known.redact(elsewhere);
    assert_eq!(
        redacted.text,
        "Login with `admin` / `[REDACTED:password]` and run bcrypt.hash('[REDACTED:password]')"
    );
    assert_eq!(redacted.redactions.get("password"), Some(&2));
}

#[test]
fn a_quoted_credential_is_known_bare_where_it_recurs() {
    let mut known = Known::default();
    known.learn(&sanitize(
        r#"config {"apiKey": "AIzaSyD3xAmPl3K3yV4lu3Ab12cd34EF56gh78"} fails"#,
    ));
    let reply = "The key AIzaSyD3xAmPl3K3yV4lu3Ab12cd34EF56gh78 is restricted.";
    assert_eq!(
        known.redact(sanitize(reply)).text,
        "The key [REDACTED:api-key] is restricted."
    );
}

#[test]
fn a_user_and_password_pair_after_a_login_word_is_redacted_but_prose_pairs_stay() {
    for (input, want) in [
        (
            "server login is admin / Pa55w0rd!Xy, check nginx",
            "server login is admin / [REDACTED:password], check nginx",
        ),
        (
            "ssh user: root / toor123 on the box",
            "ssh user: root / [REDACTED:password] on the box",
        ),
    ] {
        assert_eq!(sanitize(input).text, want);
    }
    for kept in [
        "the login / logout buttons",
        "user / group ownership is wrong",
        "account page / settings",
        "login flow: app / src/auth/login.ts",
    ] {
        assert_eq!(sanitize(kept).text, kept);
    }
}

#[test]
fn a_password_that_is_a_plain_word_or_number_does_not_spread() {
    let mut known = Known::default();
    known.learn(&sanitize("DB_PASSWORD=cortexbuild\nPIN=12345678\n"));
    let text = "The cortexbuild project on port 12345678";
    assert_eq!(known.redact(sanitize(text)).text, text);
}

#[test]
fn a_mailbox_sent_with_its_password_on_a_chat_line_is_redacted() {
    let cases = [
        (
            "contact@example.co uEawqO0Yn9Tb",
            "contact@example.co [REDACTED:password]",
        ),
        (
            "uEawqO0Yn9Tb contact@example.co",
            "[REDACTED:password] contact@example.co",
        ),
        (
            "xpny sqdh qbdh vrsy contact@example.co",
            "[REDACTED:app-password] contact@example.co",
        ),
        // Words, names and numbers beside an address stay.
        ("contact@example.co Thanks", "contact@example.co Thanks"),
        ("contact@example.co 20240101", "contact@example.co 20240101"),
        (
            "mail anna@example.org tomorrow",
            "mail anna@example.org tomorrow",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(redacted(input), want, "{input}");
    }
}

#[test]
fn url_paths_of_words_commits_and_ids_are_kept() {
    for kept in [
        "see https://github.com/ana/shop/commit/9f2c1e4b7a6d5c3b2a1f0e9d8c7b6a5f4e3d2c1b",
        "docs at https://example.com/blog/Release-Notes-2024-Final/",
        "issue https://tracker.example.com/issues/550e8400-e29b-41d4-a716-446655440000",
        "https://crates.io/crates/notify-debouncer-full/0.5.0",
        "https://docs.rs/rusqlite/latest/rusqlite/struct.Connection.html",
    ] {
        assert_eq!(redacted(kept), kept);
    }
}

#[test]
fn a_secret_exposed_by_taking_an_aws_key_is_redacted_in_the_same_sanitize() {
    // The value `f(…` is code and stays whole, until the AWS key inside it is
    // taken; the assignment behind it must not wait for a second sanitize.
    let input = "OPENAI_API_KEY=f(wJalrXUtnFEMI7K7MDENGbPxRfiCYEXAMPLEKEY9(API_KEY=hunter2hunter2";
    let once = sanitize(input);
    assert!(!once.text.contains("hunter2hunter2"), "{}", once.text);
    assert!(!once.text.contains("EXAMPLEKEY9"), "{}", once.text);
    assert_eq!(sanitize(&once.text).text, once.text);
}

#[test]
fn a_long_chain_of_query_keys_is_redacted_in_one_sanitize() {
    // Each value runs into the next `&…KEY=`, which one pass leaves for the next.
    let input = (0..12)
        .map(|i| format!("K{i}_API_KEY=hunter{i}x&tok&"))
        .collect::<String>()
        + "I_API_KEY=ghp_&&&&PI_ghijklm";
    let once = sanitize(&input);
    assert_eq!(sanitize(&once.text).text, once.text, "{}", once.text);
    assert!(!once.text.contains("hunter"), "{}", once.text);
    assert_eq!(once.redactions.values().sum::<usize>(), 13, "{}", once.text);
}

/// A key after its name in any language and punctuation, a key another tool
/// masked, and advice about passwords: generated over labels, separators and
/// positions, as people write them.
#[test]
fn keys_after_their_names_and_masked_keys_go_and_advice_about_passwords_stays() {
    let key = "QUtJQTVYN0RGR0hKS0xNTlBRUlNUVVZXWFla0123456789abcd";
    for label in [
        "API Key",
        "api key",
        "Access Key",
        "API_KEY",
        "密钥",
        "apiKey",
    ] {
        for sep in ["：", ": ", "=", " = ", "：\u{3000}"] {
            for before in ["", "请配置服务。", "Set it up. "] {
                let text = format!("{before}{label}{sep}{key} then restart");
                let out = redacted(&text);
                assert!(!out.contains(&key[..12]), "{text} -> {out}");
                assert!(out.contains(label), "{text} -> {out}");
            }
        }
    }
    for masked in [
        "sk-ant…FYAA",
        "sk-proj-Ab...9xYz",
        "ghp_12…9xYz",
        "AKIA****WXYZ",
        "AIza…Qw7",
    ] {
        let out = redacted(&format!("the old key {masked} was revoked"));
        assert_eq!(
            out, "the old key [REDACTED:masked-key] was revoked",
            "{masked}"
        );
    }
    // No characters after the mark: a placeholder, not a key.
    assert_eq!(
        redacted("paste your new `ghp_…` token"),
        "paste your new `ghp_…` token"
    );
    for advice in [
        "**Use a password manager**: Consider 1Password or Bitwarden.",
        "_Use a password manager_, like Bitwarden.",
        "Pick a password manager. It keeps them safe.",
        "the API key: we rotate it every month",
        "Your password should be long and unique.",
    ] {
        assert_eq!(redacted(advice), advice);
    }
}

/// A passphrase quoted after "the password is" goes, spaces and all, in any
/// quotes and with or without a colon; two plain words or one ("not set",
/// "required") are prose and stay.
#[test]
fn a_quoted_passphrase_after_a_password_word_goes_and_quoted_prose_stays() {
    let phrase = "correct horse battery staple";
    for word in ["password", "Password", "passphrase", "wifi password"] {
        for link in [" is ", " was ", ": ", " = ", " "] {
            for (open, close) in [("\"", "\""), ("'", "'"), ("“", "”")] {
                for after in ["", ", add it to the setup script", " (keep it safe)"] {
                    let text = format!("the {word}{link}{open}{phrase}{close}{after}");
                    let out = redacted(&text);
                    assert!(!out.contains("horse battery"), "{text} -> {out}");
                    assert!(out.contains(word) && out.contains(after), "{text} -> {out}");
                }
            }
        }
    }
    for prose in [
        "the password is \"not set\" until you log in",
        "the password is 'required' on this form",
        "the password field says \"Enter your password\"",
        "a password manager is \"the one tool\" I'd recommend",
    ] {
        assert_eq!(redacted(prose), prose);
    }
}

/// A key after its Japanese or Korean label (`APIキー：`, `API 키:`) goes like
/// one after "API Key"; a label over a plain word stays.
#[test]
fn a_key_after_a_japanese_or_korean_label_goes() {
    let key = "AbCdEf0123456789GhIjKlMnOpQrStUvWxYz98";
    for label in [
        "APIキー",
        "API キー",
        "アクセスキー",
        "シークレットキー",
        "API 키",
        "액세스 키",
    ] {
        for sep in ["：", ": ", "=", "は "] {
            let text = format!("{label}{sep}{key} を .env に入れて");
            let out = redacted(&text);
            assert!(!out.contains(&key[..12]), "{text} -> {out}");
            assert!(out.contains(label), "{text} -> {out}");
        }
    }
    for plain in ["APIキー：未設定です", "API 키: 없음"] {
        assert_eq!(redacted(plain), plain);
    }
}
