SELECT status, body::text FROM api.lot_blocked_periods_put(:auth, :lot::text, :body::text, false, NULL::jsonb);
