-- one of 512 lots, its capacity changed (the body the load generator sends, built the same way)
\set k random(0, 511)
\set capacity random(1, 100000)
SELECT status, body::text FROM api.lot_put(:auth, 'bench-put-' || :k::text, replace(:body::text, '"capacity":0', '"capacity":' || :capacity::text), false, NULL::jsonb);
