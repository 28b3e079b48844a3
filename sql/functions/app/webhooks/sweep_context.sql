-- The delivery worker's context: every operator's endpoints and hints, read and changed by the
-- functions of schema `webhook` only. Entered after leaving any operator context (a caller may have
-- forged one), and left before returning; the sweep policies hold only while no operator is entered,
-- and app.set_operator_context clears the flag, so a flag set by hand widens nothing anywhere else.
-- (Two statements: leaving the operator clears the flag, so it is set after.)
CREATE OR REPLACE FUNCTION app.enter_webhook_sweep()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM app.set_operator_context(NULL);
    PERFORM set_config('app.webhook_sweep', 'on', true);
END
$$;
REVOKE ALL ON FUNCTION app.enter_webhook_sweep() FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.leave_webhook_sweep()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM set_config('app.webhook_sweep', '', true);
END
$$;
REVOKE ALL ON FUNCTION app.leave_webhook_sweep() FROM PUBLIC;
