-- The digest app.lot_write keeps of the body text whose write produced a lot's fields
-- (app.lots.accepted_body_digest, V11): SHA-256 over the rules fingerprint (app.deployed_rules), the
-- operator's media folder (the media rule reads it) and the text as sent. NULL, so matching nothing,
-- before `ingest migrate` has written a fingerprint.
-- PL/pgSQL: a SQL function with SET is planned again at every call.
CREATE OR REPLACE FUNCTION app.lot_body_digest(p_media_folder text, p_body text)
RETURNS bytea
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN (SELECT sha256(d.fingerprint || convert_to(p_media_folder, 'UTF8') || '\x00'::bytea || convert_to(p_body, 'UTF8'))
              FROM app.deployed_rules AS d);
END
$$;
REVOKE ALL ON FUNCTION app.lot_body_digest(text, text) FROM PUBLIC;

-- Any writer of a lot's body fields other than app.lot_write (which sets the digest with the fields)
-- voids the stored digest, so that the next PUT of that text is read in full again.
CREATE OR REPLACE FUNCTION app.lot_body_digest_void()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF cardinality(app.lot_changes(OLD, NEW)) > 0 THEN
        NEW.accepted_body_digest := NULL;
    END IF;
    RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION app.lot_body_digest_void() FROM PUBLIC;
CREATE OR REPLACE TRIGGER lot_body_digest_void BEFORE UPDATE ON app.lots
    FOR EACH ROW
    WHEN (OLD.accepted_body_digest IS NOT NULL AND NEW.accepted_body_digest = OLD.accepted_body_digest)
    EXECUTE FUNCTION app.lot_body_digest_void();
