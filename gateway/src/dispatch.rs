//! One request, from arrival to answer, in the order of checks DESIGN §5 fixes: route (404),
//! verb (405, OPTIONS), query syntax (422 `invalid_query`), then the route's single database call.
//! Every answer gets a fresh `X-Request-Id`, and every request writes one log line.

use std::sync::Arc;
use std::time::Instant;

use http::header::HeaderValue;
use http::{Method, Request, Response, StatusCode};

use crate::config::Config;
use crate::credential::presented_key_id;
use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::handlers;
use crate::query;
use crate::response::{self, Body, REQUEST_ID};
use crate::routes::{self, Route};
use crate::telemetry::{LogSink, RequestLine};

pub struct AppState {
    pub config: Config,
    pub db: Database,
    pub log: LogSink,
}

pub async fn handle<B>(state: Arc<AppState>, request: Request<B>) -> Response<Body> {
    let started = Instant::now();
    let request_id = uuid::Uuid::new_v4().to_string();
    let (parts, _body) = request.into_parts();
    let route = routes::match_path(&state.config.base_path, parts.uri.path());

    let (mut response, cause) = match answer(&state, route, &parts).await {
        Ok(response) => (response, None),
        Err(error) => (response::error(&error), error.cause),
    };
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }

    let line = RequestLine {
        request_id: &request_id,
        key_id: presented_key_id(handlers::authorization(&parts)),
        method: parts.method.as_str(),
        route: route.map(Route::template),
        status: response.status().as_u16(),
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        cause: cause.as_deref(),
    };
    state.log.write(line.to_json());
    response
}

async fn answer(
    state: &AppState,
    route: Option<Route>,
    parts: &http::request::Parts,
) -> Result<Response<Body>, ApiError> {
    let route = route.ok_or_else(ApiError::not_found)?;
    if parts.method == Method::OPTIONS {
        return Ok(response::options(route.allow()));
    }
    if !route.methods().contains(&parts.method) {
        return Ok(response::method_not_allowed(route.allow()));
    }
    let _params = query::parse(parts.uri.query(), route.query_parameters())?;
    let authorization = handlers::authorization(parts);
    let answer = match route {
        Route::Ping => handlers::ping::get(&state.db, authorization).await?,
    };
    Ok(from_answer(answer))
}

fn from_answer(answer: Answer) -> Response<Body> {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response::json(status, answer.body)
}
