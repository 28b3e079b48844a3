-- GET and PUT /lots/{external_id}/blocked-periods (spec: Blocked period, GET/PUT
-- /lots/{external_id}/blocked-periods, Write result, Dry run; docs/reference/errors.md, "Which
-- field a refusal names"), called as the gateway (api.lot_blocked_periods_get / _put, role
-- ingest_gateway), and the console's console.lot_blocked_periods_put: a PUT replaces the whole
-- list; added and removed are the multiset difference of (starts_on, ends_on, reason); an equal
-- list issues no statement; every refusal of the field table names its entry in the caller's
-- coordinates and stores nothing; the list reads back earliest first; a lot that is not the
-- caller's is the uniform 401 (before the body). The overlapping_bookings counts have their own
-- file (17).
BEGIN;
SELECT plan(163);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT a, b,
       tests.issue_credential(a, ARRAY['write_supply']) AS bearer,
       tests.issue_credential(a, ARRAY['read_supply']) AS read_bearer,
       tests.issue_credential(b, ARRAY['read_supply', 'write_supply']) AS b_bearer,
       tests.make_member(a, 'owner') AS owner, tests.make_member(a, 'manager') AS manager,
       tests.make_member(a, 'staff') AS staff, tests.make_member(b, 'owner') AS b_owner
  FROM tests.make_operator('Harbour Parking') AS a, tests.make_operator('Quay Parking') AS b;
GRANT SELECT ON fx TO PUBLIC;

SELECT is_empty(
    $$SELECT l.id FROM fx, (VALUES ('closed'), ('refused'), ('kept'), ('dry'), ('console'), ('bare')) AS l(id),
                       tests.put_lot(fx.bearer, l.id, tests.lot_body()) AS p
       WHERE p.status <> 201$$,
    'the fixture: A''s lots are created');
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'quay-1', tests.lot_body()) AS p), 201, 'the fixture: B''s lot quay-1');
SELECT is((SELECT p.status FROM fx, tests.put_blocked_periods(fx.b_bearer, 'quay-1', '{"blocked_periods": [{"starts_on": "2026-05-01", "ends_on": "2026-05-02"}]}') AS p),
          201, 'the fixture: B''s lot has a closure');

-- PUT the closure list of A's lot p_external_id with this raw body; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text, p_dry_run boolean DEFAULT false)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_blocked_periods(fx.bearer, p_external_id, p_body, p_dry_run) AS p;
$$;

-- PUT this list as {"blocked_periods": p_periods}; the answer.
CREATE FUNCTION pg_temp.put_list(p_external_id text, p_periods jsonb, p_dry_run boolean DEFAULT false)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT * FROM pg_temp.put(p_external_id, jsonb_build_object('blocked_periods', p_periods)::text, p_dry_run);
$$;

-- The answer's status, result, added and removed as one text, e.g. '201 created +2 -0'.
CREATE FUNCTION pg_temp.outcome(p_status integer, p_body jsonb)
RETURNS text
LANGUAGE sql
AS $$
    SELECT format('%s %s +%s -%s', p_status, p_body ->> 'result', p_body ->> 'added', p_body ->> 'removed');
$$;

-- GET the closure list of A's lot; the body.
CREATE FUNCTION pg_temp.get(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT g.body FROM fx, tests.get_blocked_periods(fx.read_bearer, p_external_id) AS g;
$$;

-- A PUT of lot `refused` (which never gets a closure) with this raw body is refused: PT422,
-- p_error, DETAIL p_field.
CREATE FUNCTION pg_temp.refused(p_body text, p_error text, p_field text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'refused', p_body),
                         'PT422', p_error, p_field, p_description)
      FROM fx;
$$;

-- A PUT of this list to lot `refused` is refused as invalid_blocked_periods, DETAIL p_field.
CREATE FUNCTION pg_temp.refused_list(p_periods jsonb, p_field text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT pg_temp.refused(jsonb_build_object('blocked_periods', p_periods)::text, 'invalid_blocked_periods', p_field, p_description);
$$;

-- A PUT of this list to lot `bare` is accepted as created (201), and emptied again. A refusal fails
-- the test and shows the error.
CREATE FUNCTION pg_temp.accepts(p_periods jsonb, p_description text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_answer record;
    v_code text;
    v_message text;
    v_detail text;
BEGIN
    BEGIN
        SELECT * INTO v_answer FROM pg_temp.put_list('bare', p_periods);
        PERFORM pg_temp.put_list('bare', '[]');
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS v_code = RETURNED_SQLSTATE, v_message = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL;
        RETURN ok(false, p_description) || E'\n'
            || diag('      refused: ' || v_code || ' ' || v_message || coalesce(' DETAIL ' || nullif(v_detail, ''), ''));
    END;
    RETURN is(v_answer.status, 201, p_description);
END
$$;

-- One closure entry.
CREATE FUNCTION pg_temp.p(p_starts text, p_ends text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object('starts_on', p_starts, 'ends_on', p_ends);
$$;

-- n one-day closures on consecutive days from 2026-01-01.
CREATE FUNCTION pg_temp.days(p_count integer)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT coalesce(jsonb_agg(pg_temp.p(d::text, d::text) ORDER BY d), '[]')
      FROM generate_series(1, p_count) AS i, LATERAL (SELECT ('2026-01-01'::date + i - 1) AS d) AS x;
$$;

-- The stored closures of A's lot, earliest first, with each row's id and tuple (ctid, xmin, xmax), as
-- the superuser.
CREATE FUNCTION pg_temp.stored(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('starts_on', p.starts_on, 'ends_on', p.ends_on, 'reason', p.reason, 'id', p.id,
                                                 'ctid', p.ctid::text, 'xmin', p.xmin::text, 'xmax', p.xmax::text)
                              ORDER BY p.starts_on), '[]')
      FROM app.lot_blocked_periods AS p JOIN app.lots AS l ON l.operator_id = p.operator_id AND l.id = p.lot_id, fx
     WHERE l.operator_id = fx.a AND l.external_id = p_external_id;
$$;

-- The body --------------------------------------------------------------------------------------------------------------

SELECT pg_temp.refused('{}', 'missing_field', 'blocked_periods', 'a body without blocked_periods is missing_field blocked_periods');
SELECT pg_temp.refused('{"blocked_periods": [], "colour": "blue"}', 'unknown_field', 'colour', 'any other top-level key is unknown_field naming it');
SELECT pg_temp.refused('{"colour": "blue"}', 'unknown_field', 'colour', 'an unknown key is reported before the missing list');
SELECT pg_temp.refused('[]', 'invalid_body', NULL, 'an array body (the bare list) is invalid_body without a field');
SELECT pg_temp.refused('"2026-01-01"', 'invalid_body', NULL, 'a string body is invalid_body without a field');
SELECT pg_temp.refused('null', 'invalid_body', NULL, 'a null body is invalid_body without a field');
SELECT pg_temp.refused('{"blocked_periods": [', 'invalid_json', NULL, 'a body that is not JSON is invalid_json');
SELECT pg_temp.refused(NULL, 'invalid_json', NULL, 'no body at all is invalid_json');

-- The field table: blocked_periods itself ---------------------------------------------------------------------------------

SELECT pg_temp.refused_list('{}', 'blocked_periods', 'an object instead of the list is invalid_blocked_periods, field blocked_periods');
SELECT pg_temp.refused_list('"2026-01-01"', 'blocked_periods', 'a string instead of the list: field blocked_periods');
SELECT pg_temp.refused('{"blocked_periods": null}', 'missing_field', 'blocked_periods', 'a null list counts as absent: missing_field blocked_periods');
SELECT pg_temp.refused_list(pg_temp.days(101), 'blocked_periods', 'more than 100 entries (101): field blocked_periods');
SELECT pg_temp.accepts(pg_temp.days(100), '100 entries are accepted');

-- The field table: an entry ---------------------------------------------------------------------------------------------------

SELECT pg_temp.refused_list('[1]', 'blocked_periods[0]', 'an entry that is not an object names the entry: blocked_periods[0]');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01'), NULL), 'blocked_periods[1]',
                            'a null entry names the entry by its index: blocked_periods[1]');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01') || '{"note": "x"}'), 'blocked_periods[0].note',
                            'an unknown key in an entry names it: blocked_periods[0].note');
SELECT pg_temp.refused_list('[{"ends_on": "2026-01-01"}]', 'blocked_periods[0].starts_on', 'a missing starts_on: blocked_periods[0].starts_on');
SELECT pg_temp.refused_list('[{"starts_on": "2026-01-01"}]', 'blocked_periods[0].ends_on', 'a missing ends_on: blocked_periods[0].ends_on');
SELECT pg_temp.refused_list('[{"starts_on": null, "ends_on": "2026-01-01"}]', 'blocked_periods[0].starts_on', 'a null starts_on: blocked_periods[0].starts_on');
SELECT pg_temp.refused_list('[{"starts_on": "2026-01-01", "ends_on": null}]', 'blocked_periods[0].ends_on', 'a null ends_on: blocked_periods[0].ends_on');

CREATE TEMP TABLE bad_day (n integer, sent jsonb, what text);
INSERT INTO bad_day VALUES
    (1, '"2026-02-29"', 'the leap day of a common year'),
    (2, '"2026-04-31"', 'the 31st of a 30-day month'),
    (3, '"2026-13-01"', 'month 13'),
    (4, '"2026-03-01T00:00:00"', 'a timestamp'),
    (5, '"2026-03-01 00:00"', 'a timestamp with a space'),
    (6, '"2026-3-1"', 'a date without leading zeros'),
    (7, '"01/03/2026"', 'a date in another order'),
    (8, '20260301', 'a number'),
    (9, '""', 'an empty string'),
    (10, '"2019-12-31"', 'the day before 2020-01-01'),
    (11, '"2033-01-01"', 'the day after 2032-12-31'),
    (12, '"1999-06-01"', 'a day long before 2020');
SELECT pg_temp.refused_list(jsonb_build_array(jsonb_build_object('starts_on', sent, 'ends_on', '2026-12-31')), 'blocked_periods[0].starts_on',
                            format('starts_on %s (%s): blocked_periods[0].starts_on', sent, what))
  FROM bad_day ORDER BY n;
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01'), jsonb_build_object('starts_on', '2020-01-01', 'ends_on', sent)),
                            'blocked_periods[1].ends_on', format('ends_on %s (%s), second entry: blocked_periods[1].ends_on', sent, what))
  FROM bad_day ORDER BY n;
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2028-02-29', '2028-02-29')), 'the leap day of a leap year (2028-02-29) is accepted');
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2020-01-01', '2032-12-31')), 'both bounds, 2020-01-01 and 2032-12-31, are accepted');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-10', '2026-03-09')), 'blocked_periods[0].ends_on',
                            'ends_on before starts_on names ends_on');
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2026-03-10', '2026-03-10')), 'ends_on equal to starts_on (one day) is accepted');

-- The field table: overlaps -------------------------------------------------------------------------------------------------

SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-10'), pg_temp.p('2026-03-10', '2026-03-20')),
                            'blocked_periods[1].starts_on', 'two entries sharing one day collide: the later-starting entry''s starts_on');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-10', '2026-03-20'), pg_temp.p('2026-03-01', '2026-03-10')),
                            'blocked_periods[0].starts_on', 'the later-starting entry is named whatever the array order (here index 0)');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-31'), pg_temp.p('2026-03-10', '2026-03-11')),
                            'blocked_periods[1].starts_on', 'an entry inside another collides: the later-starting (the inner one)');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-10', '2026-03-11'), pg_temp.p('2026-03-01', '2026-03-31')),
                            'blocked_periods[0].starts_on', 'an entry around an earlier-listed one: still the later-starting (index 0)');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-05'), pg_temp.p('2026-03-01', '2026-03-02')),
                            'blocked_periods[1].starts_on', 'two entries starting the same day: the later array index');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02'), pg_temp.p('2026-03-01', '2026-03-05')),
                            'blocked_periods[1].starts_on', 'two entries starting the same day, the longer one second: the later array index');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-01'), pg_temp.p('2026-03-01', '2026-03-01')),
                            'blocked_periods[1].starts_on', 'the same entry twice collides: the second');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-06-01', '2026-06-02'), pg_temp.p('2026-01-01', '2026-12-31'), pg_temp.p('2027-01-01', '2027-01-02')),
                            'blocked_periods[0].starts_on', 'an entry collides with an earlier-starting long one listed after it');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-05'), pg_temp.p('2026-02-01', '2026-02-10'), pg_temp.p('2026-02-10', '2026-02-12')),
                            'blocked_periods[2].starts_on', 'a collision between the second and third entries names the third');
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2026-03-11', '2026-03-20'), pg_temp.p('2026-03-01', '2026-03-10')),
                       'adjacent days (one ends on the 10th, the next starts on the 11th) do not collide');

-- The field table: reason ---------------------------------------------------------------------------------------------------

CREATE TEMP TABLE bad_reason (n integer, sent jsonb, what text);
INSERT INTO bad_reason VALUES
    (1, '""', 'an empty reason'),
    (2, '"   "', 'a reason of spaces'),
    (3, to_jsonb(E'\t\n '::text), 'a reason of other whitespace'),
    (4, '42', 'a numeric reason'),
    (5, 'true', 'a boolean reason'),
    (6, '["works"]', 'an array reason'),
    (7, '{"en": "works"}', 'an object reason'),
    (8, to_jsonb(repeat('r', 201)), 'a reason of 201 characters');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01'), pg_temp.p('2026-02-01', '2026-02-01') || jsonb_build_object('reason', sent)),
                            'blocked_periods[1].reason', format('%s: blocked_periods[1].reason', what))
  FROM bad_reason ORDER BY n;
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01') || jsonb_build_object('reason', repeat('r', 200))),
                       'a reason of 200 characters is accepted');
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01') || jsonb_build_object('reason', repeat('é', 200))),
                       'a reason of 200 two-byte characters is accepted (characters, not bytes)');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-02-30', '2026-03-01') || '{"reason": ""}'), 'blocked_periods[0].starts_on',
                            'an entry''s fields are checked in the order starts_on, ends_on, reason');
SELECT pg_temp.refused_list(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01') || '{"reason": ""}', pg_temp.p('2026-02-30', '2026-03-01')),
                            'blocked_periods[0].reason', 'entries are checked in array order');
-- Long lists: valid lists are taken by one query, anything doubtful entry by entry; either way a refusal late in a list names
-- the same field as in a short one, and what is stored is what was sent --------------------------------------------------------

SELECT pg_temp.refused_list(pg_temp.days(99) || jsonb_build_array(pg_temp.p('2027-02-30', '2027-03-01')), 'blocked_periods[99].starts_on',
                            'after 99 valid entries, a 30 February names blocked_periods[99].starts_on');
SELECT pg_temp.refused_list(pg_temp.days(99) || jsonb_build_array(pg_temp.p('2027-02-01', '2033-01-01')), 'blocked_periods[99].ends_on',
                            'after 99 valid entries, an ends_on after 2032 names blocked_periods[99].ends_on');
SELECT pg_temp.refused_list(pg_temp.days(99) || jsonb_build_array(pg_temp.p('2027-02-01', '2027-02-01') || jsonb_build_object('reason', E'\u3000\u00a0')),
                            'blocked_periods[99].reason', 'after 99 valid entries, a reason of Unicode spaces names blocked_periods[99].reason');
SELECT pg_temp.refused_list(pg_temp.days(99) || jsonb_build_array(pg_temp.p('2027-02-01', '2027-02-01') || '{"Reason": "x"}'),
                            'blocked_periods[99].Reason', 'after 99 valid entries, an unknown key names blocked_periods[99].Reason');
SELECT pg_temp.refused_list(pg_temp.days(99) || '["2027-02-01"]', 'blocked_periods[99]',
                            'after 99 valid entries, an entry that is not an object names blocked_periods[99]');
SELECT pg_temp.refused_list(pg_temp.days(99) || jsonb_build_array(pg_temp.p('2025-12-31', '2026-01-01')), 'blocked_periods[0].starts_on',
                            'a 100th entry overlapping the first: the later-starting, the first, is named');
SELECT pg_temp.refused_list(pg_temp.days(50) || jsonb_build_array(pg_temp.p('2027-01-01', '2027-01-01') || '{"reason": 7}') || pg_temp.days(49),
                            'blocked_periods[50].reason', 'an entry refused for its reason comes before a collision further on');
SELECT pg_temp.accepts(jsonb_build_array(pg_temp.p('2026-01-01', '2026-01-01') || jsonb_build_object('reason', E'\u200b')),
                       'a reason of a zero-width space (not white space) is accepted');

SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.bearer, 'long', tests.lot_body()) AS p), 201, 'the fixture: A''s lot long');
-- 100 closures on month ends from January 2020 (three leap days among them) and the last day accepted, of one to three days,
-- with no reason, a null one, one of 200 characters, or one ending in a zero-width space.
CREATE TEMP TABLE long_list AS
SELECT jsonb_agg(jsonb_build_object('starts_on', to_char(d.starts_on, 'YYYY-MM-DD'), 'ends_on', to_char(d.starts_on + i % 3, 'YYYY-MM-DD'))
                 || CASE i % 4 WHEN 0 THEN '{}'::jsonb WHEN 1 THEN '{"reason": null}'
                               WHEN 2 THEN jsonb_build_object('reason', repeat('r', 200)) ELSE jsonb_build_object('reason', format(E'Works %s\u200b', i)) END
                 ORDER BY i DESC) AS sent,
       jsonb_agg(jsonb_build_object('starts_on', to_char(d.starts_on, 'YYYY-MM-DD'), 'ends_on', to_char(d.starts_on + i % 3, 'YYYY-MM-DD'),
                                    'reason', CASE i % 4 WHEN 2 THEN repeat('r', 200) WHEN 3 THEN format(E'Works %s\u200b', i) END,
                                    'overlapping_bookings', 0)
                 ORDER BY d.starts_on) AS stored
  FROM generate_series(0, 99) AS i,
       LATERAL (SELECT CASE WHEN i = 99 THEN date '2032-12-31'
                            ELSE (date_trunc('month', date '2020-01-01' + make_interval(months => i)) + interval '1 month - 1 day')::date
                       END AS starts_on) AS d;
SELECT is((SELECT pg_temp.outcome(p.status, p.body) FROM long_list, pg_temp.put_list('long', long_list.sent) AS p), '201 created +100 -0',
          '100 varied closures (month ends, leap days, the last day, reasons of every kind), latest first, are created');
SELECT is(pg_temp.get('long') -> 'blocked_periods', (SELECT stored FROM long_list),
          'they read back earliest first, days and reasons as sent, absent and null reasons alike null');
SELECT is((SELECT pg_temp.outcome(p.status, p.body) FROM long_list, pg_temp.put_list('long', long_list.sent) AS p), '200 unchanged +0 -0',
          'the same 100 sent again are unchanged');
SELECT is((SELECT pg_temp.outcome(p.status, p.body)
             FROM long_list, pg_temp.put_list('long', (SELECT jsonb_agg(CASE WHEN e ? 'reason' AND e -> 'reason' = 'null' THEN e - 'reason' ELSE e END)
                                                         FROM jsonb_array_elements(long_list.sent) AS e)) AS p),
          '200 unchanged +0 -0', 'and unchanged with their null reasons left out');
SELECT is((SELECT pg_temp.outcome(p.status, p.body)
             FROM long_list, pg_temp.put_list('long', jsonb_set(long_list.sent, '{0,reason}', '"Works 99"')) AS p),
          '200 updated +1 -1', 'one reason changed among 100 is one added and one removed');

SELECT is(pg_temp.stored('refused'), '[]'::jsonb, 'after every refusal above, lot refused holds no closure');

-- Write results --------------------------------------------------------------------------------------------------------------

SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed', '[]')), '200 unchanged +0 -0',
          'an empty list sent for an empty list is unchanged: 200, added 0, removed 0');
CREATE TEMP TABLE created AS
SELECT * FROM pg_temp.put_list('closed', jsonb_build_array(pg_temp.p('2026-08-01', '2026-08-15') || '{"reason": "  Resurfacing  "}',
                                                           pg_temp.p('2026-03-01', '2026-03-02')));
SELECT is((SELECT pg_temp.outcome(status, body) FROM created), '201 created +2 -0',
          'a first list for a lot with none is created: 201, added 2, removed 0');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM created), ARRAY['added', 'blocked_periods', 'external_id', 'removed', 'result'],
          'the answer has exactly external_id, result, added, removed, blocked_periods (no dry_run)');
SELECT is((SELECT body ->> 'external_id' FROM created), 'closed', 'the answer names the lot');
SELECT is((SELECT body -> 'blocked_periods' FROM created),
          '[{"starts_on": "2026-03-01", "ends_on": "2026-03-02", "reason": null, "overlapping_bookings": 0},
            {"starts_on": "2026-08-01", "ends_on": "2026-08-15", "reason": "  Resurfacing  ", "overlapping_bookings": 0}]'::jsonb,
          'the list reads back earliest first, reason verbatim (spaces kept) or null, each with overlapping_bookings');
SELECT is((SELECT pg_temp.get('closed')), (SELECT jsonb_build_object('external_id', 'closed', 'blocked_periods', body -> 'blocked_periods') FROM created),
          'GET answers external_id and the same list');
SELECT is(pg_temp.get('bare'), '{"external_id": "bare", "blocked_periods": []}'::jsonb, 'GET of a lot without closures answers an empty list');
SELECT is((SELECT status FROM fx, tests.get_blocked_periods(fx.read_bearer, 'closed')), 200, 'GET answers 200');

-- Unchanged: no statement, no lock.
-- Every statement on app.lot_blocked_periods is counted (a statement-level trigger fires even for a
-- statement that touches no row). Rolled back with the file.
CREATE FUNCTION pg_temp.count_closure_statement()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM set_config('tests.closure_statements',
                       (coalesce(nullif(current_setting('tests.closure_statements', true), ''), '0')::integer + 1)::text, true);
    RETURN NULL;
END
$$;
CREATE TRIGGER count_closure_statements BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON app.lot_blocked_periods
    FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.count_closure_statement();

-- Row locks are read with pgrowlocks, which sees this transaction's own locks and their modes (the
-- lot row's xmax alone cannot tell: inserting a closure already key-share locks the lot row through
-- the foreign key, with this same transaction id).
CREATE EXTENSION pgrowlocks;  -- rolled back with the file

-- What an unchanged write must leave as it was: the closure rows, the lot's tuple and row lock, the
-- table's write counters of this transaction and its statement count.
CREATE FUNCTION pg_temp.footprint(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object(
        'closures', pg_temp.stored(p_external_id),
        'lot_tuple', (SELECT jsonb_build_object('ctid', l.ctid::text, 'xmin', l.xmin::text, 'xmax', l.xmax::text)
                        FROM app.lots AS l, fx WHERE l.operator_id = fx.a AND l.external_id = p_external_id),
        'lot_lock', (SELECT to_jsonb(r.modes) FROM app.lots AS l JOIN pgrowlocks('app.lots') AS r ON r.locked_row = l.ctid, fx
                      WHERE l.operator_id = fx.a AND l.external_id = p_external_id),
        'counters', (SELECT jsonb_build_object('ins', s.n_tup_ins, 'upd', s.n_tup_upd, 'del', s.n_tup_del)
                       FROM pg_stat_xact_user_tables AS s WHERE s.relid = 'app.lot_blocked_periods'::regclass),
        'statements', coalesce(nullif(current_setting('tests.closure_statements', true), ''), '0')::integer);
$$;

-- The lot row gets a fresh version (a lot change): the created list above locked the old one for
-- update; the new version carries only the foreign key's key-share lock.
SELECT is((SELECT p.body ->> 'result' FROM fx, tests.put_lot(fx.bearer, 'closed', tests.lot_body('{"city": "Leeds"}')) AS p), 'updated',
          'the fixture: lot closed changed (a fresh row version)');
CREATE TEMP TABLE footprint_before AS SELECT pg_temp.footprint('closed') AS f;
CREATE TEMP TABLE unchanged AS
SELECT * FROM pg_temp.put_list('closed', jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02') || '{"reason": null}',
                                                           pg_temp.p('2026-08-01', '2026-08-15') || '{"reason": "  Resurfacing  "}'));
CREATE TEMP TABLE footprint_after AS SELECT pg_temp.footprint('closed') AS f;
SELECT is((SELECT pg_temp.outcome(status, body) FROM unchanged), '200 unchanged +0 -0',
          'the same list in another order, a null reason for an absent one: unchanged, added 0, removed 0');
SELECT is((SELECT body -> 'blocked_periods' FROM unchanged), (SELECT body -> 'blocked_periods' FROM created), 'it reads back the same list');
SELECT is((SELECT f -> 'closures' FROM footprint_after), (SELECT f -> 'closures' FROM footprint_before),
          'every closure row is the same tuple (ids, ctid, xmin, xmax)');
SELECT is((SELECT f -> 'lot_tuple' FROM footprint_after), (SELECT f -> 'lot_tuple' FROM footprint_before),
          'the lot row is not written (same ctid, xmin, xmax)');
SELECT is((SELECT f -> 'lot_lock' FROM footprint_after), '["For Key Share"]'::jsonb,
          'the lot row is not locked for update: it holds only the foreign key''s key-share lock of the earlier inserts');
SELECT is((SELECT f -> 'counters' FROM footprint_after), (SELECT f -> 'counters' FROM footprint_before),
          'no row of app.lot_blocked_periods was inserted, updated or deleted (this transaction''s statistics)');
SELECT is((SELECT (f ->> 'statements')::integer FROM footprint_after), (SELECT (f ->> 'statements')::integer FROM footprint_before),
          'no statement ran on app.lot_blocked_periods');

-- Updated: the multiset difference.
CREATE TEMP TABLE reason_changed AS
SELECT * FROM pg_temp.put_list('closed', jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02') || '{"reason": "Works"}',
                                                           pg_temp.p('2026-08-01', '2026-08-15') || '{"reason": "  Resurfacing  "}'));
CREATE TEMP TABLE footprint_changed AS SELECT pg_temp.footprint('closed') AS f;
SELECT is((SELECT pg_temp.outcome(status, body) FROM reason_changed), '200 updated +1 -1',
          'a changed reason is one removed and one added: 200 updated, added 1, removed 1');
SELECT is((SELECT f -> 'lot_lock' FROM footprint_changed), '["For Update"]'::jsonb,
          'the instruments work: a changed list locks the lot row for update (two replacements take turns)');
SELECT is((SELECT f -> 'closures' -> 1 FROM footprint_changed), (SELECT f -> 'closures' -> 1 FROM footprint_after),
          'the entry that did not change keeps its row (same id and tuple): only the difference is written');
SELECT is((SELECT format('%s inserted, %s deleted', (c.f -> 'counters' ->> 'ins')::integer - (b.f -> 'counters' ->> 'ins')::integer,
                                                   (c.f -> 'counters' ->> 'del')::integer - (b.f -> 'counters' ->> 'del')::integer)
             FROM footprint_changed AS c, footprint_after AS b),
          '1 inserted, 1 deleted', 'the instruments work: the changed reason inserted one row and deleted one');
SELECT is((SELECT body -> 'blocked_periods' -> 0 ->> 'reason' FROM reason_changed), 'Works', 'the new reason reads back');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed',
              jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02') || '{"reason": "Works"}', pg_temp.p('2026-08-01', '2026-08-15') || '{"reason": "  Resurfacing  "}',
                                pg_temp.p('2026-10-01', '2026-10-01')))),
          '200 updated +1 -0', 'one entry more: updated, added 1, removed 0');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed',
              jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02') || '{"reason": "Works"}', pg_temp.p('2026-10-01', '2026-10-01')))),
          '200 updated +0 -1', 'one entry fewer: updated, added 0, removed 1');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed',
              jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-03') || '{"reason": "Works"}', pg_temp.p('2026-10-01', '2026-10-01')))),
          '200 updated +1 -1', 'a moved end date is one removed and one added');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed',
              jsonb_build_array(pg_temp.p('2027-01-01', '2027-01-01'), pg_temp.p('2027-02-01', '2027-02-01'), pg_temp.p('2027-03-01', '2027-03-01')))),
          '200 updated +3 -2', 'a wholly new list: added 3, removed 2');
SELECT is(jsonb_array_length(pg_temp.stored('closed')), 3, 'exactly the sent list is stored');
CREATE TEMP TABLE emptied AS SELECT * FROM pg_temp.put_list('closed', '[]');
SELECT is((SELECT pg_temp.outcome(status, body) FROM emptied), '200 updated +0 -3', 'an empty list empties it: 200 updated (not created), removed 3');
SELECT is((SELECT body -> 'blocked_periods' FROM emptied), '[]'::jsonb, 'the read-back is empty');
SELECT is(pg_temp.stored('closed'), '[]'::jsonb, 'no closure is stored');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('closed', jsonb_build_array(pg_temp.p('2026-03-01', '2026-03-02')))),
          '201 created +1 -0', 'a list for an emptied lot is created again: 201');

-- A refused PUT of a lot with closures leaves them.
CREATE TEMP TABLE closed_before AS SELECT pg_temp.stored('closed') AS rows;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'closed',
                            jsonb_build_object('blocked_periods', jsonb_build_array(pg_temp.p('2026-05-01', '2026-05-01'), pg_temp.p('2026-05-01', '2026-05-01')))),
                     'PT422', 'invalid_blocked_periods', 'blocked_periods[1].starts_on', 'the fixture: a refused replacement of lot closed') FROM fx;
SELECT is(pg_temp.stored('closed'), (SELECT rows FROM closed_before), 'a refused PUT leaves the stored list exactly as it was');

-- Sold bookings do not stop a closure.
SELECT isnt(tests.record_booking(a, tests.booking_body('closed')), NULL, 'the fixture: a booking on lot closed 2026-03-10 to 2026-03-13') FROM fx;
SELECT is((SELECT pg_temp.outcome(status, body) || ' ' || (body -> 'blocked_periods' -> 0 ->> 'overlapping_bookings')
             FROM pg_temp.put_list('closed', jsonb_build_array(pg_temp.p('2026-03-11', '2026-03-11')))),
          '200 updated +1 -1 1', 'a closure over a sold booking is accepted; its count says so (overlapping_bookings 1)');

-- A lot that is not the caller's: the uniform 401, before the body -------------------------------------------------------------

SELECT tests.refuses(format('SELECT tests.get_blocked_periods(%L, %L)', read_bearer, 'nope'), 'PT401', 'unauthorized', NULL,
                     'GET of a lot the operator does not hold: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.get_blocked_periods(%L, %L)', read_bearer, 'quay-1'), 'PT401', 'unauthorized', NULL,
                     'GET of another operator''s lot: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.get_blocked_periods(%L, NULL)', read_bearer), 'PT401', 'unauthorized', NULL,
                     'GET of an invalid external id (NULL): the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.get_blocked_periods(%L, %L)', bearer, 'closed'), 'PT401', 'unauthorized', NULL,
                     'GET with a write_supply-only credential: 401 (read_supply lists closures)') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'nope', '{"blocked_periods": []}'), 'PT401', 'unauthorized', NULL,
                     'PUT of a lot the operator does not hold: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'quay-1', '{"blocked_periods": []}'), 'PT401', 'unauthorized', NULL,
                     'PUT of another operator''s lot: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, NULL, %L)', bearer, '{"blocked_periods": []}'), 'PT401', 'unauthorized', NULL,
                     'PUT of an invalid external id (NULL): the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'nope', '{"blocked_periods": '), 'PT401', 'unauthorized', NULL,
                     'the lot is checked before the body: unparseable JSON for an unknown lot is still 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', bearer, 'quay-1', '{"blocked_periods": 1}'), 'PT401', 'unauthorized', NULL,
                     'a bad list for another operator''s lot is still 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L)', read_bearer, 'closed', '{"blocked_periods": []}'), 'PT401', 'unauthorized', NULL,
                     'PUT with a read_supply-only credential: 401') FROM fx;
SELECT is((SELECT count(*) FROM app.lot_blocked_periods WHERE operator_id = (SELECT b FROM fx)), 1::bigint, 'B''s closure is untouched');

-- The console writes the same list with the same rules ---------------------------------------------------------------------------

SELECT tests.act_as_console_user(owner, a) FROM fx;
CREATE TEMP TABLE console_created AS
SELECT console.lot_blocked_periods_put('console', jsonb_build_array(pg_temp.p('2026-07-01', '2026-07-04') || '{"reason": "Event"}')) AS answer;
SELECT tests.act_as_superuser();
SELECT is((SELECT answer FROM console_created),
          '{"external_id": "console", "result": "created", "added": 1, "removed": 0,
            "blocked_periods": [{"starts_on": "2026-07-01", "ends_on": "2026-07-04", "reason": "Event", "overlapping_bookings": 0}]}'::jsonb,
          'an owner writes a list in the console: the same answer as the API route (created, added 1)');
SELECT is(pg_temp.get('console') -> 'blocked_periods', (SELECT answer -> 'blocked_periods' FROM console_created),
          'the API GET lists the console-written closure');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('console', jsonb_build_array(pg_temp.p('2026-07-01', '2026-07-04') || '{"reason": "Event"}'))),
          '200 unchanged +0 -0', 'the API PUT of the same list is unchanged: one list');
SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT is(console.lot_blocked_periods_put('console', jsonb_build_array(pg_temp.p('2026-07-01', '2026-07-04') || '{"reason": "Event"}', pg_temp.p('2026-09-01', '2026-09-01')))
            ->> 'result', 'updated', 'a manager writes the list too: updated');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '[{"starts_on": "2026-01-01", "ends_on": "2026-01-05"}, {"starts_on": "2026-01-05", "ends_on": "2026-01-05"}]')$$,
                     'PT422', 'invalid_blocked_periods', 'blocked_periods[1].starts_on', 'the console refuses an overlap the same way');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '[{"starts_on": "2026-01-01", "ends_on": "2026-01-01", "reason": " "}]')$$,
                     'PT422', 'invalid_blocked_periods', 'blocked_periods[0].reason', 'the console refuses a blank reason the same way');
SELECT tests.refuses(format('SELECT console.lot_blocked_periods_put(%L, %L)', 'console', pg_temp.days(101)),
                     'PT422', 'invalid_blocked_periods', 'blocked_periods', 'the console refuses more than 100 entries the same way');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '{}')$$,
                     'PT422', 'invalid_blocked_periods', 'blocked_periods', 'the console refuses a list that is not an array');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', NULL)$$,
                     'PT422', 'invalid_blocked_periods', 'blocked_periods', 'the console refuses no list at all');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('nope', '[]')$$,
                     'PT422', 'invalid_parameter', 'p_external_id', 'the console answers invalid_parameter for a lot that does not exist');
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('quay-1', '[]')$$,
                     'PT422', 'invalid_parameter', 'p_external_id', 'another operator''s lot id does not exist for this operator');
SELECT tests.act_as_console_user(staff, a) FROM fx;
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '[]')$$, 'PT403', 'forbidden', NULL, 'staff cannot write closures');
SELECT tests.act_as_console_user(b_owner, a) FROM fx;
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '[]')$$, 'PT403', 'forbidden', NULL,
                     'naming an operator one is not a member of is forbidden');
SELECT tests.act_as_console_user(b_owner, b) FROM fx;
SELECT tests.refuses($$SELECT console.lot_blocked_periods_put('console', '[]')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'another operator''s owner acting for their own operator cannot reach A''s lot');
SELECT tests.act_as_superuser();
SELECT is(jsonb_array_length(pg_temp.stored('console')), 2, 'the refused console calls changed nothing: the two closures stay');
SELECT is((SELECT pg_temp.outcome(status, body) FROM pg_temp.put_list('console', jsonb_build_array(pg_temp.p('2026-09-01', '2026-09-01')))),
          '200 updated +0 -1', 'an API PUT that omits a console-written closure removes it');
SELECT is(pg_temp.get('console') -> 'blocked_periods', '[{"starts_on": "2026-09-01", "ends_on": "2026-09-01", "reason": null, "overlapping_bookings": 0}]'::jsonb,
          'only the sent closure remains');

-- Dry run ---------------------------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE dry_created AS SELECT * FROM pg_temp.put_list('dry', jsonb_build_array(pg_temp.p('2026-04-01', '2026-04-02')), true);
SELECT is((SELECT pg_temp.outcome(status, body) FROM dry_created), '200 created +1 -0', 'a dry run that would create answers 200 (not 201), result created');
SELECT is((SELECT body -> 'dry_run' FROM dry_created), 'true'::jsonb, 'its answer carries dry_run: true');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM dry_created),
          ARRAY['added', 'blocked_periods', 'dry_run', 'external_id', 'removed', 'result'], 'a dry run answers the report''s keys plus dry_run');
SELECT is(pg_temp.stored('dry'), '[]'::jsonb, 'after the dry run nothing is stored');
SELECT is(pg_temp.get('dry') -> 'blocked_periods', '[]'::jsonb, 'and GET lists nothing');
CREATE TEMP TABLE real_created AS SELECT * FROM pg_temp.put_list('dry', jsonb_build_array(pg_temp.p('2026-04-01', '2026-04-02')));
SELECT is((SELECT status FROM real_created), 201, 'the real write answers 201');
SELECT is((SELECT body FROM dry_created), (SELECT body || '{"dry_run": true}' FROM real_created),
          'the dry run''s answer is the real write''s report plus dry_run: true (the list read back included)');
CREATE TEMP TABLE dry_before AS SELECT pg_temp.stored('dry') AS rows;
SELECT is((SELECT pg_temp.outcome(status, body) || ' ' || (body -> 'blocked_periods')::text FROM pg_temp.put_list('dry', '[]', true)),
          '200 updated +0 -1 []', 'a dry run that would empty the list: 200 updated, removed 1, the list as it would be');
SELECT is(pg_temp.stored('dry') #- '{0,xmax}', (SELECT rows #- '{0,xmax}' FROM dry_before), 'after it the stored closure is the same row (id, ctid, xmin)');
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L, true)', bearer, 'dry', '{"blocked_periods": [{"starts_on": "2026-04-01"}]}'),
                     'PT422', 'invalid_blocked_periods', 'blocked_periods[0].ends_on', 'a dry run is refused as the real write') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_blocked_periods(%L, %L, %L, true)', bearer, 'nope', '{"blocked_periods": []}'),
                     'PT401', 'unauthorized', NULL, 'a dry run for an unknown lot is the same 401') FROM fx;

-- The field registry (app.blocked_period_fields) is the one list: the read form has exactly the keys
-- of its entries, the body exactly those a write sends.
SELECT set_eq($$SELECT jsonb_object_keys(e) FROM jsonb_array_elements(pg_temp.get('console') -> 'blocked_periods') AS e$$,
              $$SELECT name FROM app.blocked_period_fields() WHERE kind <> 'list'$$,
              'a listed closure has exactly the keys of the field registry''s entries');
SELECT is(ARRAY(SELECT name FROM app.blocked_period_fields() WHERE in_body AND kind <> 'list' ORDER BY ordinal),
          ARRAY['starts_on', 'ends_on', 'reason'], 'a written entry sends starts_on, ends_on and reason');

SELECT * FROM finish();
ROLLBACK;
