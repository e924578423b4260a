//! Tests of masking: each kind, near misses, streaming, configured patterns.

use super::*;

/// Each kind: the secret inside some text is masked, and a near miss
/// beside it is left alone.
fn kind(masked: &str, expected: &str, near_miss: &str) {
    assert_eq!(mask(masked), expected, "masking {masked:?}");
    assert_eq!(mask(near_miss), near_miss, "near miss {near_miss:?}");
}

#[test]
fn openai_style_keys() {
    kind(
        "key sk-proj-4f9aQ2xLk81abcd end",
        "key •••• end",
        "task-4f9aQ2xLk81abcd and sk-short",
    );
    kind("sk-ant-api03-AbC_9xYz-12", "••••", "ask-me-anything");
}

#[test]
fn bearer_tokens() {
    kind(
        "Authorization: Bearer eyJhbGciOi.x",
        "Authorization: ••••",
        "the bearer information is on file",
    );
    kind("bearer 0a1b2c3d4e5f", "••••", "Bearer short1");
}

#[test]
fn authorization_headers() {
    kind(
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        "Authorization: Basic ••••",
        "basic authorization: none",
    );
}

#[test]
fn aws_access_key_ids() {
    kind(
        "id AKIAIOSFODNN7EXAMPLE ok",
        "id •••• ok",
        "AKIAIOSFODNN7EXAMPL and XKIAIOSFODNN7EXAMPLE",
    );
}

#[test]
fn aws_secret_keys() {
    kind(
        "value wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
        "value ••••.",
        // a git commit id (hex) and a 40-letter word are not keys
        "commit da39a3ee5e6b4b0d3255bfef95601890afd80709 and getUserAccountSubscriptionDetailsForUser",
    );
    kind(
        r#"{"k":"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Ab"}"#,
        r#"{"k":"••••"}"#,
        // 41 characters: part of something longer
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Abc",
    );
}

#[test]
fn github_tokens() {
    kind(
        "token ghp_16C7e42F292c6912E7710c838347Ae178B4a here",
        "token •••• here",
        "ghp_16C7e42F292c6912E7710c and ghp-16C7e42F292c6912E7710c838347Ae178B4a",
    );
    kind(
        "github_pat_11ABCDEFG0abcdefghijklmn_XYZ",
        "••••",
        "github_pat_short",
    );
}

#[test]
fn gitlab_huggingface_and_npm_tokens() {
    kind(
        "glpat-xxxxxxxxxxxxxxxxxxxx1 hf_abcdefghijklmnopqrstuvwxyzABCDEF npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "•••• •••• ••••",
        "glpat-short hf_short npm_install",
    );
}

#[test]
fn jwts_without_bearer() {
    kind(
        r#"{"id_tok":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}"#,
        r#"{"id_tok":"••••"}"#,
        "eyJhbGciOiJIUzI1NiJ9 alone, and v1.2.3",
    );
}

#[test]
fn credentials_in_urls() {
    kind(
        "clone https://deploy:s3cr3t-pa55@git.example.com/repo.git",
        "clone https://••••@git.example.com/repo.git",
        "https://git.example.com:8443/repo and ssh://git@example.com/x and mailto:a@b.c",
    );
    kind(
        "postgres://app:hunter2@db:5432/main",
        "postgres://••••@db:5432/main",
        "postgres://db:5432/main",
    );
}

#[test]
fn secret_fields_in_json() {
    kind(
        r#"{"user":"ana","password":"hunter2","db_password": "x y"}"#,
        r#"{"user":"ana","password":"••••","db_password": "••••"}"#,
        r#"{"password_hint":"blue","passwords":"3","password":""}"#,
    );
    kind(
        r#"{"api_key":"abc123","X-Api-Key":"k","OPENAI_API_KEY":"o"}"#,
        r#"{"api_key":"••••","X-Api-Key":"••••","OPENAI_API_KEY":"••••"}"#,
        r#"{"api_keys_count":"2","key":"value"}"#,
    );
    // JSON inside a JSON string (a tool result that is text)
    kind(
        r#""{\"password\":\"hunter2\",\"user\":\"ana\"}""#,
        r#""{\"password\":\"••••\",\"user\":\"ana\"}""#,
        r#""{\"user\":\"ana\"}""#,
    );
}

#[test]
fn secret_fields_in_key_value_text() {
    kind(
        "DB_PASSWORD=hunter2 PORT=5432",
        "DB_PASSWORD=•••• PORT=5432",
        "password_hint=blue passwords=3",
    );
    kind(
        "GET /v1?api_key=abc123&q=1",
        "GET /v1?api_key=••••&q=1",
        "GET /v1?api=abc123&q=1",
    );
    kind("secret: 'letmein'", "secret: '••••'", "secretary: ana");
}

#[test]
fn oauth_token_fields() {
    kind(
        r#"{"access_token":"ya29.a0AfH6","refresh_token":"1//0gL","token_type":"Bearer","expires_in":3599}"#,
        r#"{"access_token":"••••","refresh_token":"••••","token_type":"Bearer","expires_in":3599}"#,
        r#"{"token":"the","max_tokens":"100","token_type":"Bearer"}"#,
    );
    kind(
        "grant_type=refresh_token&refresh_token=1//0gLxyz&client_id=42",
        "grant_type=refresh_token&refresh_token=••••&client_id=42",
        "grant_type=refresh_token&client_id=42",
    );
}

#[test]
fn slack_tokens() {
    kind(
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "••••",
        "xoxb-12 and xoxz-123456789012345",
    );
}

#[test]
fn stripe_secret_keys() {
    kind(
        "sk_live_51H8abcdEFGH1234 and rk_live_51H8abcdEFGH1234",
        "•••• and ••••",
        "pk_live_51H8abcdEFGH1234 (publishable) and sk_live_short",
    );
}

#[test]
fn google_api_keys() {
    kind(
        "key=AIzaSyD-abcdefghijklmnopqrstuvwxyz12345&x",
        "key=••••&x",
        "AIzaShort and AIza",
    );
}

#[test]
fn pem_private_keys() {
    let pem =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
    kind(
        &format!("key:\n{pem}\nafter"),
        "key:\n••••\nafter",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----",
    );
    // as it sits in JSON (escaped newlines), and cut short
    kind(
        r#"{"k":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk"#,
        r#"{"k":"••••"#,
        "-----BEGIN CERTIFICATE-----",
    );
}

#[test]
fn card_numbers_pass_luhn() {
    kind(
        "card 4242 4242 4242 4242 ok",
        "card •••• ok",
        // fails Luhn: an order number, not a card
        "order 4242424242424241",
    );
    // digits before or after it do not hide a card
    kind(
        "ask 17 4111 1111 1111 1111",
        "ask 17 ••••",
        "ask 17 4111 1111 1111 1113",
    );
    kind("4111 1111 1111 1111 2", "•••• 2", "4111 1111 1111 1112 2");
}

#[test]
fn every_kind_has_a_test_above() {
    // The list the docs name is the list the code masks.
    assert_eq!(
        kinds().iter().map(|k| k.name).collect::<Vec<_>>(),
        KINDS.to_vec()
    );
    assert!(builtin().is_some(), "every built-in pattern compiles");
}

#[test]
fn configured_patterns_and_no_redact() {
    let r = Redactor::new(&["cus_[A-Za-z0-9]+".into()], false).unwrap();
    assert_eq!(r.apply("customer cus_3Nw8"), "customer ••••");
    let off = Redactor::new(&[], true).unwrap();
    assert_eq!(off.apply("sk-test-4f9aQ2xLk81"), "sk-test-4f9aQ2xLk81");
    assert_eq!(
        Redactor::new(&["ok".into(), "ab(".into()], false)
            .unwrap_err()
            .to_string(),
        "[redact] patterns[1] \"ab(\": not a valid regular expression: unclosed group"
    );
}

#[test]
fn overlapping_secrets_make_one_mask() {
    assert_eq!(
        mask(r#"{"api_key":"sk-proj-4f9aQ2xLk81abcd"}"#),
        r#"{"api_key":"••••"}"#
    );
}

#[test]
fn safe_cut_moves_out_of_a_secret() {
    let r = Redactor::default();
    let text = "aaaa sk-proj-4f9aQ2xLk81abcd bbbb";
    let start = text.find("sk-").unwrap();
    // inside the key: cut before it
    assert_eq!(r.safe_cut(text, start + 6), start);
    // outside any secret: unchanged
    assert_eq!(r.safe_cut(text, 2), 2);
    // a text that starts with the secret: cut after it
    let t = &text[start..];
    assert_eq!(r.safe_cut(t, 4), "sk-proj-4f9aQ2xLk81abcd".len());
}

#[test]
fn a_stream_masks_a_key_across_piece_edges() {
    let key = "sk-proj-4f9aQ2xLk81abcdEFGH";
    let text = format!("{}{key}{}", "x ".repeat(MARGIN), " y".repeat(MARGIN));
    let bytes = text.as_bytes();
    // every cut through the key, in pieces of many sizes
    let at = text.find(key).unwrap();
    for piece in [7usize, 1000, 4096, at + 5, at + 20] {
        let r = Redactor::default();
        let mut s = StreamMasker::new(&r);
        let mut out = String::new();
        for p in bytes.chunks(piece) {
            out.push_str(&s.push(p));
        }
        out.push_str(&s.finish());
        assert_eq!(out, mask(&text), "pieces of {piece}");
        assert!(!out.contains("4f9aQ2x"));
    }
    // multi-byte characters cut between pieces survive
    let r = Redactor::default();
    let mut s = StreamMasker::new(&r);
    let text = "é".repeat(3 * MARGIN);
    let mut out = String::new();
    for p in text.as_bytes().chunks(999) {
        out.push_str(&s.push(p));
    }
    out.push_str(&s.finish());
    assert_eq!(out, text);
}

/// Pieces of text near every built-in kind: its secrets, the words they
/// need cut short or in another case, digits, runs of key characters and
/// characters that fold to ASCII letters.
const PIECES: &[&str] = &[
    "sk-proj-4f9aQ2xLk81abcd",
    "Bearer 0a1b2c3d4e5f",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==",
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "github_pat_0123456789abcdefghijAB",
    "glpat-0123456789abcdefghij",
    "hf_0123456789abcdefghijABCDEFGHIJ01",
    "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "eyJhbGciOi.eyJzdWIiOi.sig",
    "https://user:pw@host",
    "\"db_password\": \"hunter2\"",
    "refresh_token=abc123",
    "PassWord: x",
    "xoxb-0123456789-abc",
    "sk_live_0123456789ab",
    "rk_test_0123456789ab",
    "AIzaSyA-0123456789abcdefghijABCDEFGHIJK",
    "-----BEGIN RSA PRIVATE KEY-----",
    "4242 4242 4242 4242",
    "4111-1111-1111-1111",
    "sk",
    "bearr",
    "authorizatio",
    "gh_",
    "toke",
    "ke",
    "secre",
    "pas",
    ":/",
    "eY",
    "1234567",
    "890123",
    "AbCdEfGhIjKlMnOpQrS",
    "AKIAIOSFODNN7EXAMP",
    "additionalProperties",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLE",
    "T",
    "/",
    "+",
    " ",
    "-",
    "_",
    ":",
    "=",
    "\"",
    "\n",
    "\u{17f}ecret",
    "\u{212a}ey",
    "é",
    "cancel_subscription (mutating) was called with \"sub_31\"",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    /// The cheap pass never clears a text a built-in kind matches.
    #[test]
    fn a_clear_text_matches_no_builtin_kind(
        parts in proptest::collection::vec(proptest::sample::select(PIECES), 0..8)
    ) {
        let s = parts.concat();
        if clear_of_builtin(&s) {
            proptest::prop_assert!(!builtin().unwrap().set.is_match(&s), "{s:?}");
        }
    }
}

#[test]
fn the_cheap_pass_clears_plain_details_only() {
    for piece in PIECES {
        let masked = builtin().unwrap().set.is_match(piece);
        assert!(!(masked && clear_of_builtin(piece)), "{piece:?}");
    }
    for clear in [
        "",
        "cancel_subscription (mutating) was called with \"sub_31\"",
        "the visible menu changed 3 times within the run; first here, after step 2",
        "/id: additionalProperties: not a declared property",
    ] {
        assert!(clear_of_builtin(clear), "{clear:?}");
    }
    for not_clear in [
        "an api_key field",
        "café",
        "4111 1111 1111 1",
        "getUserAccountSubscriptionDetailsForUser",
        "AKIAIOSFODNN7EXAMPLE",
        "Bearer",
    ] {
        assert!(!clear_of_builtin(not_clear), "{not_clear:?}");
    }
}

#[test]
fn keys_that_mask_alike_keep_their_counts_and_values() {
    // Four refusal reasons that differ only in their key: one masked key
    // with the four counts added up; other values kept under numbered keys.
    let r = Redactor::new(&[], false).unwrap();
    let v = serde_json::json!({
        "denied token sk-proj-4f9aQ2xLk81abcd1": 1,
        "denied token sk-proj-4f9aQ2xLk81abcd2": 2,
        "denied token sk-proj-4f9aQ2xLk81abcd3": 3,
        "not_found": 5,
        "note sk-proj-4f9aQ2xLk81abcd1": "a",
        "note sk-proj-4f9aQ2xLk81abcd2": "b",
        "note sk-proj-4f9aQ2xLk81abcd3": "c",
    });
    assert_eq!(
        r.mask_value(&v).into_value(),
        serde_json::json!({
            "denied token ••••": 6,
            "not_found": 5,
            "note ••••": "a",
            "note •••• (2)": "b",
            "note •••• (3)": "c",
        })
    );
    // Nothing masked when masking is off.
    let off = Redactor::new(&[], true).unwrap();
    assert_eq!(off.mask_value(&v).into_value(), v);
}
