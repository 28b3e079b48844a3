-- How many booking stamps the database has capped since it was made (app.booking_stamp_change: a
-- stamp ahead of the clock, or a clock behind the server that wrote the operator's latest stamp),
-- read with the backlog for the worker's metrics (ingest_booking_stamps_capped). A count only.
-- SECURITY DEFINER: the sequence is the owner's alone.
CREATE OR REPLACE FUNCTION webhook.booking_stamps_capped()
RETURNS bigint
SECURITY DEFINER
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END FROM app.booking_stamps_capped AS s;
$$;
REVOKE ALL ON FUNCTION webhook.booking_stamps_capped() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook.booking_stamps_capped() TO webhook_worker;
