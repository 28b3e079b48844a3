-- Submit a lot for listing review: its review becomes `pending`. Owners and managers. Refused with
-- PT422 `listing_requirements_unmet` (DETAIL: the unmet requirement names, comma-separated) while a
-- content requirement is unmet. Submitting a pending or approved lot changes nothing (an approval is
-- withdrawn only by a reviewed change). Answers the listing status.
CREATE OR REPLACE FUNCTION console.lot_submit_for_review(p_external_id text)
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
    v_lot app.lots;
    v_unmet text[];
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner', 'manager'], 'forbidden');
    v_lot := app.named_lot(v_caller.operator_id, p_external_id, p_for_update => true);
    v_unmet := app.lot_unmet_requirements(v_lot);
    IF cardinality(v_unmet) > 0 THEN
        PERFORM app.refuse(422, 'listing_requirements_unmet', array_to_string(v_unmet, ','));
    END IF;
    UPDATE app.lots AS l
       SET review_state = 'pending', updated_at = now()
     WHERE l.operator_id = v_caller.operator_id AND l.id = v_lot.id AND l.review_state IN ('draft', 'superseded');
    RETURN app.lot_listing_status(v_caller.operator_id, p_external_id);
END
$$;
REVOKE ALL ON FUNCTION console.lot_submit_for_review(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.lot_submit_for_review(text) TO authenticated;
