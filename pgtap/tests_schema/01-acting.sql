-- The `tests` helper schema, part 01: acting as someone (the index: README.md).

-- What a test is acting as: the role and the settings the helpers below change. Internal to the
-- data-making helpers, which save it, step back to the superuser and restore it.
CREATE FUNCTION tests.acting_state()
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT jsonb_build_object(
        'role', current_setting('role'),
        'app.operator_id', coalesce(current_setting('app.operator_id', true), ''),
        'request.jwt.claims', coalesce(current_setting('request.jwt.claims', true), ''),
        'request.headers', coalesce(current_setting('request.headers', true), ''));
$$;

-- Put back what tests.acting_state() saved (transaction-local, like everything here).
CREATE FUNCTION tests.restore_acting_state(p_state jsonb)
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('app.operator_id', p_state ->> 'app.operator_id', true),
           set_config('request.jwt.claims', p_state ->> 'request.jwt.claims', true),
           set_config('request.headers', p_state ->> 'request.headers', true),
           set_config('role', p_state ->> 'role', true);
$$;

-- Step back to the session user (the superuser running the tests) with no operator context and no
-- PostgREST settings: what a test file starts as.
CREATE FUNCTION tests.act_as_superuser()
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('role', 'none', true),
           set_config('app.operator_id', '', true),
           set_config('request.jwt.claims', '', true),
           set_config('request.headers', '', true);
$$;

-- Act as a PostgREST request with these raw setting texts, byte for byte: for garbled or missing
-- claims and headers (NULL stands for a setting that is absent, which reads as the empty text).
-- Switches to role `authenticated` and starts with no operator context, as a fresh PostgREST
-- transaction does.
CREATE FUNCTION tests.act_as_console_raw(p_claims text, p_headers text)
RETURNS void
LANGUAGE sql
AS $$
    SELECT set_config('app.operator_id', '', true),
           set_config('request.jwt.claims', coalesce(p_claims, ''), true),
           set_config('request.headers', coalesce(p_headers, ''), true),
           set_config('role', 'authenticated', true);
$$;

-- Act as a signed-in console user calling through PostgREST, exactly as PostgREST does it: the JWT
-- claims (sub, role, aal; aal left out when p_aal is NULL) in request.jwt.claims, the request headers
-- with the lower-cased `x-tenant-id` (left out when p_operator is NULL) in request.headers, and
-- `SET LOCAL ROLE authenticated`. Switching role from a plain function works; it lasts until the
-- end of the transaction or the next act_as_* call.
CREATE FUNCTION tests.act_as_console_user(p_user uuid, p_operator uuid, p_aal text DEFAULT 'aal1')
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_console_raw(
        json_strip_nulls(json_build_object('sub', p_user, 'role', 'authenticated', 'aal', p_aal))::text,
        json_strip_nulls(json_build_object('x-tenant-id', p_operator))::text);
$$;

-- Act as the gateway: its login role `ingest_gateway`, a fresh transaction with no operator context
-- and no PostgREST settings.
CREATE FUNCTION tests.act_as_gateway()
RETURNS void
LANGUAGE sql
AS $$
    SELECT tests.act_as_superuser(), set_config('role', 'ingest_gateway', true);
$$;

-- Lend TEMPORARY on this database to the project's roles for the rest of the calling test's
-- transaction (every test file ends in ROLLBACK, which takes it back). The migration grants it to no
-- role (sql/tests/22 checks that), but a test that keeps its fixtures in temporary tables and reads
-- or fills them while acting as `authenticated`, `ingest_gateway` or `platform_service` needs it:
-- without it the session's temporary schema is closed to them.
CREATE FUNCTION tests.lend_temporary_to_project_roles()
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format('GRANT TEMPORARY ON DATABASE %I TO ingest_owner, ingest_gateway, authenticator, anon, '
                   'authenticated, platform_service, webhook_worker', current_database());
END
$$;
