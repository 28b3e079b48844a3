//! The floor the gateway's architecture cannot beat, for `make bench`: hyper over
//! tokio-postgres with a pool of the gateway's size and queue order (last in, first out), and per
//! request the route's one call — the gateway's own SQL, read off its route table — prepared once
//! per connection, its status and body sent back as they come. No authentication parsing, rate
//! limits, query rules, metrics, logs or timeouts; a refusal (SQLSTATE PTnnn) answers status nnn
//! with its code alone.
//!
//! The call's arguments, bound in the order the route table declares them by the gateway's own
//! binder (`gateway::calls`): the Authorization header; a page's text parameter (any query
//! parameter but `limit`, as sent: the bench's need no decoding) and limit; the lot id of the path;
//! a write's body text, `dry_run` false and the body's JSON syntax fault. The fault is the gateway's own reading (`json_syntax::check`), because it is one of the
//! call's arguments: the database does different work for a body that arrives with its fault named
//! (it refuses it after the credential check) than for one that arrives without (it reads it as
//! jsonb), so a floor that left it out would not be making the same call. What that reading costs
//! the gateway is measured on its own, on the gateway's clocks (bench/RESULTS.md, "One connection").
//!
//!   DATABASE_URL=postgres://… LISTEN_ADDR=127.0.0.1:18082 POOL_SIZE=64 bench-passthrough

use std::convert::Infallible;
use std::env;

use bytes::Bytes;
use deadpool_postgres::{Manager, ManagerConfig, Pool, QueueMode, RecyclingMethod};
use gateway::calls::{Arg, Values};
use gateway::routes::match_path;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

fn setting(name: &str) -> String {
    env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

#[tokio::main]
async fn main() {
    let config: tokio_postgres::Config = setting("DATABASE_URL").parse().expect("DATABASE_URL");
    let recycling = ManagerConfig { recycling_method: RecyclingMethod::Fast };
    let manager = Manager::from_config(config, tokio_postgres::NoTls, recycling);
    let pool_size = setting("POOL_SIZE").parse().expect("POOL_SIZE");
    // Last in, first out, like the gateway's pool: a light load keeps to a few warm backends.
    let pool = Pool::builder(manager).max_size(pool_size).queue_mode(QueueMode::Lifo).build().expect("pool");
    let listener = TcpListener::bind(setting("LISTEN_ADDR")).await.expect("LISTEN_ADDR");
    loop {
        let (stream, _) = listener.accept().await.expect("accept");
        let _ = stream.set_nodelay(true);
        let pool = pool.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| answer(pool.clone(), request));
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(pool: Pool, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = request.into_parts();
    let Some(matched) = match_path("/v1", parts.uri.path()) else {
        return Ok(status_only(StatusCode::NOT_FOUND));
    };
    let Some(operation) = matched.route.operation(&parts.method) else {
        return Ok(status_only(StatusCode::METHOD_NOT_ALLOWED));
    };
    let body = body.collect().await.map(|body| body.to_bytes()).unwrap_or_default();
    // (as the gateway reads it: no text when not UTF-8 or holding a NUL)
    let body = std::str::from_utf8(&body).ok().filter(|text| !text.contains('\0'));
    let authorization = parts.headers.get("authorization").and_then(|value| value.to_str().ok());
    let lot = matched.external_id.as_deref();
    let (mut text, mut limit) = (None::<&str>, None::<i32>);
    for (name, value) in parts.uri.query().unwrap_or("").split('&').filter_map(|pair| pair.split_once('=')) {
        match name {
            "limit" => limit = value.parse().ok(),
            _ => text = Some(value),
        }
    }
    // (no connection or no statement: 503 for the request, never a panic of the connection's task)
    let Ok(client) = pool.get().await else { return Ok(status_only(StatusCode::SERVICE_UNAVAILABLE)) };
    let Ok(statement) = client.prepare_cached(gateway::routes::statement(&operation.call)).await else {
        return Ok(status_only(StatusCode::SERVICE_UNAVAILABLE));
    };
    let values = Values {
        authorization,
        external_id: lot,
        text,
        limit,
        body,
        // (read only for the calls that take it, as the gateway does)
        body_fault: operation
            .call
            .takes(Arg::BodyFault)
            .then(|| gateway::json_syntax::check(body).map(|fault| fault.to_json()))
            .flatten(),
        ..Values::default()
    };
    let row = client.query_one(&statement, &operation.call.bind(&values)).await;
    // A refusal (SQLSTATE PTnnn) answers nnn with its code; the gateway's error table does more.
    let (status, body) = match row {
        // the row read as the gateway reads it: its body lent, not copied
        Ok(row) => match gateway::db::answer(row) {
            Ok(answer) => (answer.status, answer.body),
            Err(_) => (500, Bytes::from_static(b"{\"error\": \"internal\"}")),
        },
        Err(error) => match error.as_db_error().filter(|db| db.code().code().starts_with("PT")) {
            Some(db) => (
                db.code().code()[2..].parse().unwrap_or(500),
                Bytes::from(serde_json::json!({ "error": db.message() }).to_string()),
            ),
            None => (500, Bytes::from_static(b"{\"error\": \"internal\"}")),
        },
    };
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response.headers_mut().insert("content-type", hyper::header::HeaderValue::from_static("application/json"));
    Ok(response)
}

fn status_only(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}
