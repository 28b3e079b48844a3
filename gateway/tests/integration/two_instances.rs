//! Two gateway instances on one database, as a deployment runs them behind a balancer
//! (docs/operating.md, "More instances"): two listeners, each with its webhook worker inside
//! (`ingest serve`'s default), wired to the webhook tests' receiver. Every hint is delivered, none
//! twice by the two workers, and each instance's `/metrics` counts its own requests and its own
//! worker's attempts.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::common::webhooks::{loopback_is_public, wired_worker, FixedResolver, Receiver, TestAuthority};
use crate::common::{create_database, TestApp};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_with_their_workers_deliver_every_hint_once_and_each_counts_only_its_own() {
    let database = create_database(true).await;
    let authority = TestAuthority::new();
    let receiver = Receiver::start(&authority).await;
    let instance = || async {
        let resolver = Arc::new(FixedResolver::default().addresses("hooks.example.test", &["127.0.0.1"]));
        let (worker, attempts) =
            wired_worker(&database, &authority, receiver.addr.port(), resolver, loopback_is_public());
        (TestApp::spawn_with_worker(&database, worker).await, attempts)
    };
    let (first, first_attempts) = instance().await;
    let (second, second_attempts) = instance().await;
    assert_ne!(first.addr, second.addr, "two listeners");

    // Four operators with an armed endpoint; their bookings recorded while both workers sweep.
    let mut references = Vec::new();
    for _ in 0..4 {
        let (operator, _) = first.webhook_operator("https://hooks.example.test/in").await;
        for _ in 0..15 {
            references.push(first.record_hooked_booking(&operator).await);
        }
    }
    for reference in &references {
        first
            .wait_for_hints(reference, Duration::from_secs(30), |hints| hints.iter().all(|h| h.state == "delivered"))
            .await;
    }

    // Each booking's hint reached the receiver once, whichever worker sent it.
    let mut arrivals: BTreeMap<String, usize> = BTreeMap::new();
    for received in receiver.received() {
        *arrivals.entry(received.json()["booking_reference"].as_str().unwrap().to_string()).or_default() += 1;
    }
    references.sort();
    assert_eq!(arrivals.keys().cloned().collect::<Vec<_>>(), references);
    assert!(arrivals.values().all(|&times| times == 1), "one arrival each: {arrivals:?}");

    // Requests: three on the first instance, five on the second; each counts its own.
    let (_, first_credential) = first.operator_with_credential().await;
    for _ in 0..3 {
        assert_eq!(first.ping(Some(&first_credential.bearer())).await.status, 200);
    }
    for _ in 0..5 {
        assert_eq!(second.ping(Some(&first_credential.bearer())).await.status, 200);
    }
    let pings = "ingest_http_requests_total{route=\"/ping\",method=\"GET\",status=\"200\"}";
    assert_eq!(first.metric(pings).await, 3.0);
    assert_eq!(second.metric(pings).await, 5.0);

    // Attempts: each instance's metrics count its own worker's, which add up to the deliveries.
    let (first_made, second_made) = (first_attempts.lock().unwrap().len(), second_attempts.lock().unwrap().len());
    assert_eq!(first_made + second_made, references.len(), "one attempt a hint between the two workers");
    assert_eq!(first.metric("ingest_webhook_attempts_total").await, first_made as f64);
    assert_eq!(second.metric("ingest_webhook_attempts_total").await, second_made as f64);
    first.shutdown().await;
    second.shutdown().await;
}
