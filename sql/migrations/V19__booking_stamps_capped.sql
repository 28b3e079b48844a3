-- How many booking stamps were capped: a stamp is carried past the operator's latest one only up to
-- the clock plus `bookings_watermark_lag` (app.booking_stamp_change). A sequence, not a table: each
-- capped stamp counts without a row lock between two writers or a row to keep, and the worker reads
-- the count for its metrics (webhook.booking_stamps_capped).
SET LOCAL ROLE ingest_owner;

CREATE SEQUENCE app.booking_stamps_capped AS bigint;

RESET ROLE;
