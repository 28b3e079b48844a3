-- GET /bookings: the operator's bookings from every channel, oldest change first. read_bookings.
-- p_since: the previous answer's `next` (NULL or empty: from the beginning); p_limit 1-500. The
-- query's syntax (limit 1-500, since at most 512 characters) is the gateway's, refused before
-- authentication (DESIGN §5); whether a since is a token of ours is decided here.
--
-- The page is one index range scan after the cursor's position (clamped back to the watermark).
-- `next` is the last row's position, or the watermark if that is earlier; `has_more` is true only
-- when the page is full, `next` advanced to its last row, and rows follow — a page that reached
-- past the watermark answers false, so a client following the polling pattern never spins.
CREATE OR REPLACE FUNCTION api.bookings_get(
    p_authorization text,
    p_since text,
    p_limit integer,
    OUT status integer,
    OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
    v_watermark timestamptz;
    v_from record;
    v_rows jsonb;
    v_count integer;
    v_last_at timestamptz;
    v_last_reference text;
    v_next_at timestamptz;
    v_next_reference text;
BEGIN
    PERFORM app.require_read_committed();
    SELECT * INTO v_caller FROM app.authenticate(p_authorization, 'read_bookings', true);
    v_watermark := app.bookings_watermark(v_caller.operator_id);
    IF coalesce(p_since, '') = '' THEN
        SELECT timestamptz 'epoch' AS changed_at, '' AS reference INTO v_from;
    ELSE
        SELECT * INTO v_from FROM app.cursor_position(v_caller.operator_id, p_since);
        IF v_from.changed_at > v_watermark THEN
            SELECT v_watermark AS changed_at, '' AS reference INTO v_from;  -- clamped back
        END IF;
    END IF;

    -- The page: one range scan of the feed index, then each row's lot by its primary key (a lateral
    -- lookup per row: a plain join estimates too few rows and hashes every lot of the operator). A
    -- Booking as the feed answers it: exactly the spec's keys; money a two-decimal string, stays on
    -- the lot's wall clock (no offset), timestamps UTC with microseconds and Z; unknown values null,
    -- vehicle_plates [] when none. (Built here, in the page's query: a function per row costs more
    -- than the rest of the page.)
    WITH page AS (
        SELECT b.*, row_number() OVER (ORDER BY b.changed_at, b.reference) AS n
          FROM app.bookings AS b
         WHERE b.operator_id = v_caller.operator_id
           AND (b.changed_at, b.reference) > (v_from.changed_at, v_from.reference COLLATE "C")
         ORDER BY b.changed_at, b.reference
         LIMIT p_limit + 1)
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'reference', page.reference,
               'external_reference', page.external_reference,
               'lot_external_id', l.external_id,
               'lot_name', l.name,
               'timezone', l.timezone,
               'check_in_local', to_char(page.check_in_local, 'YYYY-MM-DD"T"HH24:MI:SS'),
               'check_out_local', to_char(page.check_out_local, 'YYYY-MM-DD"T"HH24:MI:SS'),
               'parking_days', page.parking_days,
               'status', page.status,
               'payment_status', page.payment_status,
               'currency', page.currency,
               'total', page.total::text,
               'channel', page.channel,
               'flight_number', page.flight_number,
               'customer', jsonb_build_object(
                   'first_name', page.customer_first_name,
                   'last_name', page.customer_last_name,
                   'email', page.customer_email,
                   'phone', page.customer_phone),
               'vehicle_plates', to_jsonb(page.vehicle_plates),
               'created_at', app.utc_text(page.created_at),
               'cancelled_at', app.utc_text(page.cancelled_at)) ORDER BY page.n) FILTER (WHERE page.n <= p_limit), '[]'),
           count(*),
           (array_agg(page.changed_at ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)],
           (array_agg(page.reference ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)]
      INTO v_rows, v_count, v_last_at, v_last_reference
      FROM page
     CROSS JOIN LATERAL (SELECT x.external_id, x.name, x.timezone
                           FROM app.lots AS x
                          WHERE x.operator_id = page.operator_id AND x.id = page.lot_id
                          LIMIT 1) AS l;

    IF v_count = 0 THEN
        v_next_at := v_from.changed_at;
        v_next_reference := v_from.reference;
    ELSIF v_last_at < v_watermark THEN
        v_next_at := v_last_at;
        v_next_reference := v_last_reference;
    ELSE
        v_next_at := v_watermark;       -- not committed to rows at or past the watermark
        v_next_reference := '';
    END IF;

    status := 200;
    body := jsonb_build_object(
        'bookings', v_rows,
        'next', app.cursor_token(v_caller.operator_id, v_next_at, v_next_reference),
        'has_more', v_count > p_limit AND v_last_at < v_watermark);
END
$$;
REVOKE ALL ON FUNCTION api.bookings_get(text, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.bookings_get(text, text, integer) TO ingest_gateway;
