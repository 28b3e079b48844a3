//! The three PUT routes (write_supply): PUT /lots/{external_id}, its /rates and its
//! /blocked-periods. Each is one function call with the same shape: the Authorization value, the
//! decoded lot id (None when it was not 1-200 characters of UTF-8), the raw body text (None when it
//! was not UTF-8 or held a NUL; the database answers invalid_json), and dry_run.

use crate::db::{Answer, Database};
use crate::errors::ApiError;
use crate::routes::Route;

pub async fn put(
    db: &Database,
    route: Route,
    authorization: Option<&str>,
    external_id: Option<&str>,
    body: Option<&str>,
    dry_run: bool,
) -> Result<Answer, ApiError> {
    let sql = match route {
        Route::Lot => "SELECT status, body::text FROM api.lot_put($1, $2, $3, $4)",
        Route::LotRates => "SELECT status, body::text FROM api.lot_rates_put($1, $2, $3, $4)",
        Route::LotBlockedPeriods => "SELECT status, body::text FROM api.lot_blocked_periods_put($1, $2, $3, $4)",
        Route::Ping | Route::Lots | Route::Bookings => return Err(ApiError::method_not_allowed()),
    };
    db.call(sql, &[&authorization, &external_id, &body, &dry_run]).await
}
