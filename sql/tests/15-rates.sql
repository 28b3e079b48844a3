-- PUT /lots/{external_id}/rates (spec: Rates, PUT /lots/{external_id}/rates, Write result, Dry run;
-- docs/reference/errors.md, "Which field a refusal names"), called as the gateway
-- (api.lot_rates_put, role ingest_gateway): the two body shapes and their refusals, every optional
-- field, money exact to two decimals, the envelope and first-day rules, the answer, diff before
-- update (an equal envelope issues no statement), envelope_widened case by case, rates never
-- voiding a review, the uniform 401 for a lot that is not the caller's (before the body), dry run,
-- GET /lots showing the envelope, and the lot_price_in_force requirement on the lot's own calendar.
BEGIN;
SELECT plan(222);

-- Operator A (settlement currency EUR) writes and reads; operator B holds a lot of its own.
CREATE TEMP TABLE fx AS
SELECT a, b,
       tests.issue_credential(a, ARRAY['write_supply']) AS bearer,
       tests.issue_credential(a, ARRAY['read_supply']) AS read_bearer,
       tests.issue_credential(b, ARRAY['write_supply']) AS b_bearer
  FROM tests.make_operator('Harbour Parking', 'EUR', 'harbour') AS a, tests.make_operator('Quay Parking', 'EUR', 'quay') AS b;
GRANT SELECT ON fx TO PUBLIC;

SELECT is_empty(
    $$SELECT l.id FROM fx, (VALUES ('refused'), ('accepted'), ('diff'), ('wide'), ('dry'), ('sold'), ('bare')) AS l(id),
                       tests.put_lot(fx.bearer, l.id, tests.lot_body()) AS p
       WHERE p.status <> 201$$,
    'the fixture: A''s lots are created');
SELECT is((SELECT p.status FROM fx, tests.put_lot(fx.b_bearer, 'quay-1', tests.lot_body()) AS p), 201, 'the fixture: B''s lot quay-1');

-- PUT the rates of A's lot p_external_id; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text, p_dry_run boolean DEFAULT false)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_rates(fx.bearer, p_external_id, p_body, p_dry_run) AS p;
$$;

-- A PUT of the rates of lot `refused` (which never gets an envelope) with this body is refused:
-- PT422, p_error, DETAIL p_field.
CREATE FUNCTION pg_temp.refused(p_body text, p_error text, p_field text, p_description text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'refused', p_body),
                         'PT422', p_error, p_field, p_description)
      FROM fx;
$$;

-- A PUT of the rates of lot `accepted` with this body is accepted, and the Rates read back holds
-- p_expected under p_key. A refusal fails the test and shows the error.
CREATE FUNCTION pg_temp.accepts(p_body text, p_key text, p_expected jsonb, p_description text)
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
        SELECT * INTO v_answer FROM pg_temp.put('accepted', p_body);
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS v_code = RETURNED_SQLSTATE, v_message = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL;
        RETURN ok(false, p_description) || E'\n'
            || diag('      refused: ' || v_code || ' ' || v_message || coalesce(' DETAIL ' || nullif(v_detail, ''), ''));
    END;
    RETURN is(v_answer.body -> 'rates' -> p_key, p_expected, p_description);
END
$$;

-- The envelope prices (floor, base, ceiling) read back by a PUT of lot `accepted` with this body.
CREATE FUNCTION pg_temp.trio(p_body text)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT ARRAY[body -> 'rates' ->> 'floor_price', body -> 'rates' ->> 'base_price', body -> 'rates' ->> 'ceiling_price']
      FROM pg_temp.put('accepted', p_body);
$$;

-- The stored marketplace row of A's lot with its tuple's place, version and lock (ctid, xmin, xmax),
-- as the superuser; NULL when there is none.
CREATE FUNCTION pg_temp.stored(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT to_jsonb(r) || jsonb_build_object('ctid', r.ctid::text, 'xmin', r.xmin::text, 'xmax', r.xmax::text)
      FROM app.lot_rates AS r JOIN app.lots AS l ON l.operator_id = r.operator_id AND l.id = r.lot_id, fx
     WHERE l.operator_id = fx.a AND l.external_id = p_external_id;
$$;

-- Shapes -----------------------------------------------------------------------------------------------------------

SELECT is(pg_temp.trio(tests.rates_body()), ARRAY['10.00', '15.00', '20.00'], 'the range shape is accepted: floor, base, ceiling as sent');
SELECT is(pg_temp.trio('{"fixed_price": "12.50"}'), ARRAY['12.50', '12.50', '12.50'], 'the fixed shape expands to floor = base = ceiling');
SELECT is(pg_temp.trio('{"floor_price": "7", "base_price": "7", "ceiling_price": "7"}'), ARRAY['7.00', '7.00', '7.00'],
          'a range with floor = base = ceiling is accepted');
SELECT pg_temp.refused('{"fixed_price": "12", "floor_price": "10", "base_price": "15", "ceiling_price": "20"}', 'invalid_body', 'fixed_price',
                       'both shapes at once are invalid_body, field fixed_price');
SELECT pg_temp.refused('{"fixed_price": "12", "base_price": "15"}', 'invalid_body', 'fixed_price',
                       'fixed_price with any one range price is invalid_body, field fixed_price (base_price)');
SELECT pg_temp.refused('{"fixed_price": "12", "ceiling_price": "15"}', 'invalid_body', 'fixed_price',
                       'fixed_price with any one range price is invalid_body, field fixed_price (ceiling_price)');
SELECT pg_temp.refused('{"fixed_price": "12", "floor_price": "12"}', 'invalid_body', 'fixed_price',
                       'fixed_price with any one range price is invalid_body, field fixed_price (floor_price)');
SELECT pg_temp.refused('{"base_price": "15", "ceiling_price": "20"}', 'missing_field', 'floor_price', 'a range without floor_price is missing_field floor_price');
SELECT pg_temp.refused('{"floor_price": "10", "ceiling_price": "20"}', 'missing_field', 'base_price', 'a range without base_price is missing_field base_price');
SELECT pg_temp.refused('{"floor_price": "10", "base_price": "15"}', 'missing_field', 'ceiling_price',
                       'a range without ceiling_price is missing_field ceiling_price');
SELECT pg_temp.refused('{"ceiling_price": "20"}', 'missing_field', 'floor_price',
                       'a range of ceiling_price alone names the first missing: floor_price');
SELECT pg_temp.refused('{"floor_price": "10"}', 'missing_field', 'base_price', 'a range of floor_price alone names the first missing: base_price');
SELECT pg_temp.refused('{}', 'missing_field', 'fixed_price', 'neither shape (an empty body) is missing_field fixed_price');
SELECT pg_temp.refused('{"currency": "EUR", "dynamic": true}', 'missing_field', 'fixed_price',
                       'optional fields without a shape are missing_field fixed_price');
SELECT is(pg_temp.trio('{"fixed_price": null, "floor_price": "10", "base_price": "15", "ceiling_price": "20"}'), ARRAY['10.00', '15.00', '20.00'],
          'a null fixed_price counts as absent: the range is accepted');
SELECT is(pg_temp.trio('{"fixed_price": "9", "floor_price": null, "base_price": null, "ceiling_price": null}'), ARRAY['9.00', '9.00', '9.00'],
          'null range prices count as absent: the fixed shape is accepted');
SELECT pg_temp.refused('{"floor_price": null, "base_price": "15", "ceiling_price": "20"}', 'missing_field', 'floor_price',
                       'a null floor_price in a range counts as absent: missing_field floor_price');
SELECT pg_temp.refused('{"fixed_price": null}', 'missing_field', 'fixed_price', 'a null fixed_price alone is neither shape: missing_field fixed_price');

-- Not a JSON object, unknown keys -------------------------------------------------------------------------------------

SELECT pg_temp.refused('not json', 'invalid_json', NULL, 'a body that is not JSON is invalid_json');
SELECT pg_temp.refused(NULL, 'invalid_json', NULL, 'no body at all is invalid_json');
SELECT pg_temp.refused('[]', 'invalid_body', NULL, 'an array body is invalid_body without a field');
SELECT pg_temp.refused('"12.00"', 'invalid_body', NULL, 'a string body is invalid_body without a field');
SELECT pg_temp.refused('null', 'invalid_body', NULL, 'a null body is invalid_body without a field');
SELECT pg_temp.refused(tests.rates_body('{"colour": "blue"}'), 'unknown_field', 'colour', 'an unknown key is unknown_field naming it');
SELECT pg_temp.refused(tests.rates_body('{"channel": "marketplace"}'), 'unknown_field', 'channel',
                       'channel is read-only: sending it is unknown_field channel');
SELECT pg_temp.refused('{"colour": "blue"}', 'unknown_field', 'colour', 'an unknown key is reported before a missing shape');

-- Money --------------------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE money_ok (n integer, sent text, expected text, what text);
INSERT INTO money_ok VALUES
    (1, '"12.50"', '12.50', 'a decimal string'),
    (2, '12.5', '12.50', 'a number'),
    (3, '"12"', '12.00', 'a string without decimals'),
    (4, '12', '12.00', 'an integer'),
    (5, '"12.340"', '12.34', 'a string with a third decimal zero'),
    (6, '12.340', '12.34', 'a number with a third decimal zero'),
    (7, '"12.3400000"', '12.34', 'a string with many zero decimals'),
    (8, '"0"', '0.00', 'zero'),
    (9, '0.001e3', '1.00', 'a number in exponent form that is two-decimal exact'),
    (10, '"9999999999.99"', '9999999999.99', 'the largest amount the money columns hold'),
    (11, '"007.5"', '7.50', 'a string with leading zeros');
SELECT is((SELECT t[2] FROM pg_temp.trio(format('{"fixed_price": %s}', sent)) AS t), expected,
          format('money: %s (%s) is accepted and reads back as %s, always two decimals', what, sent, expected))
  FROM money_ok ORDER BY n;

CREATE TEMP TABLE money_bad (n integer, sent text, what text);
INSERT INTO money_bad VALUES
    (1, '"12.345"', 'a string with a third non-zero decimal (never rounded)'),
    (2, '12.345', 'a number with a third non-zero decimal (never rounded)'),
    (3, '12.3400001', 'a number with a non-zero seventh decimal'),
    (4, '"12.3400001"', 'a string with a non-zero seventh decimal'),
    (5, '"-1.00"', 'a negative string'),
    (6, '-0.01', 'a negative number'),
    (7, '1e10', 'ten thousand million (more than the money columns hold)'),
    (8, '"10000000000"', 'ten thousand million as a string'),
    (9, '"1e2"', 'a string in exponent form'),
    (10, '""', 'an empty string'),
    (11, '" 12"', 'a string with a space'),
    (12, '"12."', 'a string ending in a point'),
    (13, '".5"', 'a string starting with a point'),
    (14, '"12,50"', 'a decimal comma'),
    (15, '"12.50 EUR"', 'an amount with a currency'),
    (16, 'true', 'a boolean'),
    (17, '{"amount": "12.50"}', 'an object'),
    (18, '["12.50"]', 'an array');
SELECT pg_temp.refused(format('{"fixed_price": %s}', sent), 'invalid_body', 'fixed_price', format('money: %s (%s) is invalid_body fixed_price', what, sent))
  FROM money_bad ORDER BY n;
SELECT pg_temp.refused(tests.rates_body('{"floor_price": "10.005"}'), 'invalid_body', 'floor_price', 'a third decimal in floor_price is invalid_body floor_price');
SELECT pg_temp.refused(tests.rates_body('{"base_price": "15.005"}'), 'invalid_body', 'base_price', 'a third decimal in base_price is invalid_body base_price');
SELECT pg_temp.refused(tests.rates_body('{"ceiling_price": "20.005"}'), 'invalid_body', 'ceiling_price',
                       'a third decimal in ceiling_price is invalid_body ceiling_price');
SELECT pg_temp.refused(tests.rates_body('{"min_first_day_price": "12.005"}'), 'invalid_body', 'min_first_day_price',
                       'a third decimal in min_first_day_price is invalid_body min_first_day_price');
SELECT pg_temp.refused(tests.rates_body('{"floor_price": "-1"}'), 'invalid_body', 'floor_price', 'a negative floor_price is invalid_body floor_price');
SELECT pg_temp.refused(tests.rates_body('{"min_first_day_price": -12}'), 'invalid_body', 'min_first_day_price',
                       'a negative min_first_day_price is invalid_body min_first_day_price');
SELECT pg_temp.refused('{"fixed_price": 1e1000000}', 'invalid_body', NULL,
                       'a number out of every range is invalid_body (the gateway names its member: src/json_syntax.rs)');

-- The envelope and the first-day price ------------------------------------------------------------------------------------

SELECT pg_temp.refused(tests.rates_body('{"floor_price": "15.01"}'), 'invalid_price_envelope', 'floor_price',
                       'floor above base is invalid_price_envelope, field floor_price');
SELECT pg_temp.refused(tests.rates_body('{"ceiling_price": "14.99"}'), 'invalid_price_envelope', 'ceiling_price',
                       'base above ceiling is invalid_price_envelope, field ceiling_price');
SELECT pg_temp.refused('{"floor_price": "30", "base_price": "20", "ceiling_price": "10"}', 'invalid_price_envelope', 'floor_price',
                       'everything out of order names floor_price first');
SELECT is(pg_temp.trio(tests.rates_body('{"floor_price": "15.00", "ceiling_price": "15"}')), ARRAY['15.00', '15.00', '15.00'],
          'floor = base and base = ceiling are in order');
SELECT pg_temp.refused(tests.rates_body('{"min_first_day_price": "9.99"}'), 'invalid_first_day_price', 'min_first_day_price',
                       'a first-day price below the floor is invalid_first_day_price');
SELECT pg_temp.refused(tests.rates_body('{"min_first_day_price": "20.01"}'), 'invalid_first_day_price', 'min_first_day_price',
                       'a first-day price above the ceiling is invalid_first_day_price');
SELECT pg_temp.refused('{"fixed_price": "12", "min_first_day_price": "12.01"}', 'invalid_first_day_price', 'min_first_day_price',
                       'with a fixed price the first-day price must equal it');
SELECT pg_temp.accepts(tests.rates_body('{"min_first_day_price": "10"}'), 'min_first_day_price', '"10.00"', 'a first-day price equal to the floor is accepted');
SELECT pg_temp.accepts(tests.rates_body('{"min_first_day_price": 20}'), 'min_first_day_price', '"20.00"', 'a first-day price equal to the ceiling is accepted');
SELECT pg_temp.accepts(tests.rates_body('{"min_first_day_price": "12.5"}'), 'min_first_day_price', '"12.50"',
                       'a first-day price inside the envelope reads back with two decimals');
SELECT pg_temp.accepts(tests.rates_body('{"min_first_day_price": null}'), 'min_first_day_price', 'null', 'a null first-day price reads back null');
SELECT pg_temp.accepts(tests.rates_body(), 'min_first_day_price', 'null', 'an absent first-day price reads back null');

-- Currency -------------------------------------------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.rates_body(), 'currency', '"EUR"', 'an absent currency is the settlement currency');
SELECT pg_temp.accepts(tests.rates_body('{"currency": null}'), 'currency', '"EUR"', 'a null currency is the settlement currency');
SELECT pg_temp.accepts(tests.rates_body('{"currency": "EUR"}'), 'currency', '"EUR"', 'the settlement currency is accepted');
SELECT pg_temp.accepts(tests.rates_body('{"currency": "eur"}'), 'currency', '"EUR"', 'the settlement currency in lower case is accepted, stored upper-case');
SELECT pg_temp.refused(tests.rates_body('{"currency": "GBP"}'), 'currency_is_not_settlement_currency', 'currency',
                       'another ISO 4217 code is currency_is_not_settlement_currency, field currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": "usd"}'), 'currency_is_not_settlement_currency', 'currency',
                       'another code in lower case likewise');
SELECT pg_temp.refused(tests.rates_body('{"currency": 978}'), 'invalid_body', 'currency', 'a numeric currency is invalid_body currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": "EU"}'), 'invalid_body', 'currency', 'two letters are invalid_body currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": "EURO"}'), 'invalid_body', 'currency', 'four letters are invalid_body currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": " EUR"}'), 'invalid_body', 'currency', 'a padded code is invalid_body currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": ""}'), 'invalid_body', 'currency', 'an empty currency is invalid_body currency');
SELECT pg_temp.refused(tests.rates_body('{"currency": "€UR"}'), 'invalid_body', 'currency', 'a code that is not three letters A-Z is invalid_body currency');

-- dynamic ------------------------------------------------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.rates_body(), 'dynamic', 'false', 'dynamic defaults to false');
SELECT pg_temp.accepts(tests.rates_body('{"dynamic": null}'), 'dynamic', 'false', 'a null dynamic is false');
SELECT pg_temp.accepts(tests.rates_body('{"dynamic": true}'), 'dynamic', 'true', 'dynamic true is stored');
SELECT pg_temp.accepts(tests.rates_body('{"dynamic": false}'), 'dynamic', 'false', 'dynamic false is stored');
SELECT pg_temp.refused(tests.rates_body('{"dynamic": "true"}'), 'invalid_body', 'dynamic', 'a string "true" is invalid_body dynamic');
SELECT pg_temp.refused(tests.rates_body('{"dynamic": 1}'), 'invalid_body', 'dynamic', 'the number 1 is invalid_body dynamic');

-- valid_from and valid_to ---------------------------------------------------------------------------------------------------------

SELECT pg_temp.accepts(tests.rates_body(), 'valid_from', 'null', 'an absent valid_from reads back null');
SELECT pg_temp.accepts(tests.rates_body(), 'valid_to', 'null', 'an absent valid_to reads back null');
SELECT pg_temp.accepts(tests.rates_body('{"valid_from": "2026-01-05"}'), 'valid_from', '"2026-01-05"', 'a plain date valid_from is stored');
SELECT pg_temp.accepts(tests.rates_body('{"valid_to": "2028-02-29"}'), 'valid_to', '"2028-02-29"', 'a leap day valid_to is stored');
SELECT pg_temp.accepts(tests.rates_body('{"valid_to": "2400-02-29"}'), 'valid_to', '"2400-02-29"',
                       'the leap day of a century that is a leap year (2400) is stored');
SELECT pg_temp.accepts(tests.rates_body('{"valid_to": "9999-12-31"}'), 'valid_to', '"9999-12-31"', 'the last day of year 9999 is stored');
SELECT pg_temp.accepts(tests.rates_body('{"valid_from": "2026-01-05", "valid_to": "2026-01-05"}'), 'valid_to', '"2026-01-05"',
                       'a window of one day (valid_to = valid_from) is accepted');
SELECT pg_temp.accepts(tests.rates_body('{"valid_from": null, "valid_to": "2026-01-05"}'), 'valid_from', 'null', 'a window open at the start is accepted');
CREATE TEMP TABLE dates_bad (n integer, sent text, what text);
INSERT INTO dates_bad VALUES
    (1, '"2026-01-05T00:00:00"', 'a timestamp (refused, not truncated)'),
    (2, '"2026-01-05 00:00:00"', 'a timestamp with a space'),
    (3, '"2026-01-05T00:00:00Z"', 'a timestamp in UTC'),
    (4, '"2026-02-30"', 'a day that does not exist'),
    (5, '"2026-02-29"', 'a leap day of a common year'),
    (6, '"2026-1-5"', 'a date without leading zeros'),
    (7, '"05/01/2026"', 'a date in another order'),
    (8, '"20260105"', 'a date without dashes'),
    (9, '20260105', 'a number'),
    (10, '""', 'an empty string'),
    (11, '"0000-01-01"', 'year zero'),
    (12, '"2100-02-29"', 'the leap day of a century that is not a leap year'),
    (13, '"2026-13-01"', 'a thirteenth month'),
    (14, '"2026-01-05\n"', 'a date followed by a line break');
SELECT pg_temp.refused(tests.rates_body(format('{"valid_from": %s}', sent)::jsonb), 'invalid_body', 'valid_from',
                       format('valid_from: %s (%s) is invalid_body valid_from', what, sent))
  FROM dates_bad ORDER BY n;
SELECT pg_temp.refused(tests.rates_body('{"valid_to": "2026-01-05T23:59:59"}'), 'invalid_body', 'valid_to', 'a timestamp valid_to is invalid_body valid_to');
SELECT pg_temp.refused(tests.rates_body('{"valid_to": "2026-13-01"}'), 'invalid_body', 'valid_to', 'a month 13 valid_to is invalid_body valid_to');
SELECT pg_temp.refused(tests.rates_body('{"valid_from": "2026-01-06", "valid_to": "2026-01-05"}'), 'invalid_validity_window', 'valid_to',
                       'valid_to before valid_from is invalid_validity_window, field valid_to');

-- The answer, created --------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE created AS SELECT * FROM pg_temp.put('diff', tests.rates_body('{"min_first_day_price": "12", "valid_from": "2026-01-01"}'));
SELECT is((SELECT status FROM created), 201, 'the first envelope of a lot answers 201');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM created),
          ARRAY['changed', 'envelope_widened', 'external_id', 'rates', 'result'],
          'the answer has exactly external_id, result, changed, envelope_widened, rates (no dry_run)');
SELECT is((SELECT body ->> 'external_id' FROM created), 'diff', 'the answer names the lot');
SELECT is((SELECT body ->> 'result' FROM created), 'created', 'its result is created');
SELECT is((SELECT body -> 'changed' FROM created),
          '["currency", "base_price", "floor_price", "ceiling_price", "min_first_day_price", "dynamic", "valid_from", "valid_to"]'::jsonb,
          'on create every field is listed as changed, in the Rates table''s order');
SELECT is((SELECT body -> 'envelope_widened' FROM created), 'true'::jsonb, 'a first envelope is a widening (none existed)');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body -> 'rates') ORDER BY 1) FROM created),
          ARRAY['base_price', 'ceiling_price', 'channel', 'currency', 'dynamic', 'floor_price', 'min_first_day_price', 'valid_from', 'valid_to'],
          'the Rates object has exactly channel, currency, base_price, floor_price, ceiling_price, min_first_day_price, dynamic, valid_from, valid_to');
SELECT is((SELECT body -> 'rates' FROM created),
          '{"channel": "marketplace", "currency": "EUR", "base_price": "15.00", "floor_price": "10.00", "ceiling_price": "20.00",
            "min_first_day_price": "12.00", "dynamic": false, "valid_from": "2026-01-01", "valid_to": null}'::jsonb,
          'the Rates read back: channel marketplace, the settlement currency, two-decimal strings, plain dates');
SELECT results_eq(
    $$SELECT r.operator_id, r.channel, r.currency, r.floor_price, r.base_price, r.ceiling_price, r.min_first_day_price, r.dynamic,
             r.valid_from, r.valid_to, r.created_at, r.updated_at
        FROM app.lot_rates AS r JOIN app.lots AS l ON l.id = r.lot_id WHERE l.external_id = 'diff'$$,
    $$SELECT a, 'marketplace'::text, 'EUR'::text, 10.00::numeric, 15.00::numeric, 20.00::numeric, 12.00::numeric, false,
             '2026-01-01'::date, NULL::date, now(), now() FROM fx$$,
    'one marketplace row is stored for the caller''s operator, made now');

-- Unchanged: no statement at all ---------------------------------------------------------------------------------------

-- Every statement on app.lot_rates is counted (a statement-level trigger fires even for a statement
-- that touches no row). Rolled back with the file.
CREATE FUNCTION pg_temp.count_rates_statement()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM set_config('tests.rates_statements',
                       (coalesce(nullif(current_setting('tests.rates_statements', true), ''), '0')::integer + 1)::text, true);
    RETURN NULL;
END
$$;
CREATE TRIGGER count_rates_statements BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON app.lot_rates
    FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.count_rates_statement();

-- Row locks of the lot are read with pgrowlocks, which sees this transaction's own locks and their
-- modes (the lot row's xmax alone cannot tell: inserting the envelope already key-share locked it
-- through the foreign key, with this same transaction id).
CREATE EXTENSION pgrowlocks;  -- rolled back with the file

-- What an unchanged write must leave as it was: the envelope's tuple (xmax: no lock), the lot's tuple
-- and row lock, app.lot_rates' write counters of this transaction and its statement count.
CREATE FUNCTION pg_temp.footprint(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object(
        'rates_tuple', pg_temp.stored(p_external_id) - ARRAY['operator_id', 'lot_id'],
        'lot_tuple', (SELECT jsonb_build_object('ctid', l.ctid::text, 'xmin', l.xmin::text, 'xmax', l.xmax::text)
                        FROM app.lots AS l, fx WHERE l.operator_id = fx.a AND l.external_id = p_external_id),
        'lot_lock', (SELECT to_jsonb(r.modes) FROM app.lots AS l JOIN pgrowlocks('app.lots') AS r ON r.locked_row = l.ctid, fx
                      WHERE l.operator_id = fx.a AND l.external_id = p_external_id),
        'counters', (SELECT jsonb_build_object('ins', s.n_tup_ins, 'upd', s.n_tup_upd, 'hot_upd', s.n_tup_hot_upd, 'del', s.n_tup_del)
                       FROM pg_stat_xact_user_tables AS s WHERE s.relid = 'app.lot_rates'::regclass),
        'statements', coalesce(nullif(current_setting('tests.rates_statements', true), ''), '0')::integer);
$$;

SAVEPOINT before_unchanged;
CREATE TEMP TABLE footprint_before AS SELECT pg_temp.footprint('diff') AS f;
CREATE TEMP TABLE unchanged AS
SELECT * FROM pg_temp.put('diff', '{"floor_price": 10, "base_price": "15.0", "ceiling_price": "20.000", "currency": "eur", "dynamic": null,
                                     "min_first_day_price": 12.00, "valid_from": "2026-01-01", "valid_to": null}');
CREATE TEMP TABLE footprint_after AS SELECT pg_temp.footprint('diff') AS f;
SELECT is((SELECT status FROM unchanged), 200, 'a PUT of the same envelope (written differently) answers 200');
SELECT is((SELECT body ->> 'result' FROM unchanged), 'unchanged', 'its result is unchanged (10 = "10.00", eur = EUR, null dynamic = false)');
SELECT is((SELECT body -> 'changed' FROM unchanged), '[]'::jsonb, 'its changed list is empty');
SELECT is((SELECT body -> 'envelope_widened' FROM unchanged), 'false'::jsonb, 'an unchanged envelope is no widening');
SELECT is((SELECT body -> 'rates' FROM unchanged), (SELECT body -> 'rates' FROM created), 'it reads back the same Rates');
SELECT is((SELECT f -> 'rates_tuple' FROM footprint_after), (SELECT f -> 'rates_tuple' FROM footprint_before),
          'the envelope row is the same tuple: same ctid, xmin (no write) and xmax (no lock), same updated_at');
SELECT is((SELECT f -> 'lot_tuple' FROM footprint_after), (SELECT f -> 'lot_tuple' FROM footprint_before),
          'the lot row is not written (same ctid, xmin, xmax)');
SELECT is((SELECT f -> 'lot_lock' FROM footprint_after), '["For Key Share"]'::jsonb,
          'the lot row is not locked: it holds only the foreign key''s key-share lock of the envelope''s insert');
SELECT is((SELECT f -> 'counters' FROM footprint_after), (SELECT f -> 'counters' FROM footprint_before),
          'no row of app.lot_rates was inserted, updated or deleted (this transaction''s statistics)');
SELECT is((SELECT (f ->> 'statements')::integer FROM footprint_after), (SELECT (f ->> 'statements')::integer FROM footprint_before),
          'no INSERT, UPDATE or DELETE statement ran on app.lot_rates');
CREATE TEMP TABLE footprint_changed AS
SELECT pg_temp.footprint('diff') AS f FROM pg_temp.put('diff', tests.rates_body('{"min_first_day_price": "12", "valid_from": "2026-01-02"}'));
SELECT isnt((SELECT f -> 'rates_tuple' ->> 'xmin' FROM footprint_changed), (SELECT f -> 'rates_tuple' ->> 'xmin' FROM footprint_after),
            'the instruments work: a changed PUT writes a new tuple version');
SELECT is((SELECT (f -> 'counters' ->> 'upd')::integer FROM footprint_changed), (SELECT (f -> 'counters' ->> 'upd')::integer + 1 FROM footprint_after),
          'the instruments work: a changed PUT counts one updated row');
ROLLBACK TO SAVEPOINT before_unchanged;

-- Updated: what changed, in order ------------------------------------------------------------------------------------------

-- The answer to a PUT of lot `diff` with p_then right after a PUT with p_first.
CREATE FUNCTION pg_temp.answer_between(p_first text, p_then text)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT NULL, NULL FROM pg_temp.put('diff', p_first);
    SELECT p.status, p.body FROM pg_temp.put('diff', p_then) AS p;
$$;

CREATE TEMP TABLE one_change (n integer, field text, overrides jsonb);
INSERT INTO one_change VALUES
    (1, 'base_price', '{"base_price": "16"}'),
    (2, 'floor_price', '{"floor_price": "11"}'),
    (3, 'ceiling_price', '{"ceiling_price": "21"}'),
    (4, 'min_first_day_price', '{"min_first_day_price": "12"}'),
    (5, 'dynamic', '{"dynamic": true}'),
    (6, 'valid_from', '{"valid_from": "2026-01-01"}'),
    (7, 'valid_to', '{"valid_to": "2026-12-31"}');
SELECT is((SELECT ARRAY[p.status::text, p.body ->> 'result'] || ARRAY(SELECT jsonb_array_elements_text(p.body -> 'changed'))
             FROM pg_temp.answer_between(tests.rates_body(), tests.rates_body(overrides)) AS p),
          ARRAY['200', 'updated', field], format('a change of %s alone answers 200 updated, changed [%s]', field, field))
  FROM one_change ORDER BY n;
SELECT is((SELECT ARRAY(SELECT jsonb_array_elements_text(p.body -> 'changed'))
             FROM pg_temp.answer_between(tests.rates_body('{"valid_to": "2026-12-31"}'), tests.rates_body()) AS p),
          ARRAY['valid_to'], 'removing a value (valid_to back to null) is a change of it');
SELECT is((SELECT body -> 'changed' FROM pg_temp.answer_between(tests.rates_body(), '{"fixed_price": "15"}')),
          '["floor_price", "ceiling_price"]'::jsonb, 'a fixed price replacing a range lists the prices that differ');
-- Every field at once, the stored currency first made another (only the settlement currency can be
-- written through the API, so the other is put in place directly).
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('diff', tests.rates_body())), 'updated', 'the fixture: the test envelope');
UPDATE app.lot_rates SET currency = 'GBP' WHERE lot_id = (SELECT id FROM app.lots WHERE external_id = 'diff');
SELECT is((SELECT body -> 'changed' FROM pg_temp.put('diff', '{"floor_price": "1", "base_price": "2", "ceiling_price": "3", "min_first_day_price": "2",
                                                               "dynamic": true, "valid_from": "2026-01-01", "valid_to": "2026-01-31"}')),
          '["currency", "base_price", "floor_price", "ceiling_price", "min_first_day_price", "dynamic", "valid_from", "valid_to"]'::jsonb,
          'a change of every field lists them all in the Rates table''s order: currency, base, floor, ceiling, first day, dynamic, dates');
SELECT results_eq(
    $$SELECT r.currency, r.floor_price, r.base_price, r.ceiling_price, r.min_first_day_price, r.dynamic, r.valid_from, r.valid_to, r.updated_at
        FROM app.lot_rates AS r JOIN app.lots AS l ON l.id = r.lot_id WHERE l.external_id = 'diff'$$,
    $$VALUES ('EUR'::text, 1.00::numeric, 2.00::numeric, 3.00::numeric, 2.00::numeric, true, '2026-01-01'::date, '2026-01-31'::date, now())$$,
    'the update is stored, currency back to the settlement currency, updated_at now');
SELECT is((SELECT count(*) FROM app.lot_rates AS r JOIN app.lots AS l ON l.id = r.lot_id WHERE l.external_id = 'diff'), 1::bigint,
          'a lot keeps one marketplace row through its updates');

-- envelope_widened, one case at a time ------------------------------------------------------------------------------------------

-- envelope_widened of a PUT of lot `wide` with p_then right after a PUT with p_first.
CREATE FUNCTION pg_temp.widened_between(p_first text, p_then text)
RETURNS boolean
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put('wide', p_first);
    SELECT (p.body -> 'envelope_widened')::boolean FROM pg_temp.put('wide', p_then) AS p;
$$;

SELECT is((SELECT (body -> 'envelope_widened')::boolean FROM pg_temp.put('wide', tests.rates_body())), true,
          'widened: no envelope existed before (created)');
CREATE TEMP TABLE widening (n integer, what text, first_write jsonb, then_write jsonb, widened boolean);
INSERT INTO widening VALUES
    (1, 'the floor went down', '{}', '{"floor_price": "9.99"}', true),
    (2, 'the ceiling went up', '{}', '{"ceiling_price": "20.01"}', true),
    (3, 'dynamic flipped on', '{}', '{"dynamic": true}', true),
    (4, 'dynamic flipped off', '{"dynamic": true}', '{"dynamic": false}', true),
    (5, 'the floor went down while the ceiling went down', '{}', '{"floor_price": "9", "ceiling_price": "19"}', true),
    (6, 'a fixed price below the floor replaced the range', '{}', '{"floor_price": null, "base_price": null, "ceiling_price": null, "fixed_price": "9"}', true),
    (7, 'the floor went up', '{}', '{"floor_price": "10.01"}', false),
    (8, 'the ceiling went down', '{}', '{"ceiling_price": "19.99"}', false),
    (9, 'the base changed', '{}', '{"base_price": "19"}', false),
    (10, 'the first-day price was set', '{}', '{"min_first_day_price": "10"}', false),
    (11, 'the first-day price changed', '{"min_first_day_price": "10"}', '{"min_first_day_price": "20"}', false),
    (12, 'the first-day price was removed', '{"min_first_day_price": "10"}', '{}', false),
    (13, 'valid_from changed', '{}', '{"valid_from": "2026-01-01"}', false),
    (14, 'valid_to changed', '{"valid_to": "2026-06-30"}', '{"valid_to": "2026-12-31"}', false),
    (15, 'the window moved entirely', '{"valid_from": "2026-01-01", "valid_to": "2026-01-31"}', '{"valid_from": "2027-01-01", "valid_to": "2027-01-31"}', false),
    (16, 'nothing changed (unchanged)', '{"dynamic": true}', '{"dynamic": true}', false),
    (17, 'a fixed price inside the envelope replaced the range', '{}', '{"floor_price": null, "base_price": null, "ceiling_price": null, "fixed_price": "15"}', false);
SELECT is(pg_temp.widened_between(tests.rates_body(first_write), tests.rates_body(then_write)), widened,
          format('envelope_widened is %s when %s', CASE WHEN widened THEN 'true' ELSE 'false' END, what))
  FROM widening ORDER BY n;

-- A currency change: the stored row is given another currency directly; the settlement currency is
-- then written back through the API.
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('wide', tests.rates_body())), 'updated', 'the fixture: the test envelope on lot wide');
UPDATE app.lot_rates SET currency = 'GBP' WHERE lot_id = (SELECT id FROM app.lots WHERE external_id = 'wide');
CREATE TEMP TABLE currency_change AS SELECT * FROM pg_temp.put('wide', tests.rates_body());
SELECT is((SELECT body -> 'changed' FROM currency_change), '["currency"]'::jsonb, 'the same prices in another currency than stored: changed [currency]');
SELECT is((SELECT body -> 'envelope_widened' FROM currency_change), 'true'::jsonb, 'envelope_widened is true when the currency changed');

-- It compares with the envelope live just before the write, not an older one.
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('wide', tests.rates_body())), 'unchanged', 'the fixture: floor 10.00 live');
SELECT is((SELECT (body -> 'envelope_widened')::boolean FROM pg_temp.put('wide', tests.rates_body('{"floor_price": "12"}'))), false,
          'the floor raised to 12.00: not widened');
SELECT is((SELECT (body -> 'envelope_widened')::boolean FROM pg_temp.put('wide', tests.rates_body('{"floor_price": "11"}'))), true,
          'the floor then lowered to 11.00 (still above the earlier 10.00): widened, compared with the live 12.00');

-- Rates never void a review by themselves --------------------------------------------------------------------------------

SELECT is(tests.make_lot_sell(a, 'sold') ->> 'selling', 'true', 'the fixture: lot sold sells (with the test envelope)') FROM fx;
CREATE TEMP TABLE sold_lot_before AS SELECT l.xmin::text AS version, l.updated_at FROM app.lots AS l WHERE l.external_id = 'sold';
CREATE TEMP TABLE sold_widened AS SELECT * FROM pg_temp.put('sold', tests.rates_body('{"floor_price": "1", "ceiling_price": "99", "dynamic": true}'));
SELECT is((SELECT body -> 'envelope_widened' FROM sold_widened), 'true'::jsonb, 'the fixture: a widening of an approved lot''s envelope');
SELECT is(tests.listing_status(a, 'sold'), '{"review_state": "approved", "timezone_confirmed": true, "online_bookable": true, "selling": true, "unmet": []}'::jsonb,
          'after the widening the lot is still approved and selling: rates do not void a review') FROM fx;
SELECT is((SELECT ARRAY[l.xmin::text, l.updated_at::text] FROM app.lots AS l WHERE l.external_id = 'sold'),
          (SELECT ARRAY[version, updated_at::text] FROM sold_lot_before), 'a rates write does not write the lot row');

-- A lot that is not the caller's: the uniform 401, before the body -----------------------------------------------------------

SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'nope', tests.rates_body()), 'PT401', 'unauthorized', NULL,
                     'rates of a lot the operator does not hold: the uniform 401 (never a create)') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'quay-1', tests.rates_body()), 'PT401', 'unauthorized', NULL,
                     'rates of another operator''s lot: the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, NULL, %L)', bearer, tests.rates_body()), 'PT401', 'unauthorized', NULL,
                     'rates of an invalid external id (the gateway passes NULL): the uniform 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'nope', 'not json'), 'PT401', 'unauthorized', NULL,
                     'an unknown lot is checked before the body: unparseable JSON for it is still 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'quay-1', '{"colour": 1}'), 'PT401', 'unauthorized', NULL,
                     'another operator''s lot with a bad body is still 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', read_bearer, 'accepted', tests.rates_body()), 'PT401', 'unauthorized', NULL,
                     'a read_supply credential cannot write rates, even of its own lot: 401') FROM fx;
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L, true)', bearer, 'nope', tests.rates_body()), 'PT401', 'unauthorized', NULL,
                     'a dry run for an unknown lot is the same 401') FROM fx;
SELECT is((SELECT count(*) FROM app.lot_rates WHERE operator_id = (SELECT b FROM fx)), 0::bigint, 'B''s lot got no envelope');
SELECT is(tests.lot_count(a), 7::bigint, 'no lot was created for A') FROM fx;

-- Refusals store nothing ---------------------------------------------------------------------------------------------------------

SELECT is(pg_temp.stored('refused'), NULL, 'after every refusal above, lot refused holds no envelope');
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('accepted', tests.rates_body())), 'updated', 'the fixture: lot accepted back to the test envelope');
CREATE TEMP TABLE accepted_before AS SELECT pg_temp.stored('accepted') AS row;
SELECT pg_temp.refused(tests.rates_body('{"floor_price": "10.001"}'), 'invalid_body', 'floor_price', 'the fixture: a refused body');
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L)', bearer, 'accepted', tests.rates_body('{"ceiling_price": "1"}')),
                     'PT422', 'invalid_price_envelope', 'ceiling_price', 'a refused PUT of a lot with an envelope') FROM fx;
SELECT is(pg_temp.stored('accepted'), (SELECT row FROM accepted_before), 'a refused PUT leaves the stored envelope exactly as it was');

-- Dry run -------------------------------------------------------------------------------------------------------------------------------

CREATE TEMP TABLE dry_created AS SELECT * FROM pg_temp.put('dry', tests.rates_body('{"dynamic": true}'), true);
SELECT is((SELECT status FROM dry_created), 200, 'a dry run that would create answers 200, not 201');
SELECT is((SELECT body ->> 'result' FROM dry_created), 'created', 'its result states what the write would do: created');
SELECT is((SELECT body -> 'dry_run' FROM dry_created), 'true'::jsonb, 'its answer carries dry_run: true');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(body) ORDER BY 1) FROM dry_created),
          ARRAY['changed', 'dry_run', 'envelope_widened', 'external_id', 'rates', 'result'], 'a dry run answers the report''s keys plus dry_run');
SELECT is(pg_temp.stored('dry'), NULL, 'after a dry-run create no envelope is stored');
CREATE TEMP TABLE real_created AS SELECT * FROM pg_temp.put('dry', tests.rates_body('{"dynamic": true}'));
SELECT is((SELECT status FROM real_created), 201, 'the real write of the same body answers 201');
SELECT is((SELECT body FROM dry_created), (SELECT body || '{"dry_run": true}' FROM real_created),
          'the dry run''s answer is the real write''s report plus dry_run: true');
CREATE TEMP TABLE dry_before AS SELECT pg_temp.stored('dry') - 'xmax' AS row;
CREATE TEMP TABLE dry_updated AS SELECT * FROM pg_temp.put('dry', tests.rates_body('{"floor_price": "5"}'), true);
SELECT is((SELECT ARRAY[status::text, body ->> 'result', body ->> 'envelope_widened', body -> 'rates' ->> 'floor_price'] FROM dry_updated),
          ARRAY['200', 'updated', 'true', '5.00'], 'a dry-run update answers 200 updated, widened, with the Rates as they would be');
SELECT is(pg_temp.stored('dry') - 'xmax', (SELECT row FROM dry_before),
          'after a dry-run update the stored envelope is exactly as before (values, ctid, xmin)');
SELECT tests.refuses(format('SELECT tests.put_rates(%L, %L, %L, true)', bearer, 'refused', tests.rates_body('{"currency": "GBP"}')),
                     'PT422', 'currency_is_not_settlement_currency', 'currency', 'a dry run is refused as the real write') FROM fx;

-- GET /lots carries each lot's envelope --------------------------------------------------------------------------------------

CREATE TEMP TABLE listed AS
SELECT e ->> 'external_id' AS id, e -> 'rates' AS rates
  FROM fx, tests.get_lots(fx.read_bearer, NULL, 200) AS g, jsonb_array_elements(g.body -> 'lots') AS e;
SELECT is((SELECT rates FROM listed WHERE id = 'dry'), (SELECT body -> 'rates' FROM real_created),
          'GET /lots shows a lot''s envelope in rates, as the rates write read it back');
SELECT is((SELECT rates FROM listed WHERE id = 'bare'), 'null'::jsonb, 'GET /lots shows rates null for a lot without an envelope');

-- lot_price_in_force: an envelope whose window holds today on the lot's own calendar -----------------------------------------

-- Two lots on either side of the date line: Kiritimati (UTC+14) is always a day or two ahead of
-- Pago Pago (UTC-11).
SELECT is_empty(
    $$SELECT z FROM fx, (VALUES ('Pacific/Kiritimati'), ('Pacific/Pago_Pago')) AS t(z),
                     tests.put_lot(fx.bearer, z, tests.lot_body(jsonb_build_object('timezone', z))) AS p
       WHERE p.status <> 201$$,
    'the fixture: a lot in Pacific/Kiritimati and one in Pacific/Pago_Pago');
CREATE TEMP TABLE today AS
SELECT (now() AT TIME ZONE 'Pacific/Kiritimati')::date AS kiri, (now() AT TIME ZONE 'Pacific/Pago_Pago')::date AS pago;
SELECT cmp_ok((SELECT kiri FROM today), '>', (SELECT pago FROM today), 'the fixture: today in Kiritimati is later than today in Pago Pago');

-- Whether lot p_lot meets lot_price_in_force after a PUT of the test envelope with this window.
CREATE FUNCTION pg_temp.in_force(p_lot text, p_from date, p_to date)
RETURNS boolean
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put(p_lot, tests.rates_body(jsonb_build_object('valid_from', p_from, 'valid_to', p_to)));
    SELECT NOT tests.listing_status(fx.a, p_lot) -> 'unmet' ? 'lot_price_in_force' FROM fx;
$$;

SELECT is(tests.listing_status(a, 'Pacific/Kiritimati') -> 'unmet', '["lot_price_in_force"]'::jsonb,
          'a lot without an envelope does not meet lot_price_in_force (its only unmet requirement)') FROM fx;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', NULL, NULL), true, 'an envelope without a window is in force');
SELECT is(pg_temp.in_force('Pacific/Kiritimati', kiri, kiri), true, 'a window of the lot''s today alone is in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', kiri, NULL), true, 'a window starting the lot''s today is in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', NULL, kiri), true, 'a window ending the lot''s today is in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', kiri - 30, kiri + 30), true, 'a window around the lot''s today is in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', NULL, kiri - 1), false, 'a window that ended the lot''s yesterday is not in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', kiri + 1, NULL), false, 'a window starting the lot''s tomorrow is not in force') FROM today;
SELECT is(pg_temp.in_force('Pacific/Kiritimati', pago, pago), false,
          'a window of today in Pago Pago is not in force for the Kiritimati lot (its today is later)') FROM today;
SELECT is(pg_temp.in_force('Pacific/Pago_Pago', pago, pago), true, 'a window of today in Pago Pago is in force for the Pago Pago lot') FROM today;
SELECT is(pg_temp.in_force('Pacific/Pago_Pago', kiri, kiri), false,
          'a window of today in Kiritimati is not in force for the Pago Pago lot (its today is earlier)') FROM today;

-- The field registry (app.rates_fields) is the one list: the read form has exactly its keys and the
-- constant channel, and every field is a column of app.lot_rates under its name.
SELECT set_eq($$SELECT jsonb_object_keys(app.rates_read_form(jsonb_populate_record(NULL::app.lot_rates, '{"channel": "marketplace"}')))$$,
              $$SELECT 'channel' UNION SELECT name FROM app.rates_fields() WHERE stored$$,
              'the Rates read form has exactly the keys of the field registry, and channel');
SELECT is(tests.names_not_columns_of('app.lot_rates', ARRAY(SELECT name FROM app.rates_fields() WHERE stored)), '{}'::text[],
          'every field of the registry is a column of app.lot_rates under its name');

SELECT * FROM finish();
ROLLBACK;
