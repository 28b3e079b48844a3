-- The account owner accepts the listing agreement, once per account: accepting again keeps the
-- first acceptance. Owners only. Answers {accepted_at}.
CREATE OR REPLACE FUNCTION console.account_accept_listing_agreement()
RETURNS jsonb
SECURITY DEFINER
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_caller record;
    v_accepted_at timestamptz;
BEGIN
    SELECT * INTO v_caller FROM app.console_caller(ARRAY['owner'], 'forbidden');
    UPDATE app.operators AS o
       SET listing_agreement_accepted_at = now()
     WHERE o.id = v_caller.operator_id AND o.listing_agreement_accepted_at IS NULL;
    SELECT o.listing_agreement_accepted_at INTO v_accepted_at FROM app.operators AS o WHERE o.id = v_caller.operator_id;
    RETURN jsonb_build_object('accepted_at', v_accepted_at);
END
$$;
REVOKE ALL ON FUNCTION console.account_accept_listing_agreement() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION console.account_accept_listing_agreement() TO authenticated;
