-- The lot's fields, once, in the order of the spec's field table (the order fields are checked in,
-- and the order of `changed`). Each field's
--   name       as `changed` lists it, and as its column is named;
--   body_path  where the write body carries it (the cancellation keys sit in one object);
--   kind       how its value is read (app.lot_from_body), with min_value/max_value (a range, a
--              text's or a list's length), choices (the allowed strings) and default_value (for
--              absent or null) where the kind takes them;
--   required   whether absent or null is refused (`missing_field`);
--   rules_before  the rules between fields that run just before it is read, once every field they
--              read has been read (app.lot_rule_between_fields);
--   reviewed   whether a change to it voids a pending or approved listing review;
--   description  what a client must know of it, as the published OpenAPI document says it.
-- The unchanged-body shortcut (app.lot_body_digest) holds only while reading a lot depends on
-- nothing but the body text, the operator's media folder and the deployed rules: a rule added here
-- must read only those (see app.lot_from_body).
-- The body's keys, the reader, the diff, `changed` and the review voiding all come from here; the
-- read form's keys are checked against it (sql/tests/10-lot-write-and-diff.sql). The OpenAPI
-- document's lot schemas are read off this function's text (gateway/src/registry.rs; keep its rows
-- plain literals), and a test compares them with what PostgreSQL returns. PL/pgSQL rather than
-- SQL: its plan is kept for the session, where a SQL function's VALUES is planned again at every call
-- (and a write reads the registry several times).
CREATE OR REPLACE FUNCTION app.lot_fields()
RETURNS TABLE (
    ordinal integer, name text, body_path text[], kind text, required boolean, min_value numeric,
    max_value numeric, choices text[], default_value jsonb, rules_before text[], reviewed boolean,
    description text)
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY VALUES
        (1, 'name', '{name}'::text[], 'text', true, NULL::numeric, 200::numeric, NULL::text[], NULL::jsonb, NULL::text[], true,
            'The lot''s name. Blank counts as absent (`missing_field`).'),
        (2, 'timezone', '{timezone}', 'zone', true, NULL, 64, NULL, NULL, NULL, true,
            'An IANA time zone or link name (tzdata), else `invalid_timezone`. Every day boundary of the lot is computed in it. A change withdraws the person''s confirmation of the zone: the lot takes no new booking until it is confirmed again in the console.'),
        (3, 'handover', '{handover}', 'choice', true, NULL, NULL, '{self,attended}', NULL, NULL, true,
            'How a car is handed over: `self` or `attended`.'),
        (4, 'online_bookable', '{online_bookable}', 'boolean', true, NULL, NULL, NULL, NULL, NULL, false,
            'The sales switch, required on every PUT. Not reviewed: turning it off takes the lot off sale without voiding anything.'),
        (5, 'capacity', '{capacity}', 'integer', false, 0, 1000000, NULL, NULL, NULL, true,
            'TOTAL spaces, never spaces free tonight. A lot takes no booking and cannot list until it is above zero.'),
        (6, 'latitude', '{latitude}', 'coordinate', false, -90, 90, NULL, NULL, '{coordinates_paired}', true,
            'Decimal degrees, -90..90, as a JSON number or a decimal string; rounded to 6 decimals (the read form trims trailing zeros). Sent together with longitude or not at all. Out of range, not a number, or one without the other: `invalid_coordinates`.'),
        (7, 'longitude', '{longitude}', 'coordinate', false, -180, 180, NULL, NULL, NULL, true,
            'Decimal degrees, -180..180, as a JSON number or a decimal string; rounded to 6 decimals. Sent together with latitude or not at all (`invalid_coordinates`).'),
        (8, 'city', '{city}', 'text', false, NULL, 120, NULL, NULL, NULL, true,
            'The city the lot is in.'),
        (9, 'country_code', '{country_code}', 'country', false, NULL, NULL, NULL, NULL, NULL, true,
            'ISO 3166-1 alpha-2 in any letter case, surrounding white space tolerated; stored upper-case. Not an assigned code: `invalid_country_code`.'),
        (10, 'features', '{features}', 'choice_set', false, NULL, 32,
            '{indoor,security,cameras,gate_automation,plate_recognition,ev_charging,disabled_access,oversize_vehicle,valet}',
            '[]', NULL, true,
            'A set: sorted and de-duplicated before storing, so order never counts as a change. Null or absent stores the empty list.'),
        (11, 'arrival', '{arrival}', 'arrival', false, NULL, NULL, NULL, NULL, NULL, true,
            'Arrival guidance, stored as sent: an object of at most 16 KiB of compact JSON. Recognised keys: `entrance`, `access`, `gateWindow` (any one satisfies the listing requirement lot_arrival_guidance), `streetAddress`, `parkingLevel` and `transfer` (an object with `line`, `first`, `last`, `frequencyMinutes`, `pickupPoint`); other keys are kept. Prose members are a string or an object keyed by language tag.'),
        (12, 'media', '{media}', 'media', false, NULL, NULL, NULL, NULL, NULL, true,
            'Photos: an object of at most 16 KiB of compact JSON. `heroUrl`: a string (an https address satisfies the listing requirement lot_hero_image; an http one does not). `galleryUrls`: an array of strings. The media rule: every string anywhere in it that contains `lot-media` (read percent-decoded, backslashes read as slashes) must have `/<your operator folder>/` directly after each occurrence, and no `.` or `..` segment after it; otherwise nothing is stored and the answer is 422 `invalid_body`, field `media`. Travellers see only photos of the platform''s own photo store; a hero address elsewhere satisfies the requirement but shows a placeholder.'),
        (13, 'min_advance_days', '{min_advance_days}', 'integer', false, 0, 365, NULL, '0', NULL, true,
            'Days in advance a booking must be made. Absent or null stores 0.'),
        (14, 'min_stay_days', '{min_stay_days}', 'integer', false, 1, 365, NULL, NULL, NULL, true,
            'Shortest stay in days. Above max_stay_days (both set): `invalid_stay_bounds`, field `min_stay_days`.'),
        (15, 'max_stay_days', '{max_stay_days}', 'integer', false, 1, 365, NULL, NULL, NULL, true,
            'Longest stay in days; 365 is how far ahead stays are quoted.'),
        (16, 'cancellation_free_until_hours_before_check_in', '{cancellation,free_until_hours_before_check_in}',
            'integer', false, 0, 8760, NULL, NULL, '{stay_bounds,cancellation_complete}', true,
            'Hours before check-in until which the operator''s own cancellation is free.'),
        (17, 'cancellation_penalty_percent_after', '{cancellation,penalty_percent_after}', 'money', false, NULL, 100,
            NULL, NULL, NULL, true,
            'Percent of the price kept after that, 0..100, two decimals: a JSON number or a decimal string; a third non-zero decimal is refused, never rounded. The read form always has two decimals.'),
        (18, 'cancellation_no_show_forfeits_full', '{cancellation,no_show_forfeits_full}', 'boolean', false, NULL,
            NULL, NULL, NULL, NULL, true,
            'Whether a no-show forfeits the full price.');
END
$$;
REVOKE ALL ON FUNCTION app.lot_fields() FROM PUBLIC;
