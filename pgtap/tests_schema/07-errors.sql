-- The `tests` helper schema, part 07: errors (the index: README.md).

-- Run p_sql as the current role and report the error it raised: its SQLSTATE (code), MESSAGE and
-- DETAIL, all NULL when it raised none. The statement runs in a subtransaction: its work is undone when it
-- fails and kept when it succeeds.
CREATE FUNCTION tests.error_of(p_sql text, OUT code text, OUT message text, OUT detail text)
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE p_sql;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    detail := nullif(detail, '');
END
$$;

-- The DETAIL of the error p_sql raises (the field or parameter name of a refusal); NULL when the
-- error has none or there is no error.
CREATE FUNCTION tests.error_detail(p_sql text)
RETURNS text
LANGUAGE sql
AS $$
    SELECT (tests.error_of(p_sql)).detail;
$$;

-- A pgTAP assertion for the project's one refusal convention: p_sql raises SQLSTATE p_sqlstate with
-- MESSAGE p_message and DETAIL p_detail, all three exactly (p_detail NULL: no DETAIL at all).
-- Like throws_ok, but the DETAIL (the field the client is told) is part of the check.
CREATE FUNCTION tests.refuses(p_sql text, p_sqlstate text, p_message text, p_detail text, p_description text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_error record := tests.error_of(p_sql);
BEGIN
    IF v_error.code IS NOT DISTINCT FROM p_sqlstate
       AND v_error.message IS NOT DISTINCT FROM p_message
       AND v_error.detail IS NOT DISTINCT FROM p_detail THEN
        RETURN public.ok(true, p_description);
    END IF;
    RETURN public.ok(false, p_description) || E'\n' || public.diag(
           '      caught: ' || coalesce(v_error.code || ' ' || v_error.message
                                       || coalesce(' DETAIL ' || v_error.detail, ' (no DETAIL)'), 'no exception')
        || E'\n      wanted: ' || p_sqlstate || ' ' || p_message || coalesce(' DETAIL ' || p_detail, ' (no DETAIL)'));
END
$$;


-- A connection string to this very database as this user, for a second session through dblink:
-- the tests that need real concurrency commit their own fixtures through it.
CREATE FUNCTION tests.own_database_conninfo()
RETURNS text
LANGUAGE sql
STABLE
AS $$
    SELECT format('host=%s port=%s dbname=%s user=%s',
                  coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
                  current_setting('port'), current_database(), current_user);
$$;

-- p_sql, a statement answering one text, run in an autocommitting session of its own through dblink
-- (the calling file creates the dblink extension): its answer, committed.
CREATE FUNCTION tests.committed(p_sql text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
    RETURN (SELECT t.answer FROM dblink(tests.own_database_conninfo(), p_sql) AS t(answer text));
END
$$;

-- The committed fixture of the files that need a second session to see it (through dblink, as
-- tests.committed): an operator named p_name with a lot l1, a read_bookings and a write_supply
-- credential. The read credential is used once there, so its last_used_at is recorded later than
-- the calling transaction's now() and that transaction never writes it (the clean-up would wait
-- for it). lot_status is 201 when all of it was made.
CREATE FUNCTION tests.committed_operator_with_lot(
    p_name text, OUT operator_id uuid, OUT read_bearer text, OUT write_bearer text, OUT lot_status integer)
LANGUAGE plpgsql
AS $$
BEGIN
    SELECT r.op::uuid, r.bearer, r.write_bearer, r.lot_status
      INTO operator_id, read_bearer, write_bearer, lot_status
      FROM dblink(tests.own_database_conninfo(), format($q$
               SELECT o, r, w, (tests.put_lot(w, 'l1', tests.lot_body())).status + (tests.get_bookings(r, NULL, 1)).status - 200
                 FROM tests.make_operator(%L) AS o,
                      tests.issue_credential(o, ARRAY['read_bookings']) AS r,
                      tests.issue_credential(o, ARRAY['write_supply']) AS w
           $q$, p_name)) AS r(op text, bearer text, write_bearer text, lot_status integer);
END
$$;

-- Remove everything committed for the operators named p_name, through an autocommitting dblink
-- session (the calling file creates the dblink extension). Bookings, and a lot that took one, are
-- never deleted by anyone: only with the triggers off (session_replication_role `replica`, a
-- superuser's setting) can a test remove what it committed.
CREATE FUNCTION tests.remove_committed_operators(p_name text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM dblink_exec(tests.own_database_conninfo(), format($q$
        DO $do$
        DECLARE
            v_ops uuid[] := ARRAY(SELECT id FROM app.operators WHERE name = %L);
            v_users uuid[] := ARRAY(SELECT user_id FROM app.memberships WHERE operator_id = ANY (v_ops));
        BEGIN
            PERFORM set_config('session_replication_role', 'replica', true);
            DELETE FROM app.bookings WHERE operator_id = ANY (v_ops);
            DELETE FROM app.lots WHERE operator_id = ANY (v_ops);
            DELETE FROM app.api_credentials WHERE operator_id = ANY (v_ops);
            DELETE FROM app.memberships WHERE operator_id = ANY (v_ops);
            DELETE FROM app.users WHERE id = ANY (v_users);
            DELETE FROM app.operators WHERE id = ANY (v_ops);
        END
        $do$
    $q$, p_name));
END
$$;

-- Which of p_names are not columns of p_table (a field registry's names must all be).
CREATE FUNCTION tests.names_not_columns_of(p_table regclass, p_names text[])
RETURNS text[]
LANGUAGE sql
STABLE
AS $$
    SELECT ARRAY(SELECT n FROM unnest(p_names) AS n
                  WHERE NOT EXISTS (SELECT FROM pg_attribute AS a
                                     WHERE a.attrelid = p_table AND a.attname = n AND NOT a.attisdropped));
$$;

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA tests TO PUBLIC;
