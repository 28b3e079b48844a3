-- base64url (RFC 4648 §5) without padding, for tokens that travel in query strings.
CREATE OR REPLACE FUNCTION app.base64url(p_bytes bytea)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT translate(encode(p_bytes, 'base64'), E'+/=\n', '-_');
$$;
REVOKE ALL ON FUNCTION app.base64url(bytea) FROM PUBLIC;

-- The padded standard base64 of a base64url text, for decode().
CREATE OR REPLACE FUNCTION app.base64url_pad(p_text text)
RETURNS text
LANGUAGE sql
IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT translate(p_text, '-_', '+/') || repeat('=', (4 - char_length(p_text) % 4) % 4);
$$;
REVOKE ALL ON FUNCTION app.base64url_pad(text) FROM PUBLIC;
