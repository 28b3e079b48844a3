SELECT status, body::text FROM api.lot_blocked_periods_get(:auth, :lot::text);
