-- The sign-in system's user, keyed by the JWT `sub`: created, or its email and two-step flag updated.
CREATE OR REPLACE FUNCTION platform.user_upsert(p_user_id uuid, p_email text, p_two_step boolean)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_user_id IS NULL THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_user_id');
    END IF;
    IF p_email IS NULL OR char_length(p_email) NOT BETWEEN 3 AND 320 OR p_email !~ ('^[^@' || app.white_space_class() || ']+@[^@' || app.white_space_class() || ']+$') THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_email');
    END IF;
    IF p_two_step IS NULL THEN
        PERFORM app.refuse(422, 'invalid_parameter', 'p_two_step');
    END IF;
    INSERT INTO app.users AS u (id, email, two_step)
    VALUES (p_user_id, p_email, p_two_step)
    ON CONFLICT (id) DO UPDATE
       SET email = excluded.email, two_step = excluded.two_step, updated_at = now()
     WHERE (u.email, u.two_step) IS DISTINCT FROM (excluded.email, excluded.two_step);
END
$$;
REVOKE ALL ON FUNCTION platform.user_upsert(uuid, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.user_upsert(uuid, text, boolean) TO platform_service;
