-- A timestamp as the API writes it: UTC, microseconds, `Z` (2026-11-22T02:42:22.123456Z).
-- PL/pgSQL, not SQL: a SQL function with a SET clause is never inlined, so PostgreSQL 15 would parse
-- and plan its body again in every statement calling it (a sizeable share of a ping); PL/pgSQL
-- evaluates this as a simple expression, planned once per session.
CREATE OR REPLACE FUNCTION app.utc_text(p_at timestamptz)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
END
$$;
REVOKE ALL ON FUNCTION app.utc_text(timestamptz) FROM PUBLIC;
