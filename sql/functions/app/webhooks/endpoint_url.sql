-- The host name of a webhook endpoint URL, lower-cased, or PT422 invalid_webhook_endpoint with
-- DETAIL p_url. The rules (spec: Endpoint rules; docs/design.md):
--   https only (scheme in any letter case), port absent or 443, no userinfo, no fragment, at most
--   2048 characters; a path and query of RFC 3986 characters only (`<`, `>`, `"`, a backtick, a
--   bare `%` are refused);
--   the host a DNS name: two or more labels of letters, digits and hyphens (1-63 each, no hyphen at
--   either end, 253 characters in all, no trailing dot), the last label neither all digits nor
--   `0x` followed by hex digits (or nothing): the WHATWG URL parser's "ends in a number" rule, so
--   no host that it (or inet_aton) reads as an IPv4 address, in any spelling (`127.1`,
--   `0177.0.0.1`, `0x7f.0x1`, …); an IPv6 literal's brackets are refused as they are;
--   not `localhost` nor a name under it, nor a platform domain (app.settings
--   `webhook_platform_domains`, read by app.webhook_platform_domains) nor a name under one.
CREATE OR REPLACE FUNCTION app.webhook_endpoint_host(p_url text)
RETURNS text
LANGUAGE plpgsql
STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c_label constant text := '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
    v_parts text[];
    v_host text;
    v_platform_domains text[];
BEGIN
    -- Printable ASCII; a `%` only as a percent-escape of two hex digits.
    IF p_url IS NULL OR char_length(p_url) > 2048 OR p_url !~ '^[!-~]+$' OR p_url ~ '%(?![0-9A-Fa-f]{2})' THEN
        PERFORM app.refuse(422, 'invalid_webhook_endpoint', 'p_url');
    END IF;
    -- scheme, authority (host and optional port), then an optional path and query of RFC 3986's
    -- characters only (unreserved, percent-escapes, sub-delims, ':', '@', '/', '?'): what an HTTP
    -- request line can carry as it is.
    v_parts := regexp_match(p_url, '^[Hh][Tt][Tt][Pp][Ss]://([^/?#@]+?)(:443)?([/?][A-Za-z0-9._~!$&''()*+,;=:@/?%-]*)?$');
    v_host := lower(v_parts[1]);
    IF v_host IS NULL
       OR char_length(v_host) > 253
       OR v_host !~ ('^' || c_label || '(\.' || c_label || ')+$')
       -- (lower-cased: `0X` is `0x` here)
       OR v_host ~ '(^|\.)([0-9]+|0x[0-9a-f]*)$'
       OR v_host = 'localhost' OR v_host LIKE '%.localhost' THEN
        PERFORM app.refuse(422, 'invalid_webhook_endpoint', 'p_url');
    END IF;
    v_platform_domains := app.webhook_platform_domains();
    IF EXISTS (SELECT FROM unnest(v_platform_domains) AS d
                WHERE v_host = d OR right(v_host, char_length(d) + 1) = '.' || d) THEN
        PERFORM app.refuse(422, 'invalid_webhook_endpoint', 'p_url');
    END IF;
    RETURN v_host;
END
$$;
REVOKE ALL ON FUNCTION app.webhook_endpoint_host(text) FROM PUBLIC;
