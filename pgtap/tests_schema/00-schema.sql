-- The `tests` helper schema of the pgTAP layer, part 00: the schema itself. pgtap/run.sh installs
-- the parts in order into the freshly migrated test database (as the superuser), before the files
-- of sql/tests run; what each part holds, and the rules every helper keeps: README.md.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;

CREATE EXTENSION IF NOT EXISTS pgtap;

DROP SCHEMA IF EXISTS tests CASCADE;
CREATE SCHEMA tests;
GRANT USAGE ON SCHEMA tests TO PUBLIC;

-- The project's schemas: those its owner role owns (app, api, console, platform, webhook), the same
-- rule `ingest migrate` uses to find what the tree must define.
CREATE FUNCTION tests.project_schemas()
RETURNS regnamespace[]
LANGUAGE sql
STABLE
AS $$
    SELECT array_agg(oid::regnamespace ORDER BY nspname) FROM pg_namespace WHERE nspowner = 'ingest_owner'::regrole;
$$;
