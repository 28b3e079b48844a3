-- `make demo-booking`: a booking for the demo operator of sql/dev/demo.sql, recorded as the
-- platform's booking engine records one (platform.booking_record), on the lot `lot` names (default:
-- the operator's first lot by external id). It enters the feed, and sends a hint if an endpoint is
-- armed. Prints the booking's reference.
--
--   psql "$DATABASE_URL" -v lot= -f sql/dev/demo_booking.sql
\set ON_ERROR_STOP 1
\set QUIET 1
\set SHOW_CONTEXT never
\set demo_user '00000000-0000-4000-8000-00000000de00'
\o /dev/null
SELECT m.operator_id AS operator_id,
       coalesce(nullif(:'lot', ''),
                (SELECT l.external_id FROM app.lots AS l WHERE l.operator_id = m.operator_id
                  ORDER BY l.external_id LIMIT 1)) AS lot
  FROM app.memberships AS m
 WHERE m.user_id = :'demo_user'
 LIMIT 1
\gset
\o
\if :{?operator_id}
\else
\echo 'No demo operator: run make run first.'
\quit
\endif
SELECT :'lot' = '' AS no_lot
\gset
\if :no_lot
\echo 'The demo operator has no lot yet: PUT one first (docs/integrating.md, the routes).'
\quit
\endif

-- Every key the platform must send (the others: reference, generated when absent;
-- external_reference, flight_number, customer, vehicle_plates).
SELECT platform.booking_record(:'operator_id', jsonb_build_object(
    'lot_external_id', :'lot',
    'check_in_local', to_char(current_date + 7, 'YYYY-MM-DD') || 'T09:00:00',
    'check_out_local', to_char(current_date + 9, 'YYYY-MM-DD') || 'T18:00:00',
    'parking_days', 3,
    'status', 'confirmed',
    'payment_status', 'paid',
    'currency', 'EUR',
    'total', '36.00',
    'channel', 'marketplace',
    'customer', jsonb_build_object('first_name', 'Ada', 'last_name', 'Lovelace', 'email', 'ada@example.test',
                                   'phone', '+44 20 7946 0000'),
    'vehicle_plates', jsonb_build_array('AB12 CDE'))) AS reference
\gset
\echo 'Booking' :reference 'recorded on lot' :lot 'for the demo operator: GET /bookings has it.'
