-- Bookings (as the platform records them, from every channel), each lot's marketplace price
-- envelope, and each lot's closure list.
SET LOCAL ROLE ingest_owner;

CREATE TABLE app.bookings (
    operator_id        uuid NOT NULL REFERENCES app.operators (id),
    id                 uuid NOT NULL DEFAULT gen_random_uuid(),
    -- The platform's reference: the de-duplication key of the feed.
    reference          text COLLATE "C" NOT NULL CHECK (reference ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
    lot_id             uuid NOT NULL,
    external_reference text CHECK (char_length(external_reference) BETWEEN 1 AND 200),
    -- The lot's wall clock, no zone.
    check_in_local     timestamp NOT NULL,
    check_out_local    timestamp NOT NULL,
    parking_days       integer NOT NULL CHECK (parking_days BETWEEN 1 AND 3660),
    status             text NOT NULL
                       CHECK (status IN ('pending', 'confirmed', 'checked_in', 'completed', 'cancelled')),
    payment_status     text NOT NULL
                       CHECK (payment_status IN ('pending', 'paid', 'partial', 'refunded', 'expired', 'not_required')),
    currency           text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total              numeric(14, 2) NOT NULL CHECK (total >= 0),
    channel            text NOT NULL CHECK (channel ~ '^[a-z][a-z0-9_]{0,39}$'),
    flight_number      text CHECK (char_length(flight_number) BETWEEN 1 AND 16),
    customer_first_name text CHECK (char_length(customer_first_name) <= 200),
    customer_last_name  text CHECK (char_length(customer_last_name) <= 200),
    customer_email      text CHECK (char_length(customer_email) <= 320),
    customer_phone      text CHECK (char_length(customer_phone) <= 40),
    vehicle_plates     text[] NOT NULL DEFAULT '{}' CHECK (cardinality(vehicle_plates) <= 10),
    -- The lots this booking was moved away from: with the bookings themselves (never deleted), the
    -- record of every lot that has ever taken a booking, which can then never be deleted.
    previous_lot_ids   uuid[] NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL DEFAULT now(),
    cancelled_at       timestamptz,
    -- When the booking last changed (insert or any update): the order of the bookings feed.
    changed_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, id),
    UNIQUE (operator_id, reference),
    FOREIGN KEY (operator_id, lot_id) REFERENCES app.lots (operator_id, id),
    CHECK (check_out_local > check_in_local),
    CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);
CREATE INDEX bookings_lot_stay_idx ON app.bookings (operator_id, lot_id, check_in_local);

ALTER TABLE app.bookings ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.bookings FORCE ROW LEVEL SECURITY;
CREATE POLICY "bookings belong to the operator in context" ON app.bookings
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

-- The marketplace price envelope of a lot: one row per lot and channel (only `marketplace` is
-- written through the API).
CREATE TABLE app.lot_rates (
    operator_id         uuid NOT NULL,
    lot_id              uuid NOT NULL,
    channel             text NOT NULL DEFAULT 'marketplace' CHECK (channel = 'marketplace'),
    currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    floor_price         numeric(12, 2) NOT NULL CHECK (floor_price >= 0),
    base_price          numeric(12, 2) NOT NULL,
    ceiling_price       numeric(12, 2) NOT NULL,
    min_first_day_price numeric(12, 2),
    dynamic             boolean NOT NULL DEFAULT false,
    valid_from          date,
    valid_to            date,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, lot_id, channel),
    FOREIGN KEY (operator_id, lot_id) REFERENCES app.lots (operator_id, id),
    CHECK (floor_price <= base_price AND base_price <= ceiling_price),
    CHECK (min_first_day_price BETWEEN floor_price AND ceiling_price),
    CHECK (valid_to >= valid_from)
);

ALTER TABLE app.lot_rates ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.lot_rates FORCE ROW LEVEL SECURITY;
CREATE POLICY "rates belong to the operator in context" ON app.lot_rates
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

-- A lot's closures: whole days withdrawn from new marketplace sales, both ends inclusive.
CREATE TABLE app.lot_blocked_periods (
    operator_id uuid NOT NULL,
    lot_id      uuid NOT NULL,
    id          uuid NOT NULL DEFAULT gen_random_uuid(),
    starts_on   date NOT NULL CHECK (starts_on BETWEEN '2020-01-01' AND '2032-12-31'),
    ends_on     date NOT NULL CHECK (ends_on BETWEEN '2020-01-01' AND '2032-12-31'),
    reason      text CHECK (char_length(reason) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, id),
    FOREIGN KEY (operator_id, lot_id) REFERENCES app.lots (operator_id, id),
    CHECK (ends_on >= starts_on)
);
CREATE INDEX lot_blocked_periods_lot_idx ON app.lot_blocked_periods (operator_id, lot_id, starts_on);

ALTER TABLE app.lot_blocked_periods ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.lot_blocked_periods FORCE ROW LEVEL SECURITY;
CREATE POLICY "closures belong to the operator in context" ON app.lot_blocked_periods
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

RESET ROLE;
