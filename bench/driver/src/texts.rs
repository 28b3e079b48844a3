//! The request bodies of just under 64 KiB, made as text: `make bench` sends them through the
//! gateway, and `cargo bench -p gateway --bench hot_paths -- json_syntax` reads the same texts
//! with the gateway's JSON syntax check alone.

use std::fmt::Write;

use crate::scenarios::Body;

/// The bodies made here rather than read from the database.
pub const MADE: [Body; 6] = [
    Body::RefusedNulLast,
    Body::RefusedExponents,
    Body::RefusedRepeatedKey,
    Body::RefusedTinyArrays,
    Body::RefusedTopLevelKey,
    Body::ReadNumbers,
];

/// A body of [`MADE`]: just under 64 KiB, each a shape that was slow to read somewhere.
pub fn made(body: Body) -> String {
    let mut text = String::new();
    let many = |text: &mut String, n: usize, item: &dyn Fn(usize) -> String| {
        for i in 0..n {
            text.push_str(&item(i));
        }
    };
    match body {
        // The last member holds what jsonb cannot hold: 422 invalid_body naming it, found only
        // at the end of the body.
        Body::RefusedNulLast => {
            text.push_str(r#"{"name": "Refused", "arrival": {"#);
            many(&mut text, 3700, &|i| format!(r#"{}"k{i}": "v{i}""#, if i > 0 { ", " } else { "" }));
            text.push_str(r#"}, "zz": "\u0000"}"#);
        }
        // Numbers PostgreSQL writes out in full (1e1000: 1 001 digits each).
        Body::RefusedExponents => {
            text.push_str(r#"{"name": "Refused", "zz": ["#);
            many(&mut text, 9000, &|i| format!("{}1e1000", if i > 0 { "," } else { "" }));
            text.push_str("]}");
        }
        // A key given twice in the last of 6 500 objects.
        Body::RefusedRepeatedKey => {
            text.push_str(r#"{"name": "Refused", "zz": ["#);
            many(&mut text, 6500, &|_| r#"{"a": 1}, "#.to_string());
            text.push_str(r#"{"a": 1, "a": 2}]}"#);
        }
        // 16 000 tiny arrays, then an object repeating a key.
        Body::RefusedTinyArrays => {
            text.push_str(r#"{"name": "Refused", "zz": ["#);
            many(&mut text, 16000, &|_| "[1],".to_string());
            text.push_str(r#"{"a": 1, "a": 2}]}"#);
        }
        // 5 400 top-level members whose first key is given again last.
        Body::RefusedTopLevelKey => {
            text.push_str(r#"{"name": "Refused""#);
            many(&mut text, 5400, &|i| format!(r#", "m{i}": 1"#));
            text.push_str(r#", "m0": 2}"#);
        }
        // Sound JSON, read whole: 32 000 small numbers, the densest text to read; the lot rules
        // then refuse the unknown key (422 unknown_field).
        Body::ReadNumbers => {
            text.push_str(r#"{"name": "Read", "zz": ["#);
            for i in 0..32000 {
                let _ = write!(text, "{}{}", if i > 0 { "," } else { "" }, i % 10);
            }
            text.push_str("]}");
        }
        other => unreachable!("{other:?} is read from the database"),
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_made_bodies_are_just_under_64_kib_and_end_as_each_must() {
        for body in MADE {
            let text = made(body);
            assert!((48 * 1024..64 * 1024).contains(&text.len()), "{body:?}: {} bytes", text.len());
        }
        assert!(made(Body::RefusedNulLast).ends_with(r#""k3699": "v3699"}, "zz": "\u0000"}"#));
        assert!(made(Body::RefusedTopLevelKey).ends_with(r#", "m5399": 1, "m0": 2}"#));
        assert!(serde_json::from_str::<serde_json::Value>(&made(Body::ReadNumbers)).is_ok());
    }
}
