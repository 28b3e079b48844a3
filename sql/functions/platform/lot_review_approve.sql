-- A reviewer approves a pending listing review. Any other state is refused with PT409
-- `review_not_pending` (a superseded review must be submitted again first).
CREATE OR REPLACE FUNCTION platform.lot_review_approve(p_operator_id uuid, p_external_id text)
RETURNS void
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot app.lots;
BEGIN
    PERFORM app.set_operator_context(p_operator_id);
    v_lot := app.named_lot(p_operator_id, p_external_id, p_for_update => true);
    IF v_lot.review_state <> 'pending' THEN
        PERFORM app.refuse(409, 'review_not_pending', 'p_external_id');
    END IF;
    UPDATE app.lots AS l
       SET review_state = 'approved', updated_at = now()
     WHERE l.operator_id = p_operator_id AND l.id = v_lot.id;
END
$$;
REVOKE ALL ON FUNCTION platform.lot_review_approve(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION platform.lot_review_approve(uuid, text) TO platform_service;
