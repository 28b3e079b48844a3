-- A new, active operator account. The media folder (the operator's folder in the platform's photo
-- store, checked by the lot media rule) defaults to the operator id as text.
CREATE OR REPLACE FUNCTION platform.operator_create(
    p_name text,
    p_settlement_currency text,
    p_media_folder text DEFAULT NULL)
RETURNS uuid
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id uuid := gen_random_uuid();
    v_currency text := upper(btrim(p_settlement_currency) COLLATE "C");
    v_folder text := coalesce(p_media_folder, v_id::text);
BEGIN
    IF p_name IS NULL OR app.is_blank(p_name) OR char_length(p_name) > 200 THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_name');
    END IF;
    IF v_currency IS NULL OR NOT EXISTS (SELECT FROM app.iso_currencies AS c WHERE c.code = v_currency) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_settlement_currency');
    END IF;
    -- One plain path segment: no slash, no dot segment, nothing that percent-decodes differently.
    IF v_folder !~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$' THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_media_folder');
    END IF;

    PERFORM app.set_operator_context(v_id);
    INSERT INTO app.operators (id, name, settlement_currency, media_folder)
    VALUES (v_id, p_name, v_currency, v_folder);
    RETURN v_id;
EXCEPTION
    WHEN unique_violation THEN
        PERFORM app.refuse(409, 'conflict', 'p_media_folder');
        RETURN NULL;  -- not reached: app.refuse raises
END
$$;
REVOKE ALL ON FUNCTION platform.operator_create(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.operator_create(text, text, text) TO platform_service;
