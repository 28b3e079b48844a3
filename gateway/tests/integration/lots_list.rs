//! GET /lots: keyset paging on external_id in byte order (`after`, `limit` 1-200, default 50,
//! `next_after` the last id when the page is full, else null), each entry the Lot read form plus
//! `rates` (null while the lot has no envelope; `rates.rs` lists one), only the caller's own lots,
//! and the query refusals.

use serde_json::{json, Value};

use crate::common::lots::{form_encode, keys, minimal_lot, minimal_read_form, LOT_KEYS};
use crate::common::{Credential, TestApp, TestResponse};

/// An operator with a read_supply + write_supply credential.
async fn operator(app: &TestApp) -> (crate::common::Operator, Credential) {
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &["read_supply", "write_supply"], None).await;
    (operator, credential)
}

/// Creates the lots (raw path segments; the stored ids are their decoded form).
async fn create(app: &TestApp, credential: &Credential, segments: &[&str]) {
    for segment in segments {
        app.put_lot_expecting(credential, segment, &minimal_lot(&format!("Lot {segment}")), 201).await;
    }
}

/// A 200 page: its ids and next_after; the body has exactly `lots` and `next_after`.
fn page(response: &TestResponse) -> (Vec<String>, Value) {
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.header("content-type"), Some("application/json"));
    let body = response.json();
    assert_eq!(keys(&body), ["lots", "next_after"]);
    let ids = body["lots"]
        .as_array()
        .expect("lots is an array")
        .iter()
        .map(|lot| lot["external_id"].as_str().expect("external_id is a string").to_string())
        .collect();
    (ids, body["next_after"].clone())
}

#[tokio::test]
async fn pages_follow_next_after_visiting_every_lot_once_in_byte_order() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    // Decoded: "0", "B", "Z", "_x", "a", "a/b", "a b", "é" — byte order, not a locale's order
    // (a locale would put "a" before "B" and "é" before "Z").
    create(&app, &credential, &["a", "%C3%A9", "B", "a%2Fb", "_x", "Z", "0", "a%20b"]).await;
    let expected = ["0", "B", "Z", "_x", "a", "a b", "a/b", "é"];

    let (ids, next) = page(&app.list_lots(&credential, "limit=3").await);
    assert_eq!((ids, next.clone()), (vec!["0".to_string(), "B".into(), "Z".into()], json!("Z")));
    let (ids, next) =
        page(&app.list_lots(&credential, &format!("limit=3&after={}", form_encode(next.as_str().unwrap()))).await);
    assert_eq!((ids, next.clone()), (vec!["_x".to_string(), "a".into(), "a b".into()], json!("a b")));
    let (ids, next) =
        page(&app.list_lots(&credential, &format!("limit=3&after={}", form_encode(next.as_str().unwrap()))).await);
    assert_eq!((ids, next), (vec!["a/b".to_string(), "é".into()], Value::Null));

    // Every page size visits every lot exactly once, in order.
    for limit in 1..=9 {
        let mut visited = Vec::new();
        let mut query = format!("limit={limit}");
        loop {
            let (ids, next) = page(&app.list_lots(&credential, &query).await);
            assert!(ids.len() <= limit);
            visited.extend(ids.iter().cloned());
            match next.as_str() {
                Some(next) => {
                    assert_eq!(ids.len(), limit, "next_after only on a full page");
                    assert_eq!(Some(next), ids.last().map(String::as_str), "next_after is the page's last id");
                    query = format!("limit={limit}&after={}", form_encode(next));
                }
                None => {
                    assert!(ids.len() < limit, "a full page always carries next_after (limit {limit})");
                    break;
                }
            }
        }
        assert_eq!(visited, expected, "limit {limit}");
    }
}

#[tokio::test]
async fn a_full_last_page_carries_next_after_and_the_page_after_it_is_empty() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    create(&app, &credential, &["l1", "l2", "l3", "l4"]).await;

    let (ids, next) = page(&app.list_lots(&credential, "limit=2&after=l2").await);
    assert_eq!((ids, next), (vec!["l3".to_string(), "l4".into()], json!("l4")));
    let (ids, next) = page(&app.list_lots(&credential, "limit=2&after=l4").await);
    assert_eq!((ids, next), (Vec::<String>::new(), Value::Null));
    // after need not be an existing id: paging is on the key, not on a row.
    let (ids, next) = page(&app.list_lots(&credential, "after=l20").await);
    assert_eq!((ids, next), (vec!["l3".to_string(), "l4".into()], Value::Null));
    let (ids, _) = page(&app.list_lots(&credential, "after=zzz").await);
    assert!(ids.is_empty());
}

#[tokio::test]
async fn the_default_page_is_50_lots() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    let segments: Vec<String> = (0..51).map(|i| format!("lot-{i:02}")).collect();
    // Written concurrently (tasks of their own), to keep the test short.
    let mut writes = tokio::task::JoinSet::new();
    for segment in segments.clone() {
        let (http, credential) = (app.http(), credential.clone());
        writes.spawn(async move { http.put_lot_query(&credential, &segment, "", &minimal_lot("Lot")).await.status });
    }
    while let Some(status) = writes.join_next().await {
        assert_eq!(status.expect("a write task"), 201);
    }

    let (ids, next) = page(&app.list_lots(&credential, "").await);
    assert_eq!(ids, segments[..50]);
    assert_eq!(next, json!("lot-49"));
    let (ids, next) = page(&app.list_lots(&credential, "after=lot-49").await);
    assert_eq!((ids, next), (vec!["lot-50".to_string()], Value::Null));
    let (ids, next) = page(&app.list_lots(&credential, "limit=200").await);
    assert_eq!((ids, next), (segments.clone(), Value::Null));
    let (ids, next) = page(&app.list_lots(&credential, "limit=51").await);
    assert_eq!((ids, next), (segments.clone(), json!("lot-50")));
}

#[tokio::test]
async fn each_entry_is_the_read_form_plus_rates_null() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator(&app).await;
    let full = app.put_lot_expecting(&credential, "full", &crate::common::lots::full_lot(&operator), 201).await;
    app.put_lot_expecting(&credential, "bare", &minimal_lot("Bare"), 201).await;

    let response = app.list_lots(&credential, "").await;
    let body = response.json();
    let lots = body["lots"].as_array().unwrap();
    assert_eq!(lots.len(), 2);
    let mut with_rates: Vec<String> = LOT_KEYS.iter().map(|k| k.to_string()).collect();
    with_rates.push("rates".into());
    with_rates.sort();
    for lot in lots {
        assert_eq!(keys(lot), with_rates, "{lot}");
        assert_eq!(lot["rates"], Value::Null);
    }
    let mut bare = minimal_read_form("bare", "Bare");
    bare["rates"] = Value::Null;
    assert_eq!(lots[0], bare);
    let mut full_entry = full["lot"].clone();
    full_entry["rates"] = Value::Null;
    assert_eq!(lots[1], full_entry);
    assert_eq!(body["next_after"], Value::Null);
}

#[tokio::test]
async fn another_operators_lots_are_never_listed_even_under_the_same_ids() {
    let app = TestApp::spawn().await;
    let (_mine, me) = operator(&app).await;
    let (_theirs, them) = operator(&app).await;
    create(&app, &me, &["shared", "mine-only"]).await;
    // The same id is a different lot for another operator: created, not updated.
    create(&app, &them, &["shared", "theirs-only", "a-first"]).await;

    assert_eq!(app.lot_ids(&me).await, ["mine-only", "shared"]);
    assert_eq!(app.lot_ids(&them).await, ["a-first", "shared", "theirs-only"]);
    let mine = app.listed_lot(&me, "shared").await.unwrap();
    assert_eq!(mine["name"], "Lot shared");
    // Paging after another operator's id only pages over one's own.
    let (ids, next) = page(&app.list_lots(&me, "after=a-first&limit=1").await);
    assert_eq!((ids, next), (vec!["mine-only".to_string()], json!("mine-only")));
    // A new operator has none.
    let (_empty, nobody) = operator(&app).await;
    let (ids, next) = page(&app.list_lots(&nobody, "").await);
    assert_eq!((ids, next), (Vec::<String>::new(), Value::Null));
}

#[tokio::test]
async fn limit_is_1_to_200_in_plain_digits_and_anything_else_answers_invalid_query() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    create(&app, &credential, &["only"]).await;
    for good in ["limit=1", "limit=200", "limit=50"] {
        assert_eq!(app.list_lots(&credential, good).await.status, 200, "{good}");
    }
    for bad in [
        "limit=201",
        "limit=0",
        "limit=-1",
        "limit=05",
        "limit=abc",
        "limit=",
        "limit",
        "limit=+5",
        "limit=5.0",
        "limit=1e2",
        "limit=%205",
        "limit=99999999999999999999",
        "limit=5&limit=5",
    ] {
        app.list_lots(&credential, bad).await.assert_error(422, "invalid_query", Some("limit"));
    }
}

#[tokio::test]
async fn after_is_1_to_200_characters_and_anything_else_answers_invalid_query() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    create(&app, &credential, &["only"]).await;
    let longest = "é".repeat(200);
    for good in
        ["after=a".to_string(), format!("after={}", form_encode(&longest)), format!("after={}", "x".repeat(200))]
    {
        assert_eq!(app.list_lots(&credential, &good).await.status, 200, "{good}");
    }
    for bad in [
        "after=".to_string(),
        "after".to_string(),
        format!("after={}", "x".repeat(201)),
        format!("after={}", form_encode(&"é".repeat(201))),
        "after=a%00b".to_string(),
        "after=%00".to_string(),
        "after=a&after=b".to_string(),
    ] {
        app.list_lots(&credential, &bad).await.assert_error(422, "invalid_query", Some("after"));
    }
}

#[tokio::test]
async fn an_unknown_query_parameter_answers_invalid_query_naming_it() {
    let app = TestApp::spawn().await;
    let (_operator, credential) = operator(&app).await;
    for (query, field) in [
        ("foo=1", "foo"),
        ("dry_run=true", "dry_run"),
        ("since=x", "since"),
        ("limit=5&offset=5", "offset"),
        ("Limit=5", "Limit"),
    ] {
        app.list_lots(&credential, query).await.assert_error(422, "invalid_query", Some(field));
    }
}

#[tokio::test]
async fn the_query_is_checked_before_the_credential_and_read_supply_is_required() {
    let app = TestApp::spawn().await;
    let (operator, credential) = operator(&app).await;
    create(&app, &credential, &["only"]).await;
    app.get("/v1/lots?limit=0", &[]).await.assert_error(422, "invalid_query", Some("limit"));
    app.get("/v1/lots?foo=1", &[("authorization", "Bearer nodot")]).await.assert_error(
        422,
        "invalid_query",
        Some("foo"),
    );
    app.get("/v1/lots?after=%00", &[]).await.assert_error(422, "invalid_query", Some("after"));
    app.get("/v1/lots", &[]).await.assert_error(401, "unauthorized", None);

    let writer = app.issue(&operator, &["write_supply", "read_bookings"], None).await;
    let response = app.list_lots(&writer, "").await;
    assert_eq!(&response.body[..], br#"{"error":"unauthorized"}"#);
    assert_eq!(response.status, 401);
    assert_eq!(response.header("www-authenticate"), Some("Bearer"));
    let reader = app.issue(&operator, &["read_supply"], None).await;
    let (ids, _) = page(&app.list_lots(&reader, "").await);
    assert_eq!(ids, ["only"]);
}

#[tokio::test]
async fn an_after_with_a_malformed_escape_is_invalid_query() {
    let app = TestApp::spawn().await;
    let operator = app.make_operator().await;
    let credential = app.issue(&operator, &["read_supply"], None).await;
    for query in ["after=%ZZ", "after=a%2", "after=%E2%82"] {
        let response = app.list_lots(&credential, query).await;
        response.assert_error(422, "invalid_query", Some("after"));
    }
}
