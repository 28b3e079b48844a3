//! One request, from arrival to answer, in the order of checks DESIGN §5 fixes: route (404), verb
//! (405, OPTIONS), body size (413) and content type (415) on the write routes, query syntax (422
//! `invalid_query`), then the route's single database call. Every answer gets a fresh
//! `X-Request-Id`; every request writes one log line, and every write a second one.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http::header::HeaderValue;
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};

use crate::body;
use crate::config::Config;
use crate::credential::presented_key_id;
use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::handlers;
use crate::query;
use crate::response::{self, Body, REQUEST_ID};
use crate::routes::{self, Matched, Route};
use crate::telemetry::{LogSink, RequestLine, WriteLine};

pub struct AppState {
    pub config: Config,
    pub db: Database,
    pub log: LogSink,
}

pub async fn handle<B>(state: Arc<AppState>, request: Request<B>) -> Response<Body>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let started = Instant::now();
    let request_id = uuid::Uuid::new_v4().to_string();
    let (parts, body) = request.into_parts();
    let matched = routes::match_path(&state.config.base_path, parts.uri.path());
    let route = matched.as_ref().map(|m| m.route);

    let (mut response, cause, answer_body) = match answer(&state, matched, &parts, body).await {
        Ok((response, answer_body)) => (response, None, answer_body),
        Err(error) => (response::error(&error), error.cause, None),
    };
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }

    let key_id = presented_key_id(handlers::authorization(&parts));
    let line = RequestLine {
        request_id: &request_id,
        key_id,
        method: parts.method.as_str(),
        route: route.map(Route::template),
        status: response.status().as_u16(),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        cause: cause.as_deref(),
    };
    state.log.write(line.to_json());
    if let (Some(route), Some(report)) = (route, answer_body) {
        if let Some(line) = WriteLine::from_report(&request_id, key_id, route.template(), &report) {
            state.log.write(line);
        }
    }
    response
}

/// The response, and for a successful write the report it carries (for the write log line).
async fn answer<B>(
    state: &AppState,
    matched: Option<Matched>,
    parts: &Parts,
    body: B,
) -> Result<(Response<Body>, Option<String>), ApiError>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let Matched { route, external_id } = matched.ok_or_else(ApiError::not_found)?;
    if parts.method == Method::OPTIONS {
        return Ok((response::options(route.allow()), None));
    }
    if !route.methods().contains(&parts.method) {
        return Ok((response::method_not_allowed(route.allow()), None));
    }
    // Every PUT is a write: a JSON body, `dry_run`, and a write log line. 413 (announced, then
    // found while reading) before 415; a body that is not UTF-8 reaches the database as NULL, which
    // refuses it as `invalid_json` after the credential like any other body fault.
    let writes = parts.method == Method::PUT;
    let text = if writes {
        body::check_length(&parts.headers)?;
        let text = body::read(body).await?;
        body::check_content_type(&parts.headers)?;
        text
    } else {
        None
    };
    let params = query::parse(parts.uri.query(), route.query_parameters(&parts.method))?;
    let authorization = handlers::authorization(parts);
    let db: &Database = &state.db;
    let external_id = external_id.as_deref();
    let answer = match (route, writes) {
        (Route::Ping, _) => handlers::ping::get(db, authorization).await?,
        (Route::Lots, _) => handlers::lots::list(db, authorization, &params).await?,
        (Route::Bookings, _) => handlers::bookings::list(db, authorization, &params).await?,
        (Route::LotBlockedPeriods, false) => handlers::blocked_periods::get(db, authorization, external_id).await?,
        (route, true) => {
            let dry_run = params.dry_run()?;
            handlers::writes::put(db, route, authorization, external_id, text.as_deref(), dry_run).await?
        }
        // Checked above: these routes have no other verb than PUT.
        (Route::Lot | Route::LotRates, false) => return Ok((response::method_not_allowed(route.allow()), None)),
    };
    let report = writes.then(|| answer.body.clone());
    Ok((from_answer(answer), report))
}

fn from_answer(answer: Answer) -> Response<Body> {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response::json(status, answer.body)
}
