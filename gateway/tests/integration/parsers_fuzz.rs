//! Fuzzing on the stable toolchain (proptest): the parsers that read what a client sends — the query
//! string, the path, the Authorization and X-Forwarded-Client headers, Content-Type and
//! Content-Length — never panic, whatever bytes arrive, and what they accept keeps its contract.
//! `make test` runs 2 000 cases per property; `make fuzz` runs 200 000 (`PROPTEST_CASES`).

use std::net::IpAddr;

use http::{HeaderMap, HeaderValue};
use proptest::prelude::*;

use gateway::body;
use gateway::config::cidr_ranges;
use gateway::credential::presented_key_id;
use gateway::errors::echoable;
use gateway::query;
use gateway::routes::{match_path, ROUTES};
use gateway::source::source_address;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Query-string-like text: the characters that matter to the decoder, and anything else.
fn query_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("&".to_string()),
            Just("=".to_string()),
            Just("%".to_string()),
            Just("+".to_string()),
            "[0-9A-Fa-f]{1,2}",
            Just("limit".to_string()),
            Just("since".to_string()),
            Just("dry_run".to_string()),
            Just("after".to_string()),
            any::<char>().prop_map(String::from),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn query_checking_never_panics_and_every_refusal_names_an_echoable_field(raw in query_text()) {
        for spec in ROUTES {
            for operation in spec.operations {
                match query::check(Some(&raw), operation.query) {
                    Ok(checked) => {
                        if let Some(limit) = checked.limit {
                            prop_assert!((1..=500).contains(&limit));
                        }
                    }
                    Err(error) => {
                        prop_assert_eq!(error.code(), "invalid_query");
                        if let Some(field) = &error.field() {
                            prop_assert!(echoable(field));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn path_matching_never_panics_and_a_lot_id_is_1_to_200_characters(path in "(/v1(/lots(/[^/]{0,300}(/rates|/blocked-periods|/x)?)?|/ping|/bookings)?)?[ -~]{0,20}|\\PC{0,300}") {
        if let Some(matched) = match_path("/v1", &path) {
            if let Some(id) = matched.external_id {
                prop_assert!((1..=200).contains(&id.chars().count()) && !id.contains('\0'));
            }
        }
    }

    #[test]
    fn reading_a_presented_key_id_never_panics_and_answers_only_well_formed_ids(header in "\\PC{0,120}|[Bb]earer +pk_api_[0-9a-f]{30,34}\\.[ -~]{0,20}") {
        if let Some(key_id) = presented_key_id(Some(&header)) {
            prop_assert!(key_id.len() == 39 && key_id.starts_with("pk_api_"));
        }
    }

    #[test]
    fn the_forwarded_client_header_never_panics_and_without_a_valid_signature_the_peer_counts(
        header in prop::collection::vec(any::<u8>(), 0..200),
        structured in "ip=[0-9a-f:.]{0,40};ts=[0-9]{0,12};sig=[0-9a-f]{0,70}",
    ) {
        // The peer is an edge peer, so every header is read and checked.
        let peer: IpAddr = "198.51.100.7".parse().unwrap();
        let edge_peers = cidr_ranges("EDGE_PEERS", "198.51.100.0/24").unwrap();
        for bytes in [header.as_slice(), structured.as_bytes()] {
            let source = source_address(peer, [bytes], Some(b"edge secret"), &edge_peers, 1_800_000_000);
            prop_assert_eq!(source, peer);
        }
    }

    #[test]
    fn content_type_and_length_checks_never_panic(value in prop::collection::vec(any::<u8>(), 0..80)) {
        let Ok(value) = HeaderValue::from_bytes(&value) else { return Ok(()) };
        let mut headers = HeaderMap::new();
        headers.insert("content-type", value.clone());
        headers.insert("content-length", value);
        let _ = body::check_content_type(&headers);
        let _ = body::check_length(&headers);
    }
}
