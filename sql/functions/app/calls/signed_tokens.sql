-- Signed tokens, for what the database hands out and must recognise again (the bookings cursor, the
-- read assertion): base64url(payload) "." base64url(HMAC-SHA256(key, payload || bound_to)),
-- base64url as RFC 4648 §5 without padding (they travel in query strings). The key is a server
-- secret (app.server_secrets: readable by the owner's functions only), one per kind of token;
-- bound_to is what else the signature covers (the cursor's operator), '' for nothing.
--
-- A token is recognised only in the one spelling issued: the last character of a base64 text
-- carries spare bits that decode() ignores, so several spellings decode to the same bytes. The
-- whole token is compared with the one that would be issued for its payload, which checks the
-- signature and the spelling at once.
--
-- PL/pgSQL, each one function with no call inside but what it must make: the feed checks a cursor
-- on nearly every poll, and each nested call of a function with a SET clause costs the poll several
-- microseconds (bench/FINDINGS.md, "Fewer calls on the poll").

-- The token of p_payload under the key p_key_name, bound to p_bound_to.
CREATE OR REPLACE FUNCTION app.signed_token(p_key_name text, p_payload text, p_bound_to text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- (one translate for both halves: '.' is not among the characters it maps; base64's line
    -- breaks and padding are dropped)
    RETURN translate(
        encode(convert_to(p_payload, 'UTF8'), 'base64') || '.'
        || encode(extensions.hmac(convert_to(p_payload || p_bound_to, 'UTF8'),
                                  (SELECT s.value FROM app.server_secrets AS s WHERE s.name = p_key_name),
                                  'sha256'), 'base64'),
        E'+/=\n', '-_');
END
$$;
REVOKE ALL ON FUNCTION app.signed_token(text, text, text) FROM PUBLIC;

-- The payload of p_token when p_token (at most p_max_length characters) is exactly the token
-- app.signed_token issues for that payload with the same key and binding; else NULL. The payload's
-- bytes are read as text by the escape encoding, so a byte outside ASCII or a backslash comes out
-- as a backslash sequence, whose token is another: such a payload is never returned (no conversion
-- error to catch). Compared in constant time (app.constant_time_equals).
CREATE OR REPLACE FUNCTION app.signed_token_payload(p_key_name text, p_token text, p_max_length integer, p_bound_to text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_head constant text := CASE WHEN char_length(p_token) <= p_max_length THEN split_part(p_token, '.', 1) END;
    v_payload text;
BEGIN
    -- (plain patterns and length checks: a bounded repetition such as {43} costs PostgreSQL's
    -- regular expressions tens of microseconds a match; a length of 4n + 1 decode() refuses)
    IF v_head ~ '^[A-Za-z0-9_-]+$' AND char_length(v_head) % 4 <> 1 THEN
        v_payload := encode(decode(translate(v_head, '-_', '+/') || repeat('=', (4 - char_length(v_head) % 4) % 4),
                                   'base64'),
                            'escape');
        IF app.constant_time_equals(convert_to(p_token, 'UTF8'),
                                    convert_to(app.signed_token(p_key_name, v_payload, p_bound_to), 'UTF8')) THEN
            RETURN v_payload;
        END IF;
    END IF;
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION app.signed_token_payload(text, text, integer, text) FROM PUBLIC;
