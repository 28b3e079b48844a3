//! GET /lots/{external_id}/blocked-periods (read_supply). Its PUT is one of the write routes.

use crate::db::{Answer, Database};
use crate::errors::ApiError;

pub async fn get(db: &Database, authorization: Option<&str>, external_id: Option<&str>) -> Result<Answer, ApiError> {
    db.call(
        "SELECT status, body::text FROM api.lot_blocked_periods_get($1, $2)",
        &[&authorization, &external_id],
    )
    .await
}
