-- What a hot standby needs to serve the bookings feed without skipping a booking (docs/design.md,
-- "The feed on a standby"): on the primary, the moment it looks, then every booking writer lock
-- held at that moment with the earliest writer start each key carries, written in one
-- transaction. The gateway calls it every FEED_PUBLISH_INTERVAL_MS when DATABASE_READ_URL is set;
-- any number of gateways may. Each publication replaces the one in place, even one dated later:
-- every publication is safe on its own, so an older one coming last only makes the watermark more
-- cautious for an interval, while one dated in the future (before the clock stepped back) must not
-- stay and hide the writers opened since. Answers the moment published.
--
-- The moment is read first (the clock before the locks): a booking stamped before it took its
-- writer lock before it too, so at the look its writer was either still open, and is published,
-- or over, and its commit is in the WAL before this publication's.
CREATE OR REPLACE FUNCTION api.bookings_feed_publish()
RETURNS timestamptz
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_looked_at constant timestamptz := clock_timestamp();
    v_published timestamptz;
BEGIN
    UPDATE app.booking_writers_published AS p
       SET published_at = v_looked_at,
           writers = (SELECT coalesce(jsonb_object_agg(w.lock_key, w.started), '{}')
                        FROM (SELECT l.classid::bigint::text AS lock_key, min(l.objid::bigint) AS started
                                FROM pg_catalog.pg_locks AS l
                               WHERE l.locktype = 'advisory'
                                 AND l.database = (SELECT d.oid FROM pg_catalog.pg_database AS d
                                                    WHERE d.datname = current_database())
                                 AND l.objsubid = 2
                                 AND l.granted
                               GROUP BY l.classid) AS w)
    RETURNING p.published_at INTO v_published;
    RETURN v_published;
END
$$;
REVOKE ALL ON FUNCTION api.bookings_feed_publish() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.bookings_feed_publish() TO ingest_gateway;
