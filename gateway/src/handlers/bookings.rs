//! GET /bookings (read_bookings): the bookings feed. `since` is the previous answer's `next` (an
//! opaque token; absent or empty: from the beginning), `limit` 1-500 (default 200).

use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::query::Params;

const PAGE_DEFAULT: i32 = 200;
const PAGE_MAX: i32 = 500;
const SINCE_MAX_CHARS: usize = 512;

pub async fn list(db: &Database, authorization: Option<&str>, params: &Params) -> Result<Answer, ApiError> {
    let since = params.optional_text("since", SINCE_MAX_CHARS)?;
    let limit = params.limit(PAGE_DEFAULT, PAGE_MAX)?;
    db.call("SELECT status, body::text FROM api.bookings_get($1, $2, $3)", &[&authorization, &since, &limit])
        .await
}
