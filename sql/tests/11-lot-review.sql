-- The listing review of a lot and whether it sells (spec: States and transitions → Lot listing
-- review; docs/reference/sql-interfaces.md): the review states draft → pending
-- (console.lot_submit_for_review, refused with listing_requirements_unmet while a content
-- requirement is unmet) → approved (platform.lot_review_approve) → superseded (a PUT changing a
-- reviewed field); the zone confirmation a zone change withdraws; the selling rule; the listing
-- agreement; and who may call each console function.
BEGIN;
SELECT plan(144);

CREATE TEMP TABLE fx AS
SELECT a, b, tests.issue_credential(a, ARRAY['write_supply']) AS bearer,
       tests.make_member(a, 'owner') AS owner, tests.make_member(a, 'manager') AS manager,
       tests.make_member(a, 'staff') AS staff, tests.make_member(b, 'owner') AS b_owner
  FROM tests.make_operator('Harbour Parking', 'GBP', 'harbour') AS a, tests.make_operator('Quay Parking') AS b;
GRANT SELECT ON fx TO PUBLIC;

-- PUT lot p_external_id of A with this body; the answer.
CREATE FUNCTION pg_temp.put(p_external_id text, p_body text)
RETURNS TABLE (status integer, body jsonb)
LANGUAGE sql
AS $$
    SELECT p.status, p.body FROM fx, tests.put_lot(fx.bearer, p_external_id, p_body) AS p;
$$;

-- A lot's listing status, as the platform reads it.
CREATE FUNCTION pg_temp.status(p_external_id text)
RETURNS jsonb
LANGUAGE sql
AS $$
    SELECT tests.listing_status(a, p_external_id) FROM fx;
$$;

-- The unmet content requirements of lot `req` after a PUT of this body.
CREATE FUNCTION pg_temp.unmet_with(p_body text)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put('req', p_body);
    SELECT ARRAY(SELECT jsonb_array_elements_text(pg_temp.status('req') -> 'unmet'));
$$;

-- A console.lot_submit_for_review of lot `req` by the owner is refused with listing_requirements_unmet
-- and exactly this DETAIL.
CREATE FUNCTION pg_temp.submit_refused(p_detail text, p_description text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_tap text;
BEGIN
    PERFORM tests.act_as_console_user(owner, a) FROM fx;
    v_tap := tests.refuses($q$SELECT console.lot_submit_for_review('req')$q$, 'PT422', 'listing_requirements_unmet', p_detail, p_description);
    PERFORM tests.act_as_superuser();
    RETURN v_tap;
END
$$;

-- Lot `rv` put back to the test body with the test price envelope, submitted and approved, then PUT with p_overrides: its
-- listing_review_superseded and its review state afterwards, as e.g. 'true superseded'.
CREATE FUNCTION pg_temp.after_approved_put(p_overrides jsonb, p_without text[] DEFAULT '{}')
RETURNS text
LANGUAGE sql
AS $$
    SELECT NULL FROM pg_temp.put('rv', tests.lot_body());
    SELECT NULL FROM fx, tests.put_rates(fx.bearer, 'rv', tests.rates_body());
    SELECT tests.submit_lot(a, 'rv') FROM fx WHERE (tests.lot(fx.a, 'rv')).review_state <> 'approved';
    SELECT tests.approve_lot(a, 'rv') FROM fx WHERE (tests.lot(fx.a, 'rv')).review_state = 'pending';
    SELECT (p.body ->> 'listing_review_superseded') || ' ' || (tests.lot(fx.a, 'rv')).review_state
      FROM fx, pg_temp.put('rv', tests.lot_body(p_overrides, p_without)) AS p;
$$;

-- A new lot is a draft -----------------------------------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.put('req', tests.minimal_lot_body())), 201, 'the fixture: a lot of the required fields alone is created');
SELECT is(pg_temp.status('req'),
          '{"review_state": "draft", "timezone_confirmed": false, "online_bookable": true, "selling": false,
            "unmet": ["lot_capacity", "lot_price_in_force", "lot_map_pin", "lot_city_country", "lot_arrival_guidance", "lot_hero_image"]}'::jsonb,
          'a new lot is a draft, its zone unconfirmed, not selling, every content requirement unmet (in order)');

-- Submitting: refused while a content requirement is unmet --------------------------------------------------------

SELECT pg_temp.submit_refused('lot_capacity,lot_price_in_force,lot_map_pin,lot_city_country,lot_arrival_guidance,lot_hero_image',
                              'submitting a bare lot is refused with every unmet requirement, comma-separated, in order');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 0}')),
          ARRAY['lot_capacity', 'lot_price_in_force', 'lot_map_pin', 'lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'],
          'capacity 0 does not meet lot_capacity');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1}')),
          ARRAY['lot_price_in_force', 'lot_map_pin', 'lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'], 'capacity 1 meets lot_capacity');
SELECT pg_temp.submit_refused('lot_price_in_force,lot_map_pin,lot_city_country,lot_arrival_guidance,lot_hero_image',
                              'the refusal no longer names lot_capacity');
SELECT is((SELECT p.status FROM fx, tests.put_rates(fx.bearer, 'req', tests.rates_body()) AS p), 201,
          'the fixture: a marketplace price envelope without a validity window (PUT /lots/{external_id}/rates)');
SELECT is(ARRAY(SELECT jsonb_array_elements_text(pg_temp.status('req') -> 'unmet')),
          ARRAY['lot_map_pin', 'lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'],
          'a marketplace envelope in force meets lot_price_in_force (its windows are tested with the rates)');
SELECT pg_temp.submit_refused('lot_map_pin,lot_city_country,lot_arrival_guidance,lot_hero_image', 'the refusal no longer names lot_price_in_force');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1, "latitude": 0, "longitude": 0}')),
          ARRAY['lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'], 'coordinates (even 0, 0) meet lot_map_pin');
SELECT pg_temp.submit_refused('lot_city_country,lot_arrival_guidance,lot_hero_image', 'the refusal no longer names lot_map_pin');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1, "latitude": 0, "longitude": 0, "city": "Hull"}')),
          ARRAY['lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'], 'a city without a country does not meet lot_city_country');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1, "latitude": 0, "longitude": 0, "country_code": "GB"}')),
          ARRAY['lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'], 'a country without a city does not meet lot_city_country');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1, "latitude": 0, "longitude": 0, "city": " \t ", "country_code": "GB"}')),
          ARRAY['lot_city_country', 'lot_arrival_guidance', 'lot_hero_image'], 'a blank city does not meet lot_city_country');
SELECT is(pg_temp.unmet_with(tests.minimal_lot_body('{"capacity": 1, "latitude": 0, "longitude": 0, "city": "Hull", "country_code": "GB"}')),
          ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'a city and a country meet lot_city_country');
SELECT pg_temp.submit_refused('lot_arrival_guidance,lot_hero_image', 'the refusal no longer names lot_city_country');

CREATE TEMP TABLE placed AS SELECT '{"capacity": 1, "latitude": 0, "longitude": 0, "city": "Hull", "country_code": "GB"}'::jsonb AS j;
CREATE FUNCTION pg_temp.unmet_with_arrival(p_arrival jsonb)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT pg_temp.unmet_with(tests.minimal_lot_body((SELECT j FROM placed) || jsonb_build_object('arrival', p_arrival)));
$$;
SELECT is(pg_temp.unmet_with_arrival('{"streetAddress": "1 Dock Road", "parkingLevel": "B2", "transfer": {"line": "7"}}'),
          ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'streetAddress, parkingLevel and transfer do not meet lot_arrival_guidance');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": ""}'), ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'an empty entrance does not meet it');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": " \n "}'), ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'a blank entrance does not meet it');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": 42}'), ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'a numeric entrance does not meet it');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": {"en": " "}}'), ARRAY['lot_arrival_guidance', 'lot_hero_image'],
          'a language object of blank prose does not meet it');
SELECT is(pg_temp.unmet_with_arrival('{"Entrance": "North gate"}'), ARRAY['lot_arrival_guidance', 'lot_hero_image'], 'keys are exact: Entrance does not meet it');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": "North gate"}'), ARRAY['lot_hero_image'], 'an entrance string meets lot_arrival_guidance');
SELECT is(pg_temp.unmet_with_arrival('{"access": "Ring the bell"}'), ARRAY['lot_hero_image'], 'an access string meets it');
SELECT is(pg_temp.unmet_with_arrival('{"gateWindow": "06:00-22:00"}'), ARRAY['lot_hero_image'], 'a gateWindow string meets it');
SELECT is(pg_temp.unmet_with_arrival('{"entrance": {"en": "North gate", "de": ""}}'), ARRAY['lot_hero_image'], 'an entrance keyed by language meets it');
SELECT pg_temp.submit_refused('lot_hero_image', 'the refusal no longer names lot_arrival_guidance');

CREATE FUNCTION pg_temp.unmet_with_media(p_media jsonb)
RETURNS text[]
LANGUAGE sql
AS $$
    SELECT pg_temp.unmet_with(tests.minimal_lot_body((SELECT j FROM placed) || '{"arrival": {"access": "x"}}' || jsonb_build_object('media', p_media)));
$$;
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "http://photos.example.test/hero.jpg"}'), ARRAY['lot_hero_image'], 'an http heroUrl does not meet lot_hero_image');
SELECT is(pg_temp.unmet_with_media('{"galleryUrls": ["https://photos.example.test/1.jpg"]}'), ARRAY['lot_hero_image'], 'a gallery without a hero does not meet it');
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "https://"}'), ARRAY['lot_hero_image'], 'https:// without a host does not meet it');
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "hero.jpg"}'), ARRAY['lot_hero_image'], 'a relative address does not meet it');
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "https://photos.example.test/hero.jpg"}'), '{}'::text[], 'an https heroUrl meets lot_hero_image');
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "https://my-parking.test/hero.jpg"}'), '{}'::text[],
          'an https heroUrl on any host meets it (travellers then see a placeholder)');
SELECT is(pg_temp.unmet_with_media('{"heroUrl": "https://cdn.platform.test/lot-media/harbour/hero.jpg"}'), '{}'::text[],
          'an https heroUrl in the own photo folder meets it');

-- Submitting, approving ------------------------------------------------------------------------------------------

SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT is(console.lot_submit_for_review('req') ->> 'review_state', 'pending',
          'a manager submits a lot meeting every requirement: its review is pending (the answer is the listing status)');
SELECT is(console.lot_submit_for_review('req') ->> 'review_state', 'pending', 'submitting a pending lot again changes nothing');
SELECT tests.act_as_superuser();
SELECT is((tests.lot(a, 'req')).review_state, 'pending', 'the pending state is stored') FROM fx;

SET LOCAL ROLE platform_service;
SELECT lives_ok(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT a FROM fx), 'req'), 'a reviewer approves the pending review');
RESET ROLE;
SELECT is(pg_temp.status('req') ->> 'review_state', 'approved', 'the review is approved');
SET LOCAL ROLE platform_service;
SELECT tests.refuses(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT a FROM fx), 'req'), 'PT409', 'review_not_pending', 'p_external_id',
                     'approving an approved review is review_not_pending');
RESET ROLE;
SELECT is((SELECT status FROM pg_temp.put('draft', tests.lot_body())), 201, 'the fixture: a second lot, never submitted');
SET LOCAL ROLE platform_service;
SELECT tests.refuses(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT a FROM fx), 'draft'), 'PT409', 'review_not_pending', 'p_external_id',
                     'approving a draft is review_not_pending');
SELECT tests.refuses(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT a FROM fx), 'nope'), 'PT422', 'invalid_parameter', 'p_external_id',
                     'approving a lot that does not exist is invalid_parameter');
SELECT tests.refuses(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT b FROM fx), 'req'), 'PT422', 'invalid_parameter', 'p_external_id',
                     'approving another operator''s lot id under the wrong operator finds no lot');
RESET ROLE;

SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('req', tests.minimal_lot_body((SELECT j FROM placed)
                                    || '{"arrival": {"access": "x"}, "media": {"heroUrl": "https://my-parking.test/hero.jpg"}, "city": "York"}'))),
          'true'::jsonb, 'a reviewed change to an approved lot answers listing_review_superseded true');
SELECT is(pg_temp.status('req') ->> 'review_state', 'superseded', 'the review is superseded');
SET LOCAL ROLE platform_service;
SELECT tests.refuses(format('SELECT platform.lot_review_approve(%L, %L)', (SELECT a FROM fx), 'req'), 'PT409', 'review_not_pending', 'p_external_id',
                     'approving a superseded review is review_not_pending: it must be submitted again');
RESET ROLE;
SELECT is(tests.submit_lot(a, 'req') ->> 'review_state', 'pending', 'a superseded lot can be submitted again') FROM fx;
SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('req', tests.minimal_lot_body((SELECT j FROM placed)
                                    || '{"arrival": {"access": "x"}, "media": {"heroUrl": "https://my-parking.test/hero.jpg"}, "city": "Ely"}'))),
          'true'::jsonb, 'a reviewed change to a pending lot answers listing_review_superseded true');
SELECT is(pg_temp.status('req') ->> 'review_state', 'superseded', 'a pending review is voided too');
SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('req', tests.minimal_lot_body((SELECT j FROM placed)
                                    || '{"arrival": {"access": "x"}, "media": {"heroUrl": "https://my-parking.test/hero.jpg"}, "city": "Bath"}'))),
          'false'::jsonb, 'a change to an already superseded lot voids nothing more: listing_review_superseded false');
SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('draft', tests.lot_body('{"city": "Leeds"}'))), 'false'::jsonb,
          'a change to a draft voids nothing: listing_review_superseded false');
SELECT is(pg_temp.status('draft') ->> 'review_state', 'draft', 'the draft stays a draft');

-- Review voiding per reviewed field ---------------------------------------------------------------------------------

CREATE TEMP TABLE reviewed (n integer, field text, overrides jsonb, without text[]);
INSERT INTO reviewed VALUES
    (1, 'name', '{"name": "Harbour Car Park 2"}', '{}'),
    (2, 'timezone', '{"timezone": "Europe/Dublin"}', '{}'),
    (3, 'handover', '{"handover": "attended"}', '{}'),
    (4, 'capacity', '{"capacity": 121}', '{}'),
    (5, 'latitude', '{"latitude": "51.500001"}', '{}'),
    (6, 'longitude', '{"longitude": "-0.127757"}', '{}'),
    (7, 'city', '{"city": "Leeds"}', '{}'),
    (8, 'country_code', '{"country_code": "IE"}', '{}'),
    (9, 'features', '{"features": ["cameras", "indoor", "valet"]}', '{}'),
    (10, 'arrival', '{"arrival": {"entrance": "North gate, Dock Road", "parkingLevel": "B2"}}', '{}'),
    (11, 'media', '{"media": {"heroUrl": "https://photos.example.test/hero.jpg"}}', '{}'),
    (12, 'min_advance_days', '{}', '{min_advance_days}'),
    (13, 'min_stay_days', '{"min_stay_days": 2}', '{}'),
    (14, 'max_stay_days', '{"max_stay_days": null}', '{}'),
    (15, 'cancellation_free_until_hours_before_check_in',
         '{"cancellation": {"free_until_hours_before_check_in": 0, "penalty_percent_after": "50.00", "no_show_forfeits_full": true}}', '{}'),
    (16, 'cancellation_penalty_percent_after',
         '{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "49.99", "no_show_forfeits_full": true}}', '{}'),
    (17, 'cancellation_no_show_forfeits_full',
         '{"cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": "50.00", "no_show_forfeits_full": false}}', '{}');

SELECT is(pg_temp.after_approved_put(overrides, without), 'true superseded',
          format('a change of %s alone voids an approved review: listing_review_superseded true, state superseded', field))
  FROM reviewed ORDER BY n;
SELECT is(pg_temp.after_approved_put('{}', ARRAY['cancellation']), 'true superseded', 'removing the cancellation policy voids an approved review');
SELECT is(pg_temp.after_approved_put('{"online_bookable": false}'), 'false approved',
          'online_bookable alone does not void: listing_review_superseded false, still approved');
SELECT is(pg_temp.after_approved_put('{"online_bookable": false, "capacity": 7}'), 'true superseded',
          'online_bookable together with a reviewed field voids');
SELECT is(pg_temp.after_approved_put('{}'), 'false approved', 'an unchanged PUT does not void');
SELECT is((SELECT tests.submit_lot(a, 'rv') ->> 'review_state' FROM fx), 'approved',
          'submitting an approved lot again keeps its approval (only a reviewed change withdraws it)');
SELECT is(pg_temp.after_approved_put('{"features": ["indoor", "cameras", "indoor"], "latitude": "51.5000001", "country_code": "gb",
                                       "capacity": 120.0, "cancellation": {"free_until_hours_before_check_in": 24, "penalty_percent_after": 50,
                                                                           "no_show_forfeits_full": true}}'),
          'false approved', 'values equal once stored (features reordered, coordinates rounding alike, gb, 120.0, 50) do not void');

-- The zone confirmation -------------------------------------------------------------------------------------------

SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT is(console.lot_confirm_timezone('draft') ->> 'timezone_confirmed', 'true',
          'a manager confirms the zone; the answer is the listing status with timezone_confirmed true');
SELECT tests.act_as_superuser();
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, true, 'the confirmation is stored') FROM fx;
SELECT is((SELECT body -> 'changed' FROM pg_temp.put('draft', tests.lot_body('{"city": "York"}'))), '["city"]'::jsonb,
          'the fixture: a change of another field');
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, true, 'a change of another field keeps the zone confirmation') FROM fx;
SELECT is((SELECT body -> 'changed' FROM pg_temp.put('draft', tests.lot_body('{"city": "York", "timezone": "Europe/Dublin"}'))),
          '["timezone"]'::jsonb, 'the fixture: a zone change');
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, false, 'a zone change withdraws the zone confirmation') FROM fx;
SELECT tests.act_as_console_user(owner, a) FROM fx;
SELECT is(console.lot_confirm_timezone('draft') ->> 'timezone_confirmed', 'true', 'an owner confirms the new zone');
SELECT is(console.lot_confirm_timezone('draft') ->> 'timezone_confirmed', 'true', 'confirming a confirmed zone again is harmless');
SELECT tests.act_as_superuser();
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('draft', tests.lot_body('{"city": "York", "timezone": "Europe/Dublin"}'))), 'unchanged',
          'the fixture: the same zone sent again');
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, true, 'the same zone sent again keeps the confirmation') FROM fx;
SELECT is((SELECT body ->> 'result' FROM pg_temp.put('draft', tests.lot_body('{"city": "York", "timezone": "Europe/Dublin", "online_bookable": false}'))),
          'updated', 'the fixture: only online_bookable changes');
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, true, 'an online_bookable change keeps the confirmation') FROM fx;

-- The selling rule: each condition is needed ------------------------------------------------------------------------

SELECT is((SELECT status FROM pg_temp.put('sell', tests.lot_body())), 201, 'the fixture: a complete lot');
SELECT is(pg_temp.status('sell') ->> 'selling', 'false', 'a complete new lot does not sell on 201');
SELECT is(tests.make_lot_sell(a, 'sell'),
          '{"review_state": "approved", "timezone_confirmed": true, "online_bookable": true, "selling": true, "unmet": []}'::jsonb,
          'with a price in force, its zone confirmed, the agreement accepted, payouts connected and its review approved, it sells') FROM fx;

CREATE TEMP TABLE selling_case (n integer, condition text, flip text);
INSERT INTO selling_case VALUES
    (1, 'online_bookable', $$SELECT tests.put_lot(bearer, 'sell', tests.lot_body('{"online_bookable": false}')) FROM fx$$),
    (2, 'the review approved (pending)', $$UPDATE app.lots SET review_state = 'pending' WHERE external_id = 'sell'$$),
    (3, 'the review approved (superseded)', $$UPDATE app.lots SET review_state = 'superseded' WHERE external_id = 'sell'$$),
    (4, 'the review approved (draft)', $$UPDATE app.lots SET review_state = 'draft' WHERE external_id = 'sell'$$),
    (5, 'the zone confirmed', $$UPDATE app.lots SET timezone_confirmed = false WHERE external_id = 'sell'$$),
    (6, 'payouts connected', $$SELECT platform.payouts_set(a, false) FROM fx$$),
    (7, 'the listing agreement accepted', $$UPDATE app.operators SET listing_agreement_accepted_at = NULL WHERE id = (SELECT a FROM fx)$$),
    (8, 'the operator active', $$SELECT platform.operator_set_status(a, 'suspended') FROM fx$$),
    (9, 'lot_capacity met', $$UPDATE app.lots SET capacity = 0 WHERE external_id = 'sell'$$),
    (10, 'lot_map_pin met', $$UPDATE app.lots SET latitude = NULL, longitude = NULL WHERE external_id = 'sell'$$),
    (11, 'lot_city_country met', $$UPDATE app.lots SET country_code = NULL WHERE external_id = 'sell'$$),
    (12, 'lot_arrival_guidance met', $$UPDATE app.lots SET arrival = '{"streetAddress": "1 Dock Road"}' WHERE external_id = 'sell'$$),
    (13, 'lot_hero_image met', $$UPDATE app.lots SET media = '{"heroUrl": "http://photos.example.test/hero.jpg"}' WHERE external_id = 'sell'$$),
    (14, 'lot_price_in_force met (no envelope)', $$DELETE FROM app.lot_rates WHERE lot_id = (SELECT id FROM app.lots WHERE external_id = 'sell')$$),
    (15, 'lot_price_in_force met (the envelope''s window over)',
         $$UPDATE app.lot_rates SET valid_to = current_date - 30 WHERE lot_id = (SELECT id FROM app.lots WHERE external_id = 'sell')$$);

-- Whether lot `sell` still sells with one condition flipped (as the superuser, so each flip is
-- alone; the flip is undone before returning).
CREATE FUNCTION pg_temp.sells_without(p_flip text)
RETURNS boolean
LANGUAGE plpgsql
AS $$
DECLARE
    v_selling boolean;
BEGIN
    EXECUTE p_flip;
    v_selling := (pg_temp.status('sell') ->> 'selling')::boolean;
    RAISE EXCEPTION USING ERRCODE = 'PUNDO', MESSAGE = v_selling::text;
EXCEPTION
    WHEN SQLSTATE 'PUNDO' THEN
        RETURN SQLERRM::boolean;
END
$$;

SELECT is(pg_temp.sells_without(flip), false, format('a lot does not sell without %s', condition)) FROM selling_case ORDER BY n;
SELECT is(pg_temp.status('sell') ->> 'selling', 'true', 'with every flip undone the lot sells again');
SELECT is((SELECT body -> 'changed' FROM pg_temp.put('sell', tests.lot_body('{"online_bookable": false}'))), '["online_bookable"]'::jsonb,
          'the fixture: online_bookable turned off through the API');
SELECT is(pg_temp.status('sell'), '{"review_state": "approved", "timezone_confirmed": true, "online_bookable": false, "selling": false, "unmet": []}'::jsonb,
          'a lot taken off sale is not selling, its review still approved');
SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('sell', tests.lot_body())), 'false'::jsonb,
          'the fixture: online_bookable turned on again');
SELECT is(pg_temp.status('sell') ->> 'selling', 'true', 'turning online_bookable on again sells again, without a new review');
SELECT is((SELECT body -> 'listing_review_superseded' FROM pg_temp.put('sell', tests.lot_body('{"timezone": "Europe/Paris"}'))), 'true'::jsonb,
          'the fixture: a zone change through the API');
SELECT is(pg_temp.status('sell'), '{"review_state": "superseded", "timezone_confirmed": false, "online_bookable": true, "selling": false, "unmet": []}'::jsonb,
          'after a zone change the lot stops selling: review superseded, zone unconfirmed');

-- The listing agreement: owners only, once per account -----------------------------------------------------------------

SELECT tests.act_as_console_user(manager, b) FROM fx;
SELECT tests.refuses('SELECT console.account_accept_listing_agreement()', 'PT403', 'forbidden', NULL,
                     'a user who is no member of the operator cannot accept its agreement');
SELECT tests.act_as_console_user(b_owner, b) FROM fx;
SELECT is((console.account_accept_listing_agreement() ->> 'accepted_at')::timestamptz, now(), 'an owner accepts the listing agreement: accepted_at now');
SELECT tests.act_as_superuser();
SELECT is((SELECT listing_agreement_accepted_at FROM app.operators WHERE id = (SELECT b FROM fx)), now(), 'the acceptance is stored');
UPDATE app.operators SET listing_agreement_accepted_at = now() - interval '1 day' WHERE id = (SELECT b FROM fx);
SELECT tests.act_as_console_user(b_owner, b) FROM fx;
SELECT is((console.account_accept_listing_agreement() ->> 'accepted_at')::timestamptz, now() - interval '1 day',
          'accepting again answers the first acceptance');
SELECT tests.act_as_superuser();
SELECT is((SELECT listing_agreement_accepted_at FROM app.operators WHERE id = (SELECT b FROM fx)), now() - interval '1 day',
          'accepting again keeps the first accepted_at');
UPDATE app.operators SET listing_agreement_accepted_at = NULL WHERE id = (SELECT a FROM fx);
SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT tests.refuses('SELECT console.account_accept_listing_agreement()', 'PT403', 'forbidden', NULL, 'a manager cannot accept the agreement');
SELECT tests.act_as_console_user(staff, a) FROM fx;
SELECT tests.refuses('SELECT console.account_accept_listing_agreement()', 'PT403', 'forbidden', NULL, 'staff cannot accept the agreement');
SELECT tests.act_as_superuser();
SELECT is((SELECT listing_agreement_accepted_at FROM app.operators WHERE id = (SELECT a FROM fx)), NULL, 'the refused calls accepted nothing');

-- Who may call the console lot functions --------------------------------------------------------------------------------

SELECT tests.act_as_console_user(staff, a) FROM fx;
SELECT is(console.lot_listing_status('draft') ->> 'review_state', 'draft', 'staff may read a lot''s listing status');
SELECT tests.refuses($$SELECT console.lot_confirm_timezone('draft')$$, 'PT403', 'forbidden', NULL, 'staff cannot confirm a zone');
SELECT tests.refuses($$SELECT console.lot_submit_for_review('draft')$$, 'PT403', 'forbidden', NULL, 'staff cannot submit a lot for review');
SELECT tests.act_as_console_user(owner, a) FROM fx;
SELECT is(console.lot_listing_status('draft') ->> 'review_state', 'draft', 'an owner may read a lot''s listing status');
SELECT tests.refuses($$SELECT console.lot_listing_status('nope')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'the status of a lot that does not exist is invalid_parameter');
SELECT tests.refuses($$SELECT console.lot_confirm_timezone('nope')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'confirming the zone of a lot that does not exist is invalid_parameter');
SELECT tests.refuses($$SELECT console.lot_submit_for_review('nope')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'submitting a lot that does not exist is invalid_parameter');
SELECT tests.act_as_console_user(manager, a) FROM fx;
SELECT is(console.lot_listing_status('draft') ->> 'review_state', 'draft', 'a manager may read a lot''s listing status');
SELECT tests.act_as_console_user(b_owner, b) FROM fx;
SELECT tests.refuses($$SELECT console.lot_listing_status('draft')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'another operator''s owner, acting for their own operator, cannot see A''s lot');
SELECT tests.refuses($$SELECT console.lot_confirm_timezone('draft')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'another operator''s owner cannot confirm A''s lot''s zone');
SELECT tests.refuses($$SELECT console.lot_submit_for_review('draft')$$, 'PT422', 'invalid_parameter', 'p_external_id',
                     'another operator''s owner cannot submit A''s lot');
SELECT tests.act_as_console_user(b_owner, a) FROM fx;
SELECT tests.refuses($$SELECT console.lot_listing_status('draft')$$, 'PT403', 'forbidden', NULL,
                     'naming an operator one is not a member of is forbidden (listing status)');
SELECT tests.refuses($$SELECT console.lot_confirm_timezone('draft')$$, 'PT403', 'forbidden', NULL,
                     'naming an operator one is not a member of is forbidden (confirm zone)');
SELECT tests.refuses($$SELECT console.lot_submit_for_review('draft')$$, 'PT403', 'forbidden', NULL,
                     'naming an operator one is not a member of is forbidden (submit)');
SELECT tests.act_as_superuser();
SELECT is((tests.lot(a, 'draft')).timezone_confirmed, true, 'the refused calls changed nothing: the zone is as it was') FROM fx;
SELECT is((tests.lot(a, 'draft')).review_state, 'draft', 'the refused calls changed nothing: the lot is still a draft') FROM fx;

-- The platform functions ----------------------------------------------------------------------------------------------

SET LOCAL ROLE platform_service;
SELECT lives_ok(format('SELECT platform.payouts_set(%L, true)', (SELECT b FROM fx)), 'the payment provider reports an account can pay out');
SELECT tests.refuses(format('SELECT platform.payouts_set(%L, NULL)', (SELECT b FROM fx)), 'PT422', 'invalid_parameter', 'p_can_pay_out',
                     'payouts_set with a null flag is invalid_parameter');
SELECT tests.refuses(format('SELECT platform.payouts_set(%L, true)', gen_random_uuid()), 'PT422', 'invalid_parameter', 'p_operator_id',
                     'payouts_set of an unknown operator is invalid_parameter');
SELECT tests.refuses(format('SELECT platform.lot_listing_status(%L, %L)', (SELECT a FROM fx), 'nope'), 'PT422', 'invalid_parameter', 'p_external_id',
                     'platform.lot_listing_status of a lot that does not exist is invalid_parameter');
SELECT tests.refuses(format('SELECT platform.lot_listing_status(%L, %L)', (SELECT b FROM fx), 'draft'), 'PT422', 'invalid_parameter', 'p_external_id',
                     'platform.lot_listing_status finds a lot only under its own operator');
RESET ROLE;
SELECT is((SELECT can_pay_out FROM app.operators WHERE id = (SELECT b FROM fx)), true, 'the report is stored');
SELECT is((SELECT ARRAY(SELECT jsonb_object_keys(pg_temp.status('draft')) ORDER BY 1)),
          ARRAY['online_bookable', 'review_state', 'selling', 'timezone_confirmed', 'unmet'],
          'the listing status has exactly review_state, timezone_confirmed, online_bookable, selling, unmet');

SELECT * FROM finish();
ROLLBACK;
