-- The write a PUT route names: 'lot' (app.lot_write), 'rates' (app.rates_write) or
-- 'blocked_periods' (app.blocked_periods_write), each taking operator id, external id, raw body and
-- the gateway's verdict on it (app.refuse_body_fault), and answering the write report. Static calls, not EXECUTE: a dynamic statement is parsed and
-- planned again at every call, a static one once per session (bench/FINDINGS.md, "Functions are
-- PL/pgSQL, even one-line ones; writes called by name").
CREATE OR REPLACE FUNCTION app.write_named(p_write text, p_operator_id uuid, p_external_id text, p_body text, p_body_fault jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE p_write
        WHEN 'lot' THEN
            RETURN app.lot_write(p_operator_id, p_external_id, p_body, p_body_fault);
        WHEN 'rates' THEN
            RETURN app.rates_write(p_operator_id, p_external_id, p_body, p_body_fault);
        WHEN 'blocked_periods' THEN
            RETURN app.blocked_periods_write(p_operator_id, p_external_id, p_body, p_body_fault);
    END CASE;
END
$$;
REVOKE ALL ON FUNCTION app.write_named(text, uuid, text, text, jsonb) FROM PUBLIC;

-- The one way a PUT route writes: the write p_write names (app.write_named) runs for real, or as a
-- dry run: in full (same statements, triggers and transaction) inside a block that is then rolled
-- back, keeping the report. Refusals are the same either way.
--
-- Status: 201 when the write created something, except on a dry run (always 200), else 200; a dry
-- run's report carries `dry_run: true`.
CREATE OR REPLACE FUNCTION app.run_write(
    p_write text,
    p_operator_id uuid,
    p_external_id text,
    p_body text,
    p_body_fault jsonb,
    p_dry_run boolean,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_report jsonb;
BEGIN
    IF p_dry_run THEN
        BEGIN
            v_report := app.write_named(p_write, p_operator_id, p_external_id, p_body, p_body_fault);
            RAISE EXCEPTION USING ERRCODE = 'PDRYR';
        EXCEPTION
            WHEN SQLSTATE 'PDRYR' THEN
                NULL;  -- rolled back; the report stays
        END;
        status := 200;
        body := v_report || '{"dry_run": true}';
    ELSE
        v_report := app.write_named(p_write, p_operator_id, p_external_id, p_body, p_body_fault);
        status := CASE WHEN v_report ->> 'result' = 'created' THEN 201 ELSE 200 END;
        body := v_report;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION app.run_write(text, uuid, text, text, jsonb, boolean) FROM PUBLIC;
