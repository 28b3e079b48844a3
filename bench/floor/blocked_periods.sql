-- Floor of GET /lots/{external_id}/blocked-periods: the plainest SQL returning the same list as JSON
-- (as the superuser: no row-level security, no authentication). pgbench variables: operator, lot.
-- Each count as app.blocked_periods_read takes it: the lot's check-ins up to ends_on less its
-- check-outs before starts_on, running sums over its day counts in one ordered pass.
WITH lot AS (
    SELECT l.operator_id, l.id, l.external_id FROM app.lots AS l
     WHERE l.operator_id = :operator::uuid AND l.external_id = :lot::text),
period AS (
    SELECT p.id, p.starts_on, p.ends_on, p.reason
      FROM app.lot_blocked_periods AS p, lot
     WHERE p.operator_id = lot.operator_id AND p.lot_id = lot.id),
running AS (
    SELECT e.id, e.is_end, sum(e.check_ins) OVER w AS check_ins, sum(e.check_outs) OVER w AS check_outs
      FROM (SELECT NULL::uuid AS id, NULL::boolean AS is_end, d.day, 1 AS place, d.check_ins, d.check_outs
              FROM app.lot_booking_days AS d, lot
             WHERE d.operator_id = lot.operator_id AND d.lot_id = lot.id
            UNION ALL
            SELECT p.id, false, p.starts_on, 0, 0, 0 FROM period AS p
            UNION ALL
            SELECT p.id, true, p.ends_on, 2, 0, 0 FROM period AS p) AS e
    WINDOW w AS (ORDER BY e.day, e.place ROWS UNBOUNDED PRECEDING))
SELECT jsonb_build_object('external_id', lot.external_id, 'blocked_periods', coalesce((
           SELECT jsonb_agg(jsonb_build_object(
                      'starts_on', to_char(p.starts_on, 'YYYY-MM-DD'), 'ends_on', to_char(p.ends_on, 'YYYY-MM-DD'),
                      'reason', p.reason, 'overlapping_bookings', c.overlapping)
                    ORDER BY p.starts_on)
             FROM period AS p
             JOIN (SELECT r.id, sum(CASE WHEN r.is_end THEN r.check_ins ELSE -r.check_outs END)::bigint AS overlapping
                     FROM running AS r WHERE r.id IS NOT NULL GROUP BY r.id) AS c ON c.id = p.id), '[]'))
  FROM lot;
