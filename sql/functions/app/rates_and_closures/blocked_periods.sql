-- A lot's closure list: one implementation for the API routes and the console.

-- A sent closure list validated and normalised: a jsonb array of {starts_on, ends_on, reason} in the
-- order sent; its keys, the most entries, the days and the reason's length come from
-- app.blocked_period_fields. Every refusal is PT422 invalid_blocked_periods, `field` in the caller's
-- coordinates:
--   not an array, or more than 100 entries               blocked_periods
--   an entry that is not an object                        blocked_periods[i]
--   an unknown key in an entry                            blocked_periods[i].<key>
--   not a real YYYY-MM-DD day within 2020..2032           blocked_periods[i].starts_on / ends_on
--   ends_on before starts_on                              blocked_periods[i].ends_on
--   reason blank, not a string, over 200 characters       blocked_periods[i].reason
--   two entries overlapping (sharing a day collides)      the later-starting entry's starts_on
CREATE OR REPLACE FUNCTION app.blocked_periods_from_json(p_periods jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_entry jsonb;
    v_index integer := -1;
    v_at text;
    v_starts date;
    v_ends date;
    v_reason jsonb;
    v_periods jsonb := '[]'::jsonb;
    v_collision integer;
    v_all_valid boolean;
    v_keys text[];
    v_most_entries integer;
    v_first_day date;
    v_last_day date;
    v_reason_length integer;
BEGIN
    SELECT array_agg(f.name ORDER BY f.ordinal) FILTER (WHERE f.in_body AND f.kind <> 'list'),
           max(f.max_value) FILTER (WHERE f.kind = 'list'), min(f.first_day), max(f.last_day),
           max(f.max_value) FILTER (WHERE f.name = 'reason')
      INTO v_keys, v_most_entries, v_first_day, v_last_day, v_reason_length
      FROM app.blocked_period_fields() AS f;
    IF jsonb_typeof(p_periods) IS DISTINCT FROM 'array' OR jsonb_array_length(p_periods) > v_most_entries THEN
        PERFORM app.refuse(422, 'invalid_blocked_periods', 'blocked_periods');
    END IF;
    -- One query accepts a list whose every entry is certainly valid and builds it as the loop below
    -- would, far cheaper than the loop's calls per entry. A day is a
    -- year 2020-2039, a month and a day of month whose date reads back as the same text. Any doubt,
    -- and the loop takes the whole list again and names the first refusal. (OFFSET 0 keeps the
    -- lateral subqueries apart: pulled up, every use of a day repeated its whole expression.)
    SELECT bool_and(v.valid), coalesce(jsonb_agg(jsonb_build_object(
               'starts_on', v.starts_on, 'ends_on', v.ends_on, 'reason', coalesce(v.entry -> 'reason', 'null'))
               ORDER BY v.n), '[]')
      INTO v_all_valid, v_periods
      FROM (SELECT a.n, a.entry, d.starts_on, d.ends_on,
                   coalesce(CASE WHEN jsonb_typeof(a.entry) = 'object' THEN
                                a.entry - v_keys = '{}'::jsonb
                                AND to_char(d.starts_on, 'YYYY-MM-DD') = t.starts_on
                                AND to_char(d.ends_on, 'YYYY-MM-DD') = t.ends_on
                                AND d.starts_on BETWEEN v_first_day AND v_last_day
                                AND d.ends_on BETWEEN d.starts_on AND v_last_day
                                AND CASE jsonb_typeof(a.entry -> 'reason')
                                        WHEN 'string' THEN char_length(a.entry ->> 'reason') <= v_reason_length
                                                           AND (a.entry ->> 'reason') !~ ('^[' || app.white_space_class() || ']*$')
                                        WHEN 'null' THEN true
                                        ELSE a.entry -> 'reason' IS NULL
                                    END
                            END, false) AS valid
              FROM jsonb_array_elements(p_periods) WITH ORDINALITY AS a(entry, n)
             CROSS JOIN LATERAL (
                   SELECT CASE WHEN jsonb_typeof(a.entry -> 'starts_on') = 'string' THEN a.entry ->> 'starts_on' END AS starts_on,
                          CASE WHEN jsonb_typeof(a.entry -> 'ends_on') = 'string' THEN a.entry ->> 'ends_on' END AS ends_on
                   OFFSET 0) AS t
             CROSS JOIN LATERAL (
                   SELECT CASE WHEN t.starts_on ~ '^20[23][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$'
                               THEN make_date(substr(t.starts_on, 1, 4)::integer, substr(t.starts_on, 6, 2)::integer, 1)
                                    + (substr(t.starts_on, 9, 2)::integer - 1) END AS starts_on,
                          CASE WHEN t.ends_on ~ '^20[23][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$'
                               THEN make_date(substr(t.ends_on, 1, 4)::integer, substr(t.ends_on, 6, 2)::integer, 1)
                                    + (substr(t.ends_on, 9, 2)::integer - 1) END AS ends_on
                   OFFSET 0) AS d) AS v;

    IF NOT v_all_valid THEN
        v_periods := '[]'::jsonb;
        FOR v_entry IN SELECT e FROM jsonb_array_elements(p_periods) AS e LOOP
            v_index := v_index + 1;
            v_at := format('blocked_periods[%s]', v_index);
            IF jsonb_typeof(v_entry) <> 'object' THEN
                PERFORM app.refuse(422, 'invalid_blocked_periods', v_at);
            END IF;
            PERFORM app.refuse_unknown_keys(v_entry, v_keys, v_at || '.', 'invalid_blocked_periods');
            v_starts := app.json_date(v_entry -> 'starts_on', v_at || '.starts_on', 'invalid_blocked_periods');
            IF v_starts IS NULL OR v_starts NOT BETWEEN v_first_day AND v_last_day THEN
                PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.starts_on');
            END IF;
            v_ends := app.json_date(v_entry -> 'ends_on', v_at || '.ends_on', 'invalid_blocked_periods');
            IF v_ends IS NULL OR v_ends NOT BETWEEN v_first_day AND v_last_day OR v_ends < v_starts THEN
                PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.ends_on');
            END IF;
            v_reason := coalesce(v_entry -> 'reason', 'null');
            IF jsonb_typeof(v_reason) <> 'null'
               AND (jsonb_typeof(v_reason) <> 'string'
                    OR char_length(v_reason #>> '{}') > v_reason_length
                    OR app.is_blank(v_reason #>> '{}')) THEN
                PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.reason');
            END IF;
            v_periods := v_periods || jsonb_build_array(jsonb_build_object(
                'starts_on', v_starts, 'ends_on', v_ends, 'reason', v_reason));
        END LOOP;
    END IF;

    SELECT p.i INTO v_collision
      FROM (SELECT e.i, e.starts_on,
                   max(e.ends_on) OVER (ORDER BY e.starts_on, e.i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ends_before
              FROM (SELECT n - 1 AS i, (x ->> 'starts_on')::date AS starts_on, (x ->> 'ends_on')::date AS ends_on
                      FROM jsonb_array_elements(v_periods) WITH ORDINALITY AS a(x, n)) AS e) AS p
     WHERE p.starts_on <= p.ends_before
     ORDER BY p.starts_on, p.i
     LIMIT 1;
    IF v_collision IS NOT NULL THEN
        PERFORM app.refuse(422, 'invalid_blocked_periods', format('blocked_periods[%s].starts_on', v_collision));
    END IF;
    RETURN v_periods;
END
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_from_json(jsonb) FROM PUBLIC;

-- The stored list, earliest first, each with overlapping_bookings: the lot's bookings of every
-- channel and status but `cancelled` whose stay touches the period, inclusive on the lot's own
-- calendar dates (checking out on the first day or in on the last day counts). Only a count.
-- A stay touches [starts_on, ends_on] when it checks in on or before ends_on and out on or after
-- starts_on; whatever checks out before starts_on checked in before ends_on, so the count is the
-- check-ins up to ends_on less the check-outs before starts_on: running sums over the lot's days
-- (app.lot_booking_days, kept by the bookings' triggers), taken at both ends of every period in one
-- ordered pass: a period's start sorts before that day's own row, its end after.
CREATE OR REPLACE FUNCTION app.blocked_periods_read(p_lot app.lots)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (
        WITH period AS (
            SELECT p.id, p.starts_on, p.ends_on, p.reason
              FROM app.lot_blocked_periods AS p
             WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id),
        running AS (
            SELECT e.id, e.is_end,
                   sum(e.check_ins) OVER w AS check_ins, sum(e.check_outs) OVER w AS check_outs
              FROM (SELECT NULL::uuid AS id, NULL::boolean AS is_end, d.day, 1 AS place, d.check_ins, d.check_outs
                      FROM app.lot_booking_days AS d
                     WHERE d.operator_id = p_lot.operator_id AND d.lot_id = p_lot.id
                    UNION ALL
                    SELECT p.id, false, p.starts_on, 0, 0, 0 FROM period AS p
                    UNION ALL
                    SELECT p.id, true, p.ends_on, 2, 0, 0 FROM period AS p) AS e
            WINDOW w AS (ORDER BY e.day, e.place ROWS UNBOUNDED PRECEDING)),
        counted AS (
            SELECT r.id, sum(CASE WHEN r.is_end THEN r.check_ins ELSE -r.check_outs END)::bigint AS overlapping
              FROM running AS r
             WHERE r.id IS NOT NULL
             GROUP BY r.id)
        SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'starts_on', to_char(p.starts_on, 'YYYY-MM-DD'),
                   'ends_on', to_char(p.ends_on, 'YYYY-MM-DD'),
                   'reason', p.reason,
                   'overlapping_bookings', c.overlapping)
                 ORDER BY p.starts_on), '[]')
          FROM period AS p
          JOIN counted AS c ON c.id = p.id);
END
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_read(app.lots) FROM PUBLIC;

-- Replace the whole list with p_periods (a raw array, validated here). Diff before update: the list
-- is compared as a set of (starts_on, ends_on, reason); equal issues no statement (`unchanged`).
-- Otherwise the lot row is locked (two replacements of one list take turns), the diff taken again,
-- and only the removed rows deleted and the added inserted. `created` when the list was empty and
-- now is not; `updated` for any other write, emptying included.
CREATE OR REPLACE FUNCTION app.blocked_periods_replace(p_lot app.lots, p_periods jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_sent jsonb := app.blocked_periods_from_json(p_periods);
    v_stored integer;
    v_added integer;
    v_removed integer;
    v_result text := 'unchanged';
BEGIN
    SELECT d.stored, d.added, d.removed INTO v_stored, v_added, v_removed FROM app.blocked_periods_diff(p_lot, v_sent) AS d;
    IF v_added + v_removed > 0 THEN
        PERFORM FROM app.lots AS l WHERE l.operator_id = p_lot.operator_id AND l.id = p_lot.id FOR UPDATE;
        SELECT d.stored, d.added, d.removed INTO v_stored, v_added, v_removed FROM app.blocked_periods_diff(p_lot, v_sent) AS d;
    END IF;
    IF v_added + v_removed > 0 THEN
        v_result := CASE WHEN v_stored = 0 THEN 'created' ELSE 'updated' END;
        DELETE FROM app.lot_blocked_periods AS p
         WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id
           AND NOT EXISTS (SELECT FROM jsonb_to_recordset(v_sent) AS s(starts_on date, ends_on date, reason text)
                            WHERE (s.starts_on, s.ends_on, s.reason) IS NOT DISTINCT FROM (p.starts_on, p.ends_on, p.reason));
        INSERT INTO app.lot_blocked_periods (operator_id, lot_id, starts_on, ends_on, reason)
        SELECT p_lot.operator_id, p_lot.id, s.starts_on, s.ends_on, s.reason
          FROM jsonb_to_recordset(v_sent) AS s(starts_on date, ends_on date, reason text)
         WHERE NOT EXISTS (SELECT FROM app.lot_blocked_periods AS p
                            WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id
                              AND (s.starts_on, s.ends_on, s.reason) IS NOT DISTINCT FROM (p.starts_on, p.ends_on, p.reason));
    END IF;
    RETURN jsonb_build_object(
        'external_id', p_lot.external_id,
        'result', v_result,
        'added', v_added,
        'removed', v_removed,
        'blocked_periods', app.blocked_periods_read(p_lot));
END
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_replace(app.lots, jsonb) FROM PUBLIC;

-- How a validated list differs from the stored one: stored count, entries to add, entries to remove.
-- Entries are equal when their days are (never null on either side: hashed) and their reasons not
-- distinct. PL/pgSQL so that the plan is kept for the session.
CREATE OR REPLACE FUNCTION app.blocked_periods_diff(p_lot app.lots, p_sent jsonb, OUT stored integer, OUT added integer, OUT removed integer)
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    WITH current AS (
        SELECT p.starts_on, p.ends_on, p.reason
          FROM app.lot_blocked_periods AS p
         WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id),
    sent AS (
        SELECT s.starts_on, s.ends_on, s.reason
          FROM jsonb_to_recordset(p_sent) AS s(starts_on date, ends_on date, reason text))
    SELECT (SELECT count(*) FROM current)::integer,
           (SELECT count(*) FROM sent AS s WHERE NOT EXISTS (
                SELECT FROM current AS c
                 WHERE c.starts_on = s.starts_on AND c.ends_on = s.ends_on AND c.reason IS NOT DISTINCT FROM s.reason))::integer,
           (SELECT count(*) FROM current AS c WHERE NOT EXISTS (
                SELECT FROM sent AS s
                 WHERE c.starts_on = s.starts_on AND c.ends_on = s.ends_on AND c.reason IS NOT DISTINCT FROM s.reason))::integer
      INTO stored, added, removed;
END
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_diff(app.lots, jsonb) FROM PUBLIC;

-- PUT /lots/{external_id}/blocked-periods: the body is {"blocked_periods": [...]} and nothing else.
CREATE OR REPLACE FUNCTION app.blocked_periods_write(p_operator_id uuid, p_external_id text, p_body text, p_body_fault jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot constant app.lots := app.caller_lot(p_operator_id, p_external_id);
    v_body jsonb;
BEGIN
    PERFORM app.refuse_body_fault(p_body_fault, 'invalid_blocked_periods');
    v_body := app.json_body(p_body);
    IF jsonb_typeof(v_body) <> 'object' THEN
        PERFORM app.refuse(422, 'invalid_body');
    END IF;
    PERFORM app.refuse_unknown_keys(v_body, ARRAY['blocked_periods']);
    IF app.json_absent(v_body -> 'blocked_periods') THEN  -- absent, or null
        PERFORM app.refuse(422, 'missing_field', 'blocked_periods');
    END IF;
    RETURN app.blocked_periods_replace(v_lot, v_body -> 'blocked_periods');
END
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_write(uuid, text, text, jsonb) FROM PUBLIC;
