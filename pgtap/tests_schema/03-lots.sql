-- The `tests` helper schema, part 03: lots (through the API, console and platform functions, never
-- by writing tables) (the index: README.md).

-- A complete, valid lot write body as text: every field of the spec's field table but external_id,
-- each already in its stored form, so the Lot read back is this body plus external_id. It meets
-- every content requirement the lot issue decides (capacity, map pin, city and country, arrival
-- guidance, https hero image) and its media holds no `lot-media`, so it suits any operator.
-- p_overrides is merged over it key by key (a JSON null stays a null member); the keys in
-- p_without are then removed (absent).
CREATE FUNCTION tests.lot_body(p_overrides jsonb DEFAULT '{}', p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT ((jsonb_build_object(
        'name', 'Harbour Car Park',
        'timezone', 'Europe/London',
        'handover', 'self',
        'online_bookable', true,
        'capacity', 120,
        'latitude', '51.5',
        'longitude', '-0.127758',
        'city', 'London',
        'country_code', 'GB',
        'features', jsonb_build_array('cameras', 'indoor'),
        'arrival', jsonb_build_object('entrance', 'North gate, Dock Road'),
        'media', jsonb_build_object('heroUrl', 'https://photos.example.test/hero.jpg',
                                    'galleryUrls', jsonb_build_array('https://photos.example.test/1.jpg')),
        'min_advance_days', 1,
        'min_stay_days', 1,
        'max_stay_days', 30,
        'cancellation', jsonb_build_object('free_until_hours_before_check_in', 24,
                                           'penalty_percent_after', '50.00',
                                           'no_show_forfeits_full', true))
        || p_overrides) - p_without)::text;
$$;

-- The smallest valid lot write body as text: the four required fields only (no content requirement
-- met), with p_overrides merged over it.
CREATE FUNCTION tests.minimal_lot_body(p_overrides jsonb DEFAULT '{}')
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT (jsonb_build_object('name', 'Bare lot', 'timezone', 'Europe/London', 'handover', 'self',
                               'online_bookable', true) || p_overrides)::text;
$$;

-- PUT /lots/{external_id} the way the gateway calls it: api.lot_put as role ingest_gateway, with a
-- fresh transaction's settings (p_body_fault: the gateway's verdict on the body's JSON syntax, which
-- it found none in by default); answers (status, body). What the test is acting as is restored.
-- A refusal propagates as the error api.lot_put raised (and undoes the role switch with it).
CREATE FUNCTION tests.put_lot(
    p_bearer text,
    p_external_id text,
    p_body text,
    p_dry_run boolean DEFAULT false,
    p_body_fault jsonb DEFAULT NULL,
    OUT status integer,
    OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT p.status, p.body INTO status, body FROM api.lot_put(p_bearer, p_external_id, p_body, p_dry_run, p_body_fault) AS p;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- GET /lots the way the gateway calls it: api.lots_get as role ingest_gateway; answers (status, body).
CREATE FUNCTION tests.get_lots(p_bearer text, p_after text, p_limit integer, OUT status integer, OUT body jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_gateway();
    SELECT g.status, g.body INTO status, body FROM api.lots_get(p_bearer, p_after, p_limit) AS g;
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- The stored row of an operator's lot, read as the superuser (row-level security does not bind it);
-- a row of nulls when there is none.
CREATE FUNCTION tests.lot(p_operator uuid, p_external_id text)
RETURNS app.lots
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_lot app.lots;
BEGIN
    PERFORM tests.act_as_superuser();
    SELECT * INTO v_lot FROM app.lots AS l WHERE l.operator_id = p_operator AND l.external_id = p_external_id;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_lot;
END
$$;

-- How many lots an operator has, counted as the superuser.
CREATE FUNCTION tests.lot_count(p_operator uuid)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_count bigint;
BEGIN
    PERFORM tests.act_as_superuser();
    SELECT count(*) INTO v_count FROM app.lots AS l WHERE l.operator_id = p_operator;
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_count;
END
$$;

-- A lot's listing status (review_state, timezone_confirmed, online_bookable, selling, unmet), through
-- platform.lot_listing_status as role platform_service.
CREATE FUNCTION tests.listing_status(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_status jsonb;
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    v_status := platform.lot_listing_status(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_status;
END
$$;

-- A lot's review made `pending`, the console way: a new owner of the operator calls
-- console.lot_submit_for_review. Answers the listing status it returns.
CREATE FUNCTION tests.submit_lot(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
    v_status jsonb;
BEGIN
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    v_status := console.lot_submit_for_review(p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN v_status;
END
$$;

-- A pending review approved by a reviewer: platform.lot_review_approve as role platform_service.
CREATE FUNCTION tests.approve_lot(p_operator uuid, p_external_id text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
BEGIN
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    PERFORM platform.lot_review_approve(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
END
$$;

-- Everything a lot needs besides its lot body to sell, done the API, console and platform way: a
-- lot without any marketplace envelope gets tests.rates_body() (a price in force whatever the day)
-- through PUT /lots/{external_id}/rates with a new write_supply credential (a lot that has an envelope
-- keeps it, in force or not); a new owner confirms its zone, accepts the listing agreement and
-- submits it; the payment provider reports the account can pay out; a reviewer approves. Answers the
-- listing status afterwards.
CREATE FUNCTION tests.make_lot_sell(p_operator uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_state jsonb := tests.acting_state();
    v_owner uuid := tests.make_member(p_operator, 'owner');
BEGIN
    PERFORM tests.act_as_superuser();
    IF NOT EXISTS (SELECT FROM app.lot_rates AS r JOIN app.lots AS l ON l.operator_id = r.operator_id AND l.id = r.lot_id
                    WHERE l.operator_id = p_operator AND l.external_id = p_external_id) THEN
        PERFORM tests.put_rates(tests.issue_credential(p_operator, ARRAY['write_supply']), p_external_id, tests.rates_body());
    END IF;
    PERFORM tests.act_as_console_user(v_owner, p_operator);
    PERFORM console.lot_confirm_timezone(p_external_id);
    PERFORM console.account_accept_listing_agreement();
    PERFORM console.lot_submit_for_review(p_external_id);
    PERFORM tests.act_as_superuser();
    PERFORM set_config('role', 'platform_service', true);
    PERFORM platform.payouts_set(p_operator, true);
    PERFORM platform.lot_review_approve(p_operator, p_external_id);
    PERFORM tests.restore_acting_state(v_state);
    RETURN tests.listing_status(p_operator, p_external_id);
END
$$;
