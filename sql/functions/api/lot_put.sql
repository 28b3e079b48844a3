-- PUT /lots/{external_id}: create or amend one lot. write_supply. p_external_id is the decoded path
-- value (NULL when it was not valid UTF-8 of 1-200 characters); p_body the raw body text.
--
-- A dry run runs the write in full (same statements, triggers and transaction) inside a block that
-- is then rolled back; the credential's last use, recorded before it, stays.
CREATE OR REPLACE FUNCTION api.lot_put(
    p_authorization text,
    p_external_id text,
    p_body text,
    p_dry_run boolean,
    OUT status integer,
    OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = ''
AS $$
DECLARE
    v_caller record;
    v_report jsonb;
BEGIN
    SELECT * INTO v_caller FROM app.authenticate(p_authorization, 'write_supply', true);
    IF p_dry_run THEN
        BEGIN
            v_report := app.lot_write(v_caller.operator_id, p_external_id, p_body);
            RAISE EXCEPTION USING ERRCODE = 'PDRYR';
        EXCEPTION
            WHEN SQLSTATE 'PDRYR' THEN
                NULL;  -- rolled back; the report stays
        END;
    ELSE
        v_report := app.lot_write(v_caller.operator_id, p_external_id, p_body);
    END IF;
    SELECT a.status, a.body INTO status, body FROM app.write_answer(v_report, p_dry_run) AS a;
END
$$;
REVOKE ALL ON FUNCTION api.lot_put(text, text, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.lot_put(text, text, text, boolean) TO ingest_gateway;
