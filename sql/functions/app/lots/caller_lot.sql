-- The operator's lot named by external_id, or a refusal: one lookup for every function that acts on
-- one existing lot. Runs under the operator context.

-- The lot, locked FOR UPDATE when p_for_update; when the operator has no such lot, PT<p_status>
-- p_code with DETAIL p_field.
CREATE OR REPLACE FUNCTION app.lot_or_refuse(
    p_operator_id uuid,
    p_external_id text,
    p_for_update boolean,
    p_status integer,
    p_code text,
    p_field text)
RETURNS app.lots
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot app.lots;
BEGIN
    IF p_for_update THEN
        SELECT * INTO v_lot FROM app.lots AS l
         WHERE l.operator_id = p_operator_id AND l.external_id = p_external_id
           FOR UPDATE;
    ELSE
        SELECT * INTO v_lot FROM app.lots AS l WHERE l.operator_id = p_operator_id AND l.external_id = p_external_id;
    END IF;
    IF NOT FOUND THEN
        PERFORM app.refuse(p_status, p_code, p_field);
    END IF;
    RETURN v_lot;
END
$$;
REVOKE ALL ON FUNCTION app.lot_or_refuse(uuid, text, boolean, integer, text, text) FROM PUBLIC;

-- The API's routes under an existing lot (rates, blocked periods): a lot id that is not one of the
-- caller's lots (or not a valid id at all) answers the same PT401 `unauthorized` as a bad
-- credential, so ids cannot be probed.
CREATE OR REPLACE FUNCTION app.caller_lot(p_operator_id uuid, p_external_id text)
RETURNS app.lots
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.lot_or_refuse(p_operator_id, p_external_id, false, 401, 'unauthorized', NULL);
END
$$;
REVOKE ALL ON FUNCTION app.caller_lot(uuid, text) FROM PUBLIC;

-- The console's and the platform's functions, which name a lot by their parameter p_external_id:
-- an unknown one is PT422 `invalid_parameter` `p_external_id`.
CREATE OR REPLACE FUNCTION app.named_lot(p_operator_id uuid, p_external_id text, p_for_update boolean DEFAULT false)
RETURNS app.lots
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.lot_or_refuse(p_operator_id, p_external_id, p_for_update, 422, 'invalid_parameter', 'p_external_id');
END
$$;
REVOKE ALL ON FUNCTION app.named_lot(uuid, text, boolean) FROM PUBLIC;
