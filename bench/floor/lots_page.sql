-- Floor of GET /lots: the plainest SQL returning the same page as JSON (run as the superuser, so
-- without row-level security), with the plainest check of the request's credential, which the
-- function cannot answer without: its row by key id, the HMAC of the secret compared, its operator
-- the page's (no expiry, revocation, scope or operator status). pgbench variables: key and secret
-- (the bearer's halves), after ('' for the first page: none), limit.
SELECT jsonb_build_object(
           'lots', coalesce(jsonb_agg(jsonb_build_object(
               'external_id', l.external_id, 'name', l.name, 'timezone', l.timezone, 'handover', l.handover,
               'online_bookable', l.online_bookable, 'capacity', l.capacity,
               'latitude', trim_scale(l.latitude)::text, 'longitude', trim_scale(l.longitude)::text,
               'city', l.city, 'country_code', l.country_code, 'features', to_jsonb(l.features),
               'arrival', l.arrival, 'media', l.media, 'min_advance_days', l.min_advance_days,
               'min_stay_days', l.min_stay_days, 'max_stay_days', l.max_stay_days,
               'cancellation', CASE WHEN l.cancellation_no_show_forfeits_full IS NOT NULL THEN jsonb_build_object(
                   'free_until_hours_before_check_in', l.cancellation_free_until_hours_before_check_in,
                   'penalty_percent_after', to_char(l.cancellation_penalty_percent_after, 'FM990.00'),
                   'no_show_forfeits_full', l.cancellation_no_show_forfeits_full) END,
               'rates', CASE WHEN r.channel IS NOT NULL THEN jsonb_build_object(
                   'channel', r.channel, 'currency', r.currency, 'base_price', r.base_price::text,
                   'floor_price', r.floor_price::text, 'ceiling_price', r.ceiling_price::text,
                   'min_first_day_price', r.min_first_day_price::text, 'dynamic', r.dynamic,
                   'valid_from', to_char(r.valid_from, 'YYYY-MM-DD'), 'valid_to', to_char(r.valid_to, 'YYYY-MM-DD')) END)
               ORDER BY l.external_id), '[]'),
           'next_after', CASE WHEN count(*) = :limit THEN max(l.external_id) END)
  FROM (SELECT * FROM app.lots
         WHERE operator_id = (SELECT c.operator_id FROM app.api_credentials AS c
                               WHERE c.key_id = :key::text
                                 AND c.secret_hash = extensions.hmac(c.secret_salt || convert_to(:secret::text, 'UTF8'),
                                         (SELECT s.value FROM app.server_secrets AS s WHERE s.name = 'credential_pepper'), 'sha256'))
           AND external_id > coalesce(NULLIF(:after::text, 'none'), '') COLLATE "C" ORDER BY external_id LIMIT :limit) AS l
  LEFT JOIN app.lot_rates AS r ON r.operator_id = l.operator_id AND r.lot_id = l.id AND r.channel = 'marketplace';
