-- A lot's closure list: one implementation for the API routes and the console.

-- A sent closure list validated and normalised: a jsonb array of {starts_on, ends_on, reason} in the
-- order sent. Every refusal is PT422 invalid_blocked_periods, `field` in the caller's coordinates:
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
BEGIN
    IF jsonb_typeof(p_periods) IS DISTINCT FROM 'array' OR jsonb_array_length(p_periods) > 100 THEN
        PERFORM app.refuse(422, 'invalid_blocked_periods', 'blocked_periods');
    END IF;
    FOR v_entry IN SELECT e FROM jsonb_array_elements(p_periods) AS e LOOP
        v_index := v_index + 1;
        v_at := format('blocked_periods[%s]', v_index);
        IF jsonb_typeof(v_entry) <> 'object' THEN
            PERFORM app.refuse(422, 'invalid_blocked_periods', v_at);
        END IF;
        PERFORM app.refuse_unknown_keys(v_entry, ARRAY['starts_on', 'ends_on', 'reason'], v_at || '.', 'invalid_blocked_periods');
        v_starts := app.json_date(v_entry -> 'starts_on', v_at || '.starts_on', 'invalid_blocked_periods');
        IF v_starts IS NULL OR v_starts NOT BETWEEN '2020-01-01' AND '2032-12-31' THEN
            PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.starts_on');
        END IF;
        v_ends := app.json_date(v_entry -> 'ends_on', v_at || '.ends_on', 'invalid_blocked_periods');
        IF v_ends IS NULL OR v_ends NOT BETWEEN '2020-01-01' AND '2032-12-31' OR v_ends < v_starts THEN
            PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.ends_on');
        END IF;
        v_reason := coalesce(v_entry -> 'reason', 'null');
        IF jsonb_typeof(v_reason) <> 'null'
           AND (jsonb_typeof(v_reason) <> 'string'
                OR char_length(v_reason #>> '{}') > 200
                OR app.is_blank(v_reason #>> '{}')) THEN
            PERFORM app.refuse(422, 'invalid_blocked_periods', v_at || '.reason');
        END IF;
        v_periods := v_periods || jsonb_build_array(jsonb_build_object(
            'starts_on', v_starts, 'ends_on', v_ends, 'reason', v_reason));
    END LOOP;

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
-- A stay touches [starts_on, ends_on + 1 day) when it checks in before ends_on + 1 and out on or
-- after starts_on; it then checked in at most the lot's longest stay before starts_on, which bounds
-- the index range (app.bookings_lot_open_stay_idx, V10). Timestamp comparisons only: they are
-- leakproof, so row-level security lets them be index conditions.
CREATE OR REPLACE FUNCTION app.blocked_periods_read(p_lot app.lots)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
-- Custom plans: a generic plan guesses one booking per lot and sorts every booking of the lot for the
-- longest stay instead of reading one index entry. Nothing secret is among this function's values.
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_longest_stay interval;
BEGIN
    -- (ORDER BY … LIMIT 1 rather than max(): the generic plan reads one entry of
    -- app.bookings_lot_longest_stay_idx backwards instead of every booking of the lot)
    SELECT b.check_out_local - b.check_in_local INTO v_longest_stay
      FROM app.bookings AS b
     WHERE b.operator_id = p_lot.operator_id AND b.lot_id = p_lot.id AND b.status <> 'cancelled'
       AND b.check_out_local > b.check_in_local  -- always (CHECK); names the index's predicate
     ORDER BY b.check_out_local - b.check_in_local DESC
     LIMIT 1;
    RETURN (
        SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'starts_on', to_char(p.starts_on, 'YYYY-MM-DD'),
                   'ends_on', to_char(p.ends_on, 'YYYY-MM-DD'),
                   'reason', p.reason,
                   'overlapping_bookings', (
                       SELECT count(*)
                         FROM app.bookings AS b
                        WHERE b.operator_id = p.operator_id
                          AND b.lot_id = p.lot_id
                          AND b.status <> 'cancelled'
                          AND b.check_in_local >= p.starts_on::timestamp - v_longest_stay
                          AND b.check_in_local < (p.ends_on + 1)::timestamp
                          AND b.check_out_local >= p.starts_on::timestamp))
                 ORDER BY p.starts_on), '[]')
          FROM app.lot_blocked_periods AS p
         WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id);
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
CREATE OR REPLACE FUNCTION app.blocked_periods_diff(p_lot app.lots, p_sent jsonb, OUT stored integer, OUT added integer, OUT removed integer)
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH current AS (
        SELECT p.starts_on, p.ends_on, p.reason
          FROM app.lot_blocked_periods AS p
         WHERE p.operator_id = p_lot.operator_id AND p.lot_id = p_lot.id),
    sent AS (
        SELECT s.starts_on, s.ends_on, s.reason
          FROM jsonb_to_recordset(p_sent) AS s(starts_on date, ends_on date, reason text))
    SELECT (SELECT count(*) FROM current)::integer,
           (SELECT count(*) FROM sent AS s WHERE NOT EXISTS (
                SELECT FROM current AS c WHERE (c.starts_on, c.ends_on, c.reason) IS NOT DISTINCT FROM (s.starts_on, s.ends_on, s.reason)))::integer,
           (SELECT count(*) FROM current AS c WHERE NOT EXISTS (
                SELECT FROM sent AS s WHERE (c.starts_on, c.ends_on, c.reason) IS NOT DISTINCT FROM (s.starts_on, s.ends_on, s.reason)))::integer;
$$;
REVOKE ALL ON FUNCTION app.blocked_periods_diff(app.lots, jsonb) FROM PUBLIC;

-- PUT /lots/{external_id}/blocked-periods: the body is {"blocked_periods": [...]} and nothing else.
CREATE OR REPLACE FUNCTION app.blocked_periods_write(p_operator_id uuid, p_external_id text, p_body text)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot constant app.lots := app.caller_lot(p_operator_id, p_external_id);
    v_body jsonb := app.json_body(p_body, 'invalid_blocked_periods');
BEGIN
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
REVOKE ALL ON FUNCTION app.blocked_periods_write(uuid, text, text) FROM PUBLIC;
