-- A JSON setting such as PostgREST's request.jwt.claims, or NULL when it is unset, empty or not a
-- JSON object: a garbled setting is a refusal for the caller, never a server error.
CREATE OR REPLACE FUNCTION app.setting_as_jsonb(p_name text)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_value jsonb;
BEGIN
    v_value := nullif(current_setting(p_name, true), '')::jsonb;
    RETURN CASE WHEN jsonb_typeof(v_value) = 'object' THEN v_value END;
EXCEPTION
    WHEN invalid_text_representation THEN
        RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.setting_as_jsonb(text) FROM PUBLIC;
