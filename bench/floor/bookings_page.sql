-- Floor of GET /bookings, following the feed: the plainest SQL returning the same page as JSON (as
-- the superuser: no row-level security, authentication or cursor signing), each row's lot by its
-- primary key. pgbench variables: operator, limit, and at/ref (the last row of the previous page,
-- carried by \gset; the run starts them at the feed's beginning).
SELECT jsonb_build_object('bookings', coalesce(jsonb_agg(jsonb_build_object(
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
       coalesce(max(p.changed_at)::text, :at::text) AS at,
       coalesce((array_agg(p.reference ORDER BY p.changed_at DESC, p.reference DESC))[1], :ref::text) AS ref
  FROM (SELECT * FROM app.bookings AS b
         WHERE b.operator_id = :operator::uuid AND (b.changed_at, b.reference) > (:at::timestamptz, coalesce(NULLIF(:ref::text, 'none'), '') COLLATE "C")
         ORDER BY b.changed_at, b.reference
         LIMIT :limit) AS p
 CROSS JOIN LATERAL (SELECT x.external_id, x.name, x.timezone FROM app.lots AS x
                      WHERE x.operator_id = p.operator_id AND x.id = p.lot_id) AS l
\gset
