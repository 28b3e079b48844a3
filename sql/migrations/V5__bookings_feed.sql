-- The bookings feed: the cursor key, the watermark lag, and the index a page is read from.
SET LOCAL ROLE ingest_owner;

INSERT INTO app.server_secrets (name, value) VALUES ('cursor_key', extensions.gen_random_bytes(32));

-- Server settings a DBA may tune (owner-only, like every app table).
CREATE TABLE app.settings (
    name  text PRIMARY KEY,
    value text NOT NULL
);
-- The bookings cursor never passes now() minus this lag (and never passes the start of the oldest
-- open transaction that writes bookings): rows newer than that are delivered but not committed to.
INSERT INTO app.settings (name, value) VALUES ('bookings_watermark_lag', '5 minutes');

-- A page is one range scan: the operator's bookings in (changed_at, reference) order.
CREATE INDEX bookings_feed_idx ON app.bookings (operator_id, changed_at, reference);

RESET ROLE;
