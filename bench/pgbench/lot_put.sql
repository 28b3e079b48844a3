SELECT status, body::text FROM api.lot_put(:auth, :lot::text, :body::text, false, NULL::jsonb);
