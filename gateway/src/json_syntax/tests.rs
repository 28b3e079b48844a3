//! The faults of `json_syntax::check`, each case as the database answered it when it read the JSON
//! itself (the cases sql/tests/26-body-edge-cases.sql held then).

use super::*;

/// `"error field"` (or `"error -"`), `"+"` marking the route's nested code, or `"accepted"`.
fn answer(body: &str) -> String {
    match check(Some(body)) {
        None => "accepted".to_string(),
        Some(fault) => {
            format!("{}{} {}", fault.error, if fault.nested { "+" } else { "" }, fault.field.as_deref().unwrap_or("-"))
        }
    }
}

fn lot_with(members: &str) -> String {
    format!(r#"{{"name": "Edge", "timezone": "Europe/London", "handover": "self", "online_bookable": true{members}}}"#)
}

#[test]
fn what_is_not_json_is_invalid_json() {
    for body in [
        "",
        " ",
        "{",
        "}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "[1,]",
        "[1 2]",
        "{\"a\":1 \"b\":2}",
        "01",
        "-",
        "-01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "+1",
        "0x10",
        "NaN",
        "Infinity",
        "tru",
        "truex",
        "nul",
        "[true false]",
        "'a'",
        "\"a",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12g4\"",
        "\"a\tb\"",
        "\"a\nb\"",
        "{\"a\":1}}",
        "{\"a\":1} x",
        "[1]]",
        "\u{feff}{}",
        "{a:1}",
        "{\"a\" 1}",
        "[\"a\":1]",
        "{,}",
        "[,]",
        "1 2",
    ] {
        assert_eq!(answer(body), "invalid_json -", "{body:?}");
    }
    assert_eq!(check(None), Some(Fault { error: "invalid_json", field: None, nested: false }));
}

#[test]
fn json_of_any_shape_is_read() {
    for body in [
        "{}",
        "[]",
        "null",
        "true",
        "false",
        "0",
        "-0",
        "1.5",
        "-1.5e-3",
        "1E+2",
        "\"text\"",
        " {\"a\" : [1, {\"b\": null}] } \n",
        "{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"}",
        "{\"é\": \"ü\u{7f}\"}",
        "[[[[]]]]",
    ] {
        assert_eq!(answer(body), "accepted", "{body:?}");
    }
}

#[test]
fn nesting_is_read_up_to_its_bound() {
    let nested = |depth: usize| format!("{{\"zz\": {}{}}}", "[".repeat(depth - 1), "]".repeat(depth - 1));
    assert_eq!(answer(&nested(MAX_DEPTH)), "accepted");
    assert_eq!(answer(&nested(MAX_DEPTH + 1)), "invalid_json -");
    let deep_object = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
    assert_eq!(answer(&deep_object), "accepted");
    // too deep wins over every other fault, as it did when jsonb could not read the body
    assert_eq!(
        answer(&format!("{{\"zz\": 1, \"zz\": {}{}}}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH))),
        "invalid_json -"
    );
    // 64 KiB of open brackets
    assert_eq!(answer(&"[".repeat(65536)), "invalid_json -");
}

#[test]
fn a_syntax_fault_anywhere_wins_over_every_content_fault() {
    assert_eq!(answer(r#"{"a": "\u0000", "a": 1e99, "b": tru}"#), "invalid_json -");
    assert_eq!(answer(r#"{"a": {"b": 1, "b": 2}, "c": [1,]}"#), "invalid_json -");
}

#[test]
fn a_key_given_twice_is_named_as_the_database_named_it() {
    let cases = [
        (
            lot_with(r#", "cancellation": {"free_until_hours_before_check_in": 1, "free_until_hours_before_check_in": 2, "penalty_percent_after": "10.00", "no_show_forfeits_full": true}"#),
            "invalid_body+ cancellation.free_until_hours_before_check_in",
        ),
        (lot_with(r#", "arrival": {"entrance": "North", "entrance": "South"}"#), "invalid_body+ arrival.entrance"),
        (lot_with(r#", "arrival": {"transfer": {"line": "7", "line": "8"}}"#), "invalid_body+ arrival"),
        (lot_with(r#", "arrival": {"entrance": "a", "entrance": "b"}, "media": {"heroUrl": "x", "heroUrl": "y"}"#), "invalid_body+ arrival.entrance"),
        (lot_with(r#", "arrival": {"transfer": {"line": "7"}, "line": "8"}"#), "accepted"),
        (lot_with(r#", "Zq": 1, "aq": 1, "aq": 2, "Zq": 2"#), "invalid_body Zq"),
        (lot_with(r#", "arrival": {"b": 1, "b": 2, "B": 1, "B": 2}"#), "invalid_body+ arrival.B"),
        (lot_with(r#", "arrival": {"x": {"a": 1, "a": 2}, "c": 1, "c": 2}"#), "invalid_body+ arrival.c"),
        (lot_with(r#", "arrival": {"a": null, "a": 1}"#), "invalid_body+ arrival.a"),
        (lot_with(r#", "arrival": {"null": "null", "0": 0, "x": [null, 0, {"null": null}]}"#), "accepted"),
        (lot_with(r#", "city": "\u003a x", "arrival": {"a": 1, "a": 2}"#), "invalid_body+ arrival.a"),
        (lot_with(r#", "arrival": {"a": "\":\":"}, "city": "\":\":", "media": {"x": 1}, "cancellation": {"b": 1, "b": 2}"#), "invalid_body+ cancellation.b"),
        (lot_with(r#", "arrival": {"a": 1, "a": 2}, "a": 1, "a": 2"#), "invalid_body a"),
        (r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01"}, {"starts_on": "2026-02-01", "starts_on": "2026-02-02", "ends_on": "2026-02-03"}]}"#.to_string(), "invalid_body+ blocked_periods[1].starts_on"),
        (r#"{"blocked_periods": [], "blocked_periods": []}"#.to_string(), "invalid_body blocked_periods"),
        (r#"{"blocked_periods": [1, {}, {"reason": "x"}, "\":\":", {"starts_on": "2026-01-01"}, {"reason": "a", "reason": "b"}]}"#.to_string(), "invalid_body+ blocked_periods[5].reason"),
        (r#"{"blocked_periods": [{"reason": "a", "\u0072eason": "b"}]}"#.to_string(), "invalid_body+ blocked_periods[0].reason"),
        (r#"{"blocked_periods": [{"x": {"a": 1, "a": 2}}]}"#.to_string(), "invalid_body+ blocked_periods"),
        (r#"{"blocked_periods": [[{"a": 1, "a": 2}]]}"#.to_string(), "invalid_body+ blocked_periods"),
        (r#"{"blocked_periods": [{"x": {"a": 1, "a": 2}, "r": 1, "r": 2}]}"#.to_string(), "invalid_body+ blocked_periods[0].r"),
        (r#"{"fixed_price": "10.00", "fixed_price": "11.00"}"#.to_string(), "invalid_body fixed_price"),
        // an array or scalar body is not looked at for repetitions (its shape is refused)
        (r#"[{"a": 1, "a": 2}]"#.to_string(), "accepted"),
    ];
    for (body, expected) in cases {
        assert_eq!(answer(&body), expected, "{body}");
    }
}

#[test]
fn the_first_of_thousands_of_objects_repeating_a_key_is_named() {
    let entries = |count: usize, at: &[usize], entry: &str| {
        let list: Vec<String> = (0..count)
            .map(|i| {
                if at.contains(&i) {
                    entry.to_string()
                } else {
                    r#"{"starts_on": "2026-01-01", "ends_on": "2026-01-02"}"#.to_string()
                }
            })
            .collect();
        format!(r#"{{"blocked_periods": [{}]}}"#, list.join(", "))
    };
    assert_eq!(
        answer(&entries(900, &[899], r#"{"reason": "a", "reason": "b"}"#)),
        "invalid_body+ blocked_periods[899].reason"
    );
    assert_eq!(
        answer(&entries(900, &[517, 13], r#"{"reason": "a", "reason": "b"}"#)),
        "invalid_body+ blocked_periods[13].reason"
    );
    assert_eq!(answer(&entries(900, &[700], r#"{"x": {"a": 1, "a": 2}}"#)), "invalid_body+ blocked_periods");
    let many: Vec<String> = (1..=2000).map(|i| format!(r#""k{i}": {{"a": {i}}}"#)).collect();
    assert_eq!(
        answer(&lot_with(&format!(r#", "arrival": {{{}, "kz": {{"a": 1, "a": 2}}}}"#, many.join(", ")))),
        "invalid_body+ arrival"
    );
    let empties = format!(
        r#"{{"blocked_periods": [{}{{"reason": "a", "reason": "b"}}, {{"reason": "c", "reason": "d"}}]}}"#,
        "{}, ".repeat(1000)
    );
    assert_eq!(answer(&empties), "invalid_body+ blocked_periods[1000].reason");
}

#[test]
fn tokens_jsonb_cannot_hold_name_the_top_level_member() {
    let cases = [
        (r#"{"a": 1, "city": "x\u0000y"}"#, "invalid_body city"),
        (r#"{"arrival": {"note": ["\u0000"]}}"#, "invalid_body arrival"),
        (r#"{"arrival": {"n\u0000": 1}}"#, "invalid_body arrival"),
        (r#"{"a\u0000": 1}"#, "invalid_body -"),
        (r#"{"city": "\ud800"}"#, "invalid_body city"),
        (r#"{"city": "\udc00"}"#, "invalid_body city"),
        (r#"{"city": "\ud800\u0041"}"#, "invalid_body city"),
        (r#"{"city": "\ud800\ud800\udc00"}"#, "invalid_body city"),
        (r#"{"city": "\ud800x"}"#, "invalid_body city"),
        (r#"{"city": "\ud800\n"}"#, "invalid_body city"),
        (r#"{"city": "\ud83d\ude00"}"#, "accepted"),
        (r#"{"fixed_price": 1e1000000}"#, "invalid_body fixed_price"),
        (r#"{"x": 1e25, "fixed_price": 1e1000000}"#, "invalid_body fixed_price"),
        (r#"{"x": {"a": 1, "a": 2}, "y": "\u0000"}"#, "invalid_body y"),
        (r#"{"a": 1, "a": "\u0000"}"#, "invalid_body a"),
        (r#"["\u0000"]"#, "invalid_body -"),
        (r#""\u0000""#, "invalid_body -"),
        ("1e1000000", "invalid_body -"),
    ];
    for (body, expected) in cases {
        assert_eq!(answer(body), expected, "{body}");
    }
}

#[test]
fn numbers_are_held_as_postgresql_15_numeric_holds_them() {
    let held = |text: &str| answer(&format!("[{text}]")) == "accepted";
    // checked against PostgreSQL 15.18: SELECT '<text>'::jsonb
    for text in ["1e5000", "1e131071", "1e-16383", "0e1000000", "0e-16383", "-0", "9e131071", "0.0001e131075"] {
        assert!(held(text), "{text}");
    }
    for text in [
        "1e131072",
        "1e-16384",
        "1e-1000000",
        "0e-1000000",
        "0e-16384",
        "1e99999999999999999999",
        "0e1073741823",
        "0e-1073741823",
    ] {
        assert!(!held(text), "{text}");
    }
    assert!(held(&format!("0.{}", "0".repeat(16383))));
    assert!(!held(&format!("0.{}", "0".repeat(16384))));
    assert!(held(&format!("0.{}1", "0".repeat(16382))));
    assert!(!held(&format!("0.{}1", "0".repeat(16383))));
    assert!(held(&format!("1{}", "0".repeat(60000))));
    assert!(held(&format!("1.{}e20", "1".repeat(16403))));
    assert!(!held(&format!("1.{}e20", "1".repeat(16404))));
}

#[test]
fn an_exponent_beyond_20_names_the_first_member_holding_one() {
    let cases = [
        (lot_with(r#", "latitude": 1e21, "longitude": 0"#), "invalid_body latitude"),
        (lot_with(r#", "latitude": 1e20, "longitude": 0"#), "accepted"),
        (lot_with(r#", "latitude": 4.5e-05, "longitude": 1.2246467991473532e-16"#), "accepted"),
        (lot_with(r#", "arrival": {"entrance": "North", "n": 1e-21}"#), "invalid_body arrival"),
        (lot_with(r#", "arrival": {"entrance": "North", "n": 1E+0021}"#), "invalid_body arrival"),
        (lot_with(r#", "arrival": {"entrance": "North", "n": 2.5e0020}"#), "accepted"),
        (lot_with(r#", "arrival": {"entrance": "Gate E21 by 1e999 \"1e999\""}"#), "accepted"),
        (
            lot_with(r#", "city": "a \"1e21\" b", "arrival": {"note": "ref 0f7e29c1", "1e99": "x\\", "n": 3e25}"#),
            "invalid_body arrival",
        ),
        (lot_with(r#", "zz": 5E+100"#), "invalid_body zz"),
        (lot_with(r#", "z1": 7, "z2": [1, 1e-30], "z3": 1e21"#), "invalid_body z2"),
        // before a key given twice, after a token jsonb cannot hold
        (lot_with(r#", "a": {"b": 1, "b": 2}, "c": 1e30"#), "invalid_body c"),
        (lot_with(r#", "c": 1e30, "d": "\u0000""#), "invalid_body d"),
        (
            r#"{"blocked_periods": [{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "n": 1e999}]}"#.to_string(),
            "invalid_body blocked_periods",
        ),
        // an array body is refused for its shape
        ("[1e999]".to_string(), "accepted"),
    ];
    for (body, expected) in cases {
        assert_eq!(answer(&body), expected, "{body}");
    }
    let sixty_three_kb = lot_with(&format!(r#", "zz": [{}]"#, vec!["1e130000"; 7000].join(",")));
    assert_eq!(answer(&sixty_three_kb), "invalid_body zz");
}

#[test]
fn keys_are_named_as_decoded() {
    assert_eq!(answer(r#"{"la\u0074itude": 1e30}"#), "invalid_body latitude");
    assert_eq!(answer(r#"{"caf\u00e9": 1, "café": 2}"#), "invalid_body café");
    assert_eq!(answer(r#"{"m": {"\ud83d\ude00": 1, "😀": 2}}"#), "invalid_body+ m.😀");
}

#[test]
fn the_verdict_the_database_takes() {
    let fault = check(Some(r#"{"a": {"b": 1, "b": 2}}"#)).unwrap();
    assert_eq!(fault.to_json(), serde_json::json!({"error": "invalid_body", "field": "a.b", "nested": true}));
    assert_eq!(check(Some("{")).unwrap().to_json(), serde_json::json!({"error": "invalid_json", "nested": false}));
}

#[test]
fn a_string_run_ends_at_the_first_quote_backslash_or_control_character_wherever_it_lies() {
    let byte_by_byte = |bytes: &[u8]| {
        bytes.iter().position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20).unwrap_or(bytes.len())
    };
    // every stop byte, and bytes either side of the classes (0x1f/0x20, 0x21-0x23, 0x5b-0x5d, 0x7f, 0x80,
    // 0xff: what a borrow or a high bit could mistake), at every offset of runs of 0 to 40 bytes
    let stops = [b'"', b'\\', 0x00, 0x01, 0x0a, 0x1f];
    let fillers = [b'a', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xc3, 0xff];
    for filler in fillers {
        for length in 0..40 {
            let plain = vec![filler; length];
            assert_eq!(plain_bytes(&plain), length, "{filler:#x} × {length}");
            for stop in stops {
                for at in 0..length {
                    let mut bytes = plain.clone();
                    bytes[at] = stop;
                    assert_eq!(plain_bytes(&bytes), byte_by_byte(&bytes), "{filler:#x} × {length}, {stop:#x} at {at}");
                }
            }
        }
    }
    // every byte value alone in a word of plain bytes
    for value in 0..=255u8 {
        let mut bytes = [b'x'; 16];
        bytes[5] = value;
        assert_eq!(plain_bytes(&bytes), byte_by_byte(&bytes), "{value:#x}");
    }
}

#[test]
fn the_first_repeated_key_in_byte_order_among_keys_sharing_their_first_8_bytes() {
    let repeated = r#"{"samefirst_b": 1, "samefirst_c": 1, "samefirst_a": 1, "samefirst_c": 2, "samefirst_b": 2, "samefirst_a": 2}"#;
    assert_eq!(answer(repeated), "invalid_body samefirst_a");
    assert_eq!(
        answer(r#"{"samefirst_b": 1, "samefirst_a": 1, "samefirs": 1, "samefirst_b": 2}"#),
        "invalid_body samefirst_b"
    );
    assert_eq!(answer(r#"{"samefirst_b": 1, "samefirst_a": 1, "samefirs": 1, "samefirst": 2}"#), "accepted");
    assert_eq!(answer(r#"{"z": 1, "aaaaaaaab": 1, "aaaaaaaa": 1, "aaaaaaaab": 2, "z": 2}"#), "invalid_body aaaaaaaab");
}

/// How many keys the thread's kept buffers have room for.
fn kept_key_room() -> usize {
    let buffers = BUFFERS.take();
    let room = buffers.keys.capacity();
    BUFFERS.set(buffers);
    room
}

#[test]
fn a_thread_keeps_the_buffers_of_a_body_for_the_next_and_nothing_of_what_they_held() {
    // A body broken off inside a nested object leaves its frames and keys behind in the reader...
    assert_eq!(answer(r#"{"a": {"b": 1, "c": {"d": 1, "#), "invalid_json -");
    // ...which the next body on the thread never sees.
    assert_eq!(answer(r#"{"d": 1, "b": 1}"#), "accepted");
    assert_eq!(answer(r#"{"c": {"d": 1}}"#), "accepted");
    assert_eq!(answer(r#"{"b": 1, "b": 2}"#), "invalid_body b");

    let members: String = (0..5_400).map(|i| format!(r#", "m{i}": 1"#)).collect();
    let many_keys = format!(r#"{{"name": "Kept"{members}}}"#);
    assert!(many_keys.len() <= MAX_BODY_BYTES);
    assert_eq!(answer(&many_keys), "accepted");
    assert!(kept_key_room() >= 5_401, "the keys' room is kept: {}", kept_key_room());

    // A text beyond a body's bound leaves nothing of its size behind.
    BUFFERS.set(Buffers::default());
    let members: String = (0..20_000).map(|i| format!(r#", "m{i}": 1"#)).collect();
    let beyond = format!(r#"{{"name": "Not kept"{members}}}"#);
    assert!(beyond.len() > MAX_BODY_BYTES);
    assert_eq!(answer(&beyond), "accepted");
    assert_eq!(kept_key_room(), 0);
}
