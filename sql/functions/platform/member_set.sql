-- Make a user a member of an operator, or change their role or acceptance.
CREATE OR REPLACE FUNCTION platform.member_set(
    p_operator_id uuid,
    p_user_id uuid,
    p_role text,
    p_accepted boolean DEFAULT true)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_role IS NULL OR p_role NOT IN ('owner', 'manager', 'staff') THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_role');
    END IF;
    IF p_accepted IS NULL THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_accepted');
    END IF;
    PERFORM app.set_operator_context(p_operator_id);
    IF NOT EXISTS (SELECT FROM app.operators AS o WHERE o.id = p_operator_id) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_operator_id');
    END IF;
    IF NOT EXISTS (SELECT FROM app.users AS u WHERE u.id = p_user_id) THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_user_id');
    END IF;
    INSERT INTO app.memberships AS m (operator_id, user_id, role, accepted)
    VALUES (p_operator_id, p_user_id, p_role, p_accepted)
    ON CONFLICT (operator_id, user_id) DO UPDATE
       SET role = excluded.role, accepted = excluded.accepted, updated_at = now()
     WHERE (m.role, m.accepted) IS DISTINCT FROM (excluded.role, excluded.accepted);
END
$$;
REVOKE ALL ON FUNCTION platform.member_set(uuid, uuid, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.member_set(uuid, uuid, text, boolean) TO platform_service;
