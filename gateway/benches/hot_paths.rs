//! Micro-benchmarks of the gateway's pure hot paths, with no network and no database:
//!
//! - `routing`: the path matcher (`routes::match_path`) and the operation lookup, for every route
//!   pattern and for an unknown path (a 404);
//! - `query`: query-string decoding and checking (`query::check`) for GET /lots and GET /bookings,
//!   a typical query and the longest one accepted (every text character a percent-encoded 4-byte
//!   UTF-8 character);
//! - `errors`: a database outcome to its HTTP answer (`errors::refusal` or `Refusal::from_pool`,
//!   then `response::error`: status, error JSON, headers). A non-`PT` SQLSTATE (40001, 23505) is
//!   classified inside `Refusal::from_db`, which needs a server's error, so `try_again` is measured
//!   through a pool timeout, which ends in the same constructor;
//! - `ratelimit`: the all-or-nothing reservation (`RateLimiter::take`) on buckets that exist, and on
//!   a new key each time, in a map below its bound and in one held at the spec's bound of 100 000
//!   buckets (eviction amortised in); one GET's whole admission (`Admission`: the source's bucket,
//!   the credential's, the `RateLimit` headers);
//! - `signature`: the webhook `Service-Signature` header (HMAC-SHA256) of a typical event body;
//! - `json_syntax`: a write body's JSON syntax read once (`json_syntax::check`), for the 64 KiB bodies
//!   of `make bench` (each refused shape, and sound JSON read whole: 32 000 numbers, a lot laid out
//!   with white space, a lot of 16 KiB of arrival compact);
//! - `write_line`: a write's log line read off the report the database answered
//!   (`telemetry::WriteLine::from_report`), for a lot and for a closure list of 100 periods (the
//!   report repeats every period: ~10 KB, of which the line needs a few keys).
//!
//! Run with `cargo bench -p gateway --bench hot_paths` (under a minute on 2 cores); a name filter
//! narrows it, e.g. `cargo bench -p gateway --bench hot_paths -- query/`.

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use deadpool_postgres::{PoolError, TimeoutType};
use gateway::admission::{Admission, Cost};
use gateway::errors::{refusal, Refusal};
use gateway::json_syntax;
use gateway::query;
use gateway::ratelimit::{BucketId, BucketKind, Limits, Rate, RateLimiter, Reservation, Subject};
use gateway::response;
use gateway::routes::{self, Route};
use gateway::telemetry::WriteLine;
use gateway::webhooks::signature;
use http::{HeaderMap, Method, StatusCode};

const BASE: &str = "/v1";

fn routing(c: &mut Criterion) {
    let mut group = c.benchmark_group("routing");
    let cases = [
        ("/ping", Method::GET),
        ("/lots", Method::GET),
        ("/lots/{external_id}", Method::PUT),
        ("/lots/{external_id}/rates", Method::PUT),
        ("/lots/{external_id}/blocked-periods", Method::GET),
        ("/bookings", Method::GET),
    ];
    for (template, method) in cases {
        let path = format!("{BASE}{}", template.replace("{external_id}", "car-park-0042"));
        let matched = routes::match_path(BASE, &path).expect("the route matches");
        assert_eq!(matched.route.template(), template);
        assert!(matched.route.operation(&method).is_some());
        group.bench_with_input(BenchmarkId::from_parameter(format!("{method} {template}")), &path, |b, path| {
            b.iter(|| {
                let matched = routes::match_path(BASE, black_box(path));
                matched.and_then(|m| m.route.operation(black_box(&method)).map(|operation| (m, operation.call)))
            })
        });
    }
    let unknown = format!("{BASE}/lots/car-park-0042/nope");
    assert!(routes::match_path(BASE, &unknown).is_none());
    group.bench_with_input(BenchmarkId::from_parameter("unknown path (404)"), &unknown, |b, path| {
        b.iter(|| routes::match_path(BASE, black_box(path)))
    });
    group.finish();
}

/// `name=` followed by `chars` characters of U+1F600, each percent-encoded (12 bytes a character).
fn longest_text(name: &str, chars: usize) -> String {
    format!("{name}={}", "%F0%9F%98%80".repeat(chars))
}

fn query_parsing(c: &mut Criterion) {
    let mut group = c.benchmark_group("query");
    let lots = Route::Lots.operation(&Method::GET).expect("GET /lots").query;
    let bookings = Route::Bookings.operation(&Method::GET).expect("GET /bookings").query;
    // A cursor as the database makes them: base64url(payload) "." base64url(HMAC-SHA256).
    let cursor = "MjAyNi0xMS0yM1QwNjowMDowMC4xMjM0NTZafEJLMDEyMzQ1Njc4OUFCQ0RFRg.\
                  3q2-7wAAAAC6vbq9urq9ur29ur26vbq9urq9ur29ur0";
    let cases = [
        ("GET /lots typical", "after=car-park-0042&limit=50".to_string(), lots),
        ("GET /lots max length", format!("{}&limit=200", longest_text("after", 200)), lots),
        ("GET /bookings typical", format!("since={cursor}&limit=200"), bookings),
        ("GET /bookings max length", format!("{}&limit=500", longest_text("since", 512)), bookings),
    ];
    for (name, raw, params) in cases {
        let checked = query::check(Some(&raw), params).unwrap_or_else(|error| panic!("{name}: {error:?}"));
        assert!(checked.text.is_some() && checked.limit.is_some(), "{name}");
        group.bench_with_input(BenchmarkId::from_parameter(format!("{name} ({} bytes)", raw.len())), &raw, |b, raw| {
            b.iter(|| query::check(Some(black_box(raw.as_str())), params))
        });
    }
    group.finish();
}

fn error_mapping(c: &mut Criterion) {
    let mut group = c.benchmark_group("errors");
    let with_field = || refusal("PT422", "invalid_blocked_periods", Some("blocked_periods[3].starts_on"));
    let answer = response::error(&with_field().expect("a PT refusal"));
    assert_eq!(answer.status(), StatusCode::UNPROCESSABLE_ENTITY);
    group.bench_function("PT422 refusal with field", |b| {
        b.iter(|| {
            let error = refusal(
                black_box("PT422"),
                black_box("invalid_blocked_periods"),
                black_box(Some("blocked_periods[3].starts_on")),
            );
            response::error(&error.expect("a PT refusal"))
        })
    });
    let timeout = PoolError::Timeout(TimeoutType::Wait);
    assert_eq!(response::error(&Refusal::from_pool(&timeout)).status(), StatusCode::SERVICE_UNAVAILABLE);
    group.bench_function("try_again (pool timeout, 503)", |b| {
        b.iter(|| response::error(&Refusal::from_pool(black_box(&timeout))))
    });
    let prose = "duplicate key value violates unique constraint \"lots_pkey\"";
    let internal = refusal("PT422", prose, None).expect("a PT state");
    assert_eq!(response::error(&internal).status(), StatusCode::INTERNAL_SERVER_ERROR);
    group.bench_function("internal_error (PT state with prose, 500)", |b| {
        b.iter(|| response::error(&refusal(black_box("PT422"), black_box(prose), None).expect("a PT state")))
    });
    group.finish();
}

/// The spec's limits, but with buckets too deep to empty during a run, so every reservation
/// succeeds (the path a request that is not refused takes).
fn bottomless() -> Limits {
    let deep = |rate: Rate| Rate::new(u32::MAX, rate.interval);
    let spec = Limits::spec();
    Limits {
        all_requests: deep(spec.all_requests),
        reads: deep(spec.reads),
        writes_burst: deep(spec.writes_burst),
        writes_hourly: deep(spec.writes_hourly),
        ..spec
    }
}

fn source(n: u32) -> Subject {
    Subject::Source(IpAddr::V4(Ipv4Addr::from(0x0a00_0000u32.wrapping_add(n))))
}

fn rate_limiting(c: &mut Criterion) {
    let mut group = c.benchmark_group("ratelimit");
    let start = Instant::now();
    let credential = Subject::Credential("key_0123456789abcdef".into());

    // Existing buckets in a map that also holds 10 000 other sources' buckets.
    let limiter = RateLimiter::new(bottomless());
    for n in 0..10_000 {
        limiter.take(start, &[(BucketKind::AllRequests, source(n))], &mut Reservation::default()).unwrap();
    }
    let read: Vec<BucketId> = vec![(BucketKind::Reads, credential.clone())];
    let write: Vec<BucketId> =
        vec![(BucketKind::WritesBurst, credential.clone()), (BucketKind::WritesHourly, credential.clone())];
    for (name, ids) in [("existing bucket, read (1 bucket)", &read), ("existing buckets, write (2 buckets)", &write)] {
        limiter.take(start, ids, &mut Reservation::default()).unwrap();
        let mut tick = 0u64;
        group.bench_function(name, |b| {
            b.iter(|| {
                tick += 1;
                let now = start + Duration::from_micros(tick);
                let mut reservation = Reservation::default();
                limiter.take(now, black_box(ids), &mut reservation).expect("never empty");
                reservation
            })
        });
    }

    // A new source address each time, in a map below its bound: fresh maps of up to 50 000 buckets
    // (made and dropped outside the timed part), so no eviction runs; the map's growth is included.
    group.bench_function("new key, map below its bound", |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            let mut done = 0u64;
            while done < iters {
                let chunk = (iters - done).min(50_000) as u32;
                let limiter = RateLimiter::new(Limits::spec());
                let began = Instant::now();
                for n in 0..chunk {
                    let mut reservation = Reservation::default();
                    let id = (BucketKind::AllRequests, source(black_box(n)));
                    limiter.take(start, &[id], &mut reservation).expect("a new bucket is full");
                    black_box(reservation);
                }
                timed += began.elapsed();
                done += u64::from(chunk);
            }
            timed
        })
    });

    // A new source address each time, against the spec's bound of 100 000 buckets (reached during
    // the warm-up): every 10 000th insertion evicts, and its amortised cost is in the figure.
    let limiter = RateLimiter::new(Limits::spec());
    let mut n = 0u32;
    group.bench_function("new key, map at its bound (eviction amortised)", |b| {
        b.iter(|| {
            n = n.wrapping_add(1);
            let now = start + Duration::from_micros(u64::from(n));
            let mut reservation = Reservation::default();
            limiter.take(now, &[(BucketKind::AllRequests, source(n))], &mut reservation).expect("a new bucket is full");
            reservation
        })
    });
    assert!(limiter.held() <= Limits::spec().max_buckets);

    // One GET's admission as dispatch runs it: the source's bucket, the credential's read bucket,
    // then the RateLimit headers of a 200.
    let limiter = RateLimiter::new(bottomless());
    let peer: IpAddr = "192.0.2.10".parse().unwrap();
    group.bench_function("admission of a GET (source + reads + headers)", |b| {
        b.iter(|| {
            let mut admission = Admission::new(Some(&limiter), black_box(peer), Some("key_0123456789abcdef"));
            admission.request().expect("never empty");
            admission.source_may_authenticate().expect("no failed authentication");
            admission.credential(Cost::Read).expect("never empty");
            let mut headers = HeaderMap::new();
            admission.settle(StatusCode::OK, &mut headers);
            headers
        })
    });
    group.finish();
}

fn signing(c: &mut Criterion) {
    let mut group = c.benchmark_group("signature");
    let secret = format!("whsec_{}", "ab".repeat(32));
    let body = br#"{"event":"booking.changed","booking_reference":"BK0123456789ABCDEF","occurred_at":"2026-11-23T06:00:00.123456Z"}"#;
    group.bench_function(format!("Service-Signature of a booking.changed event ({} bytes)", body.len()), |b| {
        b.iter(|| signature::header_value(black_box(&secret), black_box(1_700_000_000), black_box(body)))
    });
    group.finish();
}

/// The 64 KiB bodies of `make bench` (its driver makes the texts), and two lots of 16 KiB of
/// arrival: compact, and laid out with white space to 64 KiB.
fn bodies_of_64_kib() -> Vec<(String, String)> {
    let arrival = (0..180).map(|i| format!(r#""step_{i}": "{}""#, "x".repeat(70))).collect::<Vec<_>>().join(", ");
    let lot = format!(
        r#"{{"name": "Wide lot", "timezone": "Europe/London", "handover": "self", "online_bookable": true, "arrival": {{{arrival}}}}}"#
    );
    let mut bodies: Vec<(String, String)> =
        driver::texts::MADE.iter().map(|&body| (body.file_name().to_string(), driver::texts::made(body))).collect();
    bodies.push(("a lot laid out with white space".into(), lot.replace(", ", &format!(",\n{}", " ".repeat(190)))));
    bodies.push(("a lot with 16 KiB of arrival, compact".into(), lot));
    bodies
}

/// The gateway's JSON syntax check of each 64 KiB body, and beside it serde_json's own reading of
/// the same bytes (syntax only, into a borrowed `RawValue`): the yardstick for its cost per byte.
/// serde_json accepts what the check refuses (a key twice, `\u0000`), so only its time compares.
fn json_syntax_reading(c: &mut Criterion) {
    let mut group = c.benchmark_group("json_syntax");
    for (name, body) in bodies_of_64_kib() {
        assert!(body.len() <= 65_536, "{name}: {} bytes", body.len());
        group.bench_with_input(
            BenchmarkId::new("gateway", format!("{name} ({} bytes)", body.len())),
            &body,
            |b, body| b.iter(|| json_syntax::check(Some(black_box(body)))),
        );
        group.bench_with_input(
            BenchmarkId::new("serde_json", format!("{name} ({} bytes)", body.len())),
            &body,
            |b, body| b.iter(|| serde_json::from_str::<&serde_json::value::RawValue>(black_box(body)).is_ok()),
        );
    }
    group.finish();
}

fn write_lines(c: &mut Criterion) {
    let mut group = c.benchmark_group("write_line");
    let lot = r#"{"lot": {"city": "Paris", "name": "Car park 2", "media": {"heroUrl": "https://img.example/2.jpg"}, "arrival": {"entrance": "Gate 2"}, "capacity": 53, "features": ["cameras", "indoor"], "handover": "self", "latitude": "48.002", "timezone": "Europe/Paris", "longitude": "2.002", "external_id": "lot-000002", "cancellation": null, "country_code": "FR", "max_stay_days": 30, "min_stay_days": 1, "online_bookable": true, "min_advance_days": 0}, "result": "updated", "changed": ["capacity"], "external_id": "lot-000002", "listing_review_superseded": false}"#;
    let periods: Vec<String> = (0..100)
        .map(|i| {
            format!(
                r#"{{"reason": "Works {i}", "ends_on": "2024-{:02}-07", "starts_on": "2024-{:02}-01", "overlapping_bookings": {}}}"#,
                i % 12 + 1,
                i % 12 + 1,
                700 + i
            )
        })
        .collect();
    let closures = format!(
        r#"{{"added": 0, "result": "unchanged", "removed": 0, "external_id": "lot-000001", "blocked_periods": [{}]}}"#,
        periods.join(", ")
    );
    for (name, route, report) in [
        ("lot", "/lots/{external_id}", lot.to_string()),
        ("100 blocked periods", "/lots/{external_id}/blocked-periods", closures),
    ] {
        group.bench_function(format!("{name} ({} bytes)", report.len()), |b| {
            b.iter(|| WriteLine::from_report(black_box("r1"), Some("pk_api_1"), route, black_box(report.as_bytes())))
        });
    }
    group.finish();
}

fn short() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .sample_size(50)
}

criterion_group! {
    name = hot_paths;
    config = short();
    targets = routing, query_parsing, error_mapping, rate_limiting, signing, json_syntax_reading, write_lines
}
criterion_main!(hot_paths);
