-- The operator context: a transaction-local setting read by every row-level security policy.
-- Entered only by app.authenticate (gateway), app.console_caller (PostgREST) and the platform
-- functions for the operator they name.
CREATE OR REPLACE FUNCTION app.enter_operator(p_operator_id uuid)
RETURNS void
LANGUAGE sql
SET search_path = ''
AS $$
    SELECT set_config('app.operator_id', coalesce(p_operator_id::text, ''), true);
$$;
REVOKE ALL ON FUNCTION app.enter_operator(uuid) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.leave_operator()
RETURNS void
LANGUAGE sql
SET search_path = ''
AS $$
    SELECT set_config('app.operator_id', '', true);
$$;
REVOKE ALL ON FUNCTION app.leave_operator() FROM PUBLIC;
