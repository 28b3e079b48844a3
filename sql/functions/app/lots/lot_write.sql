-- PUT /lots/{external_id} for the operator in context: validate, then create, update or nothing.
--
-- Diff before update: the stored lot is read without a lock and compared field by field; when
-- nothing differs, no statement at all is issued (no lock, no write, no trigger) and the answer is
-- `unchanged`. Otherwise the row is re-read under lock, compared again, and updated. A change to any
-- reviewed field (app.lot_fields: every field but online_bookable) voids a pending or approved review (state
-- `superseded`); a zone change withdraws the zone confirmation.
--
-- The same text again: every write stores the digest of the body text it accepted
-- (app.lot_body_digest: the text, the operator's media folder and the rules in force). A body whose
-- digest equals the stored one is the text that produced the stored fields, read by the same rules,
-- so the full check could only answer `unchanged`: it is skipped. Any other text takes the full check.
--
-- Two first writes of one external_id at once: the second waits for the first and answers PT409
-- `conflict`. Answers the LotWriteResult report (without dry_run).
CREATE OR REPLACE FUNCTION app.lot_write(p_operator_id uuid, p_external_id text, p_body text, p_body_fault jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_folder text;
    v_digest bytea;
    v_new app.lots;
    v_old app.lots;
    v_changed text[];
    v_superseded boolean := false;
    v_result text;
BEGIN
    -- The gateway passes NULL for a path segment that is not 1-200 characters of UTF-8 (its rule);
    -- the refusal is ours, so that it comes after the credential check.
    IF p_external_id IS NULL THEN
        PERFORM app.refuse(422, 'invalid_body', 'external_id');
    END IF;
    PERFORM app.refuse_body_fault(p_body_fault);
    SELECT o.media_folder INTO v_folder FROM app.operators AS o WHERE o.id = p_operator_id;
    v_digest := app.lot_body_digest(v_folder, p_body);
    SELECT * INTO v_old FROM app.lots AS l WHERE l.operator_id = p_operator_id AND l.external_id = p_external_id;
    IF v_old.accepted_body_digest = v_digest THEN
        v_result := 'unchanged';
        v_changed := '{}';
        v_new := v_old;
    ELSE
        v_new := app.lot_from_body(app.json_body(p_body), p_external_id, v_folder);
    END IF;

    IF v_result IS NOT NULL THEN
        NULL;  -- the same text again
    ELSIF v_old.id IS NULL THEN
        BEGIN
            INSERT INTO app.lots (
                operator_id, external_id, name, timezone, handover, online_bookable, capacity, latitude,
                longitude, city, country_code, features, arrival, media, min_advance_days, min_stay_days,
                max_stay_days, cancellation_free_until_hours_before_check_in,
                cancellation_penalty_percent_after, cancellation_no_show_forfeits_full, accepted_body_digest)
            VALUES (
                p_operator_id, p_external_id, v_new.name, v_new.timezone, v_new.handover,
                v_new.online_bookable, v_new.capacity, v_new.latitude, v_new.longitude, v_new.city,
                v_new.country_code, v_new.features, v_new.arrival, v_new.media, v_new.min_advance_days,
                v_new.min_stay_days, v_new.max_stay_days, v_new.cancellation_free_until_hours_before_check_in,
                v_new.cancellation_penalty_percent_after, v_new.cancellation_no_show_forfeits_full, v_digest)
            RETURNING * INTO v_new;
        EXCEPTION
            WHEN unique_violation THEN
                PERFORM app.refuse(409, 'conflict');
        END;
        v_result := 'created';
        v_changed := app.lot_changes(NULL, v_new);
    ELSE
        v_changed := app.lot_changes(v_old, v_new);
        IF cardinality(v_changed) > 0 THEN
            SELECT * INTO v_old FROM app.lots AS l WHERE l.operator_id = p_operator_id AND l.id = v_old.id FOR UPDATE;
            v_changed := app.lot_changes(v_old, v_new);
        END IF;
        IF cardinality(v_changed) = 0 THEN
            v_result := 'unchanged';
            v_new := v_old;
        ELSE
            v_result := 'updated';
            v_superseded := v_old.review_state IN ('pending', 'approved') AND app.lot_changes_reviewed(v_changed);
            UPDATE app.lots AS l
               SET name = v_new.name,
                   timezone = v_new.timezone,
                   handover = v_new.handover,
                   online_bookable = v_new.online_bookable,
                   capacity = v_new.capacity,
                   latitude = v_new.latitude,
                   longitude = v_new.longitude,
                   city = v_new.city,
                   country_code = v_new.country_code,
                   features = v_new.features,
                   arrival = v_new.arrival,
                   media = v_new.media,
                   min_advance_days = v_new.min_advance_days,
                   min_stay_days = v_new.min_stay_days,
                   max_stay_days = v_new.max_stay_days,
                   cancellation_free_until_hours_before_check_in = v_new.cancellation_free_until_hours_before_check_in,
                   cancellation_penalty_percent_after = v_new.cancellation_penalty_percent_after,
                   cancellation_no_show_forfeits_full = v_new.cancellation_no_show_forfeits_full,
                   review_state = CASE WHEN v_superseded THEN 'superseded' ELSE l.review_state END,
                   timezone_confirmed = l.timezone_confirmed AND l.timezone = v_new.timezone,
                   accepted_body_digest = v_digest,
                   updated_at = now()
             WHERE l.operator_id = p_operator_id AND l.id = v_old.id
            RETURNING * INTO v_new;
        END IF;
    END IF;

    RETURN jsonb_build_object(
        'external_id', p_external_id,
        'result', v_result,
        'changed', to_jsonb(v_changed),
        'listing_review_superseded', v_superseded,
        'lot', app.lot_read_form(v_new));
END
$$;
REVOKE ALL ON FUNCTION app.lot_write(uuid, text, text, jsonb) FROM PUBLIC;
