-- overlapping_bookings of each blocked period: the lot's bookings (not cancelled) whose stay touches
-- the period. Compared as date casts, every booking of the lot was read once per period (100
-- periods at a lot of 100 000 bookings: seconds). Under row-level security only leakproof
-- operators can be index conditions, which rules out range overlap (&&); plain timestamp
-- comparisons are leakproof. So a period's bookings are found by check-in in
-- [starts_on - the lot's longest stay, ends_on + 1 day), read from the first index (check-out
-- included for an index-only scan), and the longest stay from the second (one entry, read backwards).
SET LOCAL ROLE ingest_owner;

CREATE INDEX bookings_lot_open_stay_idx ON app.bookings (operator_id, lot_id, check_in_local)
    INCLUDE (check_out_local)
    WHERE status <> 'cancelled';
-- (Its predicate names check_out_local > check_in_local, always true by the table's CHECK, so that
-- only the longest-stay query, which says so too, can use it: the count estimates one booking per
-- lot and would otherwise take this index and filter every booking of the lot.)
CREATE INDEX bookings_lot_longest_stay_idx ON app.bookings (operator_id, lot_id, (check_out_local - check_in_local))
    WHERE status <> 'cancelled' AND check_out_local > check_in_local;

RESET ROLE;
