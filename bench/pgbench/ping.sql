SELECT status, body::text FROM api.ping(:auth);
