-- The two free-form objects of a lot. Both: an object or null, at most 16 KiB of compact JSON,
-- stored as sent.

-- arrival: recognised keys entrance, access, gateWindow, streetAddress, parkingLevel, transfer;
-- other keys are kept. Content is the operator's prose and is not judged here; the listing
-- requirement lot_arrival_guidance reads it (app.lot_unmet_requirements).
CREATE OR REPLACE FUNCTION app.lot_arrival(p_value jsonb)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF app.json_absent(p_value) THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) <> 'object' OR app.json_compact_longer_than(p_value, 16384) THEN
        PERFORM app.refuse(422, 'invalid_body', 'arrival');
    END IF;
    RETURN p_value;
END
$$;
REVOKE ALL ON FUNCTION app.lot_arrival(jsonb) FROM PUBLIC;

-- media: heroUrl (a string) and galleryUrls (an array of strings) where present, and the media
-- rule over every string (app.media_follows_rule). Every refusal names the field `media`.
CREATE OR REPLACE FUNCTION app.lot_media(p_value jsonb, p_media_folder text)
RETURNS jsonb
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF app.json_absent(p_value) THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(p_value) <> 'object'
       OR app.json_compact_longer_than(p_value, 16384)
       OR coalesce(jsonb_typeof(p_value -> 'heroUrl'), 'null') NOT IN ('string', 'null')
       OR coalesce(jsonb_typeof(p_value -> 'galleryUrls'), 'null') NOT IN ('array', 'null')
       OR EXISTS (SELECT FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_value -> 'galleryUrls') = 'array'
                                                        THEN p_value -> 'galleryUrls' ELSE '[]' END) AS u
                   WHERE jsonb_typeof(u) <> 'string')
       OR NOT app.media_follows_rule(p_value, p_media_folder) THEN
        PERFORM app.refuse(422, 'invalid_body', 'media');
    END IF;
    RETURN p_value;
END
$$;
REVOKE ALL ON FUNCTION app.lot_media(jsonb, text) FROM PUBLIC;
