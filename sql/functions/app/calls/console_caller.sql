-- Who is calling through PostgREST, for which operator, and may they? PostgREST puts the verified
-- JWT claims in `request.jwt.claims` and the request headers (names lower-cased) in
-- `request.headers`; the operator being acted for is the `x-tenant-id` header.
--
-- The caller passes when the header names an active operator of which the JWT's user is an accepted
-- member with one of p_roles, and a user with two-step sign-in presents a token whose `aal` is
-- `aal2`. Every other case is the one refusal p_refusal (PT403), whatever the cause. On success the
-- operator context is entered for the rest of the transaction.
CREATE OR REPLACE FUNCTION app.console_caller(
    p_roles text[],
    p_refusal text,
    OUT operator_id uuid,
    OUT user_id uuid,
    OUT role text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c_uuid constant text := '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';
    v_claims jsonb := app.setting_as_jsonb('request.jwt.claims');
    v_tenant text := app.setting_as_jsonb('request.headers') ->> 'x-tenant-id';
    v_subject text := v_claims ->> 'sub';
    v_member record;
BEGIN
    IF v_tenant IS NULL OR v_tenant !~ c_uuid OR v_subject IS NULL OR v_subject !~ c_uuid THEN
        PERFORM app.refuse(403, p_refusal);
    END IF;

    PERFORM app.set_operator_context(v_tenant::uuid);
    SELECT m.role, m.accepted, o.status, u.two_step
      INTO v_member
      FROM app.memberships AS m
      JOIN app.operators AS o ON o.id = m.operator_id
      JOIN app.users AS u ON u.id = m.user_id
     WHERE m.operator_id = v_tenant::uuid
       AND m.user_id = v_subject::uuid;

    IF v_member IS NULL
       OR NOT v_member.accepted
       OR v_member.status <> 'active'
       OR NOT v_member.role = ANY (p_roles)
       OR (v_member.two_step AND v_claims ->> 'aal' IS DISTINCT FROM 'aal2') THEN
        PERFORM app.set_operator_context(NULL);
        PERFORM app.refuse(403, p_refusal);
    END IF;

    operator_id := v_tenant::uuid;
    user_id := v_subject::uuid;
    role := v_member.role;
END
$$;
REVOKE ALL ON FUNCTION app.console_caller(text[], text) FROM PUBLIC;
