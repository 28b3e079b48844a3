-- The `tests` helper schema, part 06: catalogue (the index: README.md).

-- Every tenant table: each table of schema app with an operator_id column, plus app.operators
-- itself. Tests over this set fail when a new tenant table lacks row-level security or fixture rows.
CREATE FUNCTION tests.tenant_tables()
RETURNS SETOF regclass
LANGUAGE sql
STABLE
AS $$
    SELECT c.oid::regclass
      FROM pg_class AS c
     WHERE c.relnamespace = 'app'::regnamespace
       AND c.relkind IN ('r', 'p')
       AND (c.oid = 'app.operators'::regclass
            OR EXISTS (SELECT FROM pg_attribute AS a
                        WHERE a.attrelid = c.oid AND a.attname = 'operator_id' AND NOT a.attisdropped))
     ORDER BY c.oid::regclass::text;
$$;

-- Whether row-level security is both enabled and FORCED on a table (FORCE makes it bind the owner,
-- as which every function runs).
CREATE FUNCTION tests.rls_forced(p_table regclass)
RETURNS boolean
LANGUAGE sql
STABLE
AS $$
    SELECT c.relrowsecurity AND c.relforcerowsecurity FROM pg_class AS c WHERE c.oid = p_table;
$$;

-- The column of a tenant table that holds its operator: `id` for app.operators, else operator_id.
CREATE FUNCTION tests.operator_column(p_table regclass)
RETURNS name
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT CASE WHEN p_table = 'app.operators'::regclass THEN 'id' ELSE 'operator_id' END::name;
$$;

-- The names of a function's result columns (its OUT and TABLE parameters, or its composite result
-- type's attributes), in order: what a caller such as PostgREST gets back.
CREATE FUNCTION tests.result_columns(p_function regprocedure)
RETURNS text[]
LANGUAGE sql
STABLE
AS $$
    -- OUT/TABLE parameters, or else the attributes of a composite result type
    SELECT coalesce(
        nullif(ARRAY(
            SELECT a.name
              FROM pg_proc AS p
             CROSS JOIN LATERAL unnest(p.proargnames, p.proargmodes) WITH ORDINALITY AS a(name, mode, n)
             WHERE p.oid = p_function AND a.mode IN ('o', 't', 'b')
             ORDER BY a.n), '{}'),
        ARRAY(
            SELECT att.attname::text
              FROM pg_proc AS p
              JOIN pg_type AS t ON t.oid = p.prorettype
              JOIN pg_attribute AS att ON att.attrelid = t.typrelid
             WHERE p.oid = p_function AND att.attnum > 0 AND NOT att.attisdropped
             ORDER BY att.attnum));
$$;
