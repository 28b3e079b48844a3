-- The Rates fields, once, in the order of the spec's Rates table, which is the order of `changed`.
-- Each field's name (as `changed` lists it, as the body and the read form name it, and as its column
-- is named), its kind (how app.rates_from_body reads it: `price` by the two shapes of the three
-- prices, `currency` against the settlement currency, any other by app.json_field) and its default
-- for absent or null. The body's keys (plus `fixed_price`, the other shape of the three prices), the
-- reader, the diff and its order come from here; the read form's keys are checked against it
-- (sql/tests/15-rates.sql). Which changes widen the envelope is a rule of its own (rates_write.sql).
CREATE OR REPLACE FUNCTION app.rates_fields()
RETURNS TABLE (ordinal integer, name text, kind text, default_value jsonb)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (1, 'currency', 'currency', NULL::jsonb),
        (2, 'base_price', 'price', NULL),
        (3, 'floor_price', 'price', NULL),
        (4, 'ceiling_price', 'price', NULL),
        (5, 'min_first_day_price', 'money', NULL),
        (6, 'dynamic', 'boolean', 'false'),
        (7, 'valid_from', 'date', NULL),
        (8, 'valid_to', 'date', NULL);
END
$$;
REVOKE ALL ON FUNCTION app.rates_fields() FROM PUBLIC;
