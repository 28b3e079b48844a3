-- The Rates fields, once: each field's name (as `changed` lists it, as the body and the read form
-- name it, and as its column is named), in the order of the spec's Rates table, which is the order
-- of `changed`. The body reader takes its keys from here (plus `fixed_price`, the other shape of the
-- three prices), the diff its fields and order; the read form's keys are checked against it
-- (sql/tests/15-rates.sql). Which changes widen the envelope is a rule of its own (rates_write.sql).
CREATE OR REPLACE FUNCTION app.rates_fields()
RETURNS TABLE (ordinal integer, name text)
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    VALUES
        (1, 'currency'),
        (2, 'base_price'),
        (3, 'floor_price'),
        (4, 'ceiling_price'),
        (5, 'min_first_day_price'),
        (6, 'dynamic'),
        (7, 'valid_from'),
        (8, 'valid_to');
$$;
REVOKE ALL ON FUNCTION app.rates_fields() FROM PUBLIC;
