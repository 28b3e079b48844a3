-- GET /lots: the operator's lots, keyset-paged on external_id in byte order. read_supply.
-- p_after: the previous page's next_after (NULL for the first page); p_limit 1-200. Both come
-- validated: the query's syntax is the gateway's (refused before authentication, docs/design.md).
-- next_after is the last external_id when the page is full, else null. Each entry is the Lot plus
-- `rates`: the marketplace envelope, or null when the lot has no price yet.
CREATE OR REPLACE FUNCTION api.lots_get(
    p_authorization text,
    p_after text,
    p_limit integer,
    OUT status integer,
    OUT body jsonb)
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
-- Generic plans: a custom plan folds the secret it is handed into the plan auto_explain would log.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_caller record;
    v_lots jsonb;
    v_count integer;
    v_last text;
    v_after text;
BEGIN
    v_caller := app.authenticate(p_authorization, 'read_supply', true);

    -- Every external_id is longer than '', so the first page is the one after ''. One comparison to
    -- a variable is an index condition of the generic plan; `p_after IS NULL OR …` read every earlier
    -- lot, and a coalesce in the query would too (row-level security runs no call that is not
    -- leakproof before its policy).
    v_after := coalesce(p_after, '');
    SELECT coalesce(jsonb_agg(app.lot_read_form(page) || jsonb_build_object('rates', (
                        SELECT app.rates_read_form(r)
                          FROM app.lot_rates AS r
                         WHERE r.operator_id = page.operator_id AND r.lot_id = page.id AND r.channel = 'marketplace'))
                    ORDER BY page.external_id), '[]'),
           count(*),
           max(page.external_id)
      INTO v_lots, v_count, v_last
      FROM (SELECT *
              FROM app.lots AS l
             WHERE l.operator_id = v_caller.operator_id
               AND l.external_id > v_after COLLATE "C"
             ORDER BY l.external_id
             LIMIT p_limit) AS page;

    status := 200;
    body := jsonb_build_object(
        'lots', v_lots,
        'next_after', CASE WHEN v_count = p_limit THEN v_last END);
END
$$;
REVOKE ALL ON FUNCTION api.lots_get(text, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION api.lots_get(text, text, integer) TO ingest_gateway;
