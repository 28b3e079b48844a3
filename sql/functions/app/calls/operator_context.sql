-- The operator context: a transaction-local setting read by every row-level security policy.
-- Entered only by app.authenticate (gateway), app.console_caller (PostgREST) and the platform
-- functions for the operator they name, always before they read a table, so a value a caller set
-- beforehand is never what a policy reads. Entering an operator also ends any authentication lookup
-- and any delivery sweep: a key id (app.authenticating_key_id) or a sweep flag (app.webhook_sweep) a
-- caller set by hand is cleared with it.
--
-- PL/pgSQL rather than SQL: a SQL function's body is parsed and planned again at every statement
-- that calls it, on every request; PL/pgSQL keeps its plan for the session.
CREATE OR REPLACE FUNCTION app.enter_operator(p_operator_id uuid)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM set_config('app.authenticating_key_id', '', true),
            set_config('app.webhook_sweep', '', true),
            set_config('app.operator_id', coalesce(p_operator_id::text, ''), true);
END
$$;
REVOKE ALL ON FUNCTION app.enter_operator(uuid) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.leave_operator()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM set_config('app.operator_id', '', true);
END
$$;
REVOKE ALL ON FUNCTION app.leave_operator() FROM PUBLIC;
