-- Refuse an object carrying a key outside p_known: PT422 p_error (default unknown_field) naming the
-- first such key in byte order, after p_prefix (`cancellation.`, `blocked_periods[3].`).
CREATE OR REPLACE FUNCTION app.refuse_unknown_keys(
    p_object jsonb,
    p_known text[],
    p_prefix text DEFAULT '',
    p_error text DEFAULT 'unknown_field')
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_unknown text;
BEGIN
    -- A small object (a booking's) has its known keys taken away first, an expression, and the query
    -- that finds the first unknown key runs only when that leaves something. A large one goes to
    -- the query at once: taking keys away rebuilds the object, dear for a 64 KiB body.
    IF pg_column_size(p_object) > 2048 OR p_object - p_known <> '{}' THEN
        v_unknown := (SELECT k FROM jsonb_object_keys(p_object) AS k WHERE k <> ALL (p_known) ORDER BY k COLLATE "C" LIMIT 1);
        IF v_unknown IS NOT NULL THEN
            PERFORM app.refuse(422, p_error, p_prefix || v_unknown);
        END IF;
    END IF;
END
$$;
REVOKE ALL ON FUNCTION app.refuse_unknown_keys(jsonb, text[], text, text) FROM PUBLIC;
