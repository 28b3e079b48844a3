-- Raise a refusal in the one convention every layer understands: SQLSTATE 'PT' || HTTP status,
-- MESSAGE = the stable error code, DETAIL = the caller's own field or parameter name (or none).
-- PostgREST turns PTxyz into HTTP xyz for the console; the gateway does the same for the API.
-- VOLATILE, so the planner never folds a refusal written as a constant expression.
CREATE OR REPLACE FUNCTION app.refuse(p_status integer, p_error text, p_field text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_field IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'PT' || p_status::text, MESSAGE = p_error;
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'PT' || p_status::text, MESSAGE = p_error, DETAIL = p_field;
END
$$;
REVOKE ALL ON FUNCTION app.refuse(integer, text, text) FROM PUBLIC;
