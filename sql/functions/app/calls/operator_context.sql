-- The operator context: a transaction-local setting read by every row-level security policy. Set
-- only here: entered by app.authenticate (gateway), app.console_caller (PostgREST),
-- app.read_assertion_operator (a standby) and the platform functions for the operator they name,
-- always before they read a table, so a value a caller set beforehand is never what a policy reads.
-- Entering an operator, or leaving (p_operator_id NULL: no operator), also ends any authentication
-- lookup and any delivery sweep: a key id (app.authenticating_key_id) or a sweep flag
-- (app.webhook_sweep) a caller set by hand is cleared with it.
--
-- Returns the context now in force (the operator id, or '' when none), so that a hot caller sets it
-- by assignment, a simple expression: a PERFORM runs a query through the executor, which costs
-- each call a few microseconds more (bench/FINDINGS.md, "Assignments, not PERFORM").
-- PL/pgSQL rather than SQL: a SQL function's body is parsed and planned again at every statement
-- that calls it, on every request; PL/pgSQL keeps its plan for the session.
CREATE OR REPLACE FUNCTION app.set_operator_context(p_operator_id uuid)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN set_config('app.authenticating_key_id', '', true)
        || set_config('app.webhook_sweep', '', true)
        || set_config('app.operator_id', coalesce(p_operator_id::text, ''), true);
END
$$;
REVOKE ALL ON FUNCTION app.set_operator_context(uuid) FROM PUBLIC;
