-- Floor of GET /lots/{external_id}/blocked-periods: the plainest SQL returning the same list as JSON
-- (as the superuser: no row-level security, no authentication). pgbench variables: operator, lot.
SELECT jsonb_build_object('external_id', l.external_id, 'blocked_periods', coalesce((
           SELECT jsonb_agg(jsonb_build_object(
                      'starts_on', to_char(p.starts_on, 'YYYY-MM-DD'), 'ends_on', to_char(p.ends_on, 'YYYY-MM-DD'),
                      'reason', p.reason,
                      'overlapping_bookings', (
                          SELECT count(*) FROM app.bookings AS b
                           WHERE b.operator_id = p.operator_id AND b.lot_id = p.lot_id AND b.status <> 'cancelled'
                             AND b.check_in_local < (p.ends_on + 1)::timestamp
                             AND b.check_out_local >= p.starts_on::timestamp))
                    ORDER BY p.starts_on)
             FROM app.lot_blocked_periods AS p
            WHERE p.operator_id = l.operator_id AND p.lot_id = l.id), '[]'))
  FROM app.lots AS l
 WHERE l.operator_id = :operator::uuid AND l.external_id = :lot::text;
