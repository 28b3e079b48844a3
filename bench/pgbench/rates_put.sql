SELECT status, body::text FROM api.lot_rates_put(:auth, :lot::text, :body::text, false, NULL::jsonb);
