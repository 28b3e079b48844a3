-- The caller's lot for the routes under an existing lot (rates, blocked periods): a lot id that is
-- not one of the caller's lots (or not a valid id at all) answers the same PT401 `unauthorized` as a
-- bad credential, so ids cannot be probed. Runs under the operator context.
CREATE OR REPLACE FUNCTION app.caller_lot(p_operator_id uuid, p_external_id text)
RETURNS app.lots
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot app.lots;
BEGIN
    SELECT * INTO v_lot FROM app.lots AS l WHERE l.operator_id = p_operator_id AND l.external_id = p_external_id;
    IF NOT FOUND THEN
        PERFORM app.refuse(401, 'unauthorized');
    END IF;
    RETURN v_lot;
END
$$;
REVOKE ALL ON FUNCTION app.caller_lot(uuid, text) FROM PUBLIC;
