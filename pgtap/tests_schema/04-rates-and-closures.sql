-- The `tests` helper schema, part 04: rates and closures (through the API functions, never by
-- writing tables) (the index: README.md).

-- A valid rates write body (PUT /lots/{external_id}/rates) as text: the range shape 10.00 / 15.00 /
-- 20.00 in the operator's settlement currency (no currency key), no validity window, so it is in
-- force whatever the day. p_overrides merged over it key by key; the keys in p_without then removed.
CREATE FUNCTION tests.rates_body(p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT (('{"floor_price": "10.00", "base_price": "15.00", "ceiling_price": "20.00"}'::jsonb || p_overrides) - p_without)::text;
$$;

-- PUT /lots/{external_id}/rates the way the gateway calls it: api.lot_rates_put as role
-- ingest_gateway; answers (status, body). A refusal propagates as raised.
CREATE FUNCTION tests.put_rates(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_rates_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- PUT /lots/{external_id}/blocked-periods the way the gateway calls it: api.lot_blocked_periods_put
-- as role ingest_gateway; answers (status, body). A refusal propagates as raised.
CREATE FUNCTION tests.put_blocked_periods(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_blocked_periods_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- GET /lots/{external_id}/blocked-periods the way the gateway calls it: api.lot_blocked_periods_get
-- as role ingest_gateway; answers (status, body).
CREATE FUNCTION tests.get_blocked_periods(p_bearer text, p_external_id text, OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.lot_blocked_periods_get(p_bearer, p_external_id) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;
