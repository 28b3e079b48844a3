-- The `tests` helper schema, part 02: making data (through the platform and console functions,
-- never by writing tables) (the index: README.md).

-- A new active operator, through platform.operator_create; returns its id. Its media folder (the
-- lot media rule's `<operator_folder>`) is p_media_folder, or by default the operator id as text.
CREATE FUNCTION tests.make_operator(
    p_name text DEFAULT 'Test operator',
    p_currency text DEFAULT 'EUR',
    p_media_folder text DEFAULT NULL)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_id uuid;
BEGIN
    PERFORM tests.act_as_superuser();
    v_id := platform.operator_create(p_name, p_currency, p_media_folder);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- A new sign-in user with a random id (the JWT `sub`), through platform.user_upsert; returns the id.
CREATE FUNCTION tests.make_user(p_two_step boolean DEFAULT false)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_id uuid := gen_random_uuid();
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM platform.user_upsert(v_id, 'user-' || v_id || '@test.invalid', p_two_step);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- A new user made a member of p_operator with p_role, through platform.member_set; returns the
-- user's id.
CREATE FUNCTION tests.make_member(
    p_operator uuid,
    p_role text DEFAULT 'owner',
    p_accepted boolean DEFAULT true,
    p_two_step boolean DEFAULT false)
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_user uuid := tests.make_user(p_two_step);
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM platform.member_set(p_operator, v_user, p_role, p_accepted);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_user;
END
$$;

-- A new API credential of p_operator, issued the console way by a new owner (role authenticated,
-- PostgREST settings) through console.api_credential_issue; returns the whole Authorization value,
-- 'Bearer <key_id>.<secret>'.
CREATE FUNCTION tests.issue_credential(
    p_operator uuid,
    p_scopes text[] DEFAULT ARRAY['read_supply', 'write_supply', 'read_bookings'],
    p_expires_in_days integer DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_bearer text;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    SELECT 'Bearer ' || i.key_id || '.' || i.secret
      INTO STRICT v_bearer
      FROM console.api_credential_issue('test credential', p_scopes, p_expires_in_days) AS i;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_bearer;
END
$$;

-- A webhook endpoint for p_operator, registered the console way by a new owner through
-- console.webhook_endpoint_register; returns its id. The secret is `whsec_` + 64 hex of p_secret_byte.
CREATE FUNCTION tests.register_webhook(
    p_operator uuid,
    p_url text DEFAULT 'https://hooks.example.test/ingest',
    p_secret text DEFAULT 'whsec_' || repeat('ab', 32))
RETURNS uuid
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_id uuid;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    SELECT r.id INTO STRICT v_id FROM console.webhook_endpoint_register(p_url, p_secret) AS r;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_id;
END
$$;

-- The key id of an Authorization value made by tests.issue_credential.
CREATE FUNCTION tests.key_id(p_bearer text)
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT split_part(substr(p_bearer, length('Bearer ') + 1), '.', 1);
$$;
