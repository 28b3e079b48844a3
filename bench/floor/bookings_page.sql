-- Floor of GET /bookings, following the feed: the plainest SQL returning the same page as JSON (as
-- the superuser: no row-level security, authentication or cursor signing), each row's lot by its
-- primary key (LIMIT 1 keeps it a lookup per row: unlimited, a custom plan hashes all the lots). pgbench variables: operator, limit, and at/ref (the last row of the previous page,
-- carried by \gset; the run starts them at the feed's beginning, -infinity and none). After the
-- feed's last page (short, or with no row after it: the function's has_more false) they go back to
-- the beginning, so every page measured is a full page.
SELECT s.page, coalesce(m.at, '-infinity') AS at, coalesce(m.ref, 'none') AS ref
  FROM (SELECT jsonb_build_object('bookings', coalesce(jsonb_agg(jsonb_build_object(
                   'reference', p.reference, 'external_reference', p.external_reference,
                   'lot_external_id', l.external_id, 'lot_name', l.name, 'timezone', l.timezone,
                   'check_in_local', to_char(p.check_in_local, 'YYYY-MM-DD"T"HH24":"MI":"SS'),
                   'check_out_local', to_char(p.check_out_local, 'YYYY-MM-DD"T"HH24":"MI":"SS'),
                   'parking_days', p.parking_days, 'status', p.status, 'payment_status', p.payment_status,
                   'currency', p.currency, 'total', p.total::text, 'channel', p.channel, 'flight_number', p.flight_number,
                   'customer', jsonb_build_object('first_name', p.customer_first_name, 'last_name', p.customer_last_name,
                                                  'email', p.customer_email, 'phone', p.customer_phone),
                   'vehicle_plates', to_jsonb(p.vehicle_plates),
                   'created_at', to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"'),
                   'cancelled_at', to_char(p.cancelled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":"MI":"SS.US"Z"'))
                   ORDER BY p.changed_at, p.reference), '[]'))::text AS page,
               count(*) AS n_rows,
               max(p.changed_at) AS last_at,
               (array_agg(p.reference ORDER BY p.changed_at DESC, p.reference DESC))[1] AS last_ref
          FROM (SELECT * FROM app.bookings AS b
                 WHERE b.operator_id = :operator::uuid AND (b.changed_at, b.reference) > (:at::timestamptz, coalesce(NULLIF(:ref::text, 'none'), '') COLLATE "C")
                 ORDER BY b.changed_at, b.reference
                 LIMIT :limit) AS p
         CROSS JOIN LATERAL (SELECT x.external_id, x.name, x.timezone FROM app.lots AS x
                              WHERE x.operator_id = p.operator_id AND x.id = p.lot_id
                              LIMIT 1) AS l) AS s
  LEFT JOIN LATERAL (SELECT s.last_at::text AS at, s.last_ref AS ref
                      WHERE s.n_rows = :limit
                        -- a row after it (ordered: the feed index, not a scan of the table)
                        AND (SELECT true FROM app.bookings AS n
                              WHERE n.operator_id = :operator::uuid
                                AND (n.changed_at, n.reference) > (s.last_at, s.last_ref)
                              ORDER BY n.changed_at, n.reference
                              LIMIT 1)) AS m ON true
\gset
