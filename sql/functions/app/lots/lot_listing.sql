-- Whether a lot can sell, and why not.
--
-- Content requirements the API can satisfy, in this order (docs/reference/sql-interfaces.md):
-- lot_capacity (above zero), lot_price_in_force (a marketplace envelope whose validity window holds
-- today on the lot's own calendar), lot_map_pin (coordinates), lot_city_country (a city that is not
-- blank, and a country), lot_arrival_guidance (entrance, access or gateWindow with some text),
-- lot_hero_image (media.heroUrl an https address).
CREATE OR REPLACE FUNCTION app.lot_unmet_requirements(p_lot app.lots)
RETURNS text[]
LANGUAGE sql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY(
        SELECT r.name
          FROM (VALUES
                (1, 'lot_capacity', coalesce(p_lot.capacity, 0) > 0),
                (2, 'lot_price_in_force', EXISTS (
                    SELECT
                      FROM app.lot_rates AS r
                     WHERE r.operator_id = p_lot.operator_id AND r.lot_id = p_lot.id AND r.channel = 'marketplace'
                       AND (now() AT TIME ZONE p_lot.timezone)::date
                           BETWEEN coalesce(r.valid_from, '-infinity') AND coalesce(r.valid_to, 'infinity'))),
                (3, 'lot_map_pin', p_lot.latitude IS NOT NULL AND p_lot.longitude IS NOT NULL),
                (4, 'lot_city_country', NOT coalesce(app.is_blank(p_lot.city), true) AND p_lot.country_code IS NOT NULL),
                (5, 'lot_arrival_guidance', EXISTS (
                    SELECT
                      FROM jsonb_each(coalesce(p_lot.arrival, '{}')) AS m
                     WHERE m.key IN ('entrance', 'access', 'gateWindow')
                       AND (   (jsonb_typeof(m.value) = 'string' AND NOT app.is_blank(m.value #>> '{}'))
                            OR (jsonb_typeof(m.value) = 'object' AND EXISTS (
                                   SELECT FROM jsonb_each(m.value) AS t
                                    WHERE jsonb_typeof(t.value) = 'string' AND NOT app.is_blank(t.value #>> '{}')))))),
                (6, 'lot_hero_image', jsonb_typeof(p_lot.media -> 'heroUrl') = 'string'
                                      AND (p_lot.media ->> 'heroUrl') ~ ('^[Hh][Tt][Tt][Pp][Ss]://[^/?#@' || app.white_space_class() || ']+([/?#]|$)'))
               ) AS r(ordinal, name, met)
         WHERE NOT coalesce(r.met, false)
         ORDER BY r.ordinal);
$$;
REVOKE ALL ON FUNCTION app.lot_unmet_requirements(app.lots) FROM PUBLIC;

-- The listing status the console and the platform show: review_state, timezone_confirmed,
-- online_bookable, selling, unmet. A lot sells when it is online_bookable, its review is approved,
-- its zone confirmed, its account active, able to pay out and bound by the listing agreement, and
-- no content requirement is unmet. Runs under the lot's operator context.
CREATE OR REPLACE FUNCTION app.lot_listing_status(p_operator_id uuid, p_external_id text)
RETURNS jsonb
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_lot app.lots;
    v_operator app.operators;
    v_unmet text[];
BEGIN
    v_lot := app.named_lot(p_operator_id, p_external_id);
    SELECT * INTO v_operator FROM app.operators AS o WHERE o.id = p_operator_id;
    v_unmet := app.lot_unmet_requirements(v_lot);
    RETURN jsonb_build_object(
        'review_state', v_lot.review_state,
        'timezone_confirmed', v_lot.timezone_confirmed,
        'online_bookable', v_lot.online_bookable,
        'selling', v_lot.online_bookable
                   AND v_lot.review_state = 'approved'
                   AND v_lot.timezone_confirmed
                   AND v_operator.status = 'active'
                   AND v_operator.can_pay_out
                   AND v_operator.listing_agreement_accepted_at IS NOT NULL
                   AND cardinality(v_unmet) = 0,
        'unmet', to_jsonb(v_unmet));
END
$$;
REVOKE ALL ON FUNCTION app.lot_listing_status(uuid, text) FROM PUBLIC;
