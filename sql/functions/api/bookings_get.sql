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

    WITH page AS (
        SELECT p.b, l, row_number() OVER (ORDER BY (p.b).changed_at, (p.b).reference) AS n
          FROM (SELECT b
                  FROM app.bookings AS b
                 WHERE b.operator_id = v_caller.operator_id
                   AND (b.changed_at, b.reference) > (v_from.changed_at, v_from.reference COLLATE "C")
                 ORDER BY b.changed_at, b.reference
                 LIMIT p_limit + 1) AS p
          JOIN app.lots AS l ON l.operator_id = (p.b).operator_id AND l.id = (p.b).lot_id)
    SELECT coalesce(jsonb_agg(app.booking_read_form(page.b, page.l) ORDER BY page.n) FILTER (WHERE page.n <= p_limit), '[]'),
           count(*),
           (array_agg((page.b).changed_at ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)],
           (array_agg((page.b).reference ORDER BY page.n) FILTER (WHERE page.n <= p_limit))[least(count(*), p_limit)]
      INTO v_rows, v_count, v_last_at, v_last_reference
      FROM page;

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
