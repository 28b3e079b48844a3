-- Webhook endpoints (spec: Webhook endpoint, Events → Endpoint rules; docs/design.md): registered
-- and disarmed in the console by an owner or manager, listed by any member; one armed endpoint per
-- operator, never edited; https on port 443 to a DNS host name; secret `whsec_` + 64 lowercase hex,
-- never readable again by any console or API role.
BEGIN;
SELECT plan(79);
SELECT tests.lend_temporary_to_project_roles();

CREATE TEMP TABLE fx AS
SELECT o AS operator, tests.make_member(o, 'owner') AS owner, tests.make_member(o, 'manager') AS manager,
       tests.make_member(o, 'staff') AS staff, tests.make_user() AS stranger
  FROM tests.make_operator('Webhook endpoints') AS o;
GRANT SELECT ON fx TO PUBLIC;
UPDATE app.settings SET value = 'parking.example, .platform.example' WHERE name = 'webhook_platform_domains';

CREATE FUNCTION pg_temp.as_owner() RETURNS void LANGUAGE sql AS $$
    SELECT tests.act_as_console_user(owner, operator) FROM fx;
$$;
CREATE FUNCTION pg_temp.url_refusal(p_url text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.as_owner();
    SELECT coalesce(e.code || ' ' || e.message || ' ' || coalesce(e.detail, '-'), 'accepted')
      FROM tests.error_of(format('SELECT console.webhook_endpoint_register(%L, %L)', p_url, 'whsec_' || repeat('0a', 32))) AS e;
$$;

-- The URL -----------------------------------------------------------------------------------------------

SELECT is(pg_temp.url_refusal(u), 'PT422 invalid_webhook_endpoint p_url', 'refused: ' || d)
  FROM (VALUES
    (NULL, 'no URL'),
    ('', 'an empty URL'),
    ('http://hooks.example.com/in', 'http'),
    ('ftp://hooks.example.com/in', 'another scheme'),
    ('https://hooks.example.com:8443/in', 'a port other than 443'),
    ('https://hooks.example.com:/in', 'an empty port'),
    ('https://user:pass@hooks.example.com/in', 'userinfo'),
    ('https://hooks.example.com@evil.example/in', 'userinfo hiding the real host'),
    ('https://203.0.113.7/in', 'an IPv4 literal'),
    ('https://0x7f.0.0.1/in', 'an IPv4 literal in another spelling'),
    ('https://2130706433/in', 'an IPv4 literal as one number'),
    -- Every host the WHATWG URL parser reads as an IPv4 address ("ends in a number": the last label
    -- all digits, or 0x/0X and hex digits), in each of its spellings.
    ('https://127.1/in', 'an IPv4 literal of two parts'),
    ('https://10.0.1/in', 'an IPv4 literal of three parts'),
    ('https://0177.0.0.1/in', 'an IPv4 literal in octal'),
    ('https://0x7f.0x0.0x0.0x1/in', 'an IPv4 literal in hex, every part'),
    ('https://0x7f.0x1/in', 'an IPv4 literal in hex, two parts'),
    ('https://0X7F.0X1/in', 'an IPv4 literal in hex, in capitals'),
    ('https://1.2.3.0x4/in', 'an IPv4 literal whose last part only is hex'),
    ('https://127.0.0.0x/in', 'an IPv4 literal whose last part is 0x alone (zero)'),
    ('https://4294967295/in', 'an IPv4 literal as one decimal number'),
    ('https://0x7f000001/in', 'an IPv4 literal as one hex number'),
    ('https://127.1./in', 'an IPv4 literal of two parts with a trailing dot'),
    ('https://0x7f.0x1./in', 'an IPv4 literal in hex with a trailing dot'),
    ('https://hooks.example.0x1f/in', 'a name whose last label is a hex number (no host for WHATWG)'),
    ('https://[2001:db8::1]/in', 'an IPv6 literal'),
    ('https://localhost/in', 'localhost'),
    ('https://hooks.localhost/in', 'a name under localhost'),
    ('https://LOCALHOST/in', 'localhost in capitals'),
    ('https://intranet/in', 'a single-label name'),
    ('https://hooks.example.com./in', 'a trailing dot'),
    ('https://hooks..example.com/in', 'an empty label'),
    ('https://-hooks.example.com/in', 'a label starting with a hyphen'),
    ('https://hooks_1.example.com/in', 'an underscore in the host'),
    ('https://h%6Foks.example.com/in', 'a percent-encoded host'),
    ('https://hööks.example.com/in', 'a host that is not ASCII'),
    ('https://hooks.example.com/in#part', 'a fragment'),
    ('https://hooks.example.com/in put', 'a space'),
    ('https://hooks.example.com/a<b>', 'angle brackets in the path'),
    ('https://hooks.example.com/in?q="x"', 'a double quote in the query'),
    ('https://hooks.example.com/a`b', 'a backtick'),
    ('https://hooks.example.com/a%zz', 'a bare percent sign'),
    ('https://' || repeat('a', 63) || '.' || repeat('b', 63) || '.' || repeat('c', 63) || '.' || repeat('d', 63) || '.com/', 'a host over 253 characters'),
    ('https://' || repeat('a', 64) || '.example.com/', 'a label over 63 characters'),
    ('https://hooks.example.com/' || repeat('p', 2048 - 26 + 1), 'a URL over 2048 characters'),
    ('https://parking.example/in', 'a platform domain'),
    ('https://api.parking.example/in', 'a name under a platform domain'),
    ('https://a.b.platform.example/in', 'a name under a platform domain given with a leading dot')
  ) AS v(u, d);

SELECT is(pg_temp.url_refusal('https://hooks.example.com/' || repeat('p', 2048 - 26)), 'accepted',
          'accepted: a URL of exactly 2048 characters');
SELECT pg_temp.as_owner();
SELECT is((SELECT count(*) FROM console.webhook_endpoint_disarm()), 1::bigint, 'the endpoint just registered is disarmed');
SELECT is(pg_temp.url_refusal('https://hooks.example.com/a%2Fb;x=1,y@z:w/?q=a+b&r=(1)*!$''~'), 'accepted',
          'accepted: every RFC 3986 path and query character');
SELECT pg_temp.as_owner();
SELECT is((SELECT count(*) FROM console.webhook_endpoint_disarm()), 1::bigint, '… and disarmed');

-- A name that only looks like a number in places is a name: accepted (each then disarmed).
CREATE FUNCTION pg_temp.accepted_then_disarmed(p_url text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_outcome text := pg_temp.url_refusal(p_url);
BEGIN
    PERFORM pg_temp.as_owner();
    RETURN v_outcome || ', ' || (SELECT count(*) FROM console.webhook_endpoint_disarm()) || ' disarmed';
END
$$;
SELECT is(pg_temp.accepted_then_disarmed(u), 'accepted, 1 disarmed', 'accepted: ' || d)
  FROM (VALUES
    ('https://0xcafe.example.com/in', 'a hex-looking first label'),
    ('https://api.v2.example/in', 'a label of a letter and a digit'),
    ('https://127.0.0.1.example.com/in', 'an IPv4 address under a domain'),
    ('https://hooks.example.0xg/in', 'a last label of 0x and a letter that is not hex'),
    ('https://hooks.example.x0/in', 'a last label that is not 0x and hex')
  ) AS v(u, d);

SELECT pg_temp.as_owner();
SELECT results_eq(
    $$SELECT url, created_at = now() FROM console.webhook_endpoint_register('HTTPS://Hooks.Example.COM:443/in?x=1', 'whsec_' || repeat('0a', 32))$$,
    $$VALUES ('HTTPS://Hooks.Example.COM:443/in?x=1', true)$$,
    'an owner registers https with an explicit port 443, any letter case, a path and a query; the URL is kept as sent');
SELECT tests.act_as_superuser();
SELECT is((SELECT host FROM app.webhook_endpoints WHERE disarmed_at IS NULL), 'hooks.example.com',
          'the host is kept lower-cased for the worker');
SELECT is(pg_temp.url_refusal('https://second.example.com/in'), 'PT422 invalid_webhook_endpoint -',
          'a second endpoint is refused while one is armed (no DETAIL)');

-- The secret -------------------------------------------------------------------------------------------

SELECT pg_temp.as_owner();
SELECT is((SELECT count(*) FROM console.webhook_endpoint_disarm()), 1::bigint, 'disarming answers the armed endpoint');
SELECT pg_temp.as_owner();
SELECT is_empty('SELECT * FROM console.webhook_endpoint_disarm()', 'disarming again answers nothing');

CREATE FUNCTION pg_temp.secret_refusal(p_secret text) RETURNS text LANGUAGE sql AS $$
    SELECT pg_temp.as_owner();
    SELECT coalesce(e.code || ' ' || e.message || ' ' || coalesce(e.detail, '-'), 'accepted')
      FROM tests.error_of(format('SELECT console.webhook_endpoint_register(%L, %L)', 'https://hooks.example.com/in', p_secret)) AS e;
$$;
SELECT is(pg_temp.secret_refusal(s), 'PT422 invalid_webhook_endpoint p_secret', 'refused secret: ' || d)
  FROM (VALUES
    (NULL, 'none'),
    ('', 'empty'),
    ('whsec_' || repeat('0a', 31) || '0', '63 hex digits'),
    ('whsec_' || repeat('0a', 32) || '0', '65 hex digits'),
    ('whsec_' || repeat('0A', 32), 'upper-case hex'),
    ('WHSEC_' || repeat('0a', 32), 'an upper-case prefix'),
    ('pk_sec_' || repeat('0a', 32), 'another prefix'),
    (' whsec_' || repeat('0a', 32), 'surrounding space')
  ) AS v(s, d);

-- Who may ----------------------------------------------------------------------------------------------

SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT tests.refuses($$SELECT console.webhook_endpoint_register('https://hooks.example.com/in', 'whsec_' || repeat('0a', 32))$$,
                     'PT403', 'forbidden', NULL, 'a staff member cannot register');
SELECT tests.act_as_console_user(stranger, operator) FROM fx;
SELECT tests.refuses($$SELECT console.webhook_endpoint_register('https://hooks.example.com/in', 'whsec_' || repeat('0a', 32))$$,
                     'PT403', 'forbidden', NULL, 'a user who is not a member cannot register');
SELECT tests.act_as_console_user(manager, operator) FROM fx;
SELECT is((SELECT count(*) FROM console.webhook_endpoint_register('https://hooks.example.com/in', 'whsec_' || repeat('0b', 32))),
          1::bigint, 'a manager registers');
SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT tests.refuses('SELECT console.webhook_endpoint_disarm()', 'PT403', 'forbidden', NULL, 'a staff member cannot disarm');
SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT is_empty('SELECT * FROM console.webhook_deliveries()', 'a staff member reads the deliveries (none yet)');
SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT tests.refuses('SELECT console.webhook_deliveries(0)', 'PT422', 'invalid_parameter', 'p_limit', 'deliveries: p_limit 0 is refused');
SELECT tests.act_as_console_user(staff, operator) FROM fx;
SELECT tests.refuses('SELECT console.webhook_deliveries(501)', 'PT422', 'invalid_parameter', 'p_limit', 'deliveries: p_limit 501 is refused');
SELECT tests.act_as_console_user(stranger, operator) FROM fx;
SELECT tests.refuses('SELECT console.webhook_deliveries()', 'PT403', 'forbidden', NULL, 'a user who is not a member cannot read the deliveries');

-- The secret is never readable again ----------------------------------------------------------------------

SELECT tests.act_as_superuser();
SELECT is_empty(
    $$SELECT p.oid::regprocedure
        FROM pg_proc AS p
       WHERE p.pronamespace IN ('api'::regnamespace, 'console'::regnamespace, 'platform'::regnamespace)
         AND 'secret' = ANY (p.proargnames)
         AND p.oid <> 'console.api_credential_issue(text, text[], integer)'::regprocedure$$,
    'no console, API or platform function answers a column named secret (but the credential issue''s own, once)');
SELECT is(
    ARRAY(SELECT r.rolname::text FROM pg_roles AS r
           WHERE has_function_privilege(r.oid, 'webhook.claim_due_hints(integer, integer, integer)', 'EXECUTE')
             AND NOT r.rolsuper AND r.rolname <> 'ingest_owner'),
    ARRAY['webhook_worker'],
    'only the worker''s login may call the one function that hands out a webhook secret');

SELECT * FROM finish();
ROLLBACK;
