-- Signed tokens, for what the database hands out and must recognise again (the bookings cursor, the
-- read assertion): base64url(payload) "." base64url(signature), base64url as RFC 4648 §5 without
-- padding (they travel in query strings). A token is recognised only in the one spelling issued: the
-- last character of a base64 text carries spare bits that decode() ignores, so several spellings
-- decode to the same bytes; the caller compares the whole token with the one it would issue
-- (app.constant_time_equals), which checks the signature and the spelling at once.
--
-- PL/pgSQL, not SQL, though each is one expression: the feed calls them on every page, and a SQL
-- function with a SET clause is never inlined but parsed and planned again at every call, where
-- PL/pgSQL keeps its plans for the session (bench/FINDINGS.md).

CREATE OR REPLACE FUNCTION app.base64url(p_bytes bytea)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN translate(encode(p_bytes, 'base64'), E'+/=\n', '-_');
END
$$;
REVOKE ALL ON FUNCTION app.base64url(bytea) FROM PUBLIC;

-- The padded standard base64 of a base64url text, for decode().
CREATE OR REPLACE FUNCTION app.base64url_pad(p_text text)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN translate(p_text, '-_', '+/') || repeat('=', (4 - char_length(p_text) % 4) % 4);
END
$$;
REVOKE ALL ON FUNCTION app.base64url_pad(text) FROM PUBLIC;

-- A payload's signature: HMAC-SHA256 under the server secret p_key_name (app.server_secrets: readable
-- by the owner's functions only). Each kind of token has its own key.
CREATE OR REPLACE FUNCTION app.signed_token_signature(p_key_name text, p_payload text)
RETURNS bytea
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN extensions.hmac(convert_to(p_payload, 'UTF8'),
                           (SELECT s.value FROM app.server_secrets AS s WHERE s.name = p_key_name),
                           'sha256');
END
$$;
REVOKE ALL ON FUNCTION app.signed_token_signature(text, text) FROM PUBLIC;

-- The token of a payload and its signature.
CREATE OR REPLACE FUNCTION app.signed_token(p_payload text, p_signature bytea)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN app.base64url(convert_to(p_payload, 'UTF8')) || '.' || app.base64url(p_signature);
END
$$;
REVOKE ALL ON FUNCTION app.signed_token(text, bytea) FROM PUBLIC;

-- Whether p_token is exactly the token of p_payload signed p_signature: the signature and the one
-- spelling issued at once, compared in constant time. False when any part is NULL.
CREATE OR REPLACE FUNCTION app.signed_token_matches(p_token text, p_payload text, p_signature bytea)
RETURNS boolean
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN coalesce(app.constant_time_equals(convert_to(p_token, 'UTF8'),
                                             convert_to(app.signed_token(p_payload, p_signature), 'UTF8')), false);
END
$$;
REVOKE ALL ON FUNCTION app.signed_token_matches(text, text, bytea) FROM PUBLIC;

-- The payload half of a token of at most p_max_length characters (before the first dot), when
-- decode() takes it (base64url, and no length of 4n + 1); else NULL. Its bytes as text by the escape
-- encoding: a byte outside ASCII or a backslash comes out as a backslash sequence, which the
-- caller's payload pattern refuses (no conversion error to catch). Not checked: the signature.
CREATE OR REPLACE FUNCTION app.signed_token_payload(p_token text, p_max_length integer)
RETURNS text
LANGUAGE plpgsql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_head constant text := CASE WHEN char_length(p_token) <= p_max_length THEN split_part(p_token, '.', 1) END;
BEGIN
    -- (plain patterns and length checks: a bounded repetition such as {43} costs PostgreSQL's
    -- regular expressions tens of microseconds a match)
    IF v_head ~ '^[A-Za-z0-9_-]+$' AND char_length(v_head) % 4 <> 1 THEN
        RETURN encode(decode(app.base64url_pad(v_head), 'base64'), 'escape');
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.signed_token_payload(text, integer) FROM PUBLIC;
