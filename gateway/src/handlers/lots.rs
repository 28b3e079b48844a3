//! GET /lots (read_supply). Its PUT is one of the write routes (`writes`).

use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::query::Params;

/// GET /lots page size: 1-200, default 50.
const PAGE_DEFAULT: i32 = 50;
const PAGE_MAX: i32 = 200;

pub async fn list(db: &Database, authorization: Option<&str>, params: &Params) -> Result<Answer, ApiError> {
    let after = params.text("after", 200)?;
    let limit = params.limit(PAGE_DEFAULT, PAGE_MAX)?;
    db.call("SELECT status, body::text FROM api.lots_get($1, $2, $3)", &[&authorization, &after, &limit])
        .await
}
