-- Lots: the operator's car parks, as pushed by PUT /lots/{external_id} and read by GET /lots.
SET LOCAL ROLE ingest_owner;

CREATE TABLE app.lots (
    operator_id      uuid NOT NULL REFERENCES app.operators (id),
    id               uuid NOT NULL DEFAULT gen_random_uuid(),
    -- The operator's own opaque id. "C" collation: paging is in byte order on every machine.
    external_id      text COLLATE "C" NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 200),
    name             text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    timezone         text NOT NULL CHECK (char_length(timezone) BETWEEN 1 AND 64),
    handover         text NOT NULL CHECK (handover IN ('self', 'attended')),
    online_bookable  boolean NOT NULL,
    capacity         integer CHECK (capacity BETWEEN 0 AND 1000000),
    latitude         numeric(8, 6) CHECK (latitude BETWEEN -90 AND 90),
    longitude        numeric(9, 6) CHECK (longitude BETWEEN -180 AND 180),
    city             text CHECK (char_length(city) <= 120),
    country_code     text CHECK (country_code ~ '^[A-Z]{2}$'),
    features         text[] NOT NULL DEFAULT '{}' CHECK (cardinality(features) <= 32),
    arrival          jsonb CHECK (jsonb_typeof(arrival) = 'object'),
    media            jsonb CHECK (jsonb_typeof(media) = 'object'),
    min_advance_days integer NOT NULL DEFAULT 0 CHECK (min_advance_days BETWEEN 0 AND 365),
    min_stay_days    integer CHECK (min_stay_days BETWEEN 1 AND 365),
    max_stay_days    integer CHECK (max_stay_days BETWEEN 1 AND 365),
    cancellation_free_until_hours_before_check_in integer
                     CHECK (cancellation_free_until_hours_before_check_in BETWEEN 0 AND 8760),
    cancellation_penalty_percent_after numeric(5, 2)
                     CHECK (cancellation_penalty_percent_after BETWEEN 0 AND 100),
    cancellation_no_show_forfeits_full boolean,
    -- draft (never submitted), pending, approved, superseded (voided by a reviewed change)
    review_state     text NOT NULL DEFAULT 'draft'
                     CHECK (review_state IN ('draft', 'pending', 'approved', 'superseded')),
    -- A person's confirmation of the lot's current zone; withdrawn by every zone change.
    timezone_confirmed boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (operator_id, id),
    UNIQUE (operator_id, external_id),
    CHECK ((latitude IS NULL) = (longitude IS NULL)),
    CHECK (min_stay_days <= max_stay_days),
    CHECK (num_nulls(cancellation_free_until_hours_before_check_in, cancellation_penalty_percent_after,
                     cancellation_no_show_forfeits_full) IN (0, 3))
);

ALTER TABLE app.lots ENABLE ROW LEVEL SECURITY;
ALTER TABLE app.lots FORCE ROW LEVEL SECURITY;
CREATE POLICY "lots belong to the operator in context" ON app.lots
    USING (operator_id = (SELECT nullif(current_setting('app.operator_id', true), '')::uuid));

RESET ROLE;
