-- A timestamp as the API writes it: UTC, microseconds, `Z` (2026-11-22T02:42:22.123456Z).
CREATE OR REPLACE FUNCTION app.utc_text(p_at timestamptz)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
$$;
REVOKE ALL ON FUNCTION app.utc_text(timestamptz) FROM PUBLIC;
