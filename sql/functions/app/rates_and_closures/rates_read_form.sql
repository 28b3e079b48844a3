-- The Rates object: money as two-decimal strings (the columns' scale is 2, so their text is always
-- "12.00"), dates as YYYY-MM-DD; NULL for no envelope. PL/pgSQL, like app.lot_read_form, for a
-- plan kept for the session rather than one made at every calling statement.
CREATE OR REPLACE FUNCTION app.rates_read_form(p_rates app.lot_rates)
RETURNS jsonb
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN CASE WHEN p_rates.channel IS NOT NULL THEN jsonb_build_object(
        'channel', p_rates.channel,
        'currency', p_rates.currency,
        'base_price', p_rates.base_price::text,
        'floor_price', p_rates.floor_price::text,
        'ceiling_price', p_rates.ceiling_price::text,
        'min_first_day_price', p_rates.min_first_day_price::text,
        'dynamic', p_rates.dynamic,
        'valid_from', to_char(p_rates.valid_from, 'YYYY-MM-DD'),
        'valid_to', to_char(p_rates.valid_to, 'YYYY-MM-DD')) END;
END
$$;
REVOKE ALL ON FUNCTION app.rates_read_form(app.lot_rates) FROM PUBLIC;
