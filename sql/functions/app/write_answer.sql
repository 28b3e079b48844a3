-- The answer of a PUT route from its write report: 201 when it created something (never on a dry
-- run, which always answers 200), else 200; a dry run's report carries `dry_run: true`.
CREATE OR REPLACE FUNCTION app.write_answer(p_report jsonb, p_dry_run boolean, OUT status integer, OUT body jsonb)
LANGUAGE sql
IMMUTABLE
SET search_path = ''
AS $$
    SELECT CASE WHEN p_report ->> 'result' = 'created' AND NOT p_dry_run THEN 201 ELSE 200 END,
           CASE WHEN p_dry_run THEN p_report || '{"dry_run": true}' ELSE p_report END;
$$;
REVOKE ALL ON FUNCTION app.write_answer(jsonb, boolean) FROM PUBLIC;
