-- One page of the bookings feed (GET /bookings, from the primary or a standby) for the operator
-- in context: from the position p_since names (NULL or empty: the beginning), clamped back to
-- p_watermark when past it, at most p_limit (1-500) bookings. The caller authenticated the
-- operator and entered it (its row-level security context), and computed the watermark the way
-- its server allows: api.bookings_get from the writers' locks, api.bookings_get_standby from what
-- the primary published. See app/bookings/bookings_feed.sql.
--
-- The empty tail, the poll a client makes most (nothing of the operator's after a cursor that is
-- not clamped): one index probe, and the answer is no bookings and the same token, which is the
-- token this call would issue for that position (app.cursor_position accepts only the one spelling
-- issued) — no page query, no signature.
--
-- Otherwise the page is one index range scan after the cursor's position. `next` is the last row's position,
-- or the watermark if that is earlier; `has_more` is true only when the page is full, `next`
-- advanced to its last row, and rows follow — a page that reached past the watermark answers
-- false, so a client following the polling pattern never spins.
CREATE OR REPLACE FUNCTION app.bookings_page(p_operator_id uuid, p_since text, p_limit integer, p_watermark timestamptz)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- (the plan the feed was measured with, whatever the session's setting)
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_from record;
    v_body jsonb;
BEGIN
    IF coalesce(p_since, '') = '' THEN
        SELECT timestamptz 'epoch' AS changed_at, '' AS reference INTO v_from;
    ELSE
        v_from := app.cursor_position(p_operator_id, p_since);
        IF v_from.changed_at > p_watermark THEN
            SELECT p_watermark AS changed_at, '' AS reference INTO v_from;  -- clamped back
        ELSIF NOT EXISTS (SELECT FROM app.bookings AS b
                           WHERE b.operator_id = p_operator_id
                             AND (b.changed_at, b.reference) > (v_from.changed_at, v_from.reference COLLATE "C")) THEN
            RETURN jsonb_build_object('bookings', '[]'::jsonb, 'next', p_since, 'has_more', false);
        END IF;
    END IF;

    -- The page and the whole answer in one statement: one index range scan of the feed, each row's lot
    -- by its primary key (a lateral lookup per row: a plain join estimates too few rows and hashes
    -- every lot of the operator), and the answer built once, by to_jsonb of rows whose columns are its
    -- keys (a jsonb per row, gathered by jsonb_agg and wrapped again, was built and copied three
    -- times). A Booking as the feed answers it: exactly the spec's keys; money a two-decimal string,
    -- stays on the lot's wall clock (no offset), timestamps UTC with microseconds and Z; unknown
    -- values null, vehicle_plates [] when none. No function per row: app.utc_text's SET clause alone
    -- costs a page dearly (bench/FINDINGS.md, "A feed page in one statement").
    WITH page AS (
        SELECT b.*, row_number() OVER (ORDER BY b.changed_at, b.reference) AS n
          FROM app.bookings AS b
         WHERE b.operator_id = p_operator_id
           AND (b.changed_at, b.reference) > (v_from.changed_at, v_from.reference COLLATE "C")
         ORDER BY b.changed_at, b.reference
         LIMIT p_limit + 1),
    gathered AS (
        SELECT coalesce(array_agg(booking ORDER BY page.n) FILTER (WHERE page.n <= p_limit), '{}') AS bookings,
               count(*) AS fetched,
               (array_agg(page.changed_at ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)] AS last_at,
               (array_agg(page.reference ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)] AS last_reference
          FROM page
         CROSS JOIN LATERAL (SELECT x.external_id, x.name, x.timezone
                               FROM app.lots AS x
                              WHERE x.operator_id = page.operator_id AND x.id = page.lot_id
                              LIMIT 1) AS l
         CROSS JOIN LATERAL (SELECT page.customer_first_name AS first_name, page.customer_last_name AS last_name,
                                    page.customer_email AS email, page.customer_phone AS phone) AS customer
         CROSS JOIN LATERAL (SELECT page.reference,
                                    page.external_reference,
                                    l.external_id AS lot_external_id,
                                    l.name AS lot_name,
                                    l.timezone,
                                    to_char(page.check_in_local, 'YYYY-MM-DD"T"HH24:MI:SS') AS check_in_local,
                                    to_char(page.check_out_local, 'YYYY-MM-DD"T"HH24:MI:SS') AS check_out_local,
                                    page.parking_days,
                                    page.status,
                                    page.payment_status,
                                    page.currency,
                                    page.total::text AS total,
                                    page.channel,
                                    page.flight_number,
                                    customer,
                                    page.vehicle_plates,
                                    -- app.utc_text's format
                                    to_char(page.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at,
                                    to_char(page.cancelled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cancelled_at
                            ) AS booking)
    SELECT to_jsonb(answer)
      INTO v_body
      FROM (SELECT gathered.bookings,
                   app.cursor_token(p_operator_id, next.changed_at, next.reference) AS next,
                   gathered.fetched > p_limit AND gathered.last_at < p_watermark AS has_more
              FROM gathered
              -- next: where the cursor was when the page is empty; its last row if before the
              -- watermark; else the watermark (not committed to rows at or past it)
             CROSS JOIN LATERAL (
                   SELECT CASE WHEN gathered.fetched = 0 THEN v_from.changed_at
                               WHEN gathered.last_at < p_watermark THEN gathered.last_at
                               ELSE p_watermark END AS changed_at,
                          CASE WHEN gathered.fetched = 0 THEN v_from.reference
                               WHEN gathered.last_at < p_watermark THEN gathered.last_reference
                               ELSE '' END AS reference) AS next) AS answer;
    RETURN v_body;
END
$$;
REVOKE ALL ON FUNCTION app.bookings_page(uuid, text, integer, timestamptz) FROM PUBLIC;
