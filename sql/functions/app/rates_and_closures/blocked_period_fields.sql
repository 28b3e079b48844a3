-- The closure list's fields, once: the list itself (ordinal 0) and an entry's keys in the order of
-- the spec's Blocked period table. Each field's
--   name         as the body and the read form name it;
--   kind         `list` (the array of entries), `date` (YYYY-MM-DD, a real calendar day), `text`, or
--                `count` (read form only);
--   in_body      whether a write sends it (overlapping_bookings is read-only);
--   required     whether an entry must carry it;
--   first_day, last_day  the days a date may name;
--   max_value    the most entries of the list, the most characters of a text;
--   description  what a client must know of it, as the published OpenAPI document says it.
-- app.blocked_periods_from_json takes its keys and limits from here. The OpenAPI document's closure
-- schemas are read off this function's text (gateway/src/registry.rs; keep its rows plain
-- literals), and a test compares them with what PostgreSQL returns.
CREATE OR REPLACE FUNCTION app.blocked_period_fields()
RETURNS TABLE (
    ordinal integer, name text, kind text, in_body boolean, required boolean, first_day date,
    last_day date, max_value integer, description text)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (0, 'blocked_periods', 'list', true, true, NULL::date, NULL::date, 100,
            'The WHOLE closure list, replacing the stored one (closures made in the console included: a push that omits them removes them; an empty list empties it). No two entries may overlap, inclusively: sharing one day collides (`invalid_blocked_periods`, field the later-starting entry''s starts_on).'),
        (1, 'starts_on', 'date', true, true, '2020-01-01', '2032-12-31', NULL,
            'First blocked day, inclusive: a real calendar day YYYY-MM-DD within 2020-01-01..2032-12-31 (a timestamp is refused).'),
        (2, 'ends_on', 'date', true, true, '2020-01-01', '2032-12-31', NULL,
            'LAST blocked day, inclusive, not before starts_on: a real calendar day YYYY-MM-DD within 2020-01-01..2032-12-31.'),
        (3, 'reason', 'text', true, false, NULL, NULL, 200,
            'A free label, stored verbatim (never trimmed). Blank is refused; null and absent both mean no reason.'),
        (4, 'overlapping_bookings', 'count', false, true, NULL, NULL, NULL,
            'Read-only: the lot''s bookings of every channel and status but cancelled whose stay touches the period, inclusive on the lot''s calendar dates (checking out on its first day or in on its last day counts). Only a count.');
END
$$;
REVOKE ALL ON FUNCTION app.blocked_period_fields() FROM PUBLIC;
