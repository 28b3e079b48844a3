SELECT status, body::text FROM api.lots_get(:auth, NULLIF(:after::text, 'none'), :limit);
