-- Floor of a 64 KiB body whose JSON is sound: jsonb's own reading of it, the least any write must
-- spend on the text (run as the superuser). pgbench variable: body (sent as a parameter: -M prepared).
SELECT :body::jsonb IS NOT NULL;
