-- The one way a PUT route writes: p_write (app.lot_write, app.rates_write or
-- app.blocked_periods_write, each taking operator id, external id and raw body, answering the write
-- report) runs for real, or as a dry run: in full (same statements, triggers and transaction) inside
-- a block that is then rolled back, keeping the report. Refusals are the same either way.
--
-- Status: 201 when the write created something, except on a dry run (always 200), else 200; a dry
-- run's report carries `dry_run: true`.
CREATE OR REPLACE FUNCTION app.run_write(
    p_write regproc,
    p_operator_id uuid,
    p_external_id text,
    p_body text,
    p_dry_run boolean,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_call constant text := format('SELECT %s($1, $2, $3)', p_write);
    v_report jsonb;
BEGIN
    IF p_dry_run THEN
        BEGIN
            EXECUTE v_call INTO v_report USING p_operator_id, p_external_id, p_body;
            RAISE EXCEPTION USING ERRCODE = 'PDRYR';
        EXCEPTION
            WHEN SQLSTATE 'PDRYR' THEN
                NULL;  -- rolled back; the report stays
        END;
        status := 200;
        body := v_report || '{"dry_run": true}';
    ELSE
        EXECUTE v_call INTO v_report USING p_operator_id, p_external_id, p_body;
        status := CASE WHEN v_report ->> 'result' = 'created' THEN 201 ELSE 200 END;
        body := v_report;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION app.run_write(regproc, uuid, text, text, boolean) FROM PUBLIC;
