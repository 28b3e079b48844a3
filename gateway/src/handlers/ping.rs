//! GET /ping: any valid credential; answers ok, key_id, scopes, server_time.

use crate::db::{Answer, Database};
use crate::errors::ApiError;

pub async fn get(db: &Database, authorization: Option<&str>) -> Result<Answer, ApiError> {
    db.call("SELECT status, body::text FROM api.ping($1)", &[&authorization]).await
}
