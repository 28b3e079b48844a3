-- The Rates fields, once, in the order of the spec's Rates table, which is the order of `changed`,
-- then `fixed_price` (the other shape of the three prices). Each field's
--   name         as `changed` lists it, as the body and the read form name it, and as its column
--                is named;
--   kind         how app.rates_from_body reads it: `price` by the two shapes of the three prices,
--                `currency` against the settlement currency, any other by app.json_field;
--   stored       false for fixed_price alone: a body key, expanded into the three prices, never
--                a column nor in the read form;
--   max_value    the most a money value may be (app.json_money's own bound);
--   default_value  for absent or null;
--   description  what a client must know of it, as the published OpenAPI document says it.
-- The body's keys, the reader, the diff and its order come from here; the read form's keys are
-- checked against it (sql/tests/15-rates.sql). Which changes widen the envelope is a rule of its own
-- (rates_write.sql). The OpenAPI document's rates schemas are read off this function's text
-- (gateway/src/registry.rs; keep its rows plain literals), and a test compares them with what
-- PostgreSQL returns.
CREATE OR REPLACE FUNCTION app.rates_fields()
RETURNS TABLE (
    ordinal integer, name text, kind text, stored boolean, max_value numeric, default_value jsonb,
    description text)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (1, 'currency', 'currency', true, NULL::numeric, NULL::jsonb,
            'ISO 4217, three letters in any letter case. Absent or null means the operator''s settlement currency, and it can be nothing else (`currency_is_not_settlement_currency`).'),
        (2, 'base_price', 'price', true, 9999999999.99, NULL,
            'The usual price. Range shape: floor_price, base_price and ceiling_price all required, with floor_price <= base_price <= ceiling_price (else `invalid_price_envelope`).'),
        (3, 'floor_price', 'price', true, 9999999999.99, NULL,
            'The least the marketplace may sell at. Lowering it widens the envelope.'),
        (4, 'ceiling_price', 'price', true, 9999999999.99, NULL,
            'The most the marketplace may sell at. Raising it widens the envelope.'),
        (5, 'min_first_day_price', 'money', true, 9999999999.99, NULL,
            'The least the first day of a stay may cost: within floor_price..ceiling_price, else `invalid_first_day_price`.'),
        (6, 'dynamic', 'boolean', true, NULL, 'false',
            'Whether the marketplace may move the price within the envelope. Absent or null stores false; a flip widens the envelope.'),
        (7, 'valid_from', 'date', true, NULL, NULL,
            'First day the envelope is in force, YYYY-MM-DD (a timestamp is refused, never truncated); null: from now on.'),
        (8, 'valid_to', 'date', true, NULL, NULL,
            'Last day the envelope is in force, YYYY-MM-DD; not before valid_from (`invalid_validity_window`); null: open-ended.'),
        (9, 'fixed_price', 'price', false, 9999999999.99, NULL,
            'Fixed shape: one price, sent alone instead of the range; it expands to floor_price = base_price = ceiling_price. With any of the three range prices: `invalid_body`, field `fixed_price`; neither shape: `missing_field`, field `fixed_price`.');
END
$$;
REVOKE ALL ON FUNCTION app.rates_fields() FROM PUBLIC;
